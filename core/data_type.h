// Element types: real C++ types with a run-time enum beside them.
//
//   static_assert(tessera::FloatingElement<tessera::bf16>);
//   static_assert(tessera::element_traits<int8_t>::type == tessera::data_type::s8);
//   tessera::data_type dt = *tessera::parse_data_type("f16");
//   int64_t bits = tessera::bits_of(dt);   // 16; sizes are in bits (s4 and u4 are 4)
//
// The 16- and 8-bit floating types are storage types (the bit pattern only); arithmetic happens
// in f32 (f64 for f64) through the conversions in <tessera/core/convert.h>.
#ifndef TESSERA_CORE_DATA_TYPE_H_
#define TESSERA_CORE_DATA_TYPE_H_

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {

enum class data_type : uint8_t {
  undef = 0,
  f32,
  f64,
  bf16,
  f16,
  f8_e5m2,
  f8_e4m3,
  s32,
  s8,
  u8,
  s4,
  u4,
  f4_e2m1,
  f4_e3m0,
  e8m0,
};

inline constexpr data_type kAllDataTypes[] = {
    data_type::f32,     data_type::f64,     data_type::bf16, data_type::f16, data_type::f8_e5m2,
    data_type::f8_e4m3, data_type::s32,     data_type::s8,   data_type::u8,
};

// Types with no C++ element type: 4-bit codes packed two per byte (s4, u4, f4_e2m1, f4_e3m0)
// and the scale type e8m0. They are not in kAllDataTypes and visit_data_type does not reach
// them; <tessera/core/low_precision.h> reads, writes and converts them, and only the reorder's
// element-wise path takes them.
inline constexpr data_type kLowPrecisionDataTypes[] = {
    data_type::s4, data_type::u4, data_type::f4_e2m1, data_type::f4_e3m0, data_type::e8m0,
};

// Storage types. Trivially copyable, standard layout, exactly as wide as their bits.
struct bf16 {
  uint16_t bits;
  friend constexpr bool operator==(bf16, bf16) = default;
};
struct f16 {
  uint16_t bits;
  friend constexpr bool operator==(f16, f16) = default;
};
// OCP FP8 E5M2: 1 sign, 5 exponent (bias 15), 2 mantissa; has Inf and NaN (like IEEE).
struct f8_e5m2 {
  uint8_t bits;
  friend constexpr bool operator==(f8_e5m2, f8_e5m2) = default;
};
// OCP FP8 E4M3 ("fn"): 1 sign, 4 exponent (bias 7), 3 mantissa; no Inf; NaN is S.1111.111;
// largest finite 448.
struct f8_e4m3 {
  uint8_t bits;
  friend constexpr bool operator==(f8_e4m3, f8_e4m3) = default;
};

enum class element_kind : uint8_t { floating, integral };

template <class T>
struct element_traits;  // specialised below for every element type; undefined otherwise

#define TESSERA_ELEMENT_(T, DT, BITS, KIND, QUANT)                 \
  template <>                                                      \
  struct element_traits<T> {                                       \
    static constexpr data_type type = data_type::DT;               \
    static constexpr int bits = BITS;                              \
    static constexpr element_kind kind = element_kind::KIND;       \
    static constexpr bool quantized = QUANT;                       \
  }
TESSERA_ELEMENT_(float, f32, 32, floating, false);
TESSERA_ELEMENT_(double, f64, 64, floating, false);
TESSERA_ELEMENT_(bf16, bf16, 16, floating, false);
TESSERA_ELEMENT_(f16, f16, 16, floating, false);
TESSERA_ELEMENT_(f8_e5m2, f8_e5m2, 8, floating, false);
TESSERA_ELEMENT_(f8_e4m3, f8_e4m3, 8, floating, false);
TESSERA_ELEMENT_(int32_t, s32, 32, integral, false);
TESSERA_ELEMENT_(int8_t, s8, 8, integral, true);
TESSERA_ELEMENT_(uint8_t, u8, 8, integral, true);
#undef TESSERA_ELEMENT_

// What may live in a Tessera tensor.
template <class T>
concept Element = requires {
  { element_traits<T>::type } -> std::convertible_to<data_type>;
} && std::is_trivially_copyable_v<T> && (sizeof(T) * 8 == element_traits<T>::bits);

template <class T>
concept FloatingElement = Element<T> && element_traits<T>::kind == element_kind::floating;

template <class T>
concept IntegralElement = Element<T> && element_traits<T>::kind == element_kind::integral;

// Types that carry quantized (scaled, zero-pointed) values: s8 and u8.
template <class T>
concept QuantizedElement = IntegralElement<T> && element_traits<T>::quantized;

namespace internal {
template <data_type DT>
struct element_of;
template <> struct element_of<data_type::f32> { using type = float; };
template <> struct element_of<data_type::f64> { using type = double; };
template <> struct element_of<data_type::bf16> { using type = bf16; };
template <> struct element_of<data_type::f16> { using type = f16; };
template <> struct element_of<data_type::f8_e5m2> { using type = f8_e5m2; };
template <> struct element_of<data_type::f8_e4m3> { using type = f8_e4m3; };
template <> struct element_of<data_type::s32> { using type = int32_t; };
template <> struct element_of<data_type::s8> { using type = int8_t; };
template <> struct element_of<data_type::u8> { using type = uint8_t; };
}  // namespace internal

// The C++ type of a run-time data_type known at compile time.
template <data_type DT>
using element_t = typename internal::element_of<DT>::type;

// Size of one element in bits (0 for undef).
constexpr int bits_of(data_type dt) {
  switch (dt) {
    case data_type::f64: return 64;
    case data_type::f32: case data_type::s32: return 32;
    case data_type::bf16: case data_type::f16: return 16;
    case data_type::f8_e5m2: case data_type::f8_e4m3: case data_type::s8: case data_type::u8: return 8;
    case data_type::e8m0: return 8;
    case data_type::s4: case data_type::u4: case data_type::f4_e2m1: case data_type::f4_e3m0: return 4;
    case data_type::undef: return 0;
  }
  return 0;
}

// s4, u4, f4_e2m1, f4_e3m0 and e8m0: the types of kLowPrecisionDataTypes.
constexpr bool is_low_precision(data_type dt) {
  switch (dt) {
    case data_type::s4: case data_type::u4: case data_type::f4_e2m1: case data_type::f4_e3m0:
    case data_type::e8m0: return true;
    default: return false;
  }
}

constexpr bool is_floating(data_type dt) {
  switch (dt) {
    case data_type::f32: case data_type::f64: case data_type::bf16: case data_type::f16:
    case data_type::f8_e5m2: case data_type::f8_e4m3: case data_type::f4_e2m1:
    case data_type::f4_e3m0: case data_type::e8m0: return true;
    default: return false;
  }
}
constexpr bool is_integral(data_type dt) {
  return dt == data_type::s32 || dt == data_type::s8 || dt == data_type::u8 ||
         dt == data_type::s4 || dt == data_type::u4;
}

// "f32", "bf16", "f8_e5m2", "s8", ... ("undef" for undef).
absl::string_view name_of(data_type dt);
// Inverse of name_of; error names the bad string.
absl::StatusOr<data_type> parse_data_type(absl::string_view name);

// Calls f(T{}) with the element type of `dt` (dt must be in kAllDataTypes). Lets run-time code reach
// templated code:  visit_data_type(dt, [&](auto tag) { using T = decltype(tag); ... });
template <class F>
constexpr decltype(auto) visit_data_type(data_type dt, F&& f) {
  switch (dt) {
    case data_type::f64: return f(double{});
    case data_type::bf16: return f(bf16{});
    case data_type::f16: return f(f16{});
    case data_type::f8_e5m2: return f(f8_e5m2{});
    case data_type::f8_e4m3: return f(f8_e4m3{});
    case data_type::s32: return f(int32_t{});
    case data_type::s8: return f(int8_t{});
    case data_type::u8: return f(uint8_t{});
    default: return f(float{});
  }
}

}  // namespace tessera

#endif  // TESSERA_CORE_DATA_TYPE_H_
