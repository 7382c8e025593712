// fmt's compiled part, for a binary linked without libfmt.so (RINGMASTER_STATIC_RUNTIME, CMakeLists.txt): Debian's
// libfmt-dev ships the library only as a shared object, and any shared C++ library brings libstdc++.so, whose
// relocation is most of a small run's start-up (docs/performance.md, "Start-up"). fmt's own header format-inl.h holds
// the definitions; the explicit instantiations are those format.h declares `extern template` or leaves to the library.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);
}  // namespace detail
FMT_END_NAMESPACE
