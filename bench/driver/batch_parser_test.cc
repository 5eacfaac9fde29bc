#include "bench/driver/batch_parser.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tessera::bench {
namespace {

std::string temp_dir() {
  const char* t = std::getenv("TEST_TMPDIR");
  std::string d = std::string(t ? t : "/tmp") + "/batch_parser_test";
  std::filesystem::create_directories(d);
  return d;
}

void write_file(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

std::vector<std::string> lines_of(const batch_parser& p) {
  std::vector<std::string> out;
  for (const auto& pp : p.problems()) out.push_back(repro_line(pp.prb));
  return out;
}

TEST(Descriptor, ParsesDimsAndName) {
  std::vector<int64_t> dims;
  std::string name;
  ASSERT_TRUE(parse_descriptor("2x16x3x4", &dims, &name).ok());
  EXPECT_EQ(dims, (std::vector<int64_t>{2, 16, 3, 4}));
  EXPECT_EQ(name, "");
  ASSERT_TRUE(parse_descriptor("16x16_n\"softmax_ci_0d:0\"", &dims, &name).ok());
  EXPECT_EQ(dims, (std::vector<int64_t>{16, 16}));
  EXPECT_EQ(name, "softmax_ci_0d:0");
  ASSERT_TRUE(parse_descriptor("1x4294967296x1", &dims, &name).ok());
  EXPECT_EQ(dims[1], int64_t{4294967296});
}

TEST(Descriptor, RejectsGarbageNamingIt) {
  std::vector<int64_t> dims;
  std::string name;
  auto s = parse_descriptor("2xAx3", &dims, &name);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("'A'"), std::string::npos) << s;
  EXPECT_FALSE(parse_descriptor("2x-3", &dims, &name).ok());
  EXPECT_FALSE(parse_descriptor("2x", &dims, &name).ok());
  EXPECT_FALSE(parse_descriptor("99999999999999999999x2", &dims, &name).ok());
  EXPECT_FALSE(parse_descriptor("2x3_n\"unbalanced", &dims, &name).ok());
  EXPECT_FALSE(parse_descriptor("1x1x1x1x1x1x1x1x1x1x1x1x1", &dims, &name).ok());  // 13 dims
}

TEST(Tokenize, CommentsContinuationsAndQuotes) {
  auto toks = tokenize_batch(
      "# header comment\n"
      "--sdt=f32 # trailing comment\n"
      "--attr-scales=, \\\n"
      "    src:common:2, \\\n"
      "    src:per_dim_0\n"
      "--stag=abx \\\n"
      "--dtag=axb\n"
      "16x16_n\"a b#c\"\n",
      "f");
  std::vector<std::string> texts;
  for (const auto& t : toks) texts.push_back(t.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"--sdt=f32", "--attr-scales=,src:common:2,src:per_dim_0",
                                             "--stag=abx", "--dtag=axb", "16x16_n\"a b#c\""}));
  EXPECT_EQ(toks[0].origin, "f:2");
  EXPECT_EQ(toks[1].origin, "f:3");
  EXPECT_EQ(toks[4].origin, "f:8");
}

TEST(Parser, CrossProductOfCommaLists) {
  batch_parser p("/");
  ASSERT_TRUE(p.parse_args({"--reorder", "--sdt=f32,s8", "--ddt=f32,u8,bf16", "--dtag=abx,axb",
                            "2x3", "4x5"})
                  .ok());
  ASSERT_EQ(p.problems().size(), 2u * 3u * 2u * 2u);
  const std::vector<std::string> lines = lines_of(p);
  std::set<std::string> unique(lines.begin(), lines.end());
  EXPECT_EQ(unique.size(), p.problems().size());
  EXPECT_TRUE(unique.count("--reorder --sdt=s8 --ddt=u8 --dtag=axb 4x5"));
  EXPECT_TRUE(unique.count("--reorder 2x3"));  // all defaults: the minimal line
  // Knobs given after a descriptor do not apply to it.
  batch_parser q("/");
  ASSERT_TRUE(q.parse_args({"--reorder", "2x3", "--sdt=s8", "4x5"}).ok());
  EXPECT_EQ(lines_of(q), (std::vector<std::string>{"--reorder 2x3", "--reorder --sdt=s8 4x5"}));
}

TEST(Parser, EmptyAlternativeMeansNoAttribute) {
  batch_parser p("/");
  ASSERT_TRUE(p.parse_args({"--reorder", "--attr-scales=,src:common:2", "2x3"}).ok());
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"--reorder 2x3",
                                                   "--reorder --attr-scales=src:common:2 2x3"}));
}

TEST(Parser, ResetRestoresDefaultsOfTheCurrentDriverOnly) {
  batch_parser p("/");
  ASSERT_TRUE(p.parse_args({"--softmax", "--axis=3", "--reorder", "--sdt=s8", "--reset", "2x3",
                            "--softmax", "1x2x3x4"})
                  .ok());
  EXPECT_EQ(lines_of(p),
            (std::vector<std::string>{"--reorder 2x3", "--softmax --axis=3 1x2x3x4"}));
}

TEST(Parser, ShorthandsSetBothSides) {
  batch_parser p("/");
  ASSERT_TRUE(p.parse_args({"--softmax", "--dt=bf16", "--tag=axb", "2x3x4"}).ok());
  ASSERT_EQ(p.problems().size(), 1u);
  const problem& prb = p.problems()[0].prb;
  EXPECT_EQ(prb.knob("sdt"), "bf16");
  EXPECT_EQ(prb.knob("ddt"), "bf16");
  EXPECT_EQ(prb.knob("stag"), "axb");
  EXPECT_EQ(prb.knob("dtag"), "axb");
}

TEST(Parser, MatchFiltersOnTheReproLine) {
  batch_parser p("/");
  ASSERT_TRUE(p.parse_args({"--softmax", "--match=.*ci_2d.*", "16x16_n\"ci_0d:0\"",
                            "2x19x17x13_n\"ci_2d:0\"", "--reset", "16x16_n\"ci_0d:1\""})
                  .ok());
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{"--softmax 2x19x17x13_n\"ci_2d:0\"",
                                                   "--softmax 16x16_n\"ci_0d:1\""}));
  EXPECT_EQ(p.filtered_out(), 1);
}

TEST(Parser, BadRegexIsAnErrorNamingIt) {
  batch_parser p("/");
  auto s = p.parse_args({"--match=(unclosed", "2x3"});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("(unclosed"), std::string::npos) << s;
}

// A message of a failed parse_args, or "" when it succeeded.
std::string error_of(std::vector<std::string> args) {
  batch_parser p("/");
  absl::Status s = p.parse_args(args);
  return s.ok() ? "" : std::string(s.message());
}

TEST(Parser, UnknownOptionsAndKnobsOfTheOtherDriverAreErrors) {
  EXPECT_NE(error_of({"--reorder", "--frobnicate=7", "2x3"}).find("unknown option '--frobnicate=7'"),
            std::string::npos);
  EXPECT_NE(error_of({"--reorder", "--axis=1", "2x3"}).find("--axis is a softmax knob, not a reorder one"),
            std::string::npos);
  EXPECT_NE(error_of({"--softmax", "--oflag=zp_comp:1", "2x3"}).find("reorder knob"), std::string::npos);
  EXPECT_NE(error_of({"--reorder", "--sdt", "2x3"}).find("needs a value"), std::string::npos);
  EXPECT_NE(error_of({"-v", "--reorder", "2x3"}).find("unknown option '-v'"), std::string::npos);
}

TEST(Parser, DescriptorsThatAreNotDimsAreErrors) {
  // "-1x3x4x5" is a descriptor with a negative dim, not an option.
  std::string e = error_of({"--reorder", "-1x3x4x5"});
  EXPECT_NE(e.find("'-1x3x4x5' is not a problem descriptor: dim '-1'"), std::string::npos) << e;
  EXPECT_NE(e.find("argv[2]"), std::string::npos) << e;
  EXPECT_NE(error_of({"--reorder", "2xZ", "2x3"}).find("'Z'"), std::string::npos);
}

TEST(Parser, GlobalKnobsOfTheRun) {
  batch_parser p("/");
  ASSERT_TRUE(p.parse_args({"--start=3", "--repeats-per-prb=4", "-v5", "--summary=no-failures", "--canonical=true",
                            "--mem-check=false", "--check-ref-impl=1", "--ctx-exe=3", "--reorder", "2x3",
                            "--verbose=2", "--ctx-exe=auto", "4x5"})
                  .ok());
  EXPECT_EQ(p.start(), 3);
  EXPECT_FALSE(p.summary_failures());
  const run_settings& a = p.problems()[0].settings;
  EXPECT_EQ(a.repeats, 4);
  EXPECT_EQ(a.verbose, 5);
  EXPECT_TRUE(a.canonical);
  EXPECT_FALSE(a.mem_check);
  EXPECT_TRUE(a.check_ref_impl);
  EXPECT_EQ(a.threads, 3);
  EXPECT_EQ(p.problems()[1].settings.verbose, 2);
  EXPECT_EQ(p.problems()[1].settings.threads, 0);
  EXPECT_NE(error_of({"--start=-1"}).find("--start=-1 must be a non-negative integer"), std::string::npos);
  EXPECT_NE(error_of({"--repeats-per-prb=0"}).find("[1, 1000000]"), std::string::npos);
  EXPECT_NE(error_of({"-vx"}).find("-vx: the verbosity must be an integer"), std::string::npos);
  EXPECT_NE(error_of({"--summary=bogus"}).find("'bogus' is not a summary setting"), std::string::npos);
  EXPECT_NE(error_of({"--ctx-exe=0"}).find("--ctx-exe=0 is not MAX_CONCURRENCY"), std::string::npos);
  EXPECT_NE(error_of({"--ctx-exe=2:0"}).find("only auto is supported"), std::string::npos);
  EXPECT_NE(error_of({"--canonical=maybe"}).find("is not a boolean"), std::string::npos);
}

TEST(Parser, ModesOfBenchdnn) {
  batch_parser p("/");
  ASSERT_TRUE(p.parse_args({"--reorder", "--mode=F", "1", "--mode=R", "2", "--mode=I", "3"}).ok());
  EXPECT_TRUE(p.problems()[0].settings.performance);
  EXPECT_EQ(p.problems()[0].settings.max_ms_per_prb, 10);  // F: benchdnn's 10 ms budget
  EXPECT_FALSE(p.problems()[1].settings.correctness);
  EXPECT_FALSE(p.problems()[1].settings.performance);
  EXPECT_TRUE(p.problems()[2].settings.init_only);
  EXPECT_NE(error_of({"--mode=B"}).find("bitwise"), std::string::npos);
}

TEST(Parser, OptionsTesseraLacksAcceptOnlyTheirDefault) {
  for (const char* ok : {"--memory-kind=usm", "--stream-kind=def", "--num-streams=1", "--execution-mode=direct",
                         "--cpu-isa-hints=none", "--mode-modifier=", "--attr-same-pd-check=false", "--ctx-init=auto",
                         "--allow-enum-tags-only=0", "--fast-ref=true", "--cold-cache=wei", "--engine=cpu:0"}) {
    EXPECT_EQ(error_of({ok, "--reorder", "2x3"}), "") << ok;
  }
  EXPECT_NE(error_of({"--memory-kind=buffer"}).find("--memory-kind=buffer is not supported: SYCL/OpenCL"),
            std::string::npos);
  EXPECT_NE(error_of({"--cpu-isa-hints=prefer_ymm"}).find("only none is accepted"), std::string::npos);
  EXPECT_NE(error_of({"--mode-modifier=P"}).find("only an empty value is accepted"), std::string::npos);
  EXPECT_NE(error_of({"--ctx-init=4"}).find("calling thread"), std::string::npos);
  EXPECT_NE(error_of({"--engine=tpu"}).find("is not an engine"), std::string::npos);
}

TEST(Parser, PerfTemplateIsCheckedWhenGiven) {
  batch_parser p("/");
  ASSERT_TRUE(p.parse_args({"--perf-template=csv", "--reorder", "2x3", "--reset",
                            "--perf-template=%prb%,%-time%", "4x5"})
                  .ok());
  EXPECT_EQ(p.problems()[0].settings.perf_template, "csv");
  EXPECT_EQ(p.problems()[1].settings.perf_template, "%prb%,%-time%");  // --reset keeps it
  EXPECT_NE(error_of({"--perf-template=%prb%,%bogus%"}).find("%bogus% is not a field"), std::string::npos);
}

TEST(Parser, GpuEngineMarksProblemsUnsupported) {
  batch_parser p("/");
  ASSERT_TRUE(p.parse_args({"--engine=gpu", "--reorder", "2x3"}).ok());
  ASSERT_EQ(p.problems()[0].prb.unsupported.size(), 1u);
  EXPECT_EQ(p.problems()[0].prb.unsupported[0].first, "engine");
}

TEST(Parser, GlobalSettingsAreSnapshotPerProblem) {
  batch_parser p("/");
  ASSERT_TRUE(p.parse_args({"--reorder", "--mode=C", "2x3", "--mode=CP", "--compare=onednn",
                            "--reset", "4x5", "--perf-csv=/tmp/x.csv"})
                  .ok());
  ASSERT_EQ(p.problems().size(), 2u);
  EXPECT_TRUE(p.problems()[0].settings.correctness);
  EXPECT_FALSE(p.problems()[0].settings.performance);
  EXPECT_FALSE(p.problems()[0].settings.compare_onednn);
  EXPECT_TRUE(p.problems()[1].settings.performance);
  EXPECT_TRUE(p.problems()[1].settings.compare_onednn);  // --reset keeps global options
  EXPECT_EQ(p.perf_csv(), "/tmp/x.csv");
  EXPECT_FALSE(batch_parser("/").parse_args({"--mode=Q"}).ok());
  EXPECT_FALSE(batch_parser("/").parse_args({"--compare=mkl"}).ok());
}

TEST(Parser, NestedBatchesResolveRelativeToTheIncludingFile) {
  std::string d = temp_dir() + "/nest";
  write_file(d + "/top", "--reorder --sdt=s8\n--batch=sub/mid\n--reset 9x9\n");
  write_file(d + "/sub/mid", "# mid\n--ddt=u8\n--batch=leaf\n3x3\n");
  write_file(d + "/sub/leaf", "1x1 2x2_n\"leaf\"\n");
  batch_parser p(d);
  ASSERT_TRUE(p.parse_args({"--batch=top"}).ok());
  EXPECT_EQ(lines_of(p), (std::vector<std::string>{
                             "--reorder --sdt=s8 --ddt=u8 1x1",
                             "--reorder --sdt=s8 --ddt=u8 2x2_n\"leaf\"",
                             "--reorder --sdt=s8 --ddt=u8 3x3",  // state set in leaf's parent persists
                             "--reorder 9x9"}));
  EXPECT_NE(p.problems()[0].prb.origin.find("sub/leaf:1"), std::string::npos);
}

TEST(Parser, MissingOrCyclicBatchIsAnError) {
  std::string d = temp_dir() + "/cycle";
  write_file(d + "/a", "--batch=b\n");
  write_file(d + "/b", "--batch=a\n");
  batch_parser p(d);
  auto s = p.parse_args({"--batch=a"});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("nest"), std::string::npos) << s;
  batch_parser q(d);
  auto m = q.parse_args({"--batch=does_not_exist"});
  EXPECT_EQ(m.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(m.message()).find("does_not_exist"), std::string::npos);
}

}  // namespace
}  // namespace tessera::bench
