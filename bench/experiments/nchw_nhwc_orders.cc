// Standalone harness: orders of an nchw -> nhwc f32 32x64x56x56 transpose on AVX2, cold (six
// rotating buffer sets), 5 rounds x 4 calls per order, interleaved; min and median in ms. "cur"
// copies reorder's short-column order before session 39 (8 columns down all 64 rows into a
// local block, streamed); "rows<R>" moves R rows at a time across each whole plane, "chunk<W>"
// 16 rows at a time across chunks of W columns, each pixel's rows streamed from the registers.
// docs/performance.md, reorder AVX2 round 8, has its results.
//
//   bazel build -c opt //bench/experiments:nchw_nhwc_orders
//   bazel-bin/bench/experiments/nchw_nhwc_orders [names...]   # T2=1: 2 threads
#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench/experiments/transpose8x8.h"
constexpr int64_t NB = 32, C = 64, HW = 56 * 56;
// Current: per image, 8-column tiles outermost, all 64 rows (prefetch each row 768 B ahead to L2),
// transposed into a 2 KB local block, streamed.
void cur(const float* s, float* d, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; ++n) {
    const float* si = s + n * C * HW;
    float* di = d + n * C * HW;
    for (int64_t c0 = 0; c0 < HW; c0 += 8) {
      for (int64_t r = 0; r < C; ++r)
        _mm_prefetch((const char*)(si + r * HW + c0) + 768, _MM_HINT_T1);
      alignas(64) float block[8 * 64];
      for (int64_t r0 = 0; r0 < C; r0 += 8) {
        __m256 t[8];
        load_t8(si + r0 * HW + c0, HW, t);
        for (int i = 0; i < 8; ++i) _mm256_store_ps(block + i * C + r0, t[i]);
      }
      for (int j = 0; j < 8 * C; j += 8)
        _mm256_stream_ps(di + c0 * C + j, _mm256_load_ps(block + j));
    }
  }
  _mm_sfence();
}
// R rows across all columns of the image (R = 16: each pixel's 16 channels one dst line), NT.
template <int R, int PF>
void rows(const float* s, float* d, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; ++n) {
    const float* si = s + n * C * HW;
    float* di = d + n * C * HW;
    for (int64_t r0 = 0; r0 < C; r0 += R) {
      for (int64_t c0 = 0; c0 < HW; c0 += 8) {
        if (PF && c0 % 16 == 0)
          for (int r = 0; r < R; ++r)
            _mm_prefetch((const char*)(si + (r0 + r) * HW + c0) + PF, _MM_HINT_T1);
        __m256 t[R / 8][8];
        for (int k = 0; k < R / 8; ++k) load_t8(si + (r0 + 8 * k) * HW + c0, HW, t[k]);
        for (int i = 0; i < 8; ++i)
          for (int k = 0; k < R / 8; ++k) _mm256_stream_ps(di + (c0 + i) * C + r0 + 8 * k, t[k][i]);
      }
    }
  }
  _mm_sfence();
}
// 16 rows across a chunk of W columns, the 4 row groups of the chunk in turn (so each dst pixel row
// of 256 B is completed within the chunk), NT.
template <int W, int PF>
void chunks(const float* s, float* d, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; ++n) {
    const float* si = s + n * C * HW;
    float* di = d + n * C * HW;
    for (int64_t cc = 0; cc < HW; cc += W) {
      const int64_t ce = std::min(HW, cc + W);
      for (int64_t r0 = 0; r0 < C; r0 += 16) {
        for (int64_t c0 = cc; c0 < ce; c0 += 8) {
          if (PF && c0 % 16 == 0)
            for (int r = 0; r < 16; ++r)
              _mm_prefetch((const char*)(si + (r0 + r) * HW + c0) + PF, _MM_HINT_T1);
          __m256 a[8], b[8];
          load_t8(si + r0 * HW + c0, HW, a);
          load_t8(si + (r0 + 8) * HW + c0, HW, b);
          for (int i = 0; i < 8; ++i) {
            _mm256_stream_ps(di + (c0 + i) * C + r0, a[i]);
            _mm256_stream_ps(di + (c0 + i) * C + r0 + 8, b[i]);
          }
        }
      }
    }
  }
  _mm_sfence();
}
void copy(const float* s, float* d, int64_t n0, int64_t n1) {
  memcpy(d + n0 * C * HW, s + n0 * C * HW, (n1 - n0) * C * HW * 4);
}
int g_threads = 1;
typedef void (*KF)(const float*, float*, int64_t, int64_t);
void run(KF f, const float* s, float* d) {
  if (g_threads == 1) {
    f(s, d, 0, NB);
    return;
  }
  std::thread t([&] { f(s, d, NB / 2, NB); });
  f(s, d, 0, NB / 2);
  t.join();
}
struct K {
  const char* name;
  KF f;
  bool check;
};
int main(int argc, char** argv) {
  if (getenv("T2")) g_threads = 2;
  const int64_t n = NB * C * HW;
  const int sets = 6;
  std::vector<float*> S(sets), D(sets);
  for (int i = 0; i < sets; ++i) {
    S[i] = (float*)aligned_alloc(64, n * 4);
    D[i] = (float*)aligned_alloc(64, n * 4);
    for (int64_t k = 0; k < n; ++k) S[i][k] = (float)(k % 100003);
    memset(D[i], 0, n * 4);
  }
  std::vector<K> ks = {{"cur", cur, true},
                       {"rows16", rows<16, 256>, true},
                       {"rows16np", rows<16, 0>, true},
                       {"rows32", rows<32, 256>, true},
                       {"chunk256", chunks<256, 256>, true},
                       {"chunk512", chunks<512, 256>, true},
                       {"chunk1024", chunks<1024, 256>, true},
                       {"memcpy", copy, false}};
  std::vector<std::string> want(argv + 1, argv + argc);
  std::vector<std::vector<double>> times(ks.size());
  int k = 0;
  for (int r = 0; r < 5; ++r)
    for (size_t j = 0; j < ks.size(); ++j) {
      if (!want.empty() && std::find(want.begin(), want.end(), ks[j].name) == want.end()) continue;
      for (int rep = 0; rep < 4; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        run(ks[j].f, S[k], D[k]);
        times[j].push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
        if (ks[j].check && rep == 0 && r == 0)
          for (int64_t q = 0; q < n; q += 9973) {
            int64_t b = q / (C * HW), c = q / HW % C, p = q % HW;
            if (D[k][b * C * HW + p * C + c] != S[k][q]) {
              printf("%s WRONG\n", ks[j].name);
              break;
            }
          }
        k = (k + 1) % sets;
      }
    }
  for (size_t j = 0; j < ks.size(); ++j) {
    if (times[j].empty()) continue;
    auto t = times[j];
    std::sort(t.begin(), t.end());
    printf("%-10s min %6.2f  med %6.2f ms\n", ks[j].name, t[0], t[t.size() / 2]);
  }
}
