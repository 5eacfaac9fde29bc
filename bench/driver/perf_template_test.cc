#include "bench/driver/perf_template.h"

#include <string>

#include "gtest/gtest.h"

namespace tessera::bench {
namespace {

perf_record sample() {
  perf_record r;
  r.index = 7;
  r.driver = "reorder";
  r.impl = "xsimd:avx512bw:transpose16x16";
  r.name = "tiny";
  r.prb = "--reorder --stag=nchw --dtag=nhwc 2x16x3x4_n\"tiny\"";
  r.desc = "2x16x3x4_n\"tiny\"";
  r.desc_csv = "2,16,3,4";
  r.sdt = "f32";
  r.ddt = "s8";
  r.stag = "nchw";
  r.dtag = "nhwc";
  r.attr = "--attr-scales=src:common:0.5";
  r.flags = "";
  r.min_ms = 0.5;
  r.avg_ms = 0.75;
  r.max_ms = 2;
  r.ibytes = 3000;
  r.obytes = 1000;
  r.ctime_miss_ms = 0.25;
  r.ctime_hit_ms = 0.001;
  return r;
}

std::string field(const std::string& f, const perf_record& r = sample()) {
  auto t = expand_perf_template(f, r.driver);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? format_perf(*t, r) : "";
}

TEST(PerfTemplate, TextFields) {
  EXPECT_EQ(field("%engine%"), "cpu");
  EXPECT_EQ(field("%impl%"), "xsimd:avx512bw:transpose16x16");
  EXPECT_EQ(field("%name%"), "\"tiny\"");
  EXPECT_EQ(field("%prb%"), "--reorder --stag=nchw --dtag=nhwc 2x16x3x4_n\"tiny\"");
  EXPECT_EQ(field("%desc%"), "2x16x3x4_n\"tiny\"");
  EXPECT_EQ(field("%DESC%"), "2,16,3,4");
  EXPECT_EQ(field("%driver%"), "reorder");
  EXPECT_EQ(field("%idx%"), "7");
  EXPECT_EQ(field("%sdt%"), "f32");
  EXPECT_EQ(field("%ddt%"), "s8");
  EXPECT_EQ(field("%dt%"), "f32:s8");
  EXPECT_EQ(field("%stag%"), "nchw");
  EXPECT_EQ(field("%tag%"), "nchw");
  EXPECT_EQ(field("%dtag%"), "nhwc");
  EXPECT_EQ(field("%attr%"), "--attr-scales=src:common:0.5");
  EXPECT_EQ(field("%flags%"), "");
  perf_record s = sample();
  s.driver = "softmax";
  s.dir = "BWD_D";
  s.alg = "LOGSOFTMAX";
  s.axis = "3";
  s.mb = "0";
  s.name = "";
  s.ddt = "f32";
  EXPECT_EQ(field("%dir%,%alg%,%axis%,%mb%,%name%,%dt%", s), "BWD_D,LOGSOFTMAX,3,0,,f32");
}

TEST(PerfTemplate, TimesWithModifiersAndUnits) {
  EXPECT_EQ(field("%time%"), "0.5");    // min by default
  EXPECT_EQ(field("%-time%"), "0.5");
  EXPECT_EQ(field("%0time%"), "0.75");  // average
  EXPECT_EQ(field("%+time%"), "2");     // max
  EXPECT_EQ(field("%Ktime%"), "0.0005");
}

TEST(PerfTemplate, BytesAndBandwidth) {
  EXPECT_EQ(field("%ibytes%"), "3000");
  EXPECT_EQ(field("%obytes%"), "1000");
  EXPECT_EQ(field("%iobytes%"), "4000");
  EXPECT_EQ(field("%Kiobytes%"), "4");
  // 4000 bytes in 0.5 ms = 8e6 B/s; average 0.75 ms; max 2 ms.
  EXPECT_EQ(field("%bw%"), "8e+06");
  EXPECT_EQ(field("%Mbw%"), "8");
  EXPECT_EQ(field("%-Gbw%"), "0.008");
  EXPECT_EQ(field("%0Mbw%"), "5.33333");
  EXPECT_EQ(field("%+Mbw%"), "2");
}

TEST(PerfTemplate, OpsAreZeroAsInBenchdnn) {
  EXPECT_EQ(field("%ops%,%Gops%,%flops%,%-Gflops%,%0Gflops%"), "0,0,0,0,0");
}

TEST(PerfTemplate, CreationTimes) {
  EXPECT_EQ(field("%ctime%"), "0.25");   // the creation that built the primitive
  EXPECT_EQ(field("%+ctime%"), "0.25");
  EXPECT_EQ(field("%-ctime%"), "0.001");  // found in the primitive cache
  EXPECT_EQ(field("%0ctime%"), "0.1255");
}

TEST(PerfTemplate, DefAndCsvAreBenchdnns) {
  EXPECT_EQ(*expand_perf_template("def", "reorder"),
            "perf,%engine%,%impl%,%name%,%prb%,%Gops%,%+ctime%,%-time%,%-Gflops%,%0time%,%0Gflops%");
  EXPECT_EQ(*expand_perf_template("csv", "reorder"),
            "perf,%engine%,%impl%,%name%,%sdt%,%ddt%,%stag%,%dtag%,%flags%,%attr%,%DESC%,%Gops%,%+ctime%,"
            "%-time%,%-Gflops%,%0time%,%0Gflops%");
  EXPECT_EQ(*expand_perf_template("csv", "softmax"),
            "perf,%engine%,%impl%,%name%,%dir%,%sdt%,%ddt%,%stag%,%dtag%,%alg%,%axis%,%attr%,%DESC%,%Gops%,"
            "%+ctime%,%-time%,%-Gflops%,%0time%,%0Gflops%");
  EXPECT_EQ(field("def"),
            "perf,cpu,xsimd:avx512bw:transpose16x16,\"tiny\",--reorder --stag=nchw --dtag=nhwc "
            "2x16x3x4_n\"tiny\",0,0.25,0.5,0,0.75,0");
}

TEST(PerfTemplate, LiteralTextIsKept) {
  EXPECT_EQ(field("time=%-time% ms; avg %0time%"), "time=0.5 ms; avg 0.75");
  EXPECT_EQ(field("no fields"), "no fields");
}

TEST(PerfTemplate, BadFieldsAreErrorsNamingThem) {
  auto msg = [](const std::string& t) { return std::string(check_perf_template(t).message()); };
  EXPECT_NE(msg("%prb%,%bogus%").find("%bogus% is not a field"), std::string::npos);
  EXPECT_NE(msg("%-clocks%").find("%-clocks% is not supported: clocks are not measured"), std::string::npos);
  EXPECT_NE(msg("%freq%").find("not supported"), std::string::npos);
  EXPECT_NE(msg("%cpdtime%").find("use %ctime%"), std::string::npos);
  EXPECT_NE(msg("%wtag%").find("not of reorder or softmax"), std::string::npos);
  EXPECT_NE(msg("%-impl%").find("modifiers apply to time, byte and rate fields only"), std::string::npos);
  EXPECT_NE(msg("%prb%,%-time").find("never closed"), std::string::npos);
  EXPECT_TRUE(check_perf_template("def").ok());
  EXPECT_TRUE(check_perf_template("csv").ok());
}

}  // namespace
}  // namespace tessera::bench
