// benchdnn's performance report (--perf-template, knobs_perf_report.md): the def and csv templates
// and custom ones made of %field% terminals, formatted from one problem's figures.
//
//   std::string t = *expand_perf_template("def", "reorder");
//   //  "perf,%engine%,%impl%,%name%,%prb%,%Gops%,%+ctime%,%-time%,%-Gflops%,%0time%,%0Gflops%"
//   std::string line = format_perf(t, record);   // "perf,cpu,xsimd:avx512bw:transpose,,--reorder ..."
//
// Fields (docs/driver.md lists them): %engine% %impl% %name% %prb% %desc% %DESC% %driver% %idx%
// %sdt% %ddt% %dt% %stag% %dtag% %tag% %alg% %attr% %axis% %dir% %flags% %mb%, and the figures
// %@time% %@ibytes% %@obytes% %@iobytes% %@bw% %@ops% %@flops% %@ctime% where @ is an optional
// time modifier (- min, the default; 0 average; + max) followed by an optional unit (K, M, G).
// Reorder and softmax do no arithmetic worth counting: %ops% and %flops% are 0, as in benchdnn.
// A field that names something of another driver, or that Tessera does not measure, is an error.
#ifndef TESSERA_BENCH_DRIVER_PERF_TEMPLATE_H_
#define TESSERA_BENCH_DRIVER_PERF_TEMPLATE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tessera::bench {

// benchdnn's templates, for a driver ("reorder" or "softmax").
inline constexpr char kPerfTemplateDef[] =
    "perf,%engine%,%impl%,%name%,%prb%,%Gops%,%+ctime%,%-time%,%-Gflops%,%0time%,%0Gflops%";
// csv = "perf,%engine%,%impl%,%name%," + the driver's fields + kPerfTemplateCsvTail.
inline constexpr char kPerfTemplateCsvTail[] =
    ",%attr%,%DESC%,%Gops%,%+ctime%,%-time%,%-Gflops%,%0time%,%0Gflops%";

// One problem's values, as text where they are text.
struct perf_record {
  int64_t index = 0;
  std::string engine = "cpu";
  std::string driver, impl, name, prb, desc, desc_csv;
  std::string sdt, ddt, stag, dtag, alg, attr, axis, dir, flags, mb;
  double min_ms = 0, avg_ms = 0, max_ms = 0;  // per call
  double ibytes = 0, obytes = 0;              // bytes read, written by one call
  double ctime_miss_ms = 0;  // creation that built the primitive (cache miss)
  double ctime_hit_ms = 0;   // the same creation again (cache hit)
};

// "def", "csv" or a custom template -> the template text for `driver`; an error names a bad
// field (unknown, another driver's, or not measured by Tessera) or an unclosed '%'.
absl::StatusOr<std::string> expand_perf_template(const std::string& text, const std::string& driver);

// The same check without a driver (the parser's).
absl::Status check_perf_template(const std::string& text);

// The template with every field replaced; numbers as benchdnn prints them (%g).
std::string format_perf(const std::string& expanded, const perf_record& r);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_PERF_TEMPLATE_H_
