# Included right after llama.cpp's project() (CMAKE_PROJECT_llama.cpp_INCLUDE): llama-cpp-python's
# CMakeLists forces LLAMA_BUILD_COMMON on in the cache, but libllama does not need the `common` library
# (chat templates, argument parsing, HTTP); a normal variable shadows the cache one in llama.cpp's scope,
# so neither it nor its install rule is generated.
set(LLAMA_BUILD_COMMON OFF)
