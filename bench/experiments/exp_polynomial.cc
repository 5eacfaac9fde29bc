// Throughput of AVX2 exp(x - s) in L1 (softmax_internal::exp_minus_nearby_f32, the dense
// softmax's exp on avx2) against two rewrites of its last steps, each in the loop shape of the
// dense forward's exp sweep (four vectors per step, their f32 sum widened to f64, the exps stored):
//   library  exp_minus_nearby_f32<avx2>: Horner's quartic, the table entry times 2^k
//   estrin   the quartic as (1 + r/2) + r^2 (1/6 + r/24): one level shallower, one more product
//   int_add  2^k added to the table entry's exponent as an integer instead of multiplied
// Prints the minimum TSC ticks per vector of 2000 sweeps over 1024 elements, five rounds, and
// how many results differ from the library's bits (int_add must differ in none).
// Build with -c opt; needs AVX2 and FMA:
//
//   bazel run -c opt //bench/experiments:exp_polynomial
#include <immintrin.h>
#include <x86intrin.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>

#include "tessera/primitives/softmax/internal/exp_nearby.h"

namespace {

constexpr int kN = 1024;

// The library's reduction (exp_minus_nearby_table8 in primitives/softmax/internal/exp_nearby.h),
// then the variant's last steps.
template <bool kEstrin>
__m256 variant_exp(__m256 x, __m256 offset) {
  const __m256 shifted = _mm256_fmadd_ps(x, _mm256_set1_ps(0x1.715476p+3f), offset);
  const __m256 big_n = _mm256_sub_ps(shifted, offset);
  __m256 r = _mm256_fnmadd_ps(big_n, _mm256_set1_ps(0.693359375f / 8), x);
  r = _mm256_fnmadd_ps(big_n, _mm256_set1_ps(-2.12194440e-4f / 8), r);
  const __m256i bits = _mm256_castps_si256(shifted);
  const __m256i scale = _mm256_and_si256(_mm256_slli_epi32(bits, 20), _mm256_set1_epi32(-(1 << 23)));
  __m256 q;
  if constexpr (kEstrin) {
    const __m256 head = _mm256_fmadd_ps(r, _mm256_set1_ps(0.5f), _mm256_set1_ps(1.f));
    const __m256 tail =
        _mm256_fmadd_ps(r, _mm256_set1_ps(0x1.555556p-5f), _mm256_set1_ps(0x1.555556p-3f));
    q = _mm256_fmadd_ps(_mm256_mul_ps(r, r), tail, head);
  } else {
    q = _mm256_fmadd_ps(_mm256_set1_ps(0x1.555556p-5f), r, _mm256_set1_ps(0x1.555556p-3f));
    q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(0.5f));
    q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(1.f));
  }
  const __m256 table = _mm256_setr_ps(0x1p+0f, 0x1.172b84p+0f, 0x1.306fep+0f, 0x1.4bfdaep+0f,
                                      0x1.6a09e6p+0f, 0x1.8ace54p+0f, 0x1.ae89fap+0f,
                                      0x1.d5818ep+0f);
  __m256 t = _mm256_permutevar8x32_ps(table, bits);
  if constexpr (kEstrin) {
    t = _mm256_mul_ps(t, _mm256_castsi256_ps(scale));
  } else {
    // The offset without the exponent bias (1016 = 8 * 127) leaves floor(n/8) << 23 modulo
    // 2^32 in `scale`: added to the entry's bits it is the product by 2^floor(n/8), exact for
    // normal results (which exp_minus_nearby_f32::make guarantees).
    t = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(t), scale));
  }
  return _mm256_fmadd_ps(_mm256_mul_ps(t, r), q, t);
}

template <class Exp>
[[gnu::noinline]] double sweep(const float* x, float* y, Exp&& exp) {
  __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd();
  for (int i = 0; i < kN; i += 32) {
    __m256 e[4];
    for (int j = 0; j < 4; ++j) e[j] = exp(_mm256_loadu_ps(x + i + 8 * j));
    const __m256 s = _mm256_add_ps(_mm256_add_ps(e[0], e[1]), _mm256_add_ps(e[2], e[3]));
    s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(s)));
    s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(s, 1)));
    for (int j = 0; j < 4; ++j) _mm256_storeu_ps(y + i + 8 * j, e[j]);
  }
  double t[4];
  _mm256_storeu_pd(t, _mm256_add_pd(s0, s1));
  return t[0] + t[1] + t[2] + t[3];
}

}  // namespace

int main() {
  alignas(64) static float x[kN], y[kN], want[kN];
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> dist(-5.f, 5.f);
  for (float& v : x) v = dist(gen);
  const float hi = *std::max_element(x, x + kN), lo = *std::min_element(x, x + kN);
  const auto library = *tessera::softmax_internal::exp_minus_nearby_f32<xsimd::avx2>::make(hi, lo);
  // make()'s offset: 1.5 * 2^23 + 1016 - M with M = round(8 hi / ln2).
  const double m = std::nearbyint(static_cast<double>(hi) * (8 / 0x1.62e42fefa39efp-1));
  const __m256 biased = _mm256_set1_ps(static_cast<float>(0x1.8p23 + 1016 - m));
  const __m256 unbiased = _mm256_set1_ps(static_cast<float>(0x1.8p23 - m));
  auto run_library = [&](__m256 v) { return __m256(library(xsimd::batch<float, xsimd::avx2>(v))); };
  auto run_estrin = [&](__m256 v) { return variant_exp<true>(v, biased); };
  auto run_int_add = [&](__m256 v) { return variant_exp<false>(v, unbiased); };

  sweep(x, want, run_library);
  for (int variant = 1; variant < 3; ++variant) {
    variant == 1 ? sweep(x, y, run_estrin) : sweep(x, y, run_int_add);
    int differ = 0;
    for (int i = 0; i < kN; ++i) differ += y[i] != want[i];
    std::printf("%s: %d of %d results differ from the library's bits\n",
                variant == 1 ? "estrin" : "int_add", differ, kN);
  }
  double sink = 0;
  for (int round = 0; round < 5; ++round) {
    for (int variant = 0; variant < 3; ++variant) {
      uint64_t best = ~uint64_t{0};
      for (int t = 0; t < 2000; ++t) {
        const uint64_t a = __rdtsc();
        sink += variant == 0   ? sweep(x, y, run_library)
                : variant == 1 ? sweep(x, y, run_estrin)
                               : sweep(x, y, run_int_add);
        best = std::min<uint64_t>(best, __rdtsc() - a);
      }
      std::printf("%-8s %.2f  ", variant == 0 ? "library" : variant == 1 ? "estrin" : "int_add",
                  static_cast<double>(best) / (kN / 8));
    }
    std::printf("(TSC ticks per vector)\n");
  }
  return sink == 0.5 ? 1 : 0;  // keeps the sums live
}
