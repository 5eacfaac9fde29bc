// The driver's problem model: one benchdnn problem (a driver, its knob values and dims), kept as
// the text the user wrote so that the parser needs nothing from the library; the runner turns it
// into Tessera descriptors and decides what is supported.
//
//   tessera::bench::problem p;
//   p.driver = tessera::bench::driver_kind::reorder;
//   p.knobs["sdt"] = "f32"; p.knobs["ddt"] = "s8";
//   p.dims = {2, 16, 3, 4};
//   std::string line = tessera::bench::repro_line(p);   // "--reorder --ddt=s8 2x16x3x4"
#ifndef TESSERA_BENCH_DRIVER_PROBLEM_H_
#define TESSERA_BENCH_DRIVER_PROBLEM_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tessera::bench {

enum class driver_kind { reorder, softmax };

const char* name_of(driver_kind d);  // "reorder", "softmax"

struct problem {
  driver_kind driver = driver_kind::reorder;
  // Every knob of the driver by its benchdnn name without dashes ("sdt", "attr-scales", ...),
  // defaults included, one value each (comma lists are already expanded).
  std::map<std::string, std::string> knobs;
  // Knobs Tessera does not know or does not support (name, value) in the order they were given:
  // the runner reports the problem SKIPPED naming them.
  std::vector<std::pair<std::string, std::string>> unsupported;
  std::vector<int64_t> dims;
  std::string name;    // from _n"..." (may be empty)
  std::string origin;  // "file:line" of the descriptor, for messages

  // Value of a knob ("" when absent).
  const std::string& knob(const std::string& name) const;
};

// Default value of each knob of a driver (benchdnn's defaults).
const std::map<std::string, std::string>& default_knobs(driver_kind d);

// "2x16x3x4".
std::string dims_to_string(const std::vector<int64_t>& dims);

// The problem as a command line that reproduces it: the driver, the knobs that differ from their
// defaults (every knob when canonical, benchdnn's --canonical=true), in a fixed order,
// unsupported knobs, then dims and name.
std::string repro_line(const problem& p, bool canonical = false);

// The attribute knobs (--attr-*) that differ from their defaults, as in the repro line ("" when
// none): the %attr% field of a perf template and the attrs column of --perf-csv.
std::string attr_string(const problem& p);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_PROBLEM_H_
