// What happened to each problem, and how it is shown: one line per problem, progress on stderr,
// the summary, and the perf CSV (a row per problem, written as the problem finishes).
//
//   tessera::bench::reporter rep(stdout, /*total=*/n, progress_options{.out = stderr});
//   rep.add(index, prb_line, outcome);       // "3:PASSED [xsimd:avx512bw:transpose] __REPRO: --reorder ..."
//   rep.print_summary();                     // counts, failures, then "N passed, N failed"
//
//   perf_csv csv;
//   TESSERA_RETURN_IF_ERROR(csv.open("perf.csv", header));   // "# ..." lines, then the columns
//   TESSERA_RETURN_IF_ERROR(csv.add(row));                   // written and flushed at once
#ifndef TESSERA_BENCH_DRIVER_REPORT_H_
#define TESSERA_BENCH_DRIVER_REPORT_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace tessera::bench {

enum class status { passed, failed, skipped, unimplemented, invalid_arguments, listed, executed, initialized };

const char* name_of(status s);  // "PASSED", ...

struct perf_figures {
  int threads = 1;
  double median_ms = 0;
  double min_ms = 0, avg_ms = 0, max_ms = 0;  // per call, over the samples
  double gbps = 0;       // (ibytes + obytes) / median time
  double copy_frac = 0;  // our GB/s over a same-run memcpy's GB/s of the same bytes
  int64_t ibytes = 0, obytes = 0;  // read and written by one call (padding included)
  int64_t buffer_sets = 1;         // buffer sets rotated (--cold-cache=all: more than 1)
  double ctime_miss_ms = 0, ctime_hit_ms = 0;  // creation: building the primitive, then cached
};

struct outcome {
  status st = status::passed;
  std::string reason;  // SKIPPED / UNIMPLEMENTED / INVALID_ARGUMENTS / FAILED detail
  std::string impl;
  std::string note;    // extra information (e.g. the oneDNN comparison) printed after the line
  std::optional<perf_figures> perf;   // Tessera's figures (absent when not timed)
  std::optional<double> onednn_ms;     // oneDNN 2.6.3 on the same problem, same run (median)
  std::optional<double> onednn_min_ms, onednn_avg_ms;
  std::string onednn_impl;
  // With --compare=onednn: whether oneDNN's output agreed with Tessera's (reorder: bit-exact;
  // softmax: benchdnn's rule against the f64 reference). A disagreement is a note, not a failure.
  std::optional<bool> onednn_agrees;
  // onednn_ms / Tessera's median_ms: > 1 means Tessera is faster.
  std::optional<double> ratio() const {
    if (!perf || !onednn_ms || perf->median_ms <= 0) return std::nullopt;
    return *onednn_ms / perf->median_ms;
  }
};

struct report_row {
  int64_t index;
  std::string repro;
  outcome result;
};

// Progress while a batch runs: after `after_s` seconds, a line on `out` every `every_s` seconds
// (rewritten in place when `out` is a terminal): done/total, failures, elapsed and ETA.
struct progress_options {
  std::FILE* out = nullptr;  // nullptr: no progress
  bool terminal = false;
  double after_s = 3;
  double every_s = 10;  // when not a terminal (a terminal line is redrawn after each problem)
};

class reporter {
 public:
  reporter(std::FILE* out, int64_t total, progress_options progress = {});
  void add(int64_t index, const std::string& repro, const outcome& o);
  // The summary; with list_failures, up to ten FAILED problems again (benchdnn's --summary),
  // indented so that they are not taken for problem lines.
  void print_summary(bool list_failures = true);
  // Ends the progress line (before other output to the same terminal).
  void clear_progress();
  const std::vector<report_row>& rows() const { return rows_; }
  int64_t count(status s) const;
  // Skip reasons with how many problems each skipped (reasons with the knob value generalised
  // away are not merged: the text is the key).
  const std::map<std::string, int64_t>& skip_reasons() const { return skip_reasons_; }

 private:
  void draw_progress();

  std::FILE* out_;
  int64_t total_;
  progress_options progress_;
  bool progress_shown_ = false;
  double last_progress_s_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::map<status, int64_t> counts_;
  std::map<std::string, int64_t> skip_reasons_;
  std::vector<report_row> rows_;
};

// What a --perf-csv row holds beyond the outcome: the problem's knobs as columns.
struct csv_problem {
  std::string driver, name, sdt, ddt, stag, dtag, dims, attrs, cold_cache;
};

// --perf-csv: "# key: value" header lines (the run's header: version, CPU, ISA, threads, cache),
// then the column names (kPerfCsvColumns), then one row per problem, flushed as it is added, so
// that an interrupted batch keeps the rows of its finished problems. Empty fields where not
// measured.
inline constexpr char kPerfCsvColumns[] =
    "index,status,driver,name,sdt,ddt,stag,dtag,dims,attrs,impl,threads,cold_cache,"
    "ibytes,obytes,min_ms,avg_ms,median_ms,gbps,copy_frac,onednn_impl,onednn_min_ms,onednn_ms,ratio,"
    "problem";

class perf_csv {
 public:
  ~perf_csv();
  // header: (key, value) pairs written as "# key: value" lines.
  absl::Status open(const std::string& path, const std::vector<std::pair<std::string, std::string>>& header);
  absl::Status add(int64_t index, const std::string& repro, const csv_problem& p, const outcome& o);
  absl::Status close();
  bool is_open() const { return f_ != nullptr; }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
};

// One CSV row (no newline), the columns of kPerfCsvColumns.
std::string perf_csv_row(int64_t index, const std::string& repro, const csv_problem& p, const outcome& o);

// A CSV field: quoted when it holds a comma, quote or newline.
std::string csv_field(const std::string& s);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_REPORT_H_
