// libFuzzer target: the output of `nvcc -V` (and, on the same bytes, nccl.h and a library file
// name). Property: a release that is found parses as a MAJOR.MINOR version and is a piece of the
// input (after "release" and whitespace); an NCCL version parses as a version.

#include "fuzz_support.hpp"

#include "colossalai/check/cuda.hpp"
#include "colossalai/check/system.hpp"
#include "colossalai/util/version.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    std::optional<std::string> release = colossalai::check::parse_nvcc_release(text);
    if (release) {
        colossalai::fuzz::require(colossalai::util::parse_version(*release).has_value(),
                                  "a release that is not a version");
        size_t word = text.find("release");
        colossalai::fuzz::require(word != std::string_view::npos &&
                                      text.find(*release, word) != std::string_view::npos,
                                  "a release that is not in the output after 'release'");
    }
    if (auto nccl = colossalai::check::parse_nccl_header(text)) {
        colossalai::fuzz::require(colossalai::util::parse_version(*nccl).has_value(),
                                  "an NCCL header version that is not a version");
    }
    (void)colossalai::check::library_file_version(text, "libnccl.so");
    return 0;
}
