// What happened to each problem, and how it is shown: one line per problem, a live progress line
// on a terminal, the summary, and the perf CSV.
//
//   tessera::bench::reporter rep(stdout, /*total=*/n, /*live=*/isatty(1));
//   rep.add(index, prb_line, outcome);       // "3:PASSED (xsimd:avx512bw:transpose) __REPRO: --reorder ..."
//   rep.print_summary();                     // counts, then "N passed, N failed"
//   TESSERA_RETURN_IF_ERROR(write_perf_csv("perf.csv", rep.rows()));
#ifndef TESSERA_BENCH_DRIVER_REPORT_H_
#define TESSERA_BENCH_DRIVER_REPORT_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tessera::bench {

enum class status { passed, failed, skipped, unimplemented, invalid_arguments, listed, executed };

const char* name_of(status s);  // "PASSED", ...

struct perf_figures {
  int threads = 1;
  double median_ms = 0;
  double gbps = 0;
  double copy_frac = 0;  // our GB/s over a same-run memcpy's GB/s of the same bytes
};

struct outcome {
  status st = status::passed;
  std::string reason;  // SKIPPED / UNIMPLEMENTED / INVALID_ARGUMENTS / FAILED detail
  std::string impl;
  std::string note;    // extra information (e.g. the oneDNN comparison) printed after the line
  std::optional<perf_figures> perf;   // Tessera's figures (absent when not timed)
  std::optional<double> onednn_ms;     // oneDNN 2.6.3 on the same problem, same run
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

class reporter {
 public:
  reporter(std::FILE* out, int64_t total, bool live_progress);
  void add(int64_t index, const std::string& repro, const outcome& o);
  void print_summary();
  const std::vector<report_row>& rows() const { return rows_; }
  int64_t count(status s) const;
  // Skip reasons with how many problems each skipped (reasons with the knob value generalised
  // away are not merged: the text is the key).
  const std::map<std::string, int64_t>& skip_reasons() const { return skip_reasons_; }

 private:
  void clear_progress();
  void draw_progress();

  std::FILE* out_;
  int64_t total_;
  bool live_;
  bool progress_shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::map<status, int64_t> counts_;
  std::map<std::string, int64_t> skip_reasons_;
  std::vector<report_row> rows_;
};

// Writes the header problem,impl,threads,median_ms,gbps,copy_frac,onednn_ms,ratio and one row per
// problem (empty fields where not measured).
absl::Status write_perf_csv(const std::string& path, const std::vector<report_row>& rows);

// A CSV field: quoted when it holds a comma, quote or newline.
std::string csv_field(const std::string& s);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_REPORT_H_
