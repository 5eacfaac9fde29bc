#include "tessera/testing/internal/element_codec.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tessera::testing::internal {
namespace {

// A binary floating-point format: 1 sign bit, exp_bits, man_bits.
struct float_format {
  int exp_bits;
  int man_bits;
  int bias;
  // IEEE-style specials (all-ones exponent is Inf/NaN). Otherwise OCP "fn": no Inf, the only
  // NaN is all ones, and the all-ones exponent holds finite values too.
  bool ieee_specials;

  uint64_t exp_mask() const { return (uint64_t{1} << exp_bits) - 1; }
  uint64_t man_mask() const { return (uint64_t{1} << man_bits) - 1; }
  uint64_t sign_bit() const { return uint64_t{1} << (exp_bits + man_bits); }
  uint64_t max_finite_bits() const {
    return ieee_specials ? ((exp_mask() - 1) << man_bits) | man_mask()
                         : (exp_mask() << man_bits) | (man_mask() - 1);
  }
};

float_format format_of(data_type dt) {
  switch (dt) {
    case data_type::f64: return {11, 52, 1023, true};
    case data_type::f32: return {8, 23, 127, true};
    case data_type::bf16: return {8, 7, 127, true};
    case data_type::f16: return {5, 10, 15, true};
    case data_type::f8_e5m2: return {5, 2, 15, true};
    case data_type::f8_e4m3: return {4, 3, 7, false};
    default: return {0, 0, 0, true};
  }
}

int bytes_of(data_type dt) { return bits_of(dt) / 8; }

uint64_t load_bits(data_type dt, const void* p) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, bytes_of(dt));  // little-endian: the low bytes
  return bits;
}

void store_bits(data_type dt, void* p, uint64_t bits) { std::memcpy(p, &bits, bytes_of(dt)); }

bool is_nan_bits(const float_format& f, uint64_t bits) {
  const uint64_t e = (bits >> f.man_bits) & f.exp_mask();
  const uint64_t m = bits & f.man_mask();
  return f.ieee_specials ? (e == f.exp_mask() && m != 0) : (e == f.exp_mask() && m == f.man_mask());
}

double decode(const float_format& f, uint64_t bits) {
  const bool negative = (bits & f.sign_bit()) != 0;
  const uint64_t e = (bits >> f.man_bits) & f.exp_mask();
  const uint64_t m = bits & f.man_mask();
  double v;
  if (is_nan_bits(f, bits)) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (f.ieee_specials && e == f.exp_mask()) {
    v = std::numeric_limits<double>::infinity();
  } else if (e == 0) {
    v = std::ldexp(static_cast<double>(m), 1 - f.bias - f.man_bits);
  } else {
    v = std::ldexp(static_cast<double>(m | (uint64_t{1} << f.man_bits)),
                   static_cast<int>(e) - f.bias - f.man_bits);
  }
  return negative ? -v : v;
}

// Rounds toward zero; clamps finite overflow to the largest finite magnitude.
uint64_t encode_toward_zero(const float_format& f, double x) {
  if (std::isnan(x)) {
    return f.ieee_specials ? (f.exp_mask() << f.man_bits) | (uint64_t{1} << (f.man_bits - 1))
                           : (f.exp_mask() << f.man_bits) | f.man_mask();
  }
  const uint64_t sign = std::signbit(x) ? f.sign_bit() : 0;
  const double a = std::fabs(x);
  if (std::isinf(a)) {
    return sign | (f.ieee_specials ? f.exp_mask() << f.man_bits : f.max_finite_bits());
  }
  if (a >= decode(f, f.max_finite_bits())) return sign | f.max_finite_bits();
  if (a == 0) return sign;
  int k = 0;
  std::frexp(a, &k);  // a = frac * 2^k, frac in [0.5, 1)
  const int unbiased = k - 1;
  const int biased = unbiased + f.bias;
  if (biased <= 0) {  // denormal: units of 2^(1 - bias - man_bits)
    const auto m = static_cast<uint64_t>(std::floor(std::ldexp(a, f.bias - 1 + f.man_bits)));
    return sign | m;
  }
  const auto m = static_cast<uint64_t>(std::floor(std::ldexp(a, f.man_bits - unbiased))) -
                 (uint64_t{1} << f.man_bits);
  return sign | (static_cast<uint64_t>(biased) << f.man_bits) | m;
}

double int_max(data_type dt) {
  switch (dt) {
    case data_type::s32: return std::numeric_limits<int32_t>::max();
    case data_type::s8: return 127;
    default: return 255;
  }
}
double int_lowest(data_type dt) {
  switch (dt) {
    case data_type::s32: return std::numeric_limits<int32_t>::min();
    case data_type::s8: return -128;
    default: return 0;
  }
}

}  // namespace

double read_element(data_type dt, const void* p) {
  switch (dt) {
    case data_type::s32: {
      int32_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case data_type::s8: return *static_cast<const int8_t*>(p);
    case data_type::u8: return *static_cast<const uint8_t*>(p);
    default: return decode(format_of(dt), load_bits(dt, p));
  }
}

void write_element(data_type dt, void* p, double x) {
  if (is_floating(dt)) {
    store_bits(dt, p, encode_toward_zero(format_of(dt), x));
    return;
  }
  double v = std::isnan(x) ? 0.0 : std::trunc(x);
  if (v > int_max(dt)) v = int_max(dt);
  if (v < int_lowest(dt)) v = int_lowest(dt);
  switch (dt) {
    case data_type::s32: {
      const auto i = static_cast<int32_t>(v);
      std::memcpy(p, &i, sizeof i);
      break;
    }
    case data_type::s8: *static_cast<int8_t*>(p) = static_cast<int8_t>(v); break;
    case data_type::u8: *static_cast<uint8_t*>(p) = static_cast<uint8_t>(v); break;
    default: break;
  }
}

bool representable(data_type dt, double x) {
  if (is_floating(dt)) {
    if (std::isnan(x)) return true;
    const double back = decode(format_of(dt), encode_toward_zero(format_of(dt), x));
    return back == x && std::signbit(back) == std::signbit(x);
  }
  return !std::isnan(x) && std::trunc(x) == x && x <= int_max(dt) && x >= int_lowest(dt);
}

uint64_t element_bits(data_type dt, const void* p) { return load_bits(dt, p); }

int64_t ulp_distance(data_type dt, const void* a, const void* b) {
  const float_format f = format_of(dt);
  const uint64_t x = load_bits(dt, a), y = load_bits(dt, b);
  if (is_nan_bits(f, x) || is_nan_bits(f, y)) return -1;
  auto ordered = [&](uint64_t bits) {
    const auto mag = static_cast<int64_t>(bits & ~f.sign_bit());
    return (bits & f.sign_bit()) ? -mag : mag;
  };
  const int64_t d = ordered(x) - ordered(y);
  return d < 0 ? -d : d;
}

double next_up(data_type dt, double x) {
  if (!is_floating(dt)) return x >= int_max(dt) ? x : x + 1;
  const float_format f = format_of(dt);
  if (std::isinf(x) && x > 0) return x;
  if (x >= max_of(dt)) return has_infinity(dt) ? std::numeric_limits<double>::infinity() : x;
  if (x == 0) return min_denormal_of(dt);
  const uint64_t bits = encode_toward_zero(f, x);
  if (x > 0) return decode(f, bits + 1);
  const double down = decode(f, bits - 1);  // toward zero in magnitude
  return down == 0 ? 0.0 : down;
}

double next_down(data_type dt, double x) {
  if (!is_floating(dt)) return x <= int_lowest(dt) ? x : x - 1;
  return -next_up(dt, -x);
}

double max_of(data_type dt) {
  if (!is_floating(dt)) return int_max(dt);
  const float_format f = format_of(dt);
  return decode(f, f.max_finite_bits());
}
double lowest_of(data_type dt) { return is_floating(dt) ? -max_of(dt) : int_lowest(dt); }
double min_normal_of(data_type dt) {
  if (!is_floating(dt)) return 1;
  return std::ldexp(1.0, 1 - format_of(dt).bias);
}
double min_denormal_of(data_type dt) {
  if (!is_floating(dt)) return 1;
  const float_format f = format_of(dt);
  return std::ldexp(1.0, 1 - f.bias - f.man_bits);
}
bool has_infinity(data_type dt) { return is_floating(dt) && format_of(dt).ieee_specials; }

}  // namespace tessera::testing::internal
