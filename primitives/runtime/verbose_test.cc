#include "tessera/primitives/runtime/verbose.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

verbose_record sample() {
  return {"reorder", "xsimd:avx512bw:transpose16x16", "src:f32::abcd dst:f32::acdb",
          "scales:src:0", "2x16x8x8"};
}

TEST(Verbose, LineHasTheDocumentedFieldsInOrder) {
  const std::string line = format_verbose_line(sample(), 0.25);
  const std::vector<std::string> fields = absl::StrSplit(line, ',');
  EXPECT_THAT(fields, ElementsAre("tessera_verbose", "exec", "reorder",
                                  "xsimd:avx512bw:transpose16x16", "src:f32::abcd dst:f32::acdb",
                                  "scales:src:0", "2x16x8x8", "0.25"));
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
  }
  EXPECT_EQ(described, 0);
  EXPECT_THAT(capture.lines(), IsEmpty());
}

TEST(Verbose, OnPrintsOneLinePerCommittedExecution) {
  verbose_capture capture;
  scoped_verbose on(true);
  for (int i = 0; i < 3; ++i) {
    verbose_exec trace([&] { return sample(); });
    trace.commit();
    trace.commit();  // a second commit prints nothing more
  }
  const auto lines = capture.lines();
  ASSERT_THAT(lines, SizeIs(3));
  for (const auto& line : lines) {
    EXPECT_THAT(line, StartsWith("tessera_verbose,exec,reorder,xsimd:avx512bw:transpose16x16,"));
    const std::vector<std::string> fields = absl::StrSplit(line, ',');
    ASSERT_THAT(fields, SizeIs(8));
    double ms = -1;
    EXPECT_TRUE(absl::SimpleAtod(fields[7], &ms)) << fields[7];
    EXPECT_GE(ms, 0.0);
  }
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
  const auto lines = capture.lines();
  ASSERT_THAT(lines, SizeIs(1));
  const std::vector<std::string> fields = absl::StrSplit(lines[0], ',');
  double ms = 0;
  ASSERT_TRUE(absl::SimpleAtod(fields.back(), &ms));
  EXPECT_GE(ms, 19.0);
}

TEST(Verbose, ScopedVerboseRestoresThePreviousState) {
  set_verbose(false);
  {
    scoped_verbose on(true);
    EXPECT_TRUE(verbose_enabled());
  }
  EXPECT_FALSE(verbose_enabled());
}

TEST(Verbose, InnermostCaptureReceivesTheLines) {
  scoped_verbose on(true);
  verbose_capture outer;
  {
    verbose_capture inner;
    emit_verbose_line(sample(), 1.0);
    EXPECT_THAT(inner.lines(), SizeIs(1));
  }
  EXPECT_THAT(outer.lines(), IsEmpty());
  emit_verbose_line(sample(), 1.0);
  EXPECT_THAT(outer.lines(), SizeIs(1));
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
  const auto lines = capture.lines();
  ASSERT_THAT(lines, SizeIs(200));
  std::vector<int> per_thread(4, 0);
  for (const auto& line : lines) {
    const std::vector<std::string> fields = absl::StrSplit(line, ',');
    ASSERT_THAT(fields, SizeIs(8)) << line;
    ++per_thread[std::stoi(fields[6])];
  }
  EXPECT_THAT(per_thread, ElementsAre(50, 50, 50, 50));
}

}  // namespace
}  // namespace tessera
