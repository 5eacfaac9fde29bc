// Standalone harness: orders of a softmax over C of nChw16c 32x1008x7x7 f32 (63 blocks of 16
// channels) on AVX2, cold (20 rotating buffer sets) or hot (HOT=1), 5 rounds x 8 calls per
// order, interleaved; min and median in us. "four_rows" keeps four adjacent pixels' maxima and
// sums in registers and sweeps their 63 runs of 256 bytes three times (as the library's
// forward_four_rows does, without its nearby exp); "whole_image" sweeps each image's 197 KB in
// address order three times, the per-pixel maxima and sums in an L1 buffer; "dense_rows" is
// the same bytes as 1008-float rows (nhwc), for comparison. One simple exp serves all three.
//
//   bazel build -c opt //bench/experiments:softmax_nchw16c_orders
//   bazel-bin/bench/experiments/softmax_nchw16c_orders   # T2=1: 2 threads; HOT=1: one set
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/experiments/harness.h"
namespace {

constexpr int NB = 32, CB = 63, P = 49, L = 16;
constexpr int64_t IMG = int64_t{CB} * P * L;
static inline __m256 exp8(__m256 x) {  // exp for x <= 0 (x - max), ~1e-7 rel
  const __m256 l2e = _mm256_set1_ps(1.44269504f), c1 = _mm256_set1_ps(0.693359375f),
               c2 = _mm256_set1_ps(-2.12194440e-4f);
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.f));
  __m256 n = _mm256_round_ps(_mm256_mul_ps(x, l2e), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, c1, x);
  r = _mm256_fnmadd_ps(n, c2, r);
  __m256 p = _mm256_set1_ps(1.9875691500E-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507E-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073E-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894E-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459E-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201E-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.f)));
  __m256i e =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}
static inline float hsum(__m256 v) {
  alignas(32) float t[8];
  _mm256_store_ps(t, v);
  float s = 0;
  for (float x : t) s += x;
  return s;
}
static inline float hmax(__m256 v) {
  alignas(32) float t[8];
  _mm256_store_ps(t, v);
  float s = t[0];
  for (float x : t) s = std::max(s, x);
  return s;
}
// Rows r0..r0+R-1 (adjacent pixels) of one image, in registers; prefetch next rows when pf.
template <int R>
static void rows_group(const float* s, float* d, int p0, bool pf) {
  constexpr int V = 2 * R;  // vectors per block
  __m256 m[V], sum[V];
  for (int v = 0; v < V; ++v) m[v] = _mm256_set1_ps(-INFINITY), sum[v] = _mm256_setzero_ps();
  for (int cb = 0; cb < CB; ++cb) {
    const float* x = s + (cb * P + p0) * L;
    for (int v = 0; v < V; ++v) m[v] = _mm256_max_ps(m[v], _mm256_loadu_ps(x + 8 * v));
  }
  for (int r = 0; r < R; ++r) {
    __m256 mm = _mm256_set1_ps(hmax(_mm256_max_ps(m[2 * r], m[2 * r + 1])));
    m[2 * r] = m[2 * r + 1] = mm;
  }
  for (int cb = 0; cb < CB; ++cb) {
    const float* x = s + (cb * P + p0) * L;
    float* y = d + (cb * P + p0) * L;
    if (pf) {
      _mm_prefetch((const char*)(x + R * L), _MM_HINT_T1);
      _mm_prefetch((const char*)(y + R * L), _MM_HINT_T1);
      if (R * L * 4 > 64) {
        _mm_prefetch((const char*)(x + R * L) + 64 * (R * L * 4 / 64 - 1), _MM_HINT_T1);
      }
    }
    for (int v = 0; v < V; ++v) {
      __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + 8 * v), m[v]));
      _mm256_storeu_ps(y + 8 * v, e);
      sum[v] = _mm256_add_ps(sum[v], e);
    }
  }
  __m256 inv[V];
  for (int r = 0; r < R; ++r) {
    __m256 ii = _mm256_set1_ps(1.f / hsum(_mm256_add_ps(sum[2 * r], sum[2 * r + 1])));
    inv[2 * r] = inv[2 * r + 1] = ii;
  }
  for (int cb = 0; cb < CB; ++cb) {
    float* y = d + (cb * P + p0) * L;
    for (int v = 0; v < V; ++v)
      _mm256_storeu_ps(y + 8 * v, _mm256_mul_ps(_mm256_loadu_ps(y + 8 * v), inv[v]));
  }
}
void four_rows(const float* s, float* d, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; ++n) {
    const float* si = s + n * IMG;
    float* di = d + n * IMG;
    int p = 0;
    for (; p + 4 <= P; p += 4) rows_group<4>(si, di, p, true);
    for (; p < P; ++p) rows_group<1>(si, di, p, false);
  }
}
// Whole image per sweep, per-pixel maxima and sums in an L1 buffer: sequential access.
void whole_image(const float* s, float* d, int64_t n0, int64_t n1) {
  alignas(64) float mx[P * L], sm[P * L];
  for (int64_t n = n0; n < n1; ++n) {
    const float* si = s + n * IMG;
    float* di = d + n * IMG;
    for (int i = 0; i < P * L; ++i) mx[i] = -INFINITY;
    for (int cb = 0; cb < CB; ++cb)
      for (int i = 0; i < P * L; i += 8)
        _mm256_store_ps(
            mx + i, _mm256_max_ps(_mm256_load_ps(mx + i), _mm256_loadu_ps(si + cb * P * L + i)));
    for (int p = 0; p < P; ++p) {
      float m = -INFINITY;
      for (int l = 0; l < L; ++l) m = std::max(m, mx[p * L + l]);
      for (int l = 0; l < L; ++l) mx[p * L + l] = m;
    }
    memset(sm, 0, sizeof sm);
    for (int cb = 0; cb < CB; ++cb)
      for (int i = 0; i < P * L; i += 8) {
        __m256 e =
            exp8(_mm256_sub_ps(_mm256_loadu_ps(si + cb * P * L + i), _mm256_load_ps(mx + i)));
        _mm256_storeu_ps(di + cb * P * L + i, e);
        _mm256_store_ps(sm + i, _mm256_add_ps(_mm256_load_ps(sm + i), e));
      }
    for (int p = 0; p < P; ++p) {
      float t = 0;
      for (int l = 0; l < L; ++l) t += sm[p * L + l];
      for (int l = 0; l < L; ++l) sm[p * L + l] = 1.f / t;
    }
    for (int cb = 0; cb < CB; ++cb)
      for (int i = 0; i < P * L; i += 8)
        _mm256_storeu_ps(di + cb * P * L + i, _mm256_mul_ps(_mm256_loadu_ps(di + cb * P * L + i),
                                                            _mm256_load_ps(sm + i)));
  }
}
// nhwc-like dense reference: same bytes, rows of 1008 contiguous (for the 1.5x target).
void dense_rows(const float* s, float* d, int64_t n0, int64_t n1) {
  for (int64_t row = int64_t{n0} * P; row < int64_t{n1} * P; ++row) {
    const float* x = s + row * CB * L;
    float* y = d + row * CB * L;
    __m256 m = _mm256_set1_ps(-INFINITY);
    for (int i = 0; i < CB * L; i += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(x + i));
    m = _mm256_set1_ps(hmax(m));
    __m256 sum = _mm256_setzero_ps();
    for (int i = 0; i < CB * L; i += 8) {
      __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), m));
      _mm256_storeu_ps(y + i, e);
      sum = _mm256_add_ps(sum, e);
    }
    __m256 inv = _mm256_set1_ps(1.f / hsum(sum));
    for (int i = 0; i < CB * L; i += 8)
      _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), inv));
  }
}
void copy(const float* s, float* d, int64_t n0, int64_t n1) {
  memcpy(d + n0 * IMG, s + n0 * IMG, (n1 - n0) * IMG * 4);
}
}  // namespace

int main(int argc, char** argv) {
  const int sets = std::getenv("HOT") != nullptr ? 1 : 20;
  const int64_t n = NB * IMG;
  std::vector<float*> src(sets), dst(sets);
  for (int i = 0; i < sets; ++i) {
    src[i] = static_cast<float*>(std::aligned_alloc(64, n * 4));
    dst[i] = static_cast<float*>(std::aligned_alloc(64, n * 4));
    for (int64_t k = 0; k < n; ++k)
      src[i][k] = static_cast<float>((k * 2654435761u) % 1000) / 100.f;
    std::memset(dst[i], 0, n * 4);
  }
  const std::vector<harness::order> orders = {
      {"four_rows", four_rows, true},
      {"whole_image", whole_image, true},
      {"dense_rows", dense_rows, false},  // another layout of the same bytes
      {"memcpy", copy, false},
  };
  // Every 7th pixel of every 5th image against a softmax in double, within 1e-5 relative.
  auto check = [&](int set) {
    for (int64_t img = 0; img < NB; img += 5) {
      for (int p = 0; p < P; p += 7) {
        auto at = [&](int c) { return img * IMG + (c / L * P + p) * L + c % L; };
        double mx = -INFINITY, sum = 0;
        for (int c = 0; c < CB * L; ++c) mx = std::max(mx, double{src[set][at(c)]});
        for (int c = 0; c < CB * L; ++c) sum += std::exp(src[set][at(c)] - mx);
        for (int c = 0; c < CB * L; ++c) {
          const double want = std::exp(src[set][at(c)] - mx) / sum;
          if (std::fabs(dst[set][at(c)] - want) > 1e-5 * want) return false;
        }
      }
    }
    return true;
  };
  harness::time_orders(orders, argc, argv, sets, 5, 8, NB, src, dst, check, 1e6, "us");
}
