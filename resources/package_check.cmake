# Read by cpack (CPACK_PROJECT_CONFIG_FILE): refuse to package a build tuned for this CPU only.
if(CPACK_ATTN_NATIVE)
  message(FATAL_ERROR
    "This build uses -march=native (ATTN_NATIVE=ON), so its programs may not start on another "
    "machine. Package a portable build: cmake -S . -B build-package -G Ninja "
    "-DCMAKE_BUILD_TYPE=Release -DATTN_NATIVE=OFF -DATTN_BUILD_TESTS=OFF && "
    "cmake --build build-package && cd build-package && cpack -G DEB")
endif()
