// The tensor types of ggml (llama.cpp's library), as GGUF files number them: how many values a
// block holds and how many bytes it takes. A row of n values of a block type is n / block_size
// blocks, stored one after another. The numbers are ggml's (ggml.h's enum ggml_type and the
// type_traits table of ggml.c); types it has removed keep their numbers unused.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn {

enum class GgmlType : std::uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    Q8_K = 15,
    IQ2_XXS = 16,
    IQ2_XS = 17,
    IQ3_XXS = 18,
    IQ1_S = 19,
    IQ4_NL = 20,
    IQ3_S = 21,
    IQ2_S = 22,
    IQ4_XS = 23,
    I8 = 24,
    I16 = 25,
    I32 = 26,
    I64 = 27,
    F64 = 28,
    IQ1_M = 29,
    BF16 = 30,
    TQ1_0 = 34,
    TQ2_0 = 35,
    MXFP4 = 39,
};

struct GgmlTypeTraits {
    const char* name = nullptr;    // null: a number ggml does not (or no longer) use
    std::uint32_t block_size = 0;  // values per block
    std::uint32_t type_size = 0;   // bytes per block
};

constexpr GgmlTypeTraits ggml_type_traits(std::uint32_t type) {
    switch (static_cast<GgmlType>(type)) {
        case GgmlType::F32:
            return {"F32", 1, 4};
        case GgmlType::F16:
            return {"F16", 1, 2};
        case GgmlType::Q4_0:
            return {"Q4_0", 32, 18};
        case GgmlType::Q4_1:
            return {"Q4_1", 32, 20};
        case GgmlType::Q5_0:
            return {"Q5_0", 32, 22};
        case GgmlType::Q5_1:
            return {"Q5_1", 32, 24};
        case GgmlType::Q8_0:
            return {"Q8_0", 32, 34};
        case GgmlType::Q8_1:
            return {"Q8_1", 32, 36};
        case GgmlType::Q2_K:
            return {"Q2_K", 256, 84};
        case GgmlType::Q3_K:
            return {"Q3_K", 256, 110};
        case GgmlType::Q4_K:
            return {"Q4_K", 256, 144};
        case GgmlType::Q5_K:
            return {"Q5_K", 256, 176};
        case GgmlType::Q6_K:
            return {"Q6_K", 256, 210};
        case GgmlType::Q8_K:
            return {"Q8_K", 256, 292};
        case GgmlType::IQ2_XXS:
            return {"IQ2_XXS", 256, 66};
        case GgmlType::IQ2_XS:
            return {"IQ2_XS", 256, 74};
        case GgmlType::IQ3_XXS:
            return {"IQ3_XXS", 256, 98};
        case GgmlType::IQ1_S:
            return {"IQ1_S", 256, 50};
        case GgmlType::IQ4_NL:
            return {"IQ4_NL", 32, 18};
        case GgmlType::IQ3_S:
            return {"IQ3_S", 256, 110};
        case GgmlType::IQ2_S:
            return {"IQ2_S", 256, 82};
        case GgmlType::IQ4_XS:
            return {"IQ4_XS", 256, 136};
        case GgmlType::I8:
            return {"I8", 1, 1};
        case GgmlType::I16:
            return {"I16", 1, 2};
        case GgmlType::I32:
            return {"I32", 1, 4};
        case GgmlType::I64:
            return {"I64", 1, 8};
        case GgmlType::F64:
            return {"F64", 1, 8};
        case GgmlType::IQ1_M:
            return {"IQ1_M", 256, 56};
        case GgmlType::BF16:
            return {"BF16", 1, 2};
        case GgmlType::TQ1_0:
            return {"TQ1_0", 256, 54};
        case GgmlType::TQ2_0:
            return {"TQ2_0", 256, 66};
        case GgmlType::MXFP4:
            return {"MXFP4", 32, 17};
    }
    return {};
}

// The types the engine computes with (model/quant.h): the float types and the block formats of
// the common llama.cpp files (Q8_0; Q4_K_M and Q5_K_M mix Q4_K/Q5_K with Q6_K, and fall back to
// Q4_0..Q5_1 where a row is not a multiple of 256).
constexpr bool ggml_type_computed(std::uint32_t type) {
    switch (static_cast<GgmlType>(type)) {
        case GgmlType::F32:
        case GgmlType::F16:
        case GgmlType::BF16:
        case GgmlType::Q4_0:
        case GgmlType::Q4_1:
        case GgmlType::Q5_0:
        case GgmlType::Q5_1:
        case GgmlType::Q8_0:
        case GgmlType::Q4_K:
        case GgmlType::Q5_K:
        case GgmlType::Q6_K:
            return true;
        default:
            return false;
    }
}

}  // namespace attn
