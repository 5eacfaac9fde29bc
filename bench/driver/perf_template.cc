#include "bench/driver/perf_template.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tessera::bench {
namespace {

const std::set<std::string>& text_fields() {
  static const auto* s = new std::set<std::string>{
      "engine", "impl", "name", "prb", "desc", "DESC", "driver", "idx", "sdt", "ddt", "dt", "stag",
      "dtag", "tag", "alg", "attr", "axis", "dir", "flags", "mb"};
  return *s;
}

const std::set<std::string>& number_fields() {
  static const auto* s =
      new std::set<std::string>{"time", "ibytes", "obytes", "iobytes", "bw", "ops", "flops", "ctime"};
  return *s;
}

// Fields benchdnn documents that tessera_bench rejects, with the reason.
const std::map<std::string, std::string>& rejected_fields() {
  static const auto* m = new std::map<std::string, std::string>{
      {"clocks", "clocks are not measured (use %time%)"},
      {"freq", "clocks are not measured, so neither is the frequency"},
      {"cpdtime", "Tessera creates a primitive in one call (use %ctime%)"},
      {"cptime", "Tessera creates a primitive in one call (use %ctime%)"},
      {"cfg", "a field of conv, ip, matmul, pool and rnn, not of reorder or softmax"},
      {"wtag", "a field of conv, ip and matmul (weights), not of reorder or softmax"},
      {"stat_tag", "a field of lnorm, not of reorder or softmax"},
      {"activation", "a field of rnn, not of reorder or softmax"},
      {"direction", "a field of rnn, not of reorder or softmax"},
      {"prop", "a field of rnn, not of reorder or softmax"},
      {"group", "a field of shuffle, not of reorder or softmax"},
  };
  return *m;
}

struct field {
  char time_mod = 0;  // '-', '0', '+' or 0 (none)
  double unit = 1;
  std::string name;
};

absl::StatusOr<field> parse_field(const std::string& text) {
  field f;
  std::string rest = text;
  if (!rest.empty() && (rest[0] == '-' || rest[0] == '0' || rest[0] == '+')) {
    f.time_mod = rest[0];
    rest = rest.substr(1);
  }
  if (rest.size() > 1 && (rest[0] == 'K' || rest[0] == 'M' || rest[0] == 'G') &&
      number_fields().count(rest.substr(1))) {
    f.unit = rest[0] == 'K' ? 1e3 : rest[0] == 'M' ? 1e6 : 1e9;
    rest = rest.substr(1);
  }
  f.name = rest;
  if (number_fields().count(f.name)) return f;
  if (text_fields().count(f.name)) {
    if (f.time_mod != 0 || f.unit != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("%", text, "%: modifiers apply to time, byte and rate fields only"));
    }
    return f;
  }
  if (auto it = rejected_fields().find(f.name); it != rejected_fields().end()) {
    return absl::InvalidArgumentError(absl::StrCat("%", text, "% is not supported: ", it->second));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "%", text, "% is not a field of the performance report (docs/driver.md lists them)"));
}

// Calls on_text for literal text and on_field for each %field%.
template <class Text, class Field>
absl::Status walk(const std::string& t, Text on_text, Field on_field) {
  size_t pos = 0;
  while (pos < t.size()) {
    size_t open = t.find('%', pos);
    if (open == std::string::npos) {
      on_text(t.substr(pos));
      break;
    }
    on_text(t.substr(pos, open - pos));
    size_t close = t.find('%', open + 1);
    if (close == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", t.substr(open), "': a '%' opens a field that is never closed"));
    }
    absl::StatusOr<field> f = parse_field(t.substr(open + 1, close - open - 1));
    if (!f.ok()) return f.status();
    on_field(*f);
    pos = close + 1;
  }
  return absl::OkStatus();
}

std::string number(double v) { return absl::StrFormat("%g", v); }

}  // namespace

absl::StatusOr<std::string> expand_perf_template(const std::string& text, const std::string& driver) {
  std::string t = text;
  if (text == "def" || text.empty()) {
    t = kPerfTemplateDef;
  } else if (text == "csv") {
    const char* args = driver == "softmax" ? "%dir%,%sdt%,%ddt%,%stag%,%dtag%,%alg%,%axis%"
                                           : "%sdt%,%ddt%,%stag%,%dtag%,%flags%";
    t = absl::StrCat("perf,%engine%,%impl%,%name%,", args, kPerfTemplateCsvTail);
  }
  if (absl::Status s = walk(t, [](const std::string&) {}, [](const field&) {}); !s.ok()) return s;
  return t;
}

absl::Status check_perf_template(const std::string& text) {
  return expand_perf_template(text, "reorder").status();
}

std::string format_perf(const std::string& expanded, const perf_record& r) {
  std::string out;
  auto time_of = [&](char mod) { return mod == '0' ? r.avg_ms : mod == '+' ? r.max_ms : r.min_ms; };
  auto value = [&](const field& f) -> std::string {
    const std::string& n = f.name;
    if (n == "engine") return r.engine;
    if (n == "impl") return r.impl;
    if (n == "name") return r.name.empty() ? "" : absl::StrCat("\"", r.name, "\"");
    if (n == "prb") return r.prb;
    if (n == "desc") return r.desc;
    if (n == "DESC") return r.desc_csv;
    if (n == "driver") return r.driver;
    if (n == "idx") return absl::StrCat(r.index);
    if (n == "sdt") return r.sdt;
    if (n == "ddt") return r.ddt;
    if (n == "dt") return r.sdt == r.ddt ? r.sdt : absl::StrCat(r.sdt, ":", r.ddt);
    if (n == "stag" || n == "tag") return r.stag;
    if (n == "dtag") return r.dtag;
    if (n == "alg") return r.alg;
    if (n == "attr") return r.attr;
    if (n == "axis") return r.axis;
    if (n == "dir") return r.dir;
    if (n == "flags") return r.flags;
    if (n == "mb") return r.mb;
    // Numbers, divided by the unit.
    if (n == "time") return number(time_of(f.time_mod) / f.unit);
    if (n == "ibytes") return number(r.ibytes / f.unit);
    if (n == "obytes") return number(r.obytes / f.unit);
    if (n == "iobytes") return number((r.ibytes + r.obytes) / f.unit);
    if (n == "bw") {
      const double ms = time_of(f.time_mod);
      return number(ms > 0 ? (r.ibytes + r.obytes) / (ms * 1e-3) / f.unit : 0);
    }
    if (n == "ops" || n == "flops") return number(0);
    if (n == "ctime") {
      const double ms = f.time_mod == '-' ? r.ctime_hit_ms
                        : f.time_mod == '0' ? (r.ctime_hit_ms + r.ctime_miss_ms) / 2
                                            : r.ctime_miss_ms;
      return number(ms / f.unit);
    }
    return "";
  };
  // The template was checked when it was given: walk cannot fail here.
  (void)walk(expanded, [&](const std::string& s) { out += s; }, [&](const field& f) { out += value(f); });
  return out;
}

}  // namespace tessera::bench
