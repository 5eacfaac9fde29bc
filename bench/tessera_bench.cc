// tessera_bench: benchdnn's language, Tessera's primitives (docs/driver.md).
//
//   bazel run -c opt //bench:tessera_bench -- --mode=CP --compare=onednn --batch=$PWD/bench/inputs/demo
//   bazel run -c opt //bench:tessera_bench -- --reorder --sdt=f32 --ddt=s8 --stag=abx --dtag=axb 2x16x3x4
//
// Prints one line per problem (index, status, implementation, reproducer), a summary and a final
// "N passed, N failed"; exits 1 when any problem FAILED (or the command line is wrong).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/driver/batch_parser.h"
#include "bench/driver/report.h"
#include "bench/driver/resolve.h"
#include "bench/driver/runner.h"

namespace tb = tessera::bench;

// oneDNN 2.6.3 (Debian) runs on GNU OpenMP, Tessera on its own pool, and the driver alternates
// their calls. With OpenMP's default active wait, its spinning threads and Tessera's workers fight
// over the cores and oneDNN's timings jump to milliseconds per call whatever the size; Tessera's
// workers, which also poll for a while after each call (TESSERA_SPIN_US), would slow oneDNN's
// next call the same way. So both sleep at once after a call, unless the user chose otherwise.
// libgomp reads OMP_WAIT_POLICY when it is loaded, before main: this re-runs the program once.
void use_passive_waits(char** argv) {
  if (std::getenv("TESSERA_SPIN_US") == nullptr) setenv("TESSERA_SPIN_US", "0", 1);
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);
  // execv failed: carry on with the default policy (oneDNN's timings may be pessimistic).
}

int main(int argc, char** argv) {
  use_passive_waits(argv);
  // Line-buffered even when piped: a crash must not swallow the lines of finished problems.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  // Under `bazel run` the working directory is the runfiles tree: resolve relative --batch paths
  // against the directory the user ran the command from.
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  tb::batch_parser parser(wd ? wd : ".");
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fprintf(stderr,
                 "usage: tessera_bench [--mode=C|P|CP|L] [--compare=onednn] [--perf-csv=FILE]\n"
                 "                     [--cold-cache=all] --reorder|--softmax [knobs] DIMS... | --batch=FILE\n"
                 "see docs/driver.md\n");
    return 2;
  }
  if (absl::Status s = parser.parse_args(args); !s.ok()) {
    std::fprintf(stderr, "tessera_bench: %s\n", std::string(s.message()).c_str());
    return 2;
  }
  const auto& problems = parser.problems();
  tb::reporter rep(stdout, static_cast<int64_t>(problems.size()), isatty(fileno(stdout)) != 0);
  int64_t index = 0;
  for (const tb::parsed_problem& pp : problems) {
    std::string line = tb::repro_line(pp.prb);
    tb::outcome o;
    absl::StatusOr<tb::resolved> r = tb::resolve(pp.prb);
    if (!r.ok()) {
      o.st = tb::status::invalid_arguments;
      o.reason = std::string(r.status().message());
    } else if (!r->skip_reason.empty()) {
      o.st = tb::status::skipped;
      o.reason = r->skip_reason;
    } else if (pp.settings.list_only) {
      o.st = tb::status::listed;
    } else {
      o = tb::run_problem(pp, *r);
    }
    rep.add(index++, line, o);
  }
  if (parser.filtered_out() > 0) {
    std::printf("%lld problem(s) did not match --match\n", static_cast<long long>(parser.filtered_out()));
  }
  rep.print_summary();
  if (!parser.perf_csv().empty()) {
    if (absl::Status s = tb::write_perf_csv(parser.perf_csv(), rep.rows()); !s.ok()) {
      std::fprintf(stderr, "tessera_bench: %s\n", std::string(s.message()).c_str());
      return 1;
    }
  }
  return rep.count(tb::status::failed) > 0 ? 1 : 0;
}
