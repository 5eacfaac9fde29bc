// tessera_bench: benchdnn's language, Tessera's primitives (docs/driver.md).
//
//   bazel run -c opt //bench:tessera_bench -- --mode=CP --compare=onednn --batch=$PWD/bench/inputs/demo
//   bazel run -c opt //bench:tessera_bench -- --reorder --sdt=f32 --ddt=s8 --stag=abx --dtag=axb 2x16x3x4
//
// Prints a header (versions, CPU, ISA, threads, cache mode), one line per problem (index,
// status, implementation, reproducer), benchdnn's perf lines when timing, a summary and a final
// "N passed, N failed"; exits 1 when any problem FAILED, 2 on invalid input (nothing runs).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "bench/driver/batch_parser.h"
#include "bench/driver/report.h"
#include "bench/driver/resolve.h"
#include "bench/driver/runner.h"
#include "bench/driver/session.h"

namespace tb = tessera::bench;

// oneDNN 2.6.3 (Debian) runs on GNU OpenMP, Tessera on its own pool, and the driver alternates
// their calls. With OpenMP's default active wait, its spinning threads and Tessera's workers fight
// over the cores and oneDNN's timings jump to milliseconds per call whatever the size. So OpenMP's
// threads sleep at once after a call, as Tessera's do by default, unless the user chose otherwise.
// libgomp reads OMP_WAIT_POLICY when it is loaded, before main: this re-runs the program once.
void use_passive_waits(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv);
  // execv failed: carry on with the default policy (oneDNN's timings may be pessimistic).
}

namespace {

bool has_arg(const std::vector<std::string>& args, std::initializer_list<const char*> names) {
  for (const std::string& a : args) {
    for (const char* n : names) {
      if (a == n) return true;
    }
  }
  return false;
}

int fail(const std::string& message, int code) {
  std::fprintf(stderr, "tessera_bench: %s\n", message.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (has_arg(args, {"--help", "-h"})) {
    std::fputs(tb::usage_text().c_str(), stdout);
    return 0;
  }
  if (has_arg(args, {"--version"})) {
    std::fputs(tb::version_text().c_str(), stdout);
    return 0;
  }
  use_passive_waits(argv);
  // Line-buffered even when piped: a crash must not swallow the lines of finished problems.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  // Under `bazel run` the working directory is the runfiles tree: resolve relative --batch paths
  // against the directory the user ran the command from.
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  tb::batch_parser parser(wd ? wd : ".");
  if (args.empty()) {
    std::fputs(tb::usage_text().c_str(), stderr);
    return 2;
  }
  if (absl::Status s = parser.parse_args(args); !s.ok()) return fail(std::string(s.message()), 2);
  const auto& problems = parser.problems();

  // Every problem is checked before any runs: invalid input stops the run (benchdnn's rule).
  std::vector<absl::StatusOr<tb::resolved>> resolved;
  resolved.reserve(problems.size());
  for (const tb::parsed_problem& pp : problems) {
    resolved.push_back(tb::resolve(pp.prb));
    if (!resolved.back().ok()) return fail(std::string(resolved.back().status().message()), 2);
  }

  // Runs: each problem --repeats-per-prb times; the index counts runs, --start skips the first.
  struct run_item {
    size_t problem;
    int64_t index;
  };
  std::vector<run_item> runs;
  int64_t next_index = 0;
  for (size_t i = 0; i < problems.size(); ++i) {
    for (int k = 0; k < problems[i].settings.repeats; ++k) {
      if (next_index >= parser.start()) runs.push_back({i, next_index});
      ++next_index;
    }
  }
  const int64_t not_started = std::min<int64_t>(parser.start(), next_index);

  tb::run_settings first = problems.empty() ? tb::run_settings{} : problems.front().settings;
  int threads = tb::apply_threads(first.threads);
  const tb::run_header header = tb::collect_header(first);
  std::printf("%s\n", tb::header_line(header).c_str());
  if (first.verbose >= 50) {
    for (const std::string& f : parser.batch_files()) std::printf("batch file: %s\n", f.c_str());
  }

  tb::perf_csv csv;
  if (!parser.perf_csv().empty()) {
    if (absl::Status s = csv.open(parser.perf_csv(), tb::header_fields(header)); !s.ok()) {
      return fail(std::string(s.message()), 1);
    }
  }

  tb::reporter rep(stdout, static_cast<int64_t>(runs.size()),
                   tb::progress_options{.out = stderr, .terminal = isatty(fileno(stderr)) != 0});
  std::string shown_template;
  for (const run_item& item : runs) {
    const tb::parsed_problem& pp = problems[item.problem];
    const tb::resolved& r = *resolved[item.problem];
    const tb::run_settings& s = pp.settings;
    if (s.threads > 0 && s.threads != threads) threads = tb::apply_threads(s.threads);
    std::string line = tb::repro_line(pp.prb, s.canonical);
    if (s.verbose >= 1) {
      rep.clear_progress();
      std::printf("run: %s\n", line.c_str());
    }
    tb::outcome o;
    if (!r.skip_reason.empty()) {
      o.st = tb::status::skipped;
      o.reason = r.skip_reason;
    } else if (s.list_only) {
      o.st = tb::status::listed;
    } else {
      o = tb::run_problem(pp, r);
    }
    rep.add(item.index, line, o);
    if (o.perf) {
      if (s.verbose >= 3 && o.perf->buffer_sets > 1) {
        std::printf("    cold cache: %lld buffer sets of %lld bytes\n", static_cast<long long>(o.perf->buffer_sets),
                    static_cast<long long>(o.perf->ibytes + o.perf->obytes));
      }
      // benchdnn's perf line, after "Output template: ..." whenever the template changes.
      absl::StatusOr<std::string> t = tb::expand_perf_template(s.perf_template, name_of(pp.prb.driver));
      if (t.ok()) {
        if (*t != shown_template) {
          std::printf("Output template: %s\n", t->c_str());
          shown_template = *t;
        }
        std::printf("%s\n", tb::format_perf(*t, tb::make_perf_record(item.index, pp, o)).c_str());
      }
    }
    if (csv.is_open()) {
      if (absl::Status st = csv.add(item.index, line, tb::make_csv_problem(pp), o); !st.ok()) {
        return fail(std::string(st.message()), 1);
      }
    }
  }
  if (not_started > 0) {
    std::printf("%lld run(s) before --start=%lld not run\n", static_cast<long long>(not_started),
                static_cast<long long>(parser.start()));
  }
  if (parser.filtered_out() > 0) {
    std::printf("%lld problem(s) did not match --match\n", static_cast<long long>(parser.filtered_out()));
  }
  if (absl::Status st = csv.close(); !st.ok()) return fail(std::string(st.message()), 1);
  rep.print_summary(parser.summary_failures());
  return rep.count(tb::status::failed) > 0 ? 1 : 0;
}
