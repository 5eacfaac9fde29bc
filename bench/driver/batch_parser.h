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
// Fatal errors (a batch file that cannot be read, a bad --match regex, a bad --mode) are returned
// as Status; a descriptor that cannot be parsed becomes a problem with parse_error set, so it is
// reported (INVALID_ARGUMENTS) without stopping the batch. Knobs Tessera does not know are kept in
// problem::unsupported so that the runner reports the problem SKIPPED with the knob named.
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
  bool performance = false;  // --mode contains P
  bool list_only = false;    // --mode=L: report LISTED, run nothing
  bool compare_onednn = false;           // --compare=onednn
  std::string cold_cache = "none";       // --cold-cache
  int64_t max_ms_per_prb = 600;          // --max-ms-per-prb: time budget of one measurement
  int64_t fix_times_per_prb = 0;         // --fix-times-per-prb: timed runs (0: by time budget)
  std::string engine = "cpu";            // --engine
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

 private:
  struct driver_state {
    // Knob -> its comma list of values.
    std::map<std::string, std::vector<std::string>> lists;
    std::vector<std::pair<std::string, std::string>> unsupported;
    std::string match;  // regex; empty: everything
  };

  absl::Status parse_tokens(const std::vector<token>& tokens, const std::string& dir, int depth);
  absl::Status parse_option(const token& t, const std::string& dir, int depth);
  absl::Status parse_batch_file(const std::string& path, const std::string& dir, int depth);
  absl::Status emit(const token& descriptor);
  driver_state& state() { return states_[static_cast<int>(driver_)]; }
  void reset(driver_kind d);

  std::string base_dir_;
  driver_kind driver_ = driver_kind::reorder;
  driver_state states_[2];
  run_settings settings_;
  std::string perf_csv_;
  std::vector<parsed_problem> problems_;
  int64_t filtered_out_ = 0;
};

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_BATCH_PARSER_H_
