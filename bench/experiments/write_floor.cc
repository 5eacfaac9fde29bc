// Standalone harness: what writing the weight decompression bench's bytes costs, a floor for
// u4 -> f32 4096x4096 (8 MiB read, 64 MiB written). Cold (rotating buffer sets), 6 rounds x 5
// calls per order, interleaved; min and median in us:
// - "stream": 64 MiB of f32 written with non-temporal stores, nothing read (the dst alone);
// - "store": the same with plain stores (each line read for ownership first);
// - "memcpy": 64 MiB copied, the bench's memcpy row (which counts 128 MiB moved).
// The bench's BW column counts 72 MiB for the decompression against memcpy's 128 MiB, so a
// decompression no faster than "stream" reaches at most (72 / 128) x memcpy / stream of copy
// bandwidth.
//
//   bazel build -c opt //bench/experiments:write_floor
//   bazel-bin/bench/experiments/write_floor [names...]   # T2=1: 2 threads
#include <immintrin.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/experiments/harness.h"

namespace {

constexpr int64_t kRows = 4096, kCols = 4096;

void stream(const float* s, float* d, int64_t r0, int64_t r1) {
  const __m256 v = _mm256_set1_ps(s[0]);
  for (int64_t i = r0 * kCols; i < r1 * kCols; i += 8) _mm256_stream_ps(d + i, v);
  _mm_sfence();
}

void store(const float* s, float* d, int64_t r0, int64_t r1) {
  const __m256 v = _mm256_set1_ps(s[0]);
  for (int64_t i = r0 * kCols; i < r1 * kCols; i += 8) _mm256_store_ps(d + i, v);
}

void copy(const float* s, float* d, int64_t r0, int64_t r1) {
  std::memcpy(d + r0 * kCols, s + r0 * kCols, static_cast<size_t>((r1 - r0) * kCols) * 4);
}

}  // namespace

int main(int argc, char** argv) {
  constexpr int sets = 4;  // 512 MiB between two uses of one set
  std::vector<float*> src(sets), dst(sets);
  for (int i = 0; i < sets; ++i) {
    src[i] = static_cast<float*>(std::aligned_alloc(64, kRows * kCols * 4));
    dst[i] = static_cast<float*>(std::aligned_alloc(64, kRows * kCols * 4));
    for (int64_t e = 0; e < kRows * kCols; ++e) src[i][e] = static_cast<float>(e % 251);
    std::memset(dst[i], 0, kRows * kCols * 4);
  }
  const std::vector<harness::order> orders = {
      {"stream", &stream, false}, {"store", &store, false}, {"memcpy", &copy, false}};
  harness::time_orders(orders, argc, argv, sets, 6, 5, kRows, src, dst,
                       [](int) { return true; }, 1e6, "us");
  for (int i = 0; i < sets; ++i) std::free(src[i]), std::free(dst[i]);
}
