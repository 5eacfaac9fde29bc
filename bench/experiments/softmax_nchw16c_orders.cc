// Standalone harness: orders of a softmax over C of nChw16c 32x1008x7x7 f32 (63 blocks of 16
// channels) on AVX2, cold (20 rotating buffer sets) or hot (HOT=1), 5 rounds x 8 calls per
// order, interleaved; min and median in us. "four_rows" keeps four adjacent pixels' maxima and
// sums in registers and sweeps their 63 runs of 256 bytes three times (as the library's
// forward_four_rows does, without its nearby exp); "whole_image" sweeps each image's 197 KB in
// address order three times, the per-pixel maxima and sums in an L1 buffer; "dense_rows" is
// the same bytes as 1008-float rows (nhwc), for target (d). One simple exp serves all three.
// docs/performance.md, softmax session 39, has its results.
//
//   bazel build -c opt //bench/experiments:softmax_nchw16c_orders
//   bazel-bin/bench/experiments/softmax_nchw16c_orders   # T2=1: 2 threads; HOT=1: one set
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
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
void four_rows(const float* s, float* d, int n0, int n1) {
  for (int n = n0; n < n1; ++n) {
    const float* si = s + n * IMG;
    float* di = d + n * IMG;
    int p = 0;
    for (; p + 4 <= P; p += 4) rows_group<4>(si, di, p, true);
    for (; p < P; ++p) rows_group<1>(si, di, p, false);
  }
}
// Whole image per sweep, per-pixel maxima and sums in an L1 buffer: sequential access.
void whole_image(const float* s, float* d, int n0, int n1) {
  alignas(64) float mx[P * L], sm[P * L];
  for (int n = n0; n < n1; ++n) {
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
void dense_rows(const float* s, float* d, int n0, int n1) {
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
void copy(const float* s, float* d, int n0, int n1) {
  memcpy(d + n0 * IMG, s + n0 * IMG, (n1 - n0) * IMG * 4);
}
typedef void (*KF)(const float*, float*, int, int);
int g_threads = 1;
void run(KF f, const float* s, float* d) {
  if (g_threads == 1) {
    f(s, d, 0, NB);
    return;
  }
  std::thread t([&] { f(s, d, NB / 2, NB); });
  f(s, d, 0, NB / 2);
  t.join();
}
int main(int argc, char** argv) {
  if (getenv("T2")) g_threads = 2;
  const bool hot = getenv("HOT") != nullptr;
  const int sets = hot ? 1 : 20;
  const int64_t n = NB * IMG;
  std::vector<float*> S(sets), D(sets);
  for (int i = 0; i < sets; ++i) {
    S[i] = (float*)aligned_alloc(64, n * 4);
    D[i] = (float*)aligned_alloc(64, n * 4);
    for (int64_t k = 0; k < n; ++k) S[i][k] = (float)((k * 2654435761u) % 1000) / 100.f;
    memset(D[i], 0, n * 4);
  }
  struct K {
    const char* name;
    KF f;
  };
  std::vector<K> ks = {{"four_rows", four_rows},
                       {"whole_image", whole_image},
                       {"dense_rows", dense_rows},
                       {"memcpy", copy}};
  std::vector<std::vector<double>> times(ks.size());
  // correctness: whole_image vs four_rows
  {
    std::vector<float> a(n), b(n);
    four_rows(S[0], a.data(), 0, NB);
    whole_image(S[0], b.data(), 0, NB);
    double md = 0;
    for (int64_t k = 0; k < n; ++k) md = std::max(md, (double)std::fabs(a[k] - b[k]));
    printf("max diff %g\n", md);
  }
  int k = 0;
  for (int r = 0; r < 5; ++r)
    for (size_t j = 0; j < ks.size(); ++j)
      for (int rep = 0; rep < 8; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        run(ks[j].f, S[k], D[k]);
        times[j].push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                .count());
        k = (k + 1) % sets;
      }
  for (size_t j = 0; j < ks.size(); ++j) {
    auto t = times[j];
    std::sort(t.begin(), t.end());
    printf("%-12s min %7.1f  med %7.1f us\n", ks[j].name, t[0], t[t.size() / 2]);
  }
}
