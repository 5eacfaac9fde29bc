// fixed_string: a string literal usable as a template argument, so that a format tag can be
// parsed while compiling.
//
//   template <tessera::fixed_string S> constexpr auto n = S.view().size();
//   static_assert(n<"nChw16c"> == 7);
#ifndef TESSERA_FORMATS_FIXED_STRING_H_
#define TESSERA_FORMATS_FIXED_STRING_H_

#include <cstddef>
#include <string_view>

namespace tessera {

template <std::size_t N>
struct fixed_string {
  char chars[N]{};

  constexpr fixed_string(const char (&literal)[N]) {  // NOLINT: implicit on purpose (NTTP)
    for (std::size_t i = 0; i < N; ++i) chars[i] = literal[i];
  }
  constexpr std::string_view view() const { return {chars, N - 1}; }
};

}  // namespace tessera

#endif  // TESSERA_FORMATS_FIXED_STRING_H_
