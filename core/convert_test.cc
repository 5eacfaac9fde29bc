// Scalar conversions against independent oracles: the CPU's own converters (F16C for f16,
// AVX512-BF16 for bf16; on aarch64 the base FCVT for f16, and no bf16 one), an exhaustive nearest-value search for the 8-bit floats, std::nearbyint
// for the integers, and explicitly constructed neighbours/midpoints for the f64 paths.
#include "tessera/core/convert.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tessera {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

uint32_t bits_of_f32(float f) { return std::bit_cast<uint32_t>(f); }
float f32_of_bits(uint32_t b) { return std::bit_cast<float>(b); }

// Compile-time use is part of the contract (layouts and kernels use these in constant
// expressions).
static_assert(from_f32<bf16>(1.0f).bits == 0x3F80);
static_assert(from_f32<f16>(1.0f).bits == 0x3C00);
static_assert(from_f32<f8_e4m3>(448.f).bits == 0x7E);
static_assert(from_f32<f8_e5m2>(-57344.f).bits == 0xFB);
static_assert(from_f32<int8_t>(1024.f) == 127);
static_assert(from_f32<uint8_t>(-124.f) == 0);
static_assert(from_f32<int8_t>(2.5f) == 2 && from_f32<int8_t>(3.5f) == 4);
static_assert(to_f32(f16{0x0001}) == 0x1p-24f);
static_assert(to_f32(f8_e4m3{0x01}) == 0x1p-9f);
static_assert(to_f64(from_f64<f8_e5m2>(0.1)) == 0.09375);

// A set of f32 inputs that hits every rounding decision of a 16-bit type with `mant_bits`
// mantissa bits: each representable value, its midpoints with the next one, one and two f32 ulps
// around both, plus random bit patterns.
std::vector<float> probe_inputs_16(int mant_bits, uint32_t seed, int random_count) {
  std::vector<float> in;
  const int drop = 23 - mant_bits;  // f32 mantissa bits below the 16-bit type's
  for (uint32_t hi = 0; hi < (1u << 16); ++hi) {
    const uint32_t sign = hi & 0x8000 ? 0x80000000u : 0;
    // Map the 16-bit pattern's magnitude to the f32 pattern with the same value for bf16-like
    // layouts; for f16 this walks values that are not all representable but covers every
    // exponent. Either way: exact values, midpoints and their neighbours.
    const uint32_t base = (hi & 0x7FFF) << 16;
    for (uint32_t low : {0u, 1u, 2u, (1u << 15) - 2, (1u << 15) - 1, 1u << 15, (1u << 15) + 1,
                         (1u << 15) + 2, 0xFFFEu, 0xFFFFu}) {
      in.push_back(f32_of_bits(sign | base | low));
    }
  }
  (void)drop;
  std::mt19937 rng(seed);
  for (int i = 0; i < random_count; ++i) in.push_back(f32_of_bits(rng()));
  return in;
}

// ---------- bf16 ----------

#if defined(__x86_64__)
bool cpu_has_bf16_instruction() { return __builtin_cpu_supports("avx512bf16"); }

__attribute__((target("avx512f,avx512bf16"))) void hw_f32_to_bf16(const float* in, uint16_t* out,
                                                                   size_t n) {
  for (size_t i = 0; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(in + i);
    __m256bh r = _mm512_cvtneps_pbh(v);
    std::memcpy(out + i, &r, sizeof(r));
  }
}
#else
// Armv8.0 has no f32 -> bf16 conversion instruction (BFCVT is an optional extension).
bool cpu_has_bf16_instruction() { return false; }
void hw_f32_to_bf16(const float*, uint16_t*, size_t) {}
#endif

TEST(ConvertBf16, AllPatternsWidenExactlyAndRoundTrip) {
  for (uint32_t b = 0; b < (1u << 16); ++b) {
    const float f = to_f32(bf16{static_cast<uint16_t>(b)});
    // bf16 is the top half of f32: widening is a shift, NaN payloads included.
    EXPECT_EQ(bits_of_f32(f), b << 16) << std::hex << b;
    if (!std::isnan(f)) {
      EXPECT_EQ(from_f32<bf16>(f).bits, b) << std::hex << b;
      EXPECT_EQ(from_f64<bf16>(static_cast<double>(f)).bits, b) << std::hex << b;
      EXPECT_EQ(to_f64(bf16{static_cast<uint16_t>(b)}), static_cast<double>(f));
    }
  }
}

TEST(ConvertBf16, MatchesAvx512Bf16Instruction) {
  if (!cpu_has_bf16_instruction()) GTEST_SKIP() << "no AVX512-BF16 on this CPU";
  std::vector<float> in = probe_inputs_16(7, 1, 1 << 20);
  in.resize(in.size() / 16 * 16);
  std::vector<uint16_t> hw(in.size());
  hw_f32_to_bf16(in.data(), hw.data(), in.size());
  int64_t checked = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    // vcvtneps2bf16 always treats f32 denormals as zero; Tessera keeps them (checked below).
    if (std::fpclassify(in[i]) == FP_SUBNORMAL) continue;
    ASSERT_EQ(from_f32<bf16>(in[i]).bits, hw[i])
        << "input bits 0x" << std::hex << bits_of_f32(in[i]);
    ++checked;
  }
  EXPECT_GT(checked, 1'000'000);
}

TEST(ConvertBf16, FromF32MatchesTheDoubleRoundingForEveryTopHalf) {
  // from_f32<bf16> rounds with an integer addition, from_f64 through round_magnitude: the same
  // bits for every f32 top half (every sign, exponent, NaN and Inf) with the low halves that
  // decide the rounding: zero, the smallest, just below, at and just above the tie, the largest,
  // and two random ones.
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (uint32_t top = 0; top < 0x10000u; ++top) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t lows[] = {0x0000,       0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF,
                             uint32_t(state >> 48), uint32_t(state >> 32) & 0xFFFF};
    for (uint32_t low : lows) {
      const float f = f32_of_bits(top << 16 | low);
      ASSERT_EQ(from_f32<bf16>(f).bits, from_f64<bf16>(static_cast<double>(f)).bits)
          << "input bits 0x" << std::hex << (top << 16 | low);
    }
  }
}

TEST(ConvertBf16, EdgeCases) {
  EXPECT_EQ(from_f32<bf16>(0.f).bits, 0x0000);
  EXPECT_EQ(from_f32<bf16>(-0.f).bits, 0x8000);
  EXPECT_EQ(from_f32<bf16>(kInf).bits, 0x7F80);
  EXPECT_EQ(from_f32<bf16>(-kInf).bits, 0xFF80);
  EXPECT_EQ(from_f32<bf16>(kNaN).bits, 0x7FC0);
  EXPECT_EQ(from_f32<bf16>(-kNaN).bits, 0xFFC0);
  // A signalling NaN whose payload lives only in the dropped bits stays a NaN (quiet bit set).
  EXPECT_EQ(from_f32<bf16>(f32_of_bits(0x7F800001)).bits, 0x7FC0);
  // Ties: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 -> even (1); 1 + 3*2^-8 -> 1 + 2^-6.
  EXPECT_EQ(from_f32<bf16>(1.f + 0x1p-8f).bits, 0x3F80);
  EXPECT_EQ(from_f32<bf16>(1.f + 3 * 0x1p-8f).bits, 0x3F82);
  // Largest finite f32 rounds up past bf16's largest finite: Inf.
  EXPECT_EQ(from_f32<bf16>(std::numeric_limits<float>::max()).bits, 0x7F80);
  EXPECT_EQ(from_f32<bf16>(f32_of_bits(0x7F7F7FFF)).bits, 0x7F7F);  // just below the tie
  EXPECT_EQ(from_f32<bf16>(f32_of_bits(0x7F7F8000)).bits, 0x7F80);  // tie, odd -> up -> Inf
  // Denormals are kept, rounded like everything else.
  EXPECT_EQ(from_f32<bf16>(f32_of_bits(0x00010000)).bits, 0x0001);
  EXPECT_EQ(from_f32<bf16>(f32_of_bits(0x00008000)).bits, 0x0000);  // tie -> even 0
  EXPECT_EQ(from_f32<bf16>(f32_of_bits(0x00008001)).bits, 0x0001);
  EXPECT_EQ(from_f32<bf16>(f32_of_bits(0x007FFFFF)).bits, 0x0080);  // rounds up to min normal
  EXPECT_EQ(from_f32<bf16>(-f32_of_bits(0x00000001)).bits, 0x8000);
}

// Denormal f32 inputs, where the instruction cannot serve as oracle: the value is
// m * 2^-149 and bf16 keeps m's top 7 bits; round half to even on the low 16 bits by hand.
TEST(ConvertBf16, DenormalInputsRoundHalfToEven) {
  for (uint32_t m = 1; m < (1u << 23); m += 97) {
    const uint32_t q = m >> 16, rem = m & 0xFFFF;
    const uint32_t want = (rem > 0x8000 || (rem == 0x8000 && (q & 1))) ? q + 1 : q;
    ASSERT_EQ(from_f32<bf16>(f32_of_bits(m)).bits, want) << m;
  }
}

// ---------- f16 ----------

#if defined(__x86_64__)
bool cpu_has_f16_instruction() { return __builtin_cpu_supports("f16c"); }
__attribute__((target("f16c"))) uint16_t hw_f32_to_f16(float f) {
  return static_cast<uint16_t>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
__attribute__((target("f16c"))) float hw_f16_to_f32(uint16_t h) { return _cvtsh_ss(h); }
#else
// Armv8.0's FCVT between single and half precision (round to nearest even, the default FPCR).
bool cpu_has_f16_instruction() { return true; }
uint16_t hw_f32_to_f16(float f) { return std::bit_cast<uint16_t>(static_cast<__fp16>(f)); }
float hw_f16_to_f32(uint16_t h) { return static_cast<float>(std::bit_cast<__fp16>(h)); }
#endif

TEST(ConvertF16, AllPatternsMatchF16cAndRoundTrip) {
  if (!cpu_has_f16_instruction()) GTEST_SKIP() << "no F16C on this CPU";
  for (uint32_t b = 0; b < (1u << 16); ++b) {
    const f16 h{static_cast<uint16_t>(b)};
    const float f = to_f32(h);
    EXPECT_EQ(bits_of_f32(f), bits_of_f32(hw_f16_to_f32(h.bits))) << std::hex << b;
    if (!std::isnan(f)) {
      EXPECT_EQ(from_f32<f16>(f).bits, b) << std::hex << b;
      EXPECT_EQ(from_f64<f16>(static_cast<double>(f)).bits, b) << std::hex << b;
    }
  }
}

TEST(ConvertF16, MatchesF16cInstruction) {
  if (!cpu_has_f16_instruction()) GTEST_SKIP() << "no F16C on this CPU";
  std::vector<float> in = probe_inputs_16(10, 2, 1 << 20);
  // f16 rounding points sit 13 bits down in f32: add the f32 neighbours of every f16 value and
  // of every f16 midpoint.
  for (uint32_t b = 0; b < 0x7C00; ++b) {
    const float lo = hw_f16_to_f32(static_cast<uint16_t>(b));
    const float hi = hw_f16_to_f32(static_cast<uint16_t>(b + 1));
    const float mid = (lo + hi) / 2;  // exact in f32
    for (float x : {lo, mid}) {
      const uint32_t xb = bits_of_f32(x);
      for (uint32_t d : {xb - 1, xb, xb + 1}) {
        in.push_back(f32_of_bits(d));
        in.push_back(-f32_of_bits(d));
      }
    }
  }
  for (float x : in) {
    ASSERT_EQ(from_f32<f16>(x).bits, hw_f32_to_f16(x)) << "input bits 0x" << std::hex
                                                         << bits_of_f32(x);
  }
}

TEST(ConvertF16, EdgeCases) {
  EXPECT_EQ(from_f32<f16>(-0.f).bits, 0x8000);
  EXPECT_EQ(from_f32<f16>(65504.f).bits, 0x7BFF);
  EXPECT_EQ(from_f32<f16>(65519.99f).bits, 0x7BFF);  // below the tie with 65536
  EXPECT_EQ(from_f32<f16>(65520.f).bits, 0x7C00);    // tie, odd -> up -> Inf
  EXPECT_EQ(from_f32<f16>(-kInf).bits, 0xFC00);
  EXPECT_EQ(from_f32<f16>(kNaN).bits, 0x7E00);
  EXPECT_EQ(from_f32<f16>(0x1p-25f).bits, 0x0000);          // half the smallest denormal: even
  EXPECT_EQ(from_f32<f16>(0x1.000002p-25f).bits, 0x0001);   // just above half
  EXPECT_EQ(from_f32<f16>(3 * 0x1p-25f).bits, 0x0002);      // tie between 1 and 2 -> 2
  EXPECT_EQ(to_f32(f16{0x7BFF}), 65504.f);
  EXPECT_EQ(to_f32(f16{0x8001}), -0x1p-24f);
}

// ---------- 8-bit floats: exhaustive nearest-value oracle ----------

struct f8_spec {
  int exp_bits, mant_bits;
  bool has_inf;
};
constexpr f8_spec kE5M2{5, 2, true};
constexpr f8_spec kE4M3{4, 3, false};

// Value of a non-negative pattern from the textbook formula (independent of convert_impl.h).
// The pattern just above the largest finite one is decoded as if it were finite: it is the
// value an overflowing input rounds to before becoming Inf/NaN.
double decode_formula(const f8_spec& s, int p) {
  const int bias = (1 << (s.exp_bits - 1)) - 1;
  const int e = p >> s.mant_bits, m = p & ((1 << s.mant_bits) - 1);
  if (e == 0) return std::ldexp(m, 1 - bias - s.mant_bits);
  return std::ldexp((1 << s.mant_bits) + m, e - bias - s.mant_bits);
}
int max_finite_pattern(const f8_spec& s) {
  const int all_exp = ((1 << s.exp_bits) - 1) << s.mant_bits;
  return s.has_inf ? all_exp - 1 : all_exp | ((1 << s.mant_bits) - 2);
}

// Round-to-nearest-even by searching every pattern.
uint8_t nearest_f8(const f8_spec& s, double x) {
  const int sign = std::signbit(x) ? 0x80 : 0;
  const int all_exp = ((1 << s.exp_bits) - 1) << s.mant_bits;
  const int nan = s.has_inf ? all_exp | (1 << (s.mant_bits - 1)) : 0x7F;
  if (std::isnan(x)) {
    if (!s.has_inf) return static_cast<uint8_t>(sign | nan);
    // IEEE-like: quiet NaN keeping the top payload bits of the input (as F16C does for f16).
    const uint64_t payload = (std::bit_cast<uint64_t>(x) >> (52 - s.mant_bits)) &
                             ((1u << s.mant_bits) - 1);
    return static_cast<uint8_t>(sign | nan | static_cast<int>(payload));
  }
  if (std::isinf(x)) return static_cast<uint8_t>(sign | (s.has_inf ? all_exp : nan));
  const double a = std::fabs(x);
  const int top = max_finite_pattern(s) + 1;
  // Beyond the first value past the largest finite one, distances lose precision in double;
  // such inputs round to that value anyway.
  if (a >= decode_formula(s, top)) return static_cast<uint8_t>(sign | (s.has_inf ? all_exp : nan));
  int best = 0;
  for (int p = 1; p <= top; ++p) {
    const double dp = std::fabs(decode_formula(s, p) - a), db = std::fabs(decode_formula(s, best) - a);
    if (dp < db || (dp == db && (p & 1) == 0)) best = p;
  }
  if (best == top) best = s.has_inf ? all_exp : nan;
  return static_cast<uint8_t>(sign | best);
}

template <class F8>
void check_f8_exhaustively(const f8_spec& s) {
  // 1. Every pattern widens to the formula's value (NaN patterns to a NaN).
  for (int b = 0; b < 256; ++b) {
    const float f = to_f32(F8{static_cast<uint8_t>(b)});
    const int mag = b & 0x7F;
    const bool is_nan = s.has_inf ? (mag >> s.mant_bits) == (1 << s.exp_bits) - 1 &&
                                        (mag & ((1 << s.mant_bits) - 1)) != 0
                                  : mag == 0x7F;
    const bool is_inf = s.has_inf && mag == ((1 << s.exp_bits) - 1) << s.mant_bits;
    if (is_nan) {
      EXPECT_TRUE(std::isnan(f)) << b;
      continue;
    }
    const double want = is_inf ? INFINITY : decode_formula(s, mag);
    EXPECT_EQ(static_cast<double>(f), (b & 0x80) ? -want : want) << b;
    EXPECT_EQ(std::signbit(f), (b & 0x80) != 0) << b;
    EXPECT_EQ(from_f32<F8>(f).bits, b) << b;  // round trip
    EXPECT_EQ(from_f64<F8>(to_f64(F8{static_cast<uint8_t>(b)})).bits, b) << b;
  }
  // 2. Rounding: every value, every midpoint, the f32 and f64 neighbours of both, and random
  //    inputs, against the nearest-value search.
  std::vector<double> in = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 1e30, -1e30, 1e-30};
  const int top = max_finite_pattern(s) + 1;
  for (int p = 0; p < top; ++p) {
    const double lo = decode_formula(s, p), hi = decode_formula(s, p + 1);
    for (double x : {lo, (lo + hi) / 2}) {
      for (double y : {x, static_cast<double>(std::nextafter(static_cast<float>(x), 0.f)),
                       static_cast<double>(std::nextafter(static_cast<float>(x), 1e9f)),
                       std::nextafter(x, 0.0), std::nextafter(x, 1e9)}) {
        in.push_back(y);
        in.push_back(-y);
      }
    }
  }
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> near_range(-600.f, 600.f);
  for (int i = 0; i < 20000; ++i) in.push_back(near_range(rng));
  for (int i = 0; i < 20000; ++i) in.push_back(f32_of_bits(rng()));
  for (double x : in) {
    const float xf = static_cast<float>(x);
    if (static_cast<double>(xf) == x || std::isnan(x)) {
      ASSERT_EQ(from_f32<F8>(xf).bits, nearest_f8(s, x)) << "f32 input " << x;
    }
    ASSERT_EQ(from_f64<F8>(x).bits, nearest_f8(s, x)) << "f64 input " << x;
  }
}

TEST(ConvertF8, E5M2Exhaustive) { check_f8_exhaustively<f8_e5m2>(kE5M2); }
TEST(ConvertF8, E4M3Exhaustive) { check_f8_exhaustively<f8_e4m3>(kE4M3); }

TEST(ConvertF8, E4M3OverflowAndInfBecomeNaN) {
  // oneDNN 3.x: |x| in [448, 464] rounds to 448; above, and +-Inf, give NaN.
  EXPECT_EQ(from_f32<f8_e4m3>(464.f).bits, 0x7E);
  EXPECT_EQ(from_f32<f8_e4m3>(464.0001f).bits, 0x7F);
  EXPECT_EQ(from_f32<f8_e4m3>(-kInf).bits, 0xFF);
  EXPECT_EQ(from_f32<f8_e4m3>(kNaN).bits, 0x7F);
  EXPECT_TRUE(std::isnan(to_f32(f8_e4m3{0xFF})));
  EXPECT_EQ(to_f32(f8_e4m3{0x7E}), 448.f);
}

TEST(ConvertF8, E5M2OverflowIsInfAndNaNIsQuiet) {
  EXPECT_EQ(from_f32<f8_e5m2>(61439.f).bits, 0x7B);
  EXPECT_EQ(from_f32<f8_e5m2>(61440.f).bits, 0x7C);  // tie, odd -> up -> Inf
  EXPECT_EQ(from_f32<f8_e5m2>(kNaN).bits, 0x7E);
  // A signalling NaN pattern widens to a quiet NaN (as oneDNN 3.x does).
  EXPECT_EQ(bits_of_f32(to_f32(f8_e5m2{0x7D})), 0x7FE00000u);
}

// ---------- f64 paths round once ----------

// An f64 just above a midpoint of the narrow type rounds up; going through f32 first would land
// on the midpoint itself and tie to even (down). Neighbours are built from patterns, not from
// the implementation.
TEST(ConvertF64, RoundsOnceNotViaF32) {
  // f16: 1 and 1 + 2^-10 are neighbours, midpoint 1 + 2^-11.
  const double just_above_mid_f16 = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(static_cast<double>(static_cast<float>(just_above_mid_f16)), 1.0 + 0x1p-11);
  EXPECT_EQ(from_f64<f16>(just_above_mid_f16).bits, 0x3C01);
  EXPECT_EQ(from_f32<f16>(static_cast<float>(just_above_mid_f16)).bits, 0x3C00);
  // bf16: midpoint of 1 and 1 + 2^-7.
  EXPECT_EQ(from_f64<bf16>(1.0 + 0x1p-8 + 0x1p-40).bits, 0x3F81);
  EXPECT_EQ(from_f64<bf16>(1.0 + 0x1p-8 - 0x1p-40).bits, 0x3F80);
  // f8_e4m3: midpoint of 1 and 1.125.
  EXPECT_EQ(from_f64<f8_e4m3>(1.0625 + 0x1p-40).bits, 0x39);
  // f32 itself: midpoint of 1 and 1 + 2^-23.
  EXPECT_EQ(bits_of_f32(from_f64<float>(1.0 + 0x1p-24 + 0x1p-50)), 0x3F800001u);
  EXPECT_EQ(bits_of_f32(from_f64<float>(1.0 + 0x1p-24)), 0x3F800000u);
  // Tiny doubles far below f32's range still round correctly to the narrow type (zero).
  EXPECT_EQ(from_f64<f16>(-1e-300).bits, 0x8000);
  EXPECT_EQ(from_f64<bf16>(1e300).bits, 0x7F80);
  // An f64 denormal.
  EXPECT_EQ(from_f64<f8_e5m2>(std::numeric_limits<double>::denorm_min()).bits, 0x00);
}

// ---------- integers ----------

template <class Int>
Int reference_to_int(double v) {
  using limits = std::numeric_limits<Int>;
  if (std::isnan(v)) return std::is_signed_v<Int> ? limits::max() : Int{0};
  const double r = std::nearbyint(v);  // default rounding mode: to nearest, ties to even
  if (r >= static_cast<double>(limits::max())) return limits::max();
  if (r <= static_cast<double>(limits::lowest())) return limits::lowest();
  return static_cast<Int>(r);
}

template <class Int>
void check_int() {
  std::vector<double> in = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1024, -1024, 126.5,
                            127.5, 128.5, -128.5, -129.5, 254.5, 255.5, 256.0, 2147483647.0,
                            2147483647.5, 2147483646.5, -2147483648.5, -2147483647.5, 3e9, -3e9,
                            1e300, -1e300, INFINITY, -INFINITY, NAN, 0.49999999999999994};
  for (int i = -70000; i <= 70000; ++i) in.push_back(i / 4.0);
  std::mt19937 rng(3);
  for (int i = 0; i < 100000; ++i) in.push_back(f32_of_bits(rng()));
  for (double x : in) {
    ASSERT_EQ(from_f64<Int>(x), reference_to_int<Int>(x)) << "f64 input " << x;
    const float xf = static_cast<float>(x);
    ASSERT_EQ(from_f32<Int>(xf), reference_to_int<Int>(xf)) << "f32 input " << xf;
  }
}

TEST(ConvertInt, S8RoundsHalfEvenAndSaturates) { check_int<int8_t>(); }
TEST(ConvertInt, U8RoundsHalfEvenAndSaturates) { check_int<uint8_t>(); }
TEST(ConvertInt, S32RoundsHalfEvenAndSaturates) { check_int<int32_t>(); }

TEST(ConvertInt, SpecExamplesAndNaN) {
  EXPECT_EQ(from_f32<int8_t>(1024.f), 127);
  EXPECT_EQ(from_f32<uint8_t>(-124.f), 0);
  // oneDNN 2.6.3 reorder: NaN -> s8 gives 127, NaN -> u8 gives 0.
  EXPECT_EQ(from_f32<int8_t>(kNaN), 127);
  EXPECT_EQ(from_f32<uint8_t>(kNaN), 0);
  EXPECT_EQ(from_f32<int32_t>(kNaN), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(from_f32<int32_t>(kInf), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(from_f32<int32_t>(-kInf), std::numeric_limits<int32_t>::lowest());
}

TEST(ConvertInt, WideningIsExact) {
  for (int v = -128; v < 128; ++v) EXPECT_EQ(to_f32(static_cast<int8_t>(v)), static_cast<float>(v));
  for (int v = 0; v < 256; ++v) EXPECT_EQ(to_f64(static_cast<uint8_t>(v)), static_cast<double>(v));
  EXPECT_EQ(to_f64(std::numeric_limits<int32_t>::max()), 2147483647.0);
  EXPECT_EQ(to_f32(16777217), 16777216.f);  // s32 -> f32 rounds to nearest even like a cast
}

}  // namespace
}  // namespace tessera
