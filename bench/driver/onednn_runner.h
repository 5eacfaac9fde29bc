// oneDNN 2.6.3 on the same problem (--compare=onednn): builds oneDNN descriptors from Tessera's
// layouts (formats/), fills the source, and times oneDNN like Tessera. Only the driver links
// oneDNN; the library never does.
//
//   absl::StatusOr<onednn_result> r = run_onednn(resolved_problem, settings);
//   // NotFound / Unimplemented: oneDNN 2.6.3 cannot express the problem (the message says why).
#ifndef TESSERA_BENCH_DRIVER_ONEDNN_RUNNER_H_
#define TESSERA_BENCH_DRIVER_ONEDNN_RUNNER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/driver/batch_parser.h"
#include "bench/driver/resolve.h"

namespace tessera::bench {

// Tessera's inputs, so that both libraries see the same data (the layouts are the same: both
// descriptors come from the same tags). Reorder: {src}; softmax forward: {src}; backward:
// {dst, diff_dst}. dst_init: the destination's initial bytes (reorder with a sum post-op).
struct onednn_inputs {
  std::vector<std::pair<const void*, int64_t>> inputs;  // (data, bytes)
  std::pair<const void*, int64_t> dst_init{nullptr, 0};
};

struct onednn_result {
  std::string impl;       // oneDNN's implementation name, e.g. "jit:uni"
  double median_ms = 0;   // 0 when not timed (s.performance false)
  double min_ms = 0, avg_ms = 0;
  int64_t bytes_moved = 0;  // bytes read + written by one execution (padding included)
  std::vector<char> output;  // the output (dst / diff_src) of the first execution, when io given
};

// Without io, sources get the driver's own filler (timing only).
absl::StatusOr<onednn_result> run_onednn(driver_kind driver, const resolved& r, const run_settings& s,
                                         const onednn_inputs* io = nullptr);

// The linked oneDNN's version ("2.6.3").
std::string onednn_version();

// oneDNN's thread count (its OpenMP runtime's omp_get_max_threads on the calling thread), and
// setting it (omp_set_num_threads, found at run time in the loaded OpenMP library; effective for
// oneDNN calls made later from the calling thread). 0 / an error when no OpenMP runtime is loaded.
int onednn_threads();
absl::Status set_onednn_threads(int n);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_ONEDNN_RUNNER_H_
