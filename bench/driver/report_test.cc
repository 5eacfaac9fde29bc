#include "bench/driver/report.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace tessera::bench {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string temp(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  return std::string(t ? t : "/tmp") + "/" + name;
}

outcome timed() {
  outcome o;
  o.st = status::passed;
  o.impl = "xsimd:avx512bw:transpose16x16";
  perf_figures p;
  p.threads = 2;
  p.median_ms = 0.5;
  p.min_ms = 0.4;
  p.avg_ms = 0.6;
  p.gbps = 8;
  p.copy_frac = 0.5;
  p.ibytes = 3000;
  p.obytes = 1000;
  o.perf = p;
  o.onednn_impl = "jit:uni";
  o.onednn_min_ms = 0.9;
  o.onednn_ms = 1.0;
  return o;
}

const csv_problem kProblem{.driver = "reorder", .name = "nchw_to_nhwc", .sdt = "f32", .ddt = "s8",
                           .stag = "nchw", .dtag = "nhwc", .dims = "2x16x3x4",
                           .attrs = "--attr-scales=src:common:0.5", .cold_cache = "none"};

TEST(PerfCsv, ColumnsOfARow) {
  std::vector<std::string> names = absl::StrSplit(kPerfCsvColumns, ',');
  std::vector<std::string> row = absl::StrSplit(perf_csv_row(3, "--reorder 2x16x3x4", kProblem, timed()), ',');
  ASSERT_EQ(row.size(), names.size());
  auto col = [&](const std::string& name) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return row[i];
    }
    ADD_FAILURE() << "no column " << name;
    return std::string();
  };
  EXPECT_EQ(col("index"), "3");
  EXPECT_EQ(col("status"), "PASSED");
  EXPECT_EQ(col("driver"), "reorder");
  EXPECT_EQ(col("name"), "nchw_to_nhwc");
  EXPECT_EQ(col("sdt"), "f32");
  EXPECT_EQ(col("ddt"), "s8");
  EXPECT_EQ(col("stag"), "nchw");
  EXPECT_EQ(col("dtag"), "nhwc");
  EXPECT_EQ(col("dims"), "2x16x3x4");
  EXPECT_EQ(col("attrs"), "--attr-scales=src:common:0.5");
  EXPECT_EQ(col("impl"), "xsimd:avx512bw:transpose16x16");
  EXPECT_EQ(col("threads"), "2");
  EXPECT_EQ(col("cold_cache"), "none");
  EXPECT_EQ(col("ibytes"), "3000");
  EXPECT_EQ(col("obytes"), "1000");
  EXPECT_EQ(col("min_ms"), "0.400000");
  EXPECT_EQ(col("avg_ms"), "0.600000");
  EXPECT_EQ(col("median_ms"), "0.500000");
  EXPECT_EQ(col("gbps"), "8.0000");
  EXPECT_EQ(col("copy_frac"), "0.5000");
  EXPECT_EQ(col("onednn_impl"), "jit:uni");
  EXPECT_EQ(col("onednn_min_ms"), "0.900000");
  EXPECT_EQ(col("onednn_ms"), "1.000000");
  EXPECT_EQ(col("ratio"), "2.0000");
  EXPECT_EQ(col("problem"), "--reorder 2x16x3x4");
}

TEST(PerfCsv, UntimedRowsHaveEmptyFiguresAndQuotedText) {
  outcome o;
  o.st = status::skipped;
  o.reason = "x";
  csv_problem p = kProblem;
  p.attrs = "--attr-scales=src:per_dim_1+dst:common:2";
  std::string row = perf_csv_row(0, "--reorder --x=\"a,b\" 2x3", p, o);
  EXPECT_NE(row.find(",,,,,,,,,,,,,"), std::string::npos) << row;  // figures and oneDNN: empty
  EXPECT_NE(row.find("\"--reorder --x=\"\"a,b\"\" 2x3\""), std::string::npos) << row;
}

TEST(PerfCsv, HeaderThenRowsFlushedAsTheyAreAdded) {
  const std::string path = temp("rows.csv");
  perf_csv csv;
  ASSERT_TRUE(csv.open(path, {{"cpu", "AMD EPYC"}, {"threads", "2"}}).ok());
  EXPECT_EQ(read(path), std::string("# cpu: AMD EPYC\n# threads: 2\n") + kPerfCsvColumns + "\n");
  ASSERT_TRUE(csv.add(0, "--reorder 2x3", kProblem, timed()).ok());
  // Read while the file is still open: the row is there before the run ends.
  std::vector<std::string> lines = absl::StrSplit(read(path), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[3].substr(0, 9), "0,PASSED,");
  ASSERT_TRUE(csv.add(1, "--reorder 4x5", kProblem, timed()).ok());
  lines = absl::StrSplit(read(path), '\n', absl::SkipEmpty());
  EXPECT_EQ(lines.size(), 5u);
  EXPECT_TRUE(csv.close().ok());
}

TEST(PerfCsv, WriteErrorsAreReported) {
  perf_csv bad;
  EXPECT_NE(std::string(bad.open("/nonexistent_dir/x.csv", {}).message()).find("cannot open for writing"),
            std::string::npos);
  perf_csv full;
  EXPECT_NE(std::string(full.open("/dev/full", {}).message()).find("write failed"), std::string::npos);
}

TEST(Reporter, FailuresSummaryIsIndentedSoScriptsDoNotCountItTwice) {
  char buf[4096] = {};
  std::FILE* f = fmemopen(buf, sizeof(buf), "w");
  reporter rep(f, 2);
  outcome bad;
  bad.st = status::failed;
  bad.reason = "differs";
  rep.add(0, "--reorder 2x3", bad);
  rep.add(1, "--reorder 4x5", outcome{});
  rep.print_summary(true);
  std::fclose(f);
  const std::string out(buf);
  EXPECT_NE(out.find("0:FAILED (differs) __REPRO: --reorder 2x3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("Failed cases summary"), std::string::npos) << out;
  EXPECT_NE(out.find("\n    0:FAILED __REPRO: --reorder 2x3\n"), std::string::npos) << out;
  EXPECT_EQ(out.substr(out.size() - 19), "1 passed, 1 failed\n") << out;
}

TEST(Reporter, ProgressGoesToItsStreamAfterTheDelay) {
  char buf[4096] = {};
  char progress[4096] = {};
  std::FILE* out = fmemopen(buf, sizeof(buf), "w");
  std::FILE* err = fmemopen(progress, sizeof(progress), "w");
  reporter rep(out, 3, progress_options{.out = err, .terminal = false, .after_s = 0, .every_s = 0});
  rep.add(0, "--reorder 2x3", outcome{});
  rep.add(1, "--reorder 2x3", outcome{});
  rep.add(2, "--reorder 2x3", outcome{});  // the last: no progress line
  rep.print_summary();
  std::fclose(out);
  std::fclose(err);
  const std::string p(progress);
  EXPECT_NE(p.find("tessera_bench: progress [1/3] failed 0"), std::string::npos) << p;
  EXPECT_NE(p.find("tessera_bench: progress [2/3]"), std::string::npos) << p;
  EXPECT_EQ(p.find("[3/3]"), std::string::npos) << p;
  EXPECT_EQ(std::string(buf).find("progress"), std::string::npos);
}

}  // namespace
}  // namespace tessera::bench
