// oneDNN 2.6.3 on the same problem (--compare=onednn): builds oneDNN descriptors from Tessera's
// layouts (formats/), fills the source, and times oneDNN like Tessera. Only the driver links
// oneDNN; the library never does.
//
//   absl::StatusOr<onednn_result> r = run_onednn(resolved_problem, settings);
//   // NotFound / Unimplemented: oneDNN 2.6.3 cannot express the problem (the message says why).
#ifndef TESSERA_BENCH_DRIVER_ONEDNN_RUNNER_H_
#define TESSERA_BENCH_DRIVER_ONEDNN_RUNNER_H_

#include <string>

#include "absl/status/statusor.h"
#include "bench/driver/batch_parser.h"
#include "bench/driver/resolve.h"

namespace tessera::bench {

struct onednn_result {
  std::string impl;       // oneDNN's implementation name, e.g. "jit:uni"
  double median_ms = 0;
  int64_t bytes_moved = 0;  // bytes read + written by one execution (padding included)
};

absl::StatusOr<onednn_result> run_onednn(driver_kind driver, const resolved& r, const run_settings& s);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_ONEDNN_RUNNER_H_
