// The translation unit that builds a test folder's precompiled header (tests/CMakeLists.txt,
// attn_test_pch_target); the header is all it compiles.
