// What a tessera_bench run is about beyond its problems: the thread count both libraries and the
// memcpy reference use, the header printed before the first problem (and written at the top of
// --perf-csv), and the record a perf template formats.
//
//   int threads = tessera::bench::apply_threads(/*requested=*/0);   // syncs oneDNN to Tessera
//   tessera::bench::run_header h = tessera::bench::collect_header(settings_of_first_problem);
//   std::puts(tessera::bench::header_line(h).c_str());
//   // "tessera_bench: Tessera 0.1.0 | oneDNN 2.6.3 (peer) | cpu: AMD EPYC (AuthenticAMD family 25
//   //  model 17) | isa: avx512bw | threads: 2 (Tessera, oneDNN and memcpy) | cold-cache: none | ..."
#ifndef TESSERA_BENCH_DRIVER_SESSION_H_
#define TESSERA_BENCH_DRIVER_SESSION_H_

#include <string>
#include <utility>
#include <vector>

#include "bench/driver/batch_parser.h"
#include "bench/driver/perf_template.h"
#include "bench/driver/report.h"

namespace tessera::bench {

// Sets Tessera's thread count and oneDNN's to the same value and returns it: `requested` when
// positive (--ctx-exe=N), else OMP_NUM_THREADS when only that is set (Tessera reads
// TESSERA_NUM_THREADS itself), else Tessera's count. The memcpy reference splits over Tessera's
// pool (parallel_copy), so it runs at the same count.
int apply_threads(int requested);

struct run_header {
  std::string tessera_version, onednn_version;
  std::string cpu;        // /proc/cpuinfo's model name (what lscpu shows as Model name)
  std::string cpu_id;     // "AuthenticAMD family 25 model 17"
  std::string isa;        // simd::max_isa()
  int tessera_threads = 0, onednn_threads = 0, memcpy_threads = 0;
  std::string cold_cache, mode, perf_template;
};

// The header of a run whose first problem has settings s (after apply_threads).
run_header collect_header(const run_settings& s);

// One line, "tessera_bench: Tessera 0.1.0 | oneDNN 2.6.3 (peer) | cpu: ... | isa: ... | ...".
std::string header_line(const run_header& h);

// The header as (key, value) pairs: the "# key: value" lines of --perf-csv.
std::vector<std::pair<std::string, std::string>> header_fields(const run_header& h);

// The template record of one problem's outcome.
perf_record make_perf_record(int64_t index, const parsed_problem& pp, const outcome& o);

// The CSV columns of a problem.
csv_problem make_csv_problem(const parsed_problem& pp);

// "--help": modes, knobs of each driver, examples.
std::string usage_text();

// "--version": Tessera's version and the linked oneDNN's.
std::string version_text();

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_SESSION_H_
