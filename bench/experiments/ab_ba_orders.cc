// Standalone harness: orders of an ab -> ba 4096 f32 transpose on AVX2, cold (four rotating
// pairs of 64 MB buffers), 5 rounds x 4 calls per order, interleaved; min and median in ms.
// "A" copies reorder's 64-row bands (transpose_tiles_banded_avx2 before session 39); "B<R>x<W>"
// moves R rows at a time across strips of W columns, each column's R floats streamed from the
// registers (transpose_rows16_streamed_avx2 is B16x1024). docs/performance.md, reorder AVX2
// round 8, has its results.
//
//   bazel build -c opt //bench/experiments:ab_ba_orders
//   bazel-bin/bench/experiments/ab_ba_orders [names...]   # T2=1: 2 threads; HUGE=1: 2 MiB pages
#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/experiments/transpose8x8.h"
constexpr int64_t N = 4096;
// A: bands of 64 rows x strips of 256 columns, local block, NT 256-B runs, L2 prefetch 64 cols
// ahead.
void kA_r(const float* s, float* d, int64_t cb, int64_t ce) {
  constexpr int64_t BR = 64, SC = 256, AH = 64;
  alignas(64) float block[8 * BR];
  for (int64_t c00 = cb; c00 < ce; c00 += SC) {
    for (int64_t b0 = 0; b0 < N; b0 += BR) {
      for (int64_t c0 = c00; c0 < c00 + SC; c0 += 8) {
        for (int64_t r = 0; r < BR; r += 8) {
          if (c0 % 16 == 0) {
            int64_t ac = c0 + AH, ar = b0 + r;
            if (ac >= c00 + SC) {
              ac -= SC;
              ar += BR;
            }
            if (ar + 8 <= N)
              for (int i = 0; i < 8; ++i)
                _mm_prefetch((const char*)(s + (ar + i) * N + ac), _MM_HINT_T1);
          }
          __m256 t[8];
          load_t8(s + (b0 + r) * N + c0, N, t);
          for (int i = 0; i < 8; ++i) _mm256_store_ps(block + i * BR + r, t[i]);
        }
        for (int i = 0; i < 8; ++i)
          for (int j = 0; j < BR; j += 8)
            _mm256_stream_ps(d + (c0 + i) * N + b0 + j, _mm256_load_ps(block + i * BR + j));
      }
    }
  }
  _mm_sfence();
}
// B: R rows at a time across a strip of SC columns (column tiles inner), R in {16, 32}; each
// column's R floats stored NT straight (R=16: one line). Prefetch to L2 along each row PF bytes
// ahead.
template <int R, int64_t SC, int PF>
void kB_r(const float* s, float* d, int64_t cb, int64_t ce) {
  for (int64_t c00 = cb; c00 < ce; c00 += SC)
    for (int64_t b0 = 0; b0 < N; b0 += R) {
      for (int64_t c0 = c00; c0 < c00 + SC; c0 += 8) {
        if (PF > 0 && c0 % 16 == 0)
          for (int i = 0; i < R; ++i)
            _mm_prefetch((const char*)(s + (b0 + i) * N + c0) + PF, _MM_HINT_T1);
        __m256 t[R / 8][8];
        for (int k = 0; k < R / 8; ++k) load_t8(s + (b0 + 8 * k) * N + c0, N, t[k]);
        for (int i = 0; i < 8; ++i)
          for (int k = 0; k < R / 8; ++k) _mm256_stream_ps(d + (c0 + i) * N + b0 + 8 * k, t[k][i]);
      }
    }
  _mm_sfence();
}
void kcopy_r(const float* s, float* d, int64_t cb, int64_t ce) {
  memcpy(d + cb * N, s + cb * N, (ce - cb) * N * 4);
}
#include <thread>
int g_threads = 1;
template <void (*F)(const float*, float*, int64_t, int64_t)>
void par(const float* s, float* d) {
  if (g_threads == 1) {
    F(s, d, 0, N);
    return;
  }
  std::thread t([&] { F(s, d, N / 2, N); });
  F(s, d, 0, N / 2);
  t.join();
}
void readonly_band(const float* s, float* d, int64_t cb, int64_t ce) {  // A's read pattern only
  constexpr int64_t BR = 64, SC = 256, AH = 64;
  __m256 acc = _mm256_setzero_ps();
  for (int64_t c00 = cb; c00 < ce; c00 += SC)
    for (int64_t b0 = 0; b0 < N; b0 += BR)
      for (int64_t c0 = c00; c0 < c00 + SC; c0 += 8)
        for (int64_t r = 0; r < BR; r += 8) {
          if (c0 % 16 == 0) {
            int64_t ac = c0 + AH, ar = b0 + r;
            if (ac >= c00 + SC) {
              ac -= SC;
              ar += BR;
            }
            if (ar + 8 <= N)
              for (int i = 0; i < 8; ++i)
                _mm_prefetch((const char*)(s + (ar + i) * N + ac), _MM_HINT_T1);
          }
          for (int i = 0; i < 8; ++i)
            acc = _mm256_add_ps(acc, _mm256_loadu_ps(s + (b0 + r + i) * N + c0));
        }
  _mm256_storeu_ps(d + cb, acc);
}
struct K {
  const char* name;
  void (*f)(const float*, float*);
  bool check;
};
int main(int argc, char** argv) {
  const int sets = 4;
  if (getenv("T2")) g_threads = 2;
  bool huge = getenv("HUGE") != nullptr;
  std::vector<float*> S(sets), D(sets);
  for (int i = 0; i < sets; ++i) {
    S[i] = (float*)aligned_alloc(2 << 20, N * N * 4);
    D[i] = (float*)aligned_alloc(2 << 20, N * N * 4);
    if (huge) {
      madvise(S[i], N * N * 4, MADV_HUGEPAGE);
      madvise(D[i], N * N * 4, MADV_HUGEPAGE);
    }
    for (int64_t k = 0; k < N * N; ++k) S[i][k] = (float)(k % 100003);
    memset(D[i], 0, N * N * 4);
  }
  std::vector<K> ks = {{"A", par<kA_r>, true},
                       {"B16x4096", par<kB_r<16, 4096, 256>>, true},
                       {"B16x1024", par<kB_r<16, 1024, 256>>, true},
                       {"B32x1024", par<kB_r<32, 1024, 256>>, true},
                       {"B32x512", par<kB_r<32, 512, 256>>, true},
                       {"B16x4096np", par<kB_r<16, 4096, 0>>, true},
                       {"B16p512", par<kB_r<16, 4096, 512>>, true},
                       {"B16p1024", par<kB_r<16, 4096, 1024>>, true},
                       {"B16p2048", par<kB_r<16, 4096, 2048>>, true},
                       {"B16x2048", par<kB_r<16, 2048, 512>>, true},
                       {"B16x256", par<kB_r<16, 256, 256>>, true},
                       {"B16x512", par<kB_r<16, 512, 256>>, true},
                       {"memcpy", par<kcopy_r>, false},
                       {"readA", par<readonly_band>, false}};
  std::vector<std::string> want;
  for (int i = 1; i < argc; ++i) want.push_back(argv[i]);
  const int rounds = 5;
  std::vector<std::vector<double>> times(ks.size());
  int k = 0;
  for (int r = 0; r < rounds; ++r)
    for (size_t j = 0; j < ks.size(); ++j) {
      if (!want.empty() && std::find(want.begin(), want.end(), ks[j].name) == want.end()) continue;
      for (int rep = 0; rep < 4; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        ks[j].f(S[k], D[k]);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count();
        times[j].push_back(ms);
        if (ks[j].check && rep == 0 && r == 0) {
          for (int64_t q = 0; q < N * N; q += 9973) {
            int64_t a = q / N, b = q % N;
            if (D[k][b * N + a] != S[k][q]) {
              printf("%s WRONG\n", ks[j].name);
              break;
            }
          }
        }
        k = (k + 1) % sets;
      }
    }
  for (size_t j = 0; j < ks.size(); ++j) {
    if (times[j].empty()) continue;
    auto t = times[j];
    std::sort(t.begin(), t.end());
    printf("%-12s min %7.2f  med %7.2f ms\n", ks[j].name, t[0], t[t.size() / 2]);
  }
}
