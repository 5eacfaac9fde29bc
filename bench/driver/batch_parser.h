// benchdnn's command-line and batch-file language, parsed into a list of problems.
//
//   tessera::bench::batch_parser parser(/*base_dir=*/"/home/me");
//   absl::Status s = parser.parse_args({"--reorder", "--sdt=f32,s8", "--dtag=axb", "2x16x3x4"});
//   for (const auto& [prb, settings] : parser.problems()) run(prb, settings);   // two problems
//
// The language is a state machine (benchdnn_general_info.md): knobs set the state of the current
// driver (--reorder / --softmax); each problem descriptor ("2x16x3x4", optionally _n"name") emits
// the cross product of every comma list in that state; --reset restores the driver's defaults;
// --batch=FILE reads FILE (relative to the including file) into the same state. In files, '#'
// starts a comment and a trailing '\' continues the line.
//
// Invalid input is a Status naming it, and the driver stops before running anything (benchdnn
// exits on a parse error too): a batch file that cannot be read, a descriptor that is not dims
// (2x-3, -1x3), an unknown option, a knob of the other driver, a bad value of a global option, a
// perf template with an unknown field. Knob values are checked by validate_problem (resolve.h).
// --engine=gpu, valid but not Tessera's, is kept in problem::unsupported: the problem is SKIPPED.
#ifndef TESSERA_BENCH_DRIVER_BATCH_PARSER_H_
#define TESSERA_BENCH_DRIVER_BATCH_PARSER_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bench/driver/problem.h"

namespace tessera::bench {

// Options that benchdnn treats as global (not reset by --reset), as they stood when a problem was
// emitted.
struct run_settings {
  bool correctness = true;   // --mode contains C
  bool performance = false;  // --mode contains P (or F)
  bool list_only = false;    // --mode=L: report LISTED, run nothing
  bool init_only = false;    // --mode=I: create the primitive only (INITIALIZED)
  bool compare_onednn = false;           // --compare=onednn
  std::string cold_cache = "none";       // --cold-cache (wei: as none, no weights here)
  int64_t max_ms_per_prb = 600;          // --max-ms-per-prb: time budget of one measurement
  int64_t fix_times_per_prb = 0;         // --fix-times-per-prb: timed runs (0: by time budget)
  std::string engine = "cpu";            // --engine
  int threads = 0;                       // --ctx-exe=N: Tessera's and oneDNN's threads (0: auto)
  bool mem_check = true;                 // --mem-check: skip problems that need too much RAM
  bool canonical = false;                // --canonical: every knob in the repro line
  bool check_ref_impl = false;           // --check-ref-impl: a ref:* implementation FAILS
  int repeats = 1;                       // --repeats-per-prb
  int verbose = 0;                       // --verbose=N, -vN
  std::string perf_template = "def";     // --perf-template (def, csv or a custom template)
};

struct parsed_problem {
  problem prb;
  run_settings settings;
};

// One token of the input and where it came from ("file:line" or "argv[3]").
struct token {
  std::string text;
  std::string origin;
};

// Splits a batch file's text into tokens: whitespace separates, '#' starts a comment (outside
// double quotes), a line ending in '\' joins the next line (its leading blanks dropped).
std::vector<token> tokenize_batch(const std::string& text, const std::string& file_name);

// Parses "2x16x3x4" or "2x16x3x4_n\"name\"": dims non-negative int64.
// A token that starts with a digit, or with '-' and a digit, is a descriptor (never an option).
absl::Status parse_descriptor(const std::string& text, std::vector<int64_t>* dims,
                              std::string* name);

class batch_parser {
 public:
  // base_dir: directory against which a relative --batch path on the command line is resolved.
  explicit batch_parser(std::string base_dir);

  absl::Status parse_args(const std::vector<std::string>& args);

  const std::vector<parsed_problem>& problems() const { return problems_; }
  // Problems dropped by --match.
  int64_t filtered_out() const { return filtered_out_; }
  // Last --perf-csv=FILE ("" when not given).
  const std::string& perf_csv() const { return perf_csv_; }
  // --start=N: the index of the first problem to run (earlier ones are not run).
  int64_t start() const { return start_; }
  // --summary=[no-]failures: list up to ten FAILED problems again at the end (default on).
  bool summary_failures() const { return summary_failures_; }
  // Batch files read, in order, with their full paths (printed at -v50).
  const std::vector<std::string>& batch_files() const { return batch_files_; }

 private:
  struct driver_state {
    // Knob -> its comma list of values.
    std::map<std::string, std::vector<std::string>> lists;
    std::vector<std::pair<std::string, std::string>> unsupported;
    std::string match;  // regex; empty: everything
  };

  absl::Status parse_tokens(const std::vector<token>& tokens, const std::string& dir, int depth);
  absl::Status parse_option(const token& t, const std::string& dir, int depth);
  absl::Status parse_global(const token& t, const std::string& key, const std::string& value,
                            bool has_value, const std::string& dir, bool* handled);
  absl::Status parse_batch_file(const std::string& path, const std::string& dir, int depth);
  absl::Status emit(const token& descriptor);
  driver_state& state() { return states_[static_cast<int>(driver_)]; }
  void reset(driver_kind d);

  std::string base_dir_;
  driver_kind driver_ = driver_kind::reorder;
  driver_state states_[2];
  run_settings settings_;
  std::string perf_csv_;
  int64_t start_ = 0;
  bool summary_failures_ = true;
  std::vector<std::string> batch_files_;
  std::vector<parsed_problem> problems_;
  int64_t filtered_out_ = 0;
};

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_BATCH_PARSER_H_
