#include "bench/driver/problem.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessera::bench {

const char* name_of(driver_kind d) { return d == driver_kind::reorder ? "reorder" : "softmax"; }

const std::map<std::string, std::string>& default_knobs(driver_kind d) {
  // Knobs whose default is the empty string mean "not set" (no attribute, no flag).
  static const auto* reorder = new std::map<std::string, std::string>{
      {"sdt", "f32"},          {"ddt", "f32"},          {"stag", "abx"},
      {"dtag", "abx"},         {"strides", ""},         {"oflag", ""},
      {"runtime-dim-mask", "0"}, {"cross-engine", "none"}, {"attr-scales", ""},
      {"attr-zero-points", ""}, {"attr-post-ops", ""},  {"attr-oscale", ""},
      {"attr-rounding-mode", ""}, {"attr-scratchpad", "library"}, {"attr-fpmath", ""},
      {"attr-acc-mode", ""},   {"attr-deterministic", "false"}, {"attr-dropout", ""},
      {"impl", ""},            {"skip-impl", ""},
  };
  static const auto* softmax = new std::map<std::string, std::string>{
      {"dir", "FWD_D"},        {"sdt", "f32"},          {"ddt", "f32"},
      {"stag", "abx"},         {"dtag", "any"},         {"alg", "SOFTMAX"},
      {"axis", "1"},           {"inplace", "false"},    {"mb", "0"},
      {"attr-scales", ""},     {"attr-zero-points", ""}, {"attr-post-ops", ""},
      {"attr-oscale", ""},     {"attr-rounding-mode", ""}, {"attr-scratchpad", "library"},
      {"attr-fpmath", ""},     {"attr-acc-mode", ""},   {"attr-deterministic", "false"},
      {"attr-dropout", ""},    {"impl", ""},            {"skip-impl", ""},
  };
  return d == driver_kind::reorder ? *reorder : *softmax;
}

const std::string& problem::knob(const std::string& name) const {
  static const std::string* empty = new std::string;
  auto it = knobs.find(name);
  return it == knobs.end() ? *empty : it->second;
}

std::string dims_to_string(const std::vector<int64_t>& dims) { return absl::StrJoin(dims, "x"); }

namespace {
// The order knobs appear in a repro line (benchdnn's order: types, tags, then attributes).
const std::vector<std::string>& knob_order(driver_kind d) {
  static const auto* reorder = new std::vector<std::string>{
      "sdt", "ddt", "stag", "dtag", "strides", "oflag", "runtime-dim-mask", "cross-engine",
      "attr-scales", "attr-zero-points", "attr-post-ops", "attr-oscale", "attr-rounding-mode",
      "attr-scratchpad", "attr-fpmath", "attr-acc-mode", "attr-deterministic", "attr-dropout",
      "impl", "skip-impl"};
  static const auto* softmax = new std::vector<std::string>{
      "dir", "sdt", "ddt", "stag", "dtag", "alg", "axis", "inplace", "mb", "attr-scales",
      "attr-zero-points", "attr-post-ops", "attr-oscale", "attr-rounding-mode", "attr-scratchpad",
      "attr-fpmath", "attr-acc-mode", "attr-deterministic", "attr-dropout", "impl", "skip-impl"};
  return d == driver_kind::reorder ? *reorder : *softmax;
}
}  // namespace

std::string repro_line(const problem& p, bool canonical) {
  std::string out = absl::StrCat("--", name_of(p.driver));
  const auto& defaults = default_knobs(p.driver);
  for (const std::string& k : knob_order(p.driver)) {
    auto it = p.knobs.find(k);
    if (it == p.knobs.end()) continue;
    auto def = defaults.find(k);
    if (!canonical && def != defaults.end() && def->second == it->second) continue;
    absl::StrAppend(&out, " --", k, "=", it->second);
  }
  for (const auto& [k, v] : p.unsupported) {
    absl::StrAppend(&out, " --", k, v.empty() ? "" : "=", v);
  }
  absl::StrAppend(&out, " ", dims_to_string(p.dims));
  if (!p.name.empty()) absl::StrAppend(&out, "_n\"", p.name, "\"");
  return out;
}

std::string attr_string(const problem& p) {
  std::string out;
  const auto& defaults = default_knobs(p.driver);
  for (const std::string& k : knob_order(p.driver)) {
    if (k.rfind("attr-", 0) != 0) continue;
    auto it = p.knobs.find(k);
    if (it == p.knobs.end()) continue;
    auto def = defaults.find(k);
    if (def != defaults.end() && def->second == it->second) continue;
    absl::StrAppend(&out, out.empty() ? "" : " ", "--", k, "=", it->second);
  }
  return out;
}

}  // namespace tessera::bench
