// Standalone harness: orders of an ab -> ba 4096 f32 transpose on AVX2, cold (four rotating
// pairs of 64 MB buffers), 5 rounds x 4 calls per order, interleaved; min and median in ms.
// "A" is 64-row bands (the order of transpose_tiles_banded_avx2), "readA" its read pattern
// alone; "B<R>x<W>" moves R rows at a time across strips of W columns, each column's R
// floats streamed from the registers, src lines prefetched 256 bytes ahead ("np": none; "p<N>":
// N bytes). transpose_rows16_streamed_avx2 is B16x1024.
//
//   bazel build -c opt //bench/experiments:ab_ba_orders
//   bazel-bin/bench/experiments/ab_ba_orders [names...]   # T2=1: 2 threads; HUGE=1: 2 MiB pages
#include <immintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/experiments/harness.h"
#include "bench/experiments/transpose8x8.h"

namespace {

constexpr int64_t N = 4096;
constexpr int64_t kBandRows = 64, kStripCols = 256, kAheadCols = 64;

// A's prefetch: once per line, the line kAheadCols further in A's order (the next band's first
// lines past the strip's end), to L2.
inline void prefetch_band_ahead(const float* s, int64_t strip, int64_t b0, int64_t r, int64_t c0) {
  if (c0 % 16 != 0) return;
  int64_t ac = c0 + kAheadCols, ar = b0 + r;
  if (ac >= strip + kStripCols) {
    ac -= kStripCols;
    ar += kBandRows;
  }
  if (ar + 8 > N) return;
  for (int i = 0; i < 8; ++i) _mm_prefetch((const char*)(s + (ar + i) * N + ac), _MM_HINT_T1);
}

// A: columns [cb, ce) in strips of 256, bands of 64 rows through a local block, each column's
// 256-byte run streamed.
void bands(const float* s, float* d, int64_t cb, int64_t ce) {
  alignas(64) float block[8 * kBandRows];
  for (int64_t strip = cb; strip < ce; strip += kStripCols) {
    for (int64_t b0 = 0; b0 < N; b0 += kBandRows) {
      for (int64_t c0 = strip; c0 < strip + kStripCols; c0 += 8) {
        for (int64_t r = 0; r < kBandRows; r += 8) {
          prefetch_band_ahead(s, strip, b0, r, c0);
          __m256 t[8];
          load_t8(s + (b0 + r) * N + c0, N, t);
          for (int i = 0; i < 8; ++i) _mm256_store_ps(block + i * kBandRows + r, t[i]);
        }
        for (int i = 0; i < 8; ++i) {
          for (int j = 0; j < kBandRows; j += 8) {
            _mm256_stream_ps(d + (c0 + i) * N + b0 + j, _mm256_load_ps(block + i * kBandRows + j));
          }
        }
      }
    }
  }
  _mm_sfence();
}

// A's loads and prefetches alone, summed (no stores but one vector).
void bands_read_only(const float* s, float* d, int64_t cb, int64_t ce) {
  __m256 acc = _mm256_setzero_ps();
  for (int64_t strip = cb; strip < ce; strip += kStripCols) {
    for (int64_t b0 = 0; b0 < N; b0 += kBandRows) {
      for (int64_t c0 = strip; c0 < strip + kStripCols; c0 += 8) {
        for (int64_t r = 0; r < kBandRows; r += 8) {
          prefetch_band_ahead(s, strip, b0, r, c0);
          for (int i = 0; i < 8; ++i) {
            acc = _mm256_add_ps(acc, _mm256_loadu_ps(s + (b0 + r + i) * N + c0));
          }
        }
      }
    }
  }
  _mm256_storeu_ps(d + cb, acc);
}

// B: R rows at a time across strips of W columns; each column's R floats streamed.
template <int R, int64_t W, int kAheadBytes>
void rows_across(const float* s, float* d, int64_t cb, int64_t ce) {
  for (int64_t strip = cb; strip < ce; strip += W) {
    const int64_t strip_end = std::min(strip + W, ce);  // two threads: half the columns each
    for (int64_t b0 = 0; b0 < N; b0 += R) {
      for (int64_t c0 = strip; c0 < strip_end; c0 += 8) {
        if (kAheadBytes > 0 && c0 % 16 == 0) {
          for (int i = 0; i < R; ++i) {
            _mm_prefetch((const char*)(s + (b0 + i) * N + c0) + kAheadBytes, _MM_HINT_T1);
          }
        }
        __m256 t[R / 8][8];
        for (int k = 0; k < R / 8; ++k) load_t8(s + (b0 + 8 * k) * N + c0, N, t[k]);
        for (int i = 0; i < 8; ++i) {
          for (int k = 0; k < R / 8; ++k) _mm256_stream_ps(d + (c0 + i) * N + b0 + 8 * k, t[k][i]);
        }
      }
    }
  }
  _mm_sfence();
}

void copy(const float* s, float* d, int64_t cb, int64_t ce) {
  std::memcpy(d + cb * N, s + cb * N, (ce - cb) * N * 4);
}

}  // namespace

int main(int argc, char** argv) {
  const int sets = 4;
  const bool huge = std::getenv("HUGE") != nullptr;
  std::vector<float*> src(sets), dst(sets);
  for (int i = 0; i < sets; ++i) {
    src[i] = static_cast<float*>(std::aligned_alloc(2 << 20, N * N * 4));
    dst[i] = static_cast<float*>(std::aligned_alloc(2 << 20, N * N * 4));
    if (huge) {
      madvise(src[i], N * N * 4, MADV_HUGEPAGE);
      madvise(dst[i], N * N * 4, MADV_HUGEPAGE);
    }
    for (int64_t k = 0; k < N * N; ++k) src[i][k] = static_cast<float>(k % 100003);
    std::memset(dst[i], 0, N * N * 4);
  }
  const std::vector<harness::order> orders = {
      {"A", bands, true},
      {"readA", bands_read_only, false},
      {"B16x256", rows_across<16, 256, 256>, true},
      {"B16x512", rows_across<16, 512, 256>, true},
      {"B16x1024", rows_across<16, 1024, 256>, true},
      {"B16x2048", rows_across<16, 2048, 512>, true},
      {"B16x4096", rows_across<16, 4096, 256>, true},
      {"B16x4096np", rows_across<16, 4096, 0>, true},
      {"B16p512", rows_across<16, 4096, 512>, true},
      {"B16p1024", rows_across<16, 4096, 1024>, true},
      {"B16p2048", rows_across<16, 4096, 2048>, true},
      {"B32x512", rows_across<32, 512, 256>, true},
      {"B32x1024", rows_across<32, 1024, 256>, true},
      {"memcpy", copy, false},
  };
  auto check = [&](int set) {
    for (int64_t q = 0; q < N * N; q += 9973) {
      if (dst[set][q % N * N + q / N] != src[set][q]) return false;
    }
    return true;
  };
  harness::time_orders(orders, argc, argv, sets, 5, 4, N, src, dst, check, 1e3, "ms");
}
