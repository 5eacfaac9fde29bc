// Every vector conversion, on every ISA this machine has (and the AVX512-BF16 variant), equals
// the scalar reference <tessera/core/convert.h> bit for bit: all bf16/f16 values, all f8 values,
// and f32 inputs around every representable value of each type (the values themselves, the ties
// between neighbours, one f32 ulp either side of each), overflow edges, NaNs, denormals.
// Inputs are cut into pieces of every length 0..2*16+1 so every tail length sees every kind of
// value, and the element after each piece must stay untouched.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/core/convert.h"
#include "tessera/simd/arch.h"
#include "tessera/simd/convert_array.h"
#include "tessera/simd/internal/convert_kernels.h"
#include "tessera/simd/isa.h"

namespace tessera::simd {
namespace {

constexpr int kMaxPiece = 2 * 16 + 1;

template <class T>
uint32_t bits_of_value(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<uint32_t>(v);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<uint32_t>(static_cast<int64_t>(v));
  } else {
    return v.bits;
  }
}

template <class T>
T sentinel() {
  T s;
  std::memset(&s, 0x5A, sizeof(T));
  return s;
}

// Runs `kernel` over src in pieces of length 0, 1, ..., kMaxPiece, 0, 1, ... and checks each
// result against the scalar reference and that nothing past each piece was written.
template <class Src, class Dst>
void check_kernel(convert_fn<Src, Dst>* kernel, const std::vector<Src>& src, const std::string& what) {
  std::vector<Dst> dst(src.size() + 1, sentinel<Dst>());
  size_t start = 0;
  int piece = 0;
  int failures = 0;
  while (start < src.size()) {
    const size_t n = std::min<size_t>(piece, src.size() - start);
    kernel(src.data() + start, dst.data() + start, static_cast<int64_t>(n));
    ASSERT_EQ(bits_of_value(dst[start + n]), bits_of_value(sentinel<Dst>()))
        << what << ": wrote past a piece of length " << n;
    for (size_t i = start; i < start + n && failures < 10; ++i) {
      const Dst want = from_f32<Dst>(to_f32(src[i]));
      if (bits_of_value(dst[i]) != bits_of_value(want)) {
        ++failures;
        ADD_FAILURE() << what << ": input bits 0x" << std::hex << bits_of_value(src[i]) << " -> 0x"
                      << bits_of_value(dst[i]) << ", reference 0x" << bits_of_value(want)
                      << std::dec << " (piece length " << n << ")";
      }
    }
    start += n;
    piece = (piece + 1) % (kMaxPiece + 1);
  }
  ASSERT_EQ(failures, 0);
}

// Every bit pattern of a narrow type (or every s8/u8 value).
template <class T>
std::vector<T> all_values() {
  std::vector<T> v;
  constexpr uint32_t kCount = uint32_t{1} << (8 * sizeof(T));
  for (uint32_t b = 0; b < kCount; ++b) {
    T t;
    if constexpr (sizeof(T) == 2) {
      const uint16_t x = static_cast<uint16_t>(b);
      std::memcpy(&t, &x, 2);
    } else {
      const uint8_t x = static_cast<uint8_t>(b);
      std::memcpy(&t, &x, 1);
    }
    v.push_back(t);
  }
  return v;
}

void add_around(std::vector<float>& v, uint32_t bits) {
  for (int64_t d = -1; d <= 1; ++d) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits + d)));
}

// f32 inputs that probe every rounding decision of the conversion to T.
template <class T>
std::vector<float> f32_probes() {
  std::vector<float> v;
  if constexpr (std::is_integral_v<T>) {
    const double lo = std::is_same_v<T, int32_t> ? -70000.0 : -300.0;
    for (double x = lo; x <= -lo; x += 0.5) add_around(v, std::bit_cast<uint32_t>(static_cast<float>(x)));
    for (float big : {2147483520.f, 2147483648.f, 4294967296.f, 1e20f, 3.4e38f}) {
      add_around(v, std::bit_cast<uint32_t>(big));
      add_around(v, std::bit_cast<uint32_t>(-big));
    }
  } else {
    // Each representable value, the tie with its successor (same sign), and one ulp around both.
    const std::vector<T> all = all_values<T>();
    for (size_t i = 0; i + 1 < all.size(); ++i) {
      const float a = to_f32(all[i]), b = to_f32(all[i + 1]);
      const uint32_t ab = std::bit_cast<uint32_t>(a), bb = std::bit_cast<uint32_t>(b);
      add_around(v, ab);
      if (std::isfinite(a) && std::isfinite(b) && std::signbit(a) == std::signbit(b) && bb > ab) {
        add_around(v, ab + (bb - ab) / 2);  // exact f32 midpoint: same sign, monotone bits
      }
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {0.f, -0.f, inf, -inf, std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
                  65504.f, 65520.f, 57344.f, 61440.f, 448.f, 464.f, 480.f, 3.3895314e38f}) {
    add_around(v, std::bit_cast<uint32_t>(x));
    add_around(v, std::bit_cast<uint32_t>(-x));
  }
  for (uint32_t nan : {0x7FC00000u, 0x7F800001u, 0x7FBFFFFFu, 0x7FFFFFFFu, 0x7FA5A5A5u, 0x7FC0E000u,
                       0x7F801000u, 0x7F802000u}) {
    v.push_back(std::bit_cast<float>(nan));
    v.push_back(std::bit_cast<float>(nan | 0x80000000u));
  }
  // f32 denormals and random bit patterns.
  std::mt19937 rng(42);
  for (int i = 0; i < 4096; ++i) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng()) & 0x807FFFFFu));
  for (int i = 0; i < 100000; ++i) v.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  return v;
}

template <class Arch, class T>
void check_type_on_arch(const std::string& arch_name) {
  if constexpr (!std::is_integral_v<T> || sizeof(T) == 1) {
    check_kernel<T, float>(&internal::convert_kernel<Arch, T, float>, all_values<T>(),
                           arch_name + " to f32");
  } else {
    std::vector<int32_t> ints;
    for (int64_t x = -70000; x <= 70000; ++x) ints.push_back(static_cast<int32_t>(x));
    for (int64_t x : {int64_t{INT32_MIN}, int64_t{INT32_MAX}, int64_t{16777217}, int64_t{-16777219},
                      int64_t{2147483583}, int64_t{2147483584}, int64_t{-2147483585}}) {
      ints.push_back(static_cast<int32_t>(x));
    }
    check_kernel<int32_t, float>(&internal::convert_kernel<Arch, int32_t, float>, ints,
                                 arch_name + " s32 to f32");
  }
  check_kernel<float, T>(&internal::convert_kernel<Arch, float, T>, f32_probes<T>(),
                         arch_name + " from f32");
}

template <class T>
void check_type_on_every_arch() {
#if defined(__aarch64__)
  check_type_on_arch<xsimd::neon64, T>("neon64");
#else
  const isa best = detected_isa();
  check_type_on_arch<xsimd::sse4_2, T>("sse4_2");
  if (best >= isa::avx2) check_type_on_arch<xsimd::avx2, T>("avx2");
  if (best >= isa::avx512bw) check_type_on_arch<xsimd::avx512bw, T>("avx512bw");
  if (cpu_has_avx512_bf16()) check_type_on_arch<avx512bw_bf16, T>("avx512bw_bf16");
#endif
}

TEST(VectorConvert, Bf16) { check_type_on_every_arch<bf16>(); }
TEST(VectorConvert, F16) { check_type_on_every_arch<f16>(); }
TEST(VectorConvert, F8E5M2) { check_type_on_every_arch<f8_e5m2>(); }
TEST(VectorConvert, F8E4M3) { check_type_on_every_arch<f8_e4m3>(); }
TEST(VectorConvert, S32) { check_type_on_every_arch<int32_t>(); }
TEST(VectorConvert, S8) { check_type_on_every_arch<int8_t>(); }
TEST(VectorConvert, U8) { check_type_on_every_arch<uint8_t>(); }

// Exact-size heap buffers of every length: ASan sees any read or write past the end.
TEST(VectorConvert, ExactSizeBuffersEveryLengthEveryIsa) {
  for (isa target : cpu_isas()) {
    scoped_max_isa force(target);
    for (int n = 0; n <= kMaxPiece; ++n) {
      std::vector<float> x(n);
      for (int i = 0; i < n; ++i) x[i] = 1.f / (i + 3) - 0.1f * i;
      std::vector<bf16> b(n);
      std::vector<int8_t> s(n);
      std::vector<f8_e4m3> e(n);
      std::vector<float> back(n);
      convert(x.data(), b.data(), n);
      convert(x.data(), s.data(), n);
      convert(x.data(), e.data(), n);
      convert(b.data(), back.data(), n);
      for (int i = 0; i < n; ++i) {
        EXPECT_EQ(b[i], from_f32<bf16>(x[i]));
        EXPECT_EQ(s[i], from_f32<int8_t>(x[i]));
        EXPECT_EQ(e[i], from_f32<f8_e4m3>(x[i]));
        EXPECT_EQ(std::bit_cast<uint32_t>(back[i]), std::bit_cast<uint32_t>(to_f32(b[i])));
      }
    }
  }
}

TEST(VectorConvert, TableNamesAndDispatch) {
  EXPECT_EQ((convert_table<float, bf16>().select().impl_name()),
            "xsimd:" + std::string(name_of(max_isa())) + ":convert_f32_to_bf16");
#if defined(__aarch64__)
  EXPECT_EQ((convert_table<f8_e4m3, float>().select(isa::neon64).impl_name()),
            "xsimd:neon64:convert_f8_e4m3_to_f32");
#else
  EXPECT_EQ((convert_table<f8_e4m3, float>().select(isa::sse4_2).impl_name()),
            "xsimd:sse4_2:convert_f8_e4m3_to_f32");
#endif
  EXPECT_EQ((convert_table<uint8_t, float>().name()), "convert_u8_to_f32");
  // On an AVX512-BF16 CPU the avx512bw slot of f32 -> bf16 holds the native instantiation.
#if defined(__aarch64__)
  EXPECT_FALSE(cpu_has_avx512_bf16());
#else
  if (cpu_has_avx512_bf16()) {
    EXPECT_EQ((convert_table<float, bf16>().select(isa::avx512bw).fn),
              (&internal::convert_kernel<avx512bw_bf16, float, bf16>));
  }
#endif
}

}  // namespace
}  // namespace tessera::simd
