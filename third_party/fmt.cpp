// fmt's implementation, compiled once into the static library colossalai_fmt (see
// cmake/Dependencies.cmake) from Debian's headers. Header-only fmt (FMT_HEADER_ONLY) compiled
// all of it again in every file that includes <fmt/core.h> — about 5 s of CPU each at -O2 -g,
// most of the build — and Debian ships fmt only as a shared library, which the binary avoids
// for its start-up time (docs/benchmarks.md). This file is what fmt's own src/format.cc does:
// the out-of-line functions (format-inl.h) and the templates that the headers declare extern
// or leave to the library, for char and wchar_t.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view,
                                 basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API void buffer<wchar_t>::append(const wchar_t*, const wchar_t*);

} // namespace detail
FMT_END_NAMESPACE
