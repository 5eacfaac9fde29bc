#include "bench/driver/session.h"

#include <cstdlib>
#include <fstream>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bench/driver/onednn_runner.h"
#include "tessera/core/version.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/simd/isa.h"

namespace tessera::bench {
namespace {

// /proc/cpuinfo's first "key : value" lines of interest.
std::map<std::string, std::string> cpuinfo() {
  std::map<std::string, std::string> m;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) break;  // the first processor only
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k(absl::StripAsciiWhitespace(line.substr(0, colon)));
    std::string v(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    m.emplace(k, v);
  }
  return m;
}

std::string mode_of(const run_settings& s) {
  if (s.list_only) return "L";
  if (s.init_only) return "I";
  std::string m = absl::StrCat(s.correctness ? "C" : "", s.performance ? "P" : "");
  return m.empty() ? "R" : m;
}

}  // namespace

int apply_threads(int requested) {
  int n = requested;
  if (n <= 0 && std::getenv("TESSERA_NUM_THREADS") == nullptr) {
    if (const char* omp = std::getenv("OMP_NUM_THREADS")) {
      // OMP_NUM_THREADS may be a list ("4,2"): the first level is what oneDNN uses.
      std::vector<std::string> levels = absl::StrSplit(omp, ',');
      int v = 0;
      if (absl::SimpleAtoi(levels[0], &v) && v > 0) n = v;
    }
  }
  if (n > 0 && n != num_threads()) (void)set_num_threads(n);
  (void)set_onednn_threads(num_threads());
  return num_threads();
}

run_header collect_header(const run_settings& s) {
  run_header h;
  h.tessera_version = kVersionString;
  h.onednn_version = onednn_version();
  auto info = cpuinfo();
  h.cpu = info.count("model name") ? info["model name"] : "unknown CPU";
  h.cpu_id = absl::StrCat(info["vendor_id"], " family ", info["cpu family"], " model ", info["model"]);
  h.isa = std::string(simd::name_of(simd::max_isa()));
  h.tessera_threads = num_threads();
  h.onednn_threads = onednn_threads();
  h.memcpy_threads = num_threads();  // parallel_copy runs on Tessera's pool
  h.cold_cache = s.cold_cache;
  h.mode = mode_of(s);
  h.perf_template = s.perf_template;
  return h;
}

std::string header_line(const run_header& h) {
  std::string threads =
      h.tessera_threads == h.onednn_threads && h.tessera_threads == h.memcpy_threads
          ? absl::StrCat(h.tessera_threads, " (Tessera, oneDNN and memcpy)")
          : absl::StrCat(h.tessera_threads, " Tessera, ", h.onednn_threads, " oneDNN, ", h.memcpy_threads, " memcpy");
  return absl::StrCat("tessera_bench: Tessera ", h.tessera_version, " | oneDNN ", h.onednn_version,
                      " (peer) | cpu: ", h.cpu, " (", h.cpu_id, ") | isa: ", h.isa, " | threads: ", threads,
                      " | cold-cache: ", h.cold_cache, " | mode: ", h.mode);
}

std::vector<std::pair<std::string, std::string>> header_fields(const run_header& h) {
  return {{"tessera", h.tessera_version},
          {"onednn", h.onednn_version},
          {"cpu", h.cpu},
          {"cpu_id", h.cpu_id},
          {"isa", h.isa},
          {"threads", absl::StrCat(h.tessera_threads)},
          {"onednn_threads", absl::StrCat(h.onednn_threads)},
          {"memcpy_threads", absl::StrCat(h.memcpy_threads)},
          {"cold_cache", h.cold_cache},
          {"mode", h.mode}};
}

perf_record make_perf_record(int64_t index, const parsed_problem& pp, const outcome& o) {
  const problem& p = pp.prb;
  perf_record r;
  r.index = index;
  r.engine = pp.settings.engine;
  r.driver = name_of(p.driver);
  r.impl = o.impl;
  r.name = p.name;
  r.prb = repro_line(p, pp.settings.canonical);
  r.desc = absl::StrCat(dims_to_string(p.dims), p.name.empty() ? "" : absl::StrCat("_n\"", p.name, "\""));
  r.desc_csv = absl::StrJoin(p.dims, ",");
  r.sdt = p.knob("sdt");
  r.ddt = p.knob("ddt");
  r.stag = p.knob("stag");
  r.dtag = p.knob("dtag");
  r.alg = p.knob("alg");
  r.attr = attr_string(p);
  r.axis = p.knob("axis");
  r.dir = p.knob("dir");
  r.flags = p.knob("oflag");
  r.mb = p.knob("mb");
  if (o.perf) {
    r.min_ms = o.perf->min_ms;
    r.avg_ms = o.perf->avg_ms;
    r.max_ms = o.perf->max_ms;
    r.ibytes = static_cast<double>(o.perf->ibytes);
    r.obytes = static_cast<double>(o.perf->obytes);
    r.ctime_miss_ms = o.perf->ctime_miss_ms;
    r.ctime_hit_ms = o.perf->ctime_hit_ms;
  }
  return r;
}

csv_problem make_csv_problem(const parsed_problem& pp) {
  const problem& p = pp.prb;
  return {.driver = name_of(p.driver),
          .name = p.name,
          .sdt = p.knob("sdt"),
          .ddt = p.knob("ddt"),
          .stag = p.knob("stag"),
          .dtag = p.knob("dtag"),
          .dims = dims_to_string(p.dims),
          .attrs = attr_string(p),
          .cold_cache = pp.settings.cold_cache};
}

std::string version_text() {
  return absl::StrCat("tessera_bench ", kVersionString, " (Tessera ", kVersionString, ")\n",
                      "peer: oneDNN ", onednn_version(), " (linked; --compare=onednn)\n");
}

std::string usage_text() {
  return R"(usage: tessera_bench [GLOBAL-OPTIONS] --reorder|--softmax [KNOBS] DIMS... [--batch=FILE]
       tessera_bench --help | --version

benchdnn's language: knobs set the state of the current driver, each DIMS (2x16x3x4, optionally
_n"name") runs the cross product of the comma lists; --reset restores the driver's defaults.
docs/driver.md has the details.

Modes (--mode=): C correctness (default), P performance, CP both, F fast performance (P, 10 ms
per problem), R run only, I create only, L list only.

Global options:
  --compare=onednn|none      run oneDNN on the same problem (agreement, time, speedup)
  --perf-template=def|csv|T  perf lines (fields %engine% %impl% %prb% %-time% %0time% %Gbw% ...)
  --perf-csv=FILE            a CSV row per problem, written as each problem finishes
  --cold-cache=none|all|wei  rotate buffer sets (wei: as none, no weights here)
  --max-ms-per-prb=N  --fix-times-per-prb=N
  --ctx-exe=N                threads of Tessera, oneDNN and memcpy (default: TESSERA_NUM_THREADS,
                             else OMP_NUM_THREADS, else every core)
  --start=N  --repeats-per-prb=N  -vN|--verbose=N  --summary=[no-]failures  --match=REGEX
  --canonical=BOOL  --mem-check=BOOL  --check-ref-impl=BOOL  --engine=cpu
  --impl=NAMES  --skip-impl=NAMES  (substrings of implementation names)

Reorder knobs: --sdt --ddt (--dt) --stag --dtag (--tag) --strides=S:D --oflag
  --runtime-dim-mask --cross-engine --attr-scales --attr-zero-points --attr-post-ops=sum[:B[:ZP]]
  --attr-oscale --attr-scratchpad --attr-fpmath --attr-acc-mode --attr-rounding-mode
  --attr-deterministic --attr-dropout
Softmax knobs: --dir=FWD_D|FWD_I|BWD_D --sdt --ddt --stag --dtag --alg=SOFTMAX|LOGSOFTMAX
  --axis --inplace --mb --attr-scales --attr-oscale (and the other --attr-* knobs)

Examples:
  tessera_bench --reorder --sdt=f32 --ddt=s8 --stag=abx --dtag=axb 2x16x3x4
  tessera_bench --mode=P --perf-template=csv --softmax --axis=1 1024x1000
  tessera_bench --mode=CP --compare=onednn --perf-csv=perf.csv --batch=bench/inputs/demo
)";
}

}  // namespace tessera::bench
