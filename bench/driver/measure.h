// Timing: median of timed runs after warm-up, optionally rotating buffer sets so that every run
// starts from a cold cache, and the same-run memcpy that the GB/s figures are compared with.
//
//   tessera::bench::timing t = tessera::bench::measure([&](int64_t set) { run(set); }, sets, s);
//   double copy_ms = tessera::bench::memcpy_ms(bytes_moved / 2, s);   // on num_threads() threads
#ifndef TESSERA_BENCH_DRIVER_MEASURE_H_
#define TESSERA_BENCH_DRIVER_MEASURE_H_

#include <cstdint>
#include <functional>

#include "bench/driver/batch_parser.h"

namespace tessera::bench {

// --cold-cache=all rotates at least this many bytes of buffer sets.
inline constexpr int64_t kColdCacheBytes = int64_t{256} << 20;
// ... but never more sets than this (tiny problems: documented in docs/driver.md).
inline constexpr int64_t kMaxColdSets = 4096;

// How many buffer sets of `set_bytes` a measurement rotates over.
int64_t buffer_sets(int64_t set_bytes, const run_settings& s);

struct timing {
  double median_ms = 0;  // per call
  double min_ms = 0, avg_ms = 0, max_ms = 0;  // per call, over the samples
  int64_t samples = 0;
};

// Runs fn(set) with set = 0, 1, ... (mod sets): a warm-up, then samples of one or more calls each
// (enough calls that a sample lasts >= 50 us), until --fix-times-per-prb samples or the
// --max-ms-per-prb budget (split among the measurements of a problem) is spent.
timing measure(const std::function<void(int64_t set)>& fn, int64_t sets, const run_settings& s);

// Median time of memcpy of `bytes` (reads and writes `bytes` each), rotating like measure(),
// split over Tessera's threads like a kernel (parallel_copy).
double memcpy_ms(int64_t bytes, const run_settings& s);

// memcpy split into blocks over tessera::parallel_for: the same threads (num_threads()) and pool
// as Tessera's kernels, so the reference runs at Tessera's thread count. Copies under 64 KiB run
// on the calling thread.
void parallel_copy(void* dst, const void* src, int64_t bytes);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_MEASURE_H_
