#include "bench/driver/runner.h"

#include "absl/strings/str_cat.h"
#include "bench/driver/onednn_runner.h"

namespace tessera::bench {

// Tessera's primitives are not in this build yet (primitives/reorder and primitives/softmax have
// not landed): every runnable problem is reported UNIMPLEMENTED with that reason — never PASSED.
// With --compare=onednn and a performance mode, oneDNN 2.6.3 still runs and is timed, so the
// peer's figures are in the table and the CSV.
outcome run_problem(const parsed_problem& pp, const resolved& r) {
  outcome o;
  o.st = status::unimplemented;
  o.reason = pp.prb.driver == driver_kind::reorder
                 ? "Tessera's reorder primitive is not in this build yet"
                 : "Tessera's softmax primitive is not in this build yet";
  if (pp.settings.compare_onednn && pp.settings.performance) {
    auto d = run_onednn(pp.prb.driver, r, pp.settings);
    if (d.ok()) {
      o.onednn_ms = d->median_ms;
      o.onednn_impl = d->impl;
    } else {
      o.note = absl::StrCat("oneDNN: ", d.status().message());
    }
  }
  return o;
}

}  // namespace tessera::bench
