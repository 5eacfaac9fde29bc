// Standalone harness: orders of an nchw -> nhwc f32 32x64x56x56 transpose on AVX2, cold (six
// rotating buffer sets), 5 rounds x 4 calls per order, interleaved; min and median in ms.
// "cur" is a short-column order (8 columns down all 64 rows into a local block, streamed);
// "rows<R>" moves R rows at a time across each whole plane and "chunk<W>" 16 rows at a time
// across chunks of W columns, each pixel's rows streamed from the registers, src lines
// prefetched 256 bytes ahead ("np": none).
//
//   bazel build -c opt //bench/experiments:nchw_nhwc_orders
//   bazel-bin/bench/experiments/nchw_nhwc_orders [names...]   # T2=1: 2 threads
#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/experiments/harness.h"
#include "bench/experiments/transpose8x8.h"

namespace {

constexpr int64_t NB = 32, C = 64, HW = 56 * 56;

// Images [n0, n1): 8-column tiles outermost, all 64 rows (each row prefetched 768 bytes ahead,
// to L2) transposed into a 2 KB local block, streamed.
void columns_down(const float* s, float* d, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; ++n) {
    const float* si = s + n * C * HW;
    float* di = d + n * C * HW;
    for (int64_t c0 = 0; c0 < HW; c0 += 8) {
      for (int64_t r = 0; r < C; ++r) {
        _mm_prefetch((const char*)(si + r * HW + c0) + 768, _MM_HINT_T1);
      }
      alignas(64) float block[8 * C];
      for (int64_t r0 = 0; r0 < C; r0 += 8) {
        __m256 t[8];
        load_t8(si + r0 * HW + c0, HW, t);
        for (int i = 0; i < 8; ++i) _mm256_store_ps(block + i * C + r0, t[i]);
      }
      for (int j = 0; j < 8 * C; j += 8) {
        _mm256_stream_ps(di + c0 * C + j, _mm256_load_ps(block + j));
      }
    }
  }
  _mm_sfence();
}

// Images [n0, n1): in chunks of W columns, R rows at a time across the chunk, each pixel's R
// channels streamed (R = 16: one line).
template <int R, int64_t W, int kAheadBytes>
void rows_across(const float* s, float* d, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; ++n) {
    const float* si = s + n * C * HW;
    float* di = d + n * C * HW;
    for (int64_t cc = 0; cc < HW; cc += W) {
      const int64_t chunk_end = std::min(HW, cc + W);
      for (int64_t r0 = 0; r0 < C; r0 += R) {
        for (int64_t c0 = cc; c0 < chunk_end; c0 += 8) {
          if (kAheadBytes > 0 && c0 % 16 == 0) {
            for (int r = 0; r < R; ++r) {
              _mm_prefetch((const char*)(si + (r0 + r) * HW + c0) + kAheadBytes, _MM_HINT_T1);
            }
          }
          __m256 t[R / 8][8];
          for (int k = 0; k < R / 8; ++k) load_t8(si + (r0 + 8 * k) * HW + c0, HW, t[k]);
          for (int i = 0; i < 8; ++i) {
            for (int k = 0; k < R / 8; ++k) {
              _mm256_stream_ps(di + (c0 + i) * C + r0 + 8 * k, t[k][i]);
            }
          }
        }
      }
    }
  }
  _mm_sfence();
}

void copy(const float* s, float* d, int64_t n0, int64_t n1) {
  std::memcpy(d + n0 * C * HW, s + n0 * C * HW, (n1 - n0) * C * HW * 4);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = NB * C * HW;
  const int sets = 6;
  std::vector<float*> src(sets), dst(sets);
  for (int i = 0; i < sets; ++i) {
    src[i] = static_cast<float*>(std::aligned_alloc(64, n * 4));
    dst[i] = static_cast<float*>(std::aligned_alloc(64, n * 4));
    for (int64_t k = 0; k < n; ++k) src[i][k] = static_cast<float>(k % 100003);
    std::memset(dst[i], 0, n * 4);
  }
  const std::vector<harness::order> orders = {
      {"cur", columns_down, true},
      {"rows16", rows_across<16, HW, 256>, true},
      {"rows16np", rows_across<16, HW, 0>, true},
      {"rows32", rows_across<32, HW, 256>, true},
      {"chunk256", rows_across<16, 256, 256>, true},
      {"chunk512", rows_across<16, 512, 256>, true},
      {"chunk1024", rows_across<16, 1024, 256>, true},
      {"memcpy", copy, false},
  };
  auto check = [&](int set) {
    for (int64_t q = 0; q < n; q += 9973) {
      const int64_t b = q / (C * HW), c = q / HW % C, p = q % HW;
      if (dst[set][b * C * HW + p * C + c] != src[set][q]) return false;
    }
    return true;
  };
  harness::time_orders(orders, argc, argv, sets, 5, 4, NB, src, dst, check, 1e3, "ms");
}
