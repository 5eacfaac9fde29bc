#include "bench/driver/report.h"


#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace tessera::bench {

const char* name_of(status s) {
  switch (s) {
    case status::passed: return "PASSED";
    case status::failed: return "FAILED";
    case status::skipped: return "SKIPPED";
    case status::unimplemented: return "UNIMPLEMENTED";
    case status::invalid_arguments: return "INVALID_ARGUMENTS";
    case status::listed: return "LISTED";
    case status::executed: return "EXECUTED";
    case status::initialized: return "INITIALIZED";
  }
  return "UNTESTED";
}

reporter::reporter(std::FILE* out, int64_t total, progress_options progress)
    : out_(out), total_(total), progress_(progress), start_(std::chrono::steady_clock::now()) {}

int64_t reporter::count(status s) const {
  auto it = counts_.find(s);
  return it == counts_.end() ? 0 : it->second;
}

void reporter::clear_progress() {
  if (progress_shown_ && progress_.terminal) {
    std::fputs("\r\033[K", progress_.out);
    std::fflush(progress_.out);
  }
  progress_shown_ = false;
}

void reporter::draw_progress() {
  if (progress_.out == nullptr) return;
  const int64_t done = static_cast<int64_t>(rows_.size());
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed < progress_.after_s || done >= total_) return;
  // Off a terminal, a new line every every_s seconds; on one, the line is redrawn each time.
  if (!progress_.terminal && progress_shown_ && elapsed - last_progress_s_ < progress_.every_s) return;
  const double eta = done > 0 ? elapsed / static_cast<double>(done) * static_cast<double>(total_ - done) : 0;
  std::fprintf(progress_.out, "%s[%lld/%lld] failed %lld, elapsed %.0fs, ETA %.0fs%s",
               progress_.terminal ? "\r\033[K" : "tessera_bench: progress ", static_cast<long long>(done),
               static_cast<long long>(total_), static_cast<long long>(count(status::failed)), elapsed, eta,
               progress_.terminal ? "" : "\n");
  std::fflush(progress_.out);
  progress_shown_ = true;
  last_progress_s_ = elapsed;
}

void reporter::add(int64_t index, const std::string& repro, const outcome& o) {
  if (progress_.terminal) clear_progress();
  ++counts_[o.st];
  if (o.st == status::skipped || o.st == status::unimplemented) ++skip_reasons_[absl::StrCat(name_of(o.st), ": ", o.reason)];
  std::string line = absl::StrCat(index, ":", name_of(o.st));
  if (!o.reason.empty()) absl::StrAppend(&line, " (", o.reason, ")");
  if (!o.impl.empty()) absl::StrAppend(&line, " [", o.impl, "]");
  if (o.perf) {
    const perf_figures& p = *o.perf;
    absl::StrAppend(&line, absl::StrFormat(" %.4f ms %.2f GB/s %.2f of memcpy", p.median_ms, p.gbps, p.copy_frac));
  }
  if (o.onednn_ms || o.onednn_agrees) {
    absl::StrAppend(&line, " | oneDNN");
    if (o.onednn_ms) absl::StrAppend(&line, absl::StrFormat(" %.4f ms", *o.onednn_ms));
    absl::StrAppend(&line, " [", o.onednn_impl, "]");
    if (o.onednn_agrees) absl::StrAppend(&line, *o.onednn_agrees ? " agrees" : " DIFFERS");
    if (auto r = o.ratio()) absl::StrAppend(&line, absl::StrFormat(" speedup x%.2f", *r));
  }
  absl::StrAppend(&line, " __REPRO: ", repro);
  std::fprintf(out_, "%s\n", line.c_str());
  if (!o.note.empty()) std::fprintf(out_, "    %s\n", o.note.c_str());
  rows_.push_back({index, repro, o});
  draw_progress();
}

void reporter::print_summary(bool list_failures) {
  clear_progress();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(out_, "tests:%lld passed:%lld skipped:%lld unimplemented:%lld invalid_arguments:%lld "
               "failed:%lld listed:%lld (%.1f s)\n",
               static_cast<long long>(rows_.size()), static_cast<long long>(count(status::passed)),
               static_cast<long long>(count(status::skipped)),
               static_cast<long long>(count(status::unimplemented)),
               static_cast<long long>(count(status::invalid_arguments)),
               static_cast<long long>(count(status::failed)), static_cast<long long>(count(status::listed)),
               elapsed);
  if (count(status::executed) + count(status::initialized) > 0) {
    std::fprintf(out_, "  executed:%lld initialized:%lld\n", static_cast<long long>(count(status::executed)),
                 static_cast<long long>(count(status::initialized)));
  }
  for (const auto& [reason, n] : skip_reasons_) {
    std::fprintf(out_, "  %6lld x %s\n", static_cast<long long>(n), reason.c_str());
  }
  if (list_failures && count(status::failed) > 0) {
    std::fprintf(out_, "Failed cases summary (--summary=no-failures to disable):\n");
    int shown = 0;
    for (const report_row& r : rows_) {
      if (r.result.st != status::failed) continue;
      if (shown++ == 10) {
        std::fprintf(out_, "    ... and %lld more\n", static_cast<long long>(count(status::failed) - 10));
        break;
      }
      std::fprintf(out_, "    %lld:FAILED __REPRO: %s\n", static_cast<long long>(r.index), r.repro.c_str());
    }
  }
  std::fprintf(out_, "%lld passed, %lld failed\n", static_cast<long long>(count(status::passed)),
               static_cast<long long>(count(status::failed)));
  std::fflush(out_);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  return absl::StrCat("\"", absl::StrReplaceAll(s, {{"\"", "\"\""}}), "\"");
}

std::string perf_csv_row(int64_t index, const std::string& repro, const csv_problem& p, const outcome& o) {
  std::string row = absl::StrCat(index, ",", name_of(o.st));
  for (const std::string* f : {&p.driver, &p.name, &p.sdt, &p.ddt, &p.stag, &p.dtag, &p.dims, &p.attrs, &o.impl}) {
    absl::StrAppend(&row, ",", csv_field(*f));
  }
  if (o.perf) {
    const perf_figures& f = *o.perf;
    absl::StrAppend(&row, ",", f.threads, ",", p.cold_cache, ",", f.ibytes, ",", f.obytes,
                    absl::StrFormat(",%.6f,%.6f,%.6f,%.4f,%.4f", f.min_ms, f.avg_ms, f.median_ms, f.gbps, f.copy_frac));
  } else {
    absl::StrAppend(&row, ",,,,,,,,,");
  }
  absl::StrAppend(&row, ",", csv_field(o.onednn_impl), ",");
  if (o.onednn_min_ms) absl::StrAppend(&row, absl::StrFormat("%.6f", *o.onednn_min_ms));
  absl::StrAppend(&row, ",");
  if (o.onednn_ms) absl::StrAppend(&row, absl::StrFormat("%.6f", *o.onednn_ms));
  absl::StrAppend(&row, ",");
  if (auto ratio = o.ratio()) absl::StrAppend(&row, absl::StrFormat("%.4f", *ratio));
  absl::StrAppend(&row, ",", csv_field(repro));
  return row;
}

perf_csv::~perf_csv() { (void)close(); }

absl::Status perf_csv::open(const std::string& path,
                            const std::vector<std::pair<std::string, std::string>>& header) {
  path_ = path;
  f_ = std::fopen(path.c_str(), "w");
  if (f_ == nullptr) return absl::InvalidArgumentError(absl::StrCat("--perf-csv=", path, ": cannot open for writing"));
  std::string text;
  for (const auto& [k, v] : header) absl::StrAppend(&text, "# ", k, ": ", v, "\n");
  absl::StrAppend(&text, kPerfCsvColumns, "\n");
  if (std::fputs(text.c_str(), f_) < 0 || std::fflush(f_) != 0) {
    return absl::InternalError(absl::StrCat("--perf-csv=", path_, ": write failed"));
  }
  return absl::OkStatus();
}

absl::Status perf_csv::add(int64_t index, const std::string& repro, const csv_problem& p, const outcome& o) {
  if (f_ == nullptr) return absl::OkStatus();
  std::string row = perf_csv_row(index, repro, p, o) + "\n";
  // Flushed at once: a full device shows up here, and an interrupted batch keeps its rows.
  if (std::fputs(row.c_str(), f_) < 0 || std::fflush(f_) != 0) {
    return absl::InternalError(absl::StrCat("--perf-csv=", path_, ": write failed"));
  }
  return absl::OkStatus();
}

absl::Status perf_csv::close() {
  if (f_ == nullptr) return absl::OkStatus();
  const int rc = std::fclose(f_);
  f_ = nullptr;
  if (rc != 0) return absl::InternalError(absl::StrCat("--perf-csv=", path_, ": write failed"));
  return absl::OkStatus();
}

}  // namespace tessera::bench
