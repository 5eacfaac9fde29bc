#include "bench/driver/batch_parser.h"

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "bench/driver/perf_template.h"

namespace tessera::bench {
namespace {

constexpr int kMaxBatchDepth = 16;

// benchdnn's common options that tessera_bench accepts only with their default value (they
// configure what Tessera does not have: SYCL/OpenCL memory and streams, GPU streams, graph
// execution, ISA hints, parallel creation), with the reason a different value is rejected.
const std::map<std::string, std::pair<std::string, std::string>>& default_only_options() {
  static const auto* m = new std::map<std::string, std::pair<std::string, std::string>>{
      {"memory-kind", {"usm", "SYCL/OpenCL runtimes only; Tessera runs on the CPU"}},
      {"stream-kind", {"def", "SYCL/OpenCL runtimes only; Tessera runs on the CPU"}},
      {"num-streams", {"1", "GPU only"}},
      {"execution-mode", {"direct", "SYCL Graph only"}},
      {"cpu-isa-hints", {"none", "Tessera has no ISA hints (cap the ISA with TESSERA_MAX_ISA)"}},
      {"mode-modifier", {"", "Tessera creates primitives one at a time (no P or M modifier)"}},
      {"attr-same-pd-check", {"false", "not implemented by tessera_bench"}},
      {"ctx-init", {"auto", "Tessera creates primitives on the calling thread"}},
  };
  return *m;
}

bool parse_bool_value(const std::string& v, bool* out) {
  if (v == "true" || v == "1") { *out = true; return true; }
  if (v == "false" || v == "0") { *out = false; return true; }
  return false;
}

// Knobs whose value is one item even when it contains commas.
bool is_single_valued(const std::string& knob) {
  return knob == "impl" || knob == "skip-impl" || knob == "strides";
}

std::string dirname_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string join_path(const std::string& dir, const std::string& file) {
  if (!file.empty() && file[0] == '/') return file;
  if (dir.empty()) return file;
  return absl::StrCat(dir, "/", file);
}

}  // namespace

std::vector<token> tokenize_batch(const std::string& text, const std::string& file_name) {
  std::vector<token> out;
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  std::string logical;  // the current logical line (continuations joined)
  int logical_start = 0;
  auto flush = [&](int line_no) {
    // Split `logical` into tokens, dropping a comment that starts outside quotes.
    std::string cur;
    bool in_quotes = false;
    bool have = false;
    for (char c : logical) {
      if (c == '"') in_quotes = !in_quotes;
      if (!in_quotes && c == '#') break;
      if (!in_quotes && absl::ascii_isspace(static_cast<unsigned char>(c))) {
        if (have) out.push_back({cur, absl::StrCat(file_name, ":", line_no)});
        cur.clear();
        have = false;
        continue;
      }
      cur.push_back(c);
      have = true;
    }
    if (have) out.push_back({cur, absl::StrCat(file_name, ":", line_no)});
    logical.clear();
  };
  bool continuing = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line(absl::StripTrailingAsciiWhitespace(lines[i]));
    if (!continuing) logical_start = static_cast<int>(i) + 1;
    // A '\' continues the line only when it is the last character and not inside a comment.
    bool continues = !line.empty() && line.back() == '\\' && line.find('#') == std::string::npos;
    if (continues) line = std::string(absl::StripTrailingAsciiWhitespace(line.substr(0, line.size() - 1)));
    if (continuing) {
      std::string piece(absl::StripLeadingAsciiWhitespace(line));
      // "--attr-scales=a, \" + "b" is one comma list: join without a blank; otherwise the
      // pieces stay separate tokens.
      bool glue = !logical.empty() && (logical.back() == ',' || logical.back() == '=' ||
                                       (!piece.empty() && piece.front() == ','));
      logical += glue ? piece : " " + piece;
    } else {
      logical = line;
    }
    continuing = continues;
    if (!continuing) flush(logical_start);
  }
  if (!logical.empty()) flush(logical_start);
  return out;
}

absl::Status parse_descriptor(const std::string& text, std::vector<int64_t>* dims,
                              std::string* name) {
  std::string dims_text = text;
  name->clear();
  auto pos = text.find("_n");
  if (pos != std::string::npos) {
    dims_text = text.substr(0, pos);
    std::string rest = text.substr(pos + 2);
    if (rest.size() >= 2 && rest.front() == '"' && rest.back() == '"') {
      *name = rest.substr(1, rest.size() - 2);
    } else if (!rest.empty() && rest.find('"') == std::string::npos) {
      *name = rest;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "problem name in '", text, "' must be written _n\"NAME\" (quotes balanced)"));
    }
  }
  dims->clear();
  if (dims_text.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is not a problem descriptor: expected dims like 2x16x3x4"));
  }
  for (absl::string_view part : absl::StrSplit(dims_text, 'x')) {
    int64_t v = 0;
    bool digits = !part.empty();
    for (char c : part) digits = digits && absl::ascii_isdigit(static_cast<unsigned char>(c));
    if (!digits || !absl::SimpleAtoi(part, &v) || v < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", text, "' is not a problem descriptor: dim '", std::string(part),
          "' is not a non-negative 64-bit integer (expected dims like 2x16x3x4)"));
    }
    dims->push_back(v);
  }
  if (dims->size() > 12) {
    return absl::InvalidArgumentError(absl::StrCat("'", text, "' has ", dims->size(),
                                                   " dims; at most 12 are supported"));
  }
  return absl::OkStatus();
}

batch_parser::batch_parser(std::string base_dir) : base_dir_(std::move(base_dir)) {
  reset(driver_kind::reorder);
  reset(driver_kind::softmax);
}

void batch_parser::reset(driver_kind d) {
  driver_state& s = states_[static_cast<int>(d)];
  s = driver_state{};
  for (const auto& [k, v] : default_knobs(d)) s.lists[k] = {v};
}

absl::Status batch_parser::parse_args(const std::vector<std::string>& args) {
  std::vector<token> tokens;
  for (size_t i = 0; i < args.size(); ++i) {
    tokens.push_back({args[i], absl::StrCat("argv[", i + 1, "]")});
  }
  return parse_tokens(tokens, base_dir_, 0);
}

absl::Status batch_parser::parse_tokens(const std::vector<token>& tokens, const std::string& dir,
                                        int depth) {
  for (const token& t : tokens) {
    // "-1x3x4" is a (bad) descriptor, not an option.
    const bool dash_digit = t.text.size() > 1 && t.text[0] == '-' &&
                            absl::ascii_isdigit(static_cast<unsigned char>(t.text[1]));
    if (absl::StartsWith(t.text, "-") && !dash_digit) {
      absl::Status s = parse_option(t, dir, depth);
      if (!s.ok()) return s;
    } else {
      absl::Status s = emit(t);
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::Status batch_parser::parse_batch_file(const std::string& path, const std::string& dir,
                                            int depth) {
  if (depth >= kMaxBatchDepth) {
    return absl::InvalidArgumentError(absl::StrCat("--batch=", path, ": batch files nest deeper than ",
                                                   kMaxBatchDepth, " levels (a cycle?)"));
  }
  std::string full = join_path(dir, path);
  std::ifstream in(full);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("--batch=", path, ": cannot open '", full, "'"));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  batch_files_.push_back(full);
  return parse_tokens(tokenize_batch(ss.str(), full), dirname_of(full), depth + 1);
}

absl::Status batch_parser::parse_option(const token& t, const std::string& dir, int depth) {
  std::string body(absl::StripPrefix(absl::StripPrefix(t.text, "-"), "-"));
  std::string key = body, value;
  bool has_value = false;
  if (auto eq = body.find('='); eq != std::string::npos) {
    key = body.substr(0, eq);
    value = body.substr(eq + 1);
    has_value = true;
  }
  if (key == "runtime_dim_mask") key = "runtime-dim-mask";
  // -vN is --verbose=N.
  if (t.text.size() > 2 && t.text[0] == '-' && t.text[1] == 'v' && t.text[2] != 'e' && !has_value) {
    value = t.text.substr(2);
    key = "verbose";
    has_value = true;
  }

  if (key == "reorder" || key == "softmax") {
    driver_ = key == "reorder" ? driver_kind::reorder : driver_kind::softmax;
    return absl::OkStatus();
  }
  if (key == "reset") {
    reset(driver_);
    return absl::OkStatus();
  }
  if (key == "batch") {
    if (value.empty()) return absl::InvalidArgumentError(absl::StrCat(t.origin, ": --batch needs a file"));
    return parse_batch_file(value, dir, depth);
  }
  bool handled = false;
  if (absl::Status g = parse_global(t, key, value, has_value, dir, &handled); !g.ok() || handled) {
    return g;
  }

  driver_state& s = state();
  if (key == "match") {
    try {
      std::regex re(value);
    } catch (const std::regex_error& e) {
      return absl::InvalidArgumentError(
          absl::StrCat(t.origin, ": --match=", value, " is not a valid regular expression: ", e.what()));
    }
    s.match = value;
    return absl::OkStatus();
  }
  // Shorthands of older benchdnn: --dt sets both data types, --tag both layouts.
  std::vector<std::string> targets = {key};
  if (key == "dt") targets = {"sdt", "ddt"};
  if (key == "tag") targets = {"stag", "dtag"};

  const auto& defaults = default_knobs(driver_);
  if (!defaults.count(targets[0])) {
    const driver_kind other = driver_ == driver_kind::reorder ? driver_kind::softmax : driver_kind::reorder;
    if (default_knobs(other).count(targets[0])) {
      return absl::InvalidArgumentError(absl::StrCat(t.origin, ": --", key, " is a ", name_of(other),
                                                     " knob, not a ", name_of(driver_), " one"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(t.origin, ": unknown option '", t.text, "' (tessera_bench --help lists the knobs)"));
  }
  if (!has_value) {
    return absl::InvalidArgumentError(absl::StrCat(t.origin, ": --", key, " needs a value (--", key, "=...)"));
  }
  std::vector<std::string> values;
  if (is_single_valued(targets[0])) {
    values = {value};
  } else {
    values = absl::StrSplit(value, ',');
  }
  for (const auto& k : targets) s.lists[k] = values;
  return absl::OkStatus();
}

absl::Status batch_parser::emit(const token& descriptor) {
  driver_state& s = state();
  problem base;
  base.driver = driver_;
  base.origin = descriptor.origin;
  base.unsupported = s.unsupported;
  if (settings_.engine != "cpu" && !absl::StartsWith(settings_.engine, "cpu:")) {
    base.unsupported.insert(base.unsupported.begin(), {"engine", settings_.engine});
  }
  absl::Status parsed = parse_descriptor(descriptor.text, &base.dims, &base.name);
  if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat(descriptor.origin, ": ", parsed.message()));
  // Cross product over every knob's list, first knob outermost.
  std::vector<std::pair<std::string, const std::vector<std::string>*>> axes;
  for (const auto& [k, v] : s.lists) axes.push_back({k, &v});
  std::vector<size_t> idx(axes.size(), 0);
  std::regex re;
  if (!s.match.empty()) re = std::regex(s.match);
  while (true) {
    parsed_problem pp{base, settings_};
    for (size_t a = 0; a < axes.size(); ++a) pp.prb.knobs[axes[a].first] = (*axes[a].second)[idx[a]];
    if (s.match.empty() || std::regex_match(repro_line(pp.prb), re)) {
      problems_.push_back(std::move(pp));
    } else {
      ++filtered_out_;
    }
    // Next index (last axis fastest).
    int a = static_cast<int>(axes.size()) - 1;
    for (; a >= 0; --a) {
      if (++idx[a] < axes[a].second->size()) break;
      idx[a] = 0;
    }
    if (a < 0) break;
  }
  return absl::OkStatus();
}

absl::Status batch_parser::parse_global(const token& t, const std::string& key, const std::string& value,
                                        bool has_value, const std::string& dir, bool* handled) {
  *handled = true;
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(t.origin, ": --", key, "=", value, " ", why));
  };
  auto non_negative = [&](int64_t* out) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(value, &v) || v < 0) return false;
    *out = v;
    return true;
  };
  auto boolean = [&](bool* out) { return parse_bool_value(absl::AsciiStrToLower(value), out); };
  if (key == "mode") {
    std::string m = absl::AsciiStrToUpper(value);
    if (m == "C" || m == "P" || m == "CP" || m == "PC" || m == "L" || m == "F" || m == "R" || m == "I") {
      settings_.list_only = m == "L";
      settings_.init_only = m == "I";
      settings_.correctness = absl::StrContains(m, "C");
      settings_.performance = absl::StrContains(m, "P") || m == "F";
      // F: benchdnn's fast performance mode, P with a 10 ms budget per problem.
      if (m == "F") settings_.max_ms_per_prb = 10;
      return absl::OkStatus();
    }
    if (m == "B") return bad("(bitwise mode) is not supported (use C, P, CP, F, R, I or L)");
    return bad("is not supported (use C, P, CP, F, R, I or L)");
  }
  if (key == "compare") {
    if (value == "onednn" || value == "none" || value.empty()) {
      settings_.compare_onednn = value == "onednn";
      return absl::OkStatus();
    }
    return bad("is not supported (use onednn or none)");
  }
  if (key == "cold-cache") {
    // Reorder and softmax have no weights: wei is none for them (as in benchdnn).
    if (value == "none" || value == "all" || value == "wei") {
      settings_.cold_cache = value == "all" ? "all" : "none";
      return absl::OkStatus();
    }
    if (value == "custom") return bad("needs benchdnn's source edits; use all");
    return bad("is not supported (use none or all)");
  }
  if (key == "perf-csv") {
    // Relative to the directory of the including file (the user's directory on the command line).
    perf_csv_ = value.empty() || value[0] == '/' ? value : dir + "/" + value;
    return absl::OkStatus();
  }
  if (key == "max-ms-per-prb" || key == "fix-times-per-prb") {
    int64_t v = 0;
    if (!non_negative(&v)) return bad("must be a non-negative integer");
    (key == "max-ms-per-prb" ? settings_.max_ms_per_prb : settings_.fix_times_per_prb) = v;
    return absl::OkStatus();
  }
  if (key == "engine") {
    // cpu[:N] runs; gpu[:N] is valid but not Tessera's (its problems are SKIPPED).
    std::vector<std::string> f = absl::StrSplit(value, ':');
    int64_t index = 0;
    if ((f[0] != "cpu" && f[0] != "gpu") || f.size() > 2 || (f.size() == 2 && !absl::SimpleAtoi(f[1], &index)) ||
        index < 0) {
      return bad("is not an engine (KIND[:INDEX], KIND cpu or gpu)");
    }
    settings_.engine = value;
    return absl::OkStatus();
  }
  if (key == "start") {
    if (!non_negative(&start_)) return bad("must be a non-negative integer");
    return absl::OkStatus();
  }
  if (key == "repeats-per-prb") {
    int64_t v = 0;
    if (!non_negative(&v) || v < 1 || v > 1000000) return bad("must be an integer in [1, 1000000]");
    settings_.repeats = static_cast<int>(v);
    return absl::OkStatus();
  }
  if (key == "verbose") {
    int64_t v = 0;
    if (!non_negative(&v) || v > 99) {
      return absl::InvalidArgumentError(
          absl::StrCat(t.origin, ": ", t.text, ": the verbosity must be an integer in [0, 99]"));
    }
    settings_.verbose = static_cast<int>(v);
    return absl::OkStatus();
  }
  if (key == "summary") {
    bool failures = summary_failures_;
    for (absl::string_view item : absl::StrSplit(value, '+')) {
      if (item == "failures") {
        failures = true;
      } else if (item == "no-failures") {
        failures = false;
      } else {
        return bad(absl::StrCat(": '", std::string(item),
                                "' is not a summary setting (failures or no-failures)"));
      }
    }
    summary_failures_ = failures;
    return absl::OkStatus();
  }
  if (key == "perf-template") {
    if (absl::Status s = check_perf_template(value); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(t.origin, ": --perf-template: ", s.message()));
    }
    settings_.perf_template = value;
    return absl::OkStatus();
  }
  if (key == "ctx-exe") {
    // MAX_CONCURRENCY[:CORE_TYPE[:THREADS_PER_CORE]]; the last two are oneTBB-only in benchdnn.
    std::vector<std::string> f = absl::StrSplit(value, ':');
    int64_t n = 0;
    if (f.size() > 3 || (f[0] != "auto" && (!absl::SimpleAtoi(f[0], &n) || n < 1 || n > 1024))) {
      return bad("is not MAX_CONCURRENCY[:CORE_TYPE[:THREADS_PER_CORE]] (a thread count in [1, 1024] or auto)");
    }
    for (size_t i = 1; i < f.size(); ++i) {
      if (f[i] != "auto") return bad("sets a core type or threads per core: only auto is supported");
    }
    settings_.threads = static_cast<int>(n);
    return absl::OkStatus();
  }
  if (key == "mem-check" || key == "canonical" || key == "check-ref-impl" || key == "allow-enum-tags-only" ||
      key == "fast-ref") {
    bool b = false;
    if (!boolean(&b)) return bad("is not a boolean (true, false, 1 or 0)");
    if (key == "mem-check") settings_.mem_check = b;
    if (key == "canonical") settings_.canonical = b;
    if (key == "check-ref-impl") settings_.check_ref_impl = b;
    // allow-enum-tags-only: Tessera runs every tag its parser accepts, whatever the value.
    // fast-ref: there is no optimised reference to use, so both values use the scalar reference.
    return absl::OkStatus();
  }
  if (auto it = default_only_options().find(key); it != default_only_options().end()) {
    const auto& [def, why] = it->second;
    std::string v = value;
    if (key == "attr-same-pd-check") {
      bool b = false;
      if (!boolean(&b)) return bad("is not a boolean (true, false, 1 or 0)");
      v = b ? "true" : "false";
    }
    if (key == "ctx-init" && absl::StartsWith(v, "auto")) v = "auto";
    if (v == def || (def.empty() && !has_value)) return absl::OkStatus();
    return bad(absl::StrCat("is not supported: ", why, " (only ", def.empty() ? "an empty value" : def,
                            " is accepted)"));
  }
  *handled = false;
  return absl::OkStatus();
}

}  // namespace tessera::bench
