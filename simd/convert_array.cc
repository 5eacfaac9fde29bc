// The dispatching side of the array conversions: compiled without -m flags.
#include "tessera/simd/convert_array.h"

#include <array>

#include "absl/strings/string_view.h"
#include "tessera/simd/internal/convert_kernels.h"

namespace tessera::simd {
namespace {

template <class T>
constexpr absl::string_view short_name() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  if constexpr (std::is_same_v<T, bf16>) return "bf16";
  if constexpr (std::is_same_v<T, f16>) return "f16";
  if constexpr (std::is_same_v<T, f8_e5m2>) return "f8_e5m2";
  if constexpr (std::is_same_v<T, f8_e4m3>) return "f8_e4m3";
  if constexpr (std::is_same_v<T, int32_t>) return "s32";
  if constexpr (std::is_same_v<T, int8_t>) return "s8";
  if constexpr (std::is_same_v<T, uint8_t>) return "u8";
}

template <class Src, class Dst>
struct kernel_name {
  // The length is kept beside the characters: g++ 12 does not take strlen of a static array as a
  // constant expression.
  struct chars {
    std::array<char, 40> text{};
    size_t size = 0;
  };
  static constexpr chars storage = [] {
    constexpr absl::string_view prefix = "convert_";
    constexpr absl::string_view to = "_to_";
    chars s;
    for (char c : prefix) s.text[s.size++] = c;
    for (char c : short_name<Src>()) s.text[s.size++] = c;
    for (char c : to) s.text[s.size++] = c;
    for (char c : short_name<Dst>()) s.text[s.size++] = c;
    return s;
  }();
  static constexpr absl::string_view value{storage.text.data(), storage.size};
};

}  // namespace

template <class Src, class Dst>
  requires F32ConversionPair<Src, Dst>
const kernel_table<convert_fn<Src, Dst>>& convert_table() {
  static const auto table = make_kernel_table<convert_fn<Src, Dst>, bf16_variant::yes>(
      kernel_name<Src, Dst>::value,
      [](auto arch) { return &internal::convert_kernel<decltype(arch), Src, Dst>; });
  return table;
}

#define TESSERA_CONVERT_TABLES_(T)                                           \
  template const kernel_table<convert_fn<float, T>>& convert_table<float, T>(); \
  template const kernel_table<convert_fn<T, float>>& convert_table<T, float>()
TESSERA_CONVERT_TABLES_(bf16);
TESSERA_CONVERT_TABLES_(f16);
TESSERA_CONVERT_TABLES_(f8_e5m2);
TESSERA_CONVERT_TABLES_(f8_e4m3);
TESSERA_CONVERT_TABLES_(int32_t);
TESSERA_CONVERT_TABLES_(int8_t);
TESSERA_CONVERT_TABLES_(uint8_t);
#undef TESSERA_CONVERT_TABLES_

}  // namespace tessera::simd
