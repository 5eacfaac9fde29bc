#include "bench/driver/report.h"

#include <fstream>

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
  }
  return "UNTESTED";
}

reporter::reporter(std::FILE* out, int64_t total, bool live_progress)
    : out_(out), total_(total), live_(live_progress), start_(std::chrono::steady_clock::now()) {}

int64_t reporter::count(status s) const {
  auto it = counts_.find(s);
  return it == counts_.end() ? 0 : it->second;
}

void reporter::clear_progress() {
  if (progress_shown_) {
    std::fputs("\r\033[K", out_);
    progress_shown_ = false;
  }
}

void reporter::draw_progress() {
  if (!live_) return;
  int64_t done = static_cast<int64_t>(rows_.size());
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double eta = done > 0 ? elapsed / done * (total_ - done) : 0;
  std::fprintf(out_, "[%lld/%lld] failed %lld, elapsed %.0fs, ETA %.0fs", static_cast<long long>(done),
               static_cast<long long>(total_), static_cast<long long>(count(status::failed)), elapsed, eta);
  std::fflush(out_);
  progress_shown_ = true;
}

void reporter::add(int64_t index, const std::string& repro, const outcome& o) {
  clear_progress();
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

void reporter::print_summary() {
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
  for (const auto& [reason, n] : skip_reasons_) {
    std::fprintf(out_, "  %6lld x %s\n", static_cast<long long>(n), reason.c_str());
  }
  std::fprintf(out_, "%lld passed, %lld failed\n", static_cast<long long>(count(status::passed)),
               static_cast<long long>(count(status::failed)));
  std::fflush(out_);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  return absl::StrCat("\"", absl::StrReplaceAll(s, {{"\"", "\"\""}}), "\"");
}

absl::Status write_perf_csv(const std::string& path, const std::vector<report_row>& rows) {
  std::ofstream f(path);
  if (!f) return absl::InvalidArgumentError(absl::StrCat("--perf-csv=", path, ": cannot open for writing"));
  f << "problem,impl,threads,median_ms,gbps,copy_frac,onednn_ms,ratio\n";
  for (const report_row& r : rows) {
    f << csv_field(r.repro) << "," << csv_field(r.result.impl) << ",";
    if (r.result.perf) {
      const perf_figures& p = *r.result.perf;
      f << p.threads << "," << absl::StrFormat("%.6f,%.4f,%.4f", p.median_ms, p.gbps, p.copy_frac) << ",";
    } else {
      f << ",,,,";
    }
    if (r.result.onednn_ms) f << absl::StrFormat("%.6f", *r.result.onednn_ms);
    f << ",";
    if (auto ratio = r.result.ratio()) f << absl::StrFormat("%.4f", *ratio);
    f << "\n";
  }
  f.close();  // flushes: a full device shows up only here
  if (!f) return absl::InternalError(absl::StrCat("--perf-csv=", path, ": write failed"));
  return absl::OkStatus();
}

}  // namespace tessera::bench
