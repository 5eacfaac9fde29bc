#include "tessera/primitives/runtime/verbose.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/core/version.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/simd/isa.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr int kHeaderLines = 5;

verbose_record sample() {
  return {"reorder",
          "xsimd:avx512bw:transpose16x16",
          "undef",
          "src:f32::blocked:abcd::f0 dst:f32::blocked:acdb::f0",
          "attr-scales:src0:0:f32",
          "",
          "2x16x8x8"};
}

std::vector<std::string> fields_of(const std::string& line) { return absl::StrSplit(line, ','); }

TEST(Verbose, LineHasTheDocumentedFieldsInOrder) {
  const std::string line = format_verbose_line(verbose_event::exec, sample(), 0.25);
  EXPECT_THAT(fields_of(line),
              ElementsAre("onednn_verbose", "v1", "primitive", "exec", "cpu", "reorder",
                          "xsimd:avx512bw:transpose16x16", "undef",
                          "src:f32::blocked:abcd::f0 dst:f32::blocked:acdb::f0",
                          "attr-scales:src0:0:f32", "", "2x16x8x8", "0.25"));
  EXPECT_THAT(fields_of(format_verbose_line(verbose_event::create_cache_miss, sample(), 1.5)),
              ElementsAre("onednn_verbose", "v1", "primitive", "create:cache_miss", "cpu",
                          "reorder", "xsimd:avx512bw:transpose16x16", "undef",
                          "src:f32::blocked:abcd::f0 dst:f32::blocked:acdb::f0",
                          "attr-scales:src0:0:f32", "", "2x16x8x8", "1.5"));
  EXPECT_THAT(format_verbose_line(verbose_event::create_cache_hit, sample(), 1),
              StartsWith("onednn_verbose,v1,primitive,create:cache_hit,cpu,reorder,"));
  // A timestamp goes after the version.
  EXPECT_THAT(fields_of(format_verbose_line(verbose_event::exec, sample(), 2, 1700000000123.5)),
              ElementsAre("onednn_verbose", "v1", "1700000000123.500000", "primitive", "exec",
                          "cpu", "reorder", "xsimd:avx512bw:transpose16x16", "undef",
                          "src:f32::blocked:abcd::f0 dst:f32::blocked:acdb::f0",
                          "attr-scales:src0:0:f32", "", "2x16x8x8", "2"));
}

TEST(Verbose, FlagsParseAsOnednnVerbose) {
  auto flags = [](const char* s) { return parse_verbose_flags(s); };
  EXPECT_EQ(*flags("0"), verbose_flags::none);
  EXPECT_EQ(*flags("none"), verbose_flags::none);
  EXPECT_EQ(*flags(""), verbose_flags::none);
  EXPECT_EQ(*flags("1"), verbose_flags::level1);
  EXPECT_EQ(*flags("2"), verbose_flags::level2);
  EXPECT_EQ(*flags("all"), verbose_flags::all);
  EXPECT_EQ(*flags("-1"), verbose_flags::all);
  EXPECT_EQ(*flags("profile_exec"), verbose_flags::exec_profile);
  EXPECT_EQ(*flags("profile_create"), verbose_flags::create_profile);
  EXPECT_EQ(*flags("profile"), verbose_flags::profile);
  EXPECT_EQ(*flags("profile_exec,dispatch"),
            verbose_flags::exec_profile | verbose_flags::create_dispatch);
  EXPECT_EQ(*flags("check"), verbose_flags::check);
  EXPECT_EQ(*flags("error,warn"), verbose_flags::error | verbose_flags::warn);
  EXPECT_EQ(*flags("all,none,profile_exec"), verbose_flags::exec_profile);  // none clears
  // Level 1 prints execution lines only; level 2 adds creation lines; all adds dispatch.
  EXPECT_EQ(verbose_flags::level1 & verbose_flags::create_profile, verbose_flags::none);
  EXPECT_NE(verbose_flags::level1 & verbose_flags::exec_profile, verbose_flags::none);
  EXPECT_NE(verbose_flags::level2 & verbose_flags::create_profile, verbose_flags::none);
  EXPECT_EQ(verbose_flags::level2 & verbose_flags::create_dispatch, verbose_flags::none);
  EXPECT_NE(verbose_flags::all & verbose_flags::create_dispatch, verbose_flags::none);

  EXPECT_THAT(std::string(flags("exec").status().message()), HasSubstr("'exec'"));
  EXPECT_THAT(std::string(flags("3").status().message()), HasSubstr("'3'"));
  EXPECT_THAT(std::string(flags("profile,bogus").status().message()), HasSubstr("'bogus'"));
  EXPECT_THAT(std::string(flags("all,filter=reorder").status().message()),
              HasSubstr("'filter=reorder'"));
}

TEST(Verbose, AttributesInOnednnSyntax) {
  EXPECT_EQ(verbose_attr_string({}), "");
  primitive_attr a;
  a.src_scales = quant_param{0};
  a.dst_scales = quant_param{2};
  a.src_zero_points = quant_param{0};
  a.dst_zero_points = quant_param{1};
  a.sum = sum_post_op{.beta = 0.5f, .zero_point = 3};
  EXPECT_EQ(verbose_attr_string(a),
            "attr-scales:src0:0:f32+dst:2:f32 attr-zero-points:src0:0:s32+dst:1:s32 "
            "attr-post-ops:sum:0.5:3");
  primitive_attr b;
  b.dst_scales = quant_param{0};
  b.sum = sum_post_op{};
  EXPECT_EQ(verbose_attr_string(b), "attr-scales:dst:0:f32 attr-post-ops:sum");
  primitive_attr c;
  c.oscale = output_scales{0, {0.25f}};
  c.sum = sum_post_op{.beta = 2.f};
  EXPECT_EQ(verbose_attr_string(c), "attr-oscale:0:0.25 attr-post-ops:sum:2");
  primitive_attr d;
  d.oscale = output_scales{2, {1.f, 2.f}};
  EXPECT_EQ(verbose_attr_string(d), "attr-oscale:2");
}

// The architecture the ISA line names after the ISA.
#if defined(__aarch64__)
constexpr const char* kArchitecture = "aarch64";
#else
constexpr const char* kArchitecture = "x86-64";
#endif

TEST(Verbose, HeaderNamesVersionRuntimeIsaAndTemplate) {
  const std::vector<std::string> header = verbose_header_lines();
  ASSERT_THAT(header, SizeIs(kHeaderLines));
  EXPECT_EQ(header[0], std::string("onednn_verbose,v1,info,Tessera v") + kVersionString);
  EXPECT_EQ(header[1], "onednn_verbose,v1,info,cpu,runtime:tessera_pool,nthr:" +
                           std::to_string(num_threads()));
  EXPECT_THAT(header[2], StartsWith("onednn_verbose,v1,info,cpu,isa:" +
                                    std::string(simd::name_of(simd::max_isa())) + " " +
                                    kArchitecture + " "));
  EXPECT_THAT(fields_of(header[2]), SizeIs(5));
  EXPECT_EQ(header[3], "onednn_verbose,v1,info,gpu,runtime:none");
  EXPECT_EQ(header[4],
            "onednn_verbose,v1,primitive,info,template:operation,engine,primitive,"
            "implementation,prop_kind,memory_descriptors,attributes,auxiliary,problem_desc,"
            "exec_time");
  set_verbose_timestamp(true);
  EXPECT_THAT(verbose_header_lines()[4], HasSubstr(",template:timestamp,operation,"));
  set_verbose_timestamp(false);
}

// stderr gets the header once per process, before the first line (every other test captures).
TEST(Verbose, StderrGetsTheHeaderOnceBeforeTheFirstLine) {
  scoped_verbose on(true);
  ::testing::internal::CaptureStderr();
  emit_verbose_line(verbose_event::exec, sample(), 1.0);
  emit_verbose_line(verbose_event::exec, sample(), 2.0);
  const std::string text = ::testing::internal::GetCapturedStderr();
  const std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  ASSERT_THAT(lines, SizeIs(kHeaderLines + 2)) << text;
  EXPECT_EQ(std::vector<std::string>(lines.begin(), lines.begin() + kHeaderLines),
            verbose_header_lines());
  EXPECT_THAT(lines[kHeaderLines], StartsWith("onednn_verbose,v1,primitive,exec,"));
  EXPECT_THAT(lines[kHeaderLines + 1], StartsWith("onednn_verbose,v1,primitive,exec,"));
}

TEST(Verbose, CaptureGetsTheHeaderOnceBeforeItsFirstLine) {
  verbose_capture capture;
  scoped_verbose on(true);
  for (int i = 0; i < 3; ++i) emit_verbose_line(verbose_event::exec, sample(), 1.0);
  const auto lines = capture.lines();
  ASSERT_THAT(lines, SizeIs(kHeaderLines + 3));
  EXPECT_EQ(std::vector<std::string>(lines.begin(), lines.begin() + kHeaderLines),
            verbose_header_lines());
  EXPECT_THAT(capture.lines_of("info"), SizeIs(kHeaderLines));
  EXPECT_THAT(capture.lines_of("exec"), SizeIs(3));
}

TEST(Verbose, OffPrintsNothingAndNeverDescribes) {
  verbose_capture capture;
  scoped_verbose off(false);
  int described = 0;
  {
    verbose_exec trace([&] {
      ++described;
      return sample();
    });
    trace.commit();
    verbose_create create;
    create.commit(false, [&] {
      ++described;
      return sample();
    });
  }
  EXPECT_EQ(described, 0);
  EXPECT_THAT(capture.lines(), IsEmpty());
}

TEST(Verbose, CreateLinesOnlyWithProfileCreate) {
  verbose_capture capture;
  {
    scoped_verbose on(verbose_flags::level1);
    verbose_create create;
    create.commit(false, [] { return sample(); });
  }
  EXPECT_THAT(capture.lines(), IsEmpty());
  {
    scoped_verbose on(verbose_flags::level2);
    verbose_create miss;
    miss.commit(false, [] { return sample(); });
    verbose_create hit;
    hit.commit(true, [] { return sample(); });
    hit.commit(true, [] { return sample(); });  // a second commit prints nothing more
  }
  const auto lines = capture.lines_of("create");
  ASSERT_THAT(lines, SizeIs(2));
  EXPECT_EQ(fields_of(lines[0])[3], "create:cache_miss");
  EXPECT_EQ(fields_of(lines[1])[3], "create:cache_hit");
}

TEST(Verbose, OnPrintsOneLinePerCommittedExecution) {
  verbose_capture capture;
  scoped_verbose on(true);
  for (int i = 0; i < 3; ++i) {
    verbose_exec trace([&] { return sample(); });
    trace.commit();
    trace.commit();  // a second commit prints nothing more
  }
  const auto lines = capture.lines_of("exec");
  ASSERT_THAT(lines, SizeIs(3));
  EXPECT_THAT(capture.lines(), SizeIs(kHeaderLines + 3));
  for (const auto& line : lines) {
    EXPECT_THAT(line, StartsWith("onednn_verbose,v1,primitive,exec,cpu,reorder,"
                                 "xsimd:avx512bw:transpose16x16,undef,"));
    const std::vector<std::string> fields = fields_of(line);
    ASSERT_THAT(fields, SizeIs(13));
    double ms = -1;
    EXPECT_TRUE(absl::SimpleAtod(fields[12], &ms)) << fields[12];
    EXPECT_GE(ms, 0.0);
  }
}

TEST(Verbose, TimestampIsTheStartOfTheCall) {
  verbose_capture capture;
  scoped_verbose on(true);
  set_verbose_timestamp(true);
  const double before = verbose_now_ms();
  {
    verbose_exec trace([&] { return sample(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    trace.commit();
  }
  const double after = verbose_now_ms();
  set_verbose_timestamp(false);
  const auto lines = capture.lines();
  ASSERT_THAT(lines, SizeIs(kHeaderLines + 1));
  EXPECT_THAT(lines[kHeaderLines - 1], HasSubstr(",template:timestamp,"));
  const std::vector<std::string> fields = fields_of(lines.back());
  ASSERT_THAT(fields, SizeIs(14));
  double stamp = 0, ms = 0;
  ASSERT_TRUE(absl::SimpleAtod(fields[2], &stamp)) << fields[2];
  ASSERT_TRUE(absl::SimpleAtod(fields[13], &ms)) << fields[13];
  EXPECT_GE(stamp, before - 1);
  EXPECT_LE(stamp + ms, after + 1);
  EXPECT_EQ(capture.lines_of("exec"), std::vector<std::string>{lines.back()});
}

TEST(Verbose, UncommittedExecutionPrintsNothing) {
  verbose_capture capture;
  scoped_verbose on(true);
  { verbose_exec trace([&] { return sample(); }); }
  EXPECT_THAT(capture.lines(), IsEmpty());
}

TEST(Verbose, TimeCoversTheWorkBetweenConstructionAndCommit) {
  verbose_capture capture;
  scoped_verbose on(true);
  verbose_exec trace([&] { return sample(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  trace.commit();
  const auto lines = capture.lines_of("exec");
  ASSERT_THAT(lines, SizeIs(1));
  double ms = 0;
  ASSERT_TRUE(absl::SimpleAtod(fields_of(lines[0]).back(), &ms));
  EXPECT_GE(ms, 19.0);
}

TEST(Verbose, DispatchAndCheckLines) {
  verbose_capture capture;
  scoped_verbose on(verbose_flags::all);
  emit_verbose_dispatch(sample(), "needs a, b\nand c", "primitives/reorder/internal/kernels.cc");
  emit_verbose_check(true, "reorder", "dims mismatch: src 2x3, dst 3x2", "primitives/x.cc");
  emit_verbose_check(false, "softmax", "missing dst", "primitives/y.cc");
  const auto dispatch = capture.lines_of("create:dispatch");
  ASSERT_THAT(dispatch, SizeIs(1));
  EXPECT_THAT(fields_of(dispatch[0]),
              ElementsAre("onednn_verbose", "v1", "primitive", "create:dispatch", "reorder", "cpu",
                          "reorder", "xsimd:avx512bw:transpose16x16", "undef",
                          "src:f32::blocked:abcd::f0 dst:f32::blocked:acdb::f0",
                          "attr-scales:src0:0:f32", "", "2x16x8x8", "needs a; b and c",
                          "primitives/reorder/internal/kernels.cc"));
  EXPECT_THAT(capture.lines_of("create:check"),
              ElementsAre("onednn_verbose,v1,primitive,create:check,reorder,"
                          "dims mismatch: src 2x3; dst 3x2,primitives/x.cc"));
  EXPECT_THAT(capture.lines_of("exec:check"),
              ElementsAre("onednn_verbose,v1,primitive,exec:check,softmax,missing dst,"
                          "primitives/y.cc"));
}

TEST(Verbose, ScopedVerboseRestoresThePreviousState) {
  set_verbose(false);
  {
    scoped_verbose on(true);
    EXPECT_TRUE(verbose_enabled());
    EXPECT_EQ(verbose_setting(), verbose_flags::level1);
    {
      scoped_verbose all(verbose_flags::all);
      EXPECT_TRUE(verbose_enabled(verbose_flags::create_dispatch));
    }
    EXPECT_FALSE(verbose_enabled(verbose_flags::create_dispatch));
  }
  EXPECT_FALSE(verbose_enabled());
  EXPECT_EQ(verbose_setting(), verbose_flags::none);
}

TEST(Verbose, InnermostCaptureReceivesTheLines) {
  scoped_verbose on(true);
  verbose_capture outer;
  {
    verbose_capture inner;
    emit_verbose_line(verbose_event::exec, sample(), 1.0);
    EXPECT_THAT(inner.lines_of("exec"), SizeIs(1));
  }
  EXPECT_THAT(outer.lines(), IsEmpty());
  emit_verbose_line(verbose_event::exec, sample(), 1.0);
  EXPECT_THAT(outer.lines_of("exec"), SizeIs(1));
}

TEST(Verbose, LinesFromManyThreadsAreWholeAndAllArrive) {
  verbose_capture capture;
  scoped_verbose on(true);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 50; ++i) {
        verbose_exec trace([&] {
          verbose_record r = sample();
          r.problem = std::to_string(t);
          return r;
        });
        trace.commit();
      }
    });
  }
  // Toggling while others trace must be safe too.
  for (int i = 0; i < 100; ++i) set_verbose(true);
  for (auto& th : threads) th.join();
  const auto lines = capture.lines_of("exec");
  ASSERT_THAT(lines, SizeIs(200));
  EXPECT_THAT(capture.lines(), SizeIs(kHeaderLines + 200));
  std::vector<int> per_thread(4, 0);
  for (const auto& line : lines) {
    const std::vector<std::string> fields = fields_of(line);
    ASSERT_THAT(fields, SizeIs(13)) << line;
    ++per_thread[std::stoi(fields[11])];
  }
  EXPECT_THAT(per_thread, ElementsAre(50, 50, 50, 50));
}

}  // namespace
}  // namespace tessera
