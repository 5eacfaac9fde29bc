#include "bench/driver/resolve.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/driver/post_ops_knob.h"
#include "tessera/formats/tag.h"
#include "tessera/primitives/common/quant_args.h"

namespace tessera::bench {
namespace {

// Why a knob value is not run; the problem is SKIPPED with this text.
std::string knob_reason(const std::string& knob, const std::string& value, const std::string& why) {
  return absl::StrCat("--", knob, "=", value, ": ", why);
}

bool parse_dt(const problem& p, const std::string& knob, data_type* dt, std::string* skip) {
  const std::string& v = p.knob(knob);
  auto parsed = parse_data_type(v);
  if (!parsed.ok() || *parsed == data_type::undef) {
    *skip = knob_reason(knob, v, "data type not supported by Tessera");
    return false;
  }
  *dt = *parsed;
  return true;
}

bool parse_bool(const std::string& v, bool* out) {
  std::string l = absl::AsciiStrToLower(v);
  if (l == "true" || l == "1") { *out = true; return true; }
  if (l == "false" || l == "0") { *out = false; return true; }
  return false;
}

// benchdnn-style generated values: powers of two for scales, small signed integers for zero points.
std::vector<float> gen_scales(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = std::ldexp(1.f, static_cast<int>(i % 7) - 3);
  return v;
}
// Zero points of an unsigned type are 0..4 instead (every value fits s4 and u4).
std::vector<int32_t> gen_zero_points(int64_t n, data_type dt) {
  const int32_t low = dt == data_type::u8 || dt == data_type::u4 ? 0 : -2;
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(i % 5) + low;
  return v;
}

// The scale types Tessera takes.
bool scale_type(const std::string& name, data_type* dt) {
  if (name != "f32" && name != "f16" && name != "bf16" && name != "e8m0") return false;
  *dt = *parse_data_type(name);
  return true;
}

// The zero-point types Tessera takes, with their ranges.
bool zero_point_type(const std::string& name, data_type* dt, int64_t* lo, int64_t* hi) {
  if (name == "s32") { *dt = data_type::s32; *lo = INT32_MIN; *hi = INT32_MAX; return true; }
  if (name == "s8") { *dt = data_type::s8; *lo = -128; *hi = 127; return true; }
  if (name == "u8") { *dt = data_type::u8; *lo = 0; *hi = 255; return true; }
  if (name == "s4") { *dt = data_type::s4; *lo = -8; *hi = 7; return true; }
  if (name == "u4") { *dt = data_type::u4; *lo = 0; *hi = 15; return true; }
  return false;
}

// Keeps per-dim value vectors small: a mask over huge dims is a problem we do not generate values for.
constexpr int64_t kMaxAttrValues = int64_t{1} << 24;

// POLICY -> mask, or -1 when Tessera does not support the policy.
int policy_mask(const std::string& policy) {
  if (policy == "common") return 0;
  if (policy == "per_dim_0") return 1;
  if (policy == "per_dim_1" || policy == "per_oc") return 2;
  if (policy == "per_dim_01") return 3;
  if (policy == "per_dim_2") return 4;
  if (policy == "per_dim_3") return 8;
  return -1;
}

// Parses --attr-scales or --attr-zero-points. is_scale selects the value type.
bool parse_quant(const std::string& knob, const std::string& text, bool is_scale,
                 const std::vector<int64_t>& dims, primitive_attr* attr, attr_values* values,
                 std::string* skip) {
  if (text.empty()) return true;
  for (absl::string_view entry_sv : absl::StrSplit(text, '+')) {
    std::string entry(entry_sv);
    std::vector<std::string> f = absl::StrSplit(entry, ':');
    std::string arg = f[0];
    if (arg == "src0") arg = "src";
    if (arg != "src" && arg != "dst") {
      *skip = knob_reason(knob, text, absl::StrCat("argument '", arg, "' is not supported (src and dst only)"));
      return false;
    }
    if (f.size() < 2) {
      *skip = knob_reason(knob, text, absl::StrCat("'", entry, "' has no policy (ARG:POLICY[:VALUE])"));
      return false;
    }
    // per_tensor: one value per element (or per group), every dim masked.
    int mask = f[1] == "per_tensor" ? (1 << dims.size()) - 1 : policy_mask(f[1]);
    if (mask < 0) {
      *skip = knob_reason(knob, text, absl::StrCat("policy '", f[1], "' is not supported"));
      return false;
    }
    // Policies other than common may give the data type in the value's place (no value).
    if (mask != 0 && f.size() > 2 && parse_data_type(f[2]).ok()) f.insert(f.begin() + 2, "");
    if (mask != 0 && f.size() > 2 && !f[2].empty()) {
      double d = 0;
      if (!absl::SimpleAtod(f[2], &d)) {
        *skip = knob_reason(knob, text, absl::StrCat("value data type '", f[2], "' is not supported"));
        return false;
      }
    }
    data_type value_dt = is_scale ? data_type::f32 : data_type::s32;
    int64_t zp_lo = INT32_MIN, zp_hi = INT32_MAX;
    if (f.size() > 3 && !f[3].empty()) {
      const bool ok = is_scale ? scale_type(f[3], &value_dt)
                               : zero_point_type(f[3], &value_dt, &zp_lo, &zp_hi);
      if (!ok) {
        *skip = knob_reason(knob, text, absl::StrCat("value data type '", f[3], "' is not supported"));
        return false;
      }
    }
    std::vector<int64_t> groups;
    if (f.size() > 4) {
      for (absl::string_view g : absl::StrSplit(f[4], 'x')) {
        int64_t v = 0;
        if (!absl::SimpleAtoi(g, &v) || v < 1) {
          *skip = knob_reason(knob, text, absl::StrCat("groups '", f[4], "' are not positive integers"));
          return false;
        }
        groups.push_back(v);
      }
    }
    int64_t n = 1;
    if (mask != 0) {
      auto c = mask_count(mask, dims);
      if (!c.ok()) {
        *skip = knob_reason(knob, text, std::string(c.status().message()));
        return false;
      }
      n = *c;
    }
    float scale = 1.f;
    int32_t zp = 0;
    if (f.size() > 2 && !f[2].empty()) {
      bool ok = true;
      if (is_scale) {
        double d = 0;
        ok = absl::SimpleAtod(f[2], &d) && std::isfinite(d);
        scale = static_cast<float>(d);
      } else {
        ok = absl::SimpleAtoi(f[2], &zp);
        if (ok && (zp < zp_lo || zp > zp_hi)) {
          *skip = knob_reason(knob, text, absl::StrCat("value ", zp, " does not fit the zero points' type ",
                                                       name_of(value_dt)));
          return false;
        }
      }
      if (!ok) {
        *skip = knob_reason(knob, text, absl::StrCat("value '", f[2], "' is not a number"));
        return false;
      }
    } else if (mask == 0) {
      // benchdnn requires a value for the common policy; it defaults to 1 (scales) / 0 (zero points).
    }
    quant_param q{.mask = mask, .dt = f.size() > 3 && !f[3].empty() ? value_dt : data_type::undef,
                  .groups = groups};
    // Groups that do not divide their dims are the library's to reject (INVALID_ARGUMENTS).
    if (!groups.empty() && check_quant_groups(tessera::arg::src_scales, q, dims).ok()) {
      n = grouped_value_count(q, dims);
    }
    if (is_scale) {
      std::vector<float> v = mask == 0 ? std::vector<float>{scale} : gen_scales(n);
      if (arg == "src") { attr->src_scales = q; values->src_scales = v; }
      else { attr->dst_scales = q; values->dst_scales = v; }
    } else {
      std::vector<int32_t> v = mask == 0 ? std::vector<int32_t>{zp} : gen_zero_points(n, value_dt);
      if (arg == "src") { attr->src_zero_points = q; values->src_zero_points = v; }
      else { attr->dst_zero_points = q; values->dst_zero_points = v; }
    }
  }
  return true;
}

bool parse_oscale(const std::string& text, const std::vector<int64_t>& dims, primitive_attr* attr,
                  std::string* skip) {
  if (text.empty()) return true;
  std::vector<std::string> f = absl::StrSplit(text, ':');
  int mask = policy_mask(f[0]);
  if (mask < 0 || f.size() > 3) {
    *skip = knob_reason("attr-oscale", text, "only POLICY[:SCALE] with common or per_dim_* is supported");
    return false;
  }
  output_scales os{.mask = mask};
  if (mask == 0) {
    double d = 1.0;
    if (f.size() > 1 && !f[1].empty() && !(absl::SimpleAtod(f[1], &d) && std::isfinite(d))) {
      *skip = knob_reason("attr-oscale", text, absl::StrCat("'", f[1], "' is not a number"));
      return false;
    }
    os.values = {static_cast<float>(d)};
  } else {
    auto c = mask_count(mask, dims);
    if (!c.ok()) {
      *skip = knob_reason("attr-oscale", text, std::string(c.status().message()));
      return false;
    }
    os.values = gen_scales(*c);
  }
  attr->oscale = os;
  return true;
}

// --attr-rounding-mode=ARG:MODE[:SEED][+...]: environment anywhere; stochastic on a reorder's
// dst only, with SEED (benchdnn's default: all ones) passed at execution.
bool parse_rounding(const std::string& text, bool reorder, primitive_attr* attr,
                    attr_values* values, std::string* skip) {
  if (text.empty()) return true;
  for (absl::string_view e : absl::StrSplit(text, '+')) {
    std::vector<std::string> f = absl::StrSplit(e, ':');
    if (f.size() < 2 || f[1] == "environment") continue;  // malformed: check_syntax reports it
    if (!reorder || f[0] != "dst") {
      *skip = knob_reason("attr-rounding-mode", text,
                          "stochastic rounding applies to a reorder's dst only");
      return false;
    }
    attr->dst_rounding = rounding_mode::stochastic;
    if (f.size() > 2 && !absl::SimpleAtoi(f[2], &values->rounding_seed)) {
      *skip = knob_reason("attr-rounding-mode", text, absl::StrCat("'", f[2], "' is not a seed"));
      return false;
    }
  }
  return true;
}

// Knobs that only accept values meaning "as if not given" (or values Tessera satisfies anyway).
bool check_neutral_knobs(const problem& p, std::string* skip) {
  auto bad = [&](const std::string& k, const std::string& why) {
    *skip = knob_reason(k, p.knob(k), why);
    return false;
  };
  if (p.knob("cross-engine") != "" && p.knob("cross-engine") != "none")
    return bad("cross-engine", "GPU-only knob; Tessera is CPU-only");
  const std::string& fp = p.knob("attr-fpmath");
  if (!fp.empty() && fp != "strict" && !absl::StartsWith(fp, "strict:"))
    return bad("attr-fpmath", "only strict math is supported");
  // Tessera accumulates in f32 (f64 for f64): that satisfies strict, relaxed, any and f32.
  const std::string& acc = p.knob("attr-acc-mode");
  if (!acc.empty() && acc != "strict" && acc != "relaxed" && acc != "any" && acc != "f32")
    return bad("attr-acc-mode", "Tessera accumulates in f32 only");
  bool det = false;
  if (!parse_bool(p.knob("attr-deterministic"), &det) || det)
    return bad("attr-deterministic", "not supported");
  if (!p.knob("attr-dropout").empty()) return bad("attr-dropout", "not supported");
  const std::string& sp = p.knob("attr-scratchpad");
  if (sp != "library" && sp != "user") return bad("attr-scratchpad", "unknown mode");
  return true;
}

bool parse_strides(const std::string& text, std::vector<int64_t>* src, std::vector<int64_t>* dst,
                   std::string* skip) {
  if (text.empty() || text == ":") return true;
  std::vector<std::string> sides = absl::StrSplit(text, ':');
  if (sides.size() != 2) {
    *skip = knob_reason("strides", text, "expected SRC_STRIDES:DST_STRIDES");
    return false;
  }
  for (int s = 0; s < 2; ++s) {
    if (sides[s].empty()) continue;
    std::vector<int64_t>* out = s == 0 ? src : dst;
    for (absl::string_view v : absl::StrSplit(sides[s], 'x')) {
      int64_t x = 0;
      if (!absl::SimpleAtoi(v, &x)) {
        *skip = knob_reason("strides", text, absl::StrCat("'", std::string(v), "' is not an integer"));
        return false;
      }
      out->push_back(x);
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<int64_t> mask_count(int mask, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int d = 0; d < 31; ++d) {
    if (!(mask & (1 << d))) continue;
    if (d >= static_cast<int>(dims.size())) {
      return absl::InvalidArgumentError(absl::StrCat("mask ", mask, " names dim ", d, " but the problem has ",
                                                     dims.size(), " dims"));
    }
    if (dims[d] != 0 && n > kMaxAttrValues / dims[d]) {
      return absl::InvalidArgumentError(absl::StrCat("mask ", mask, " asks for more than ", kMaxAttrValues,
                                                     " values"));
    }
    n *= dims[d];
  }
  return n;
}

namespace {

// Every data type oneDNN has (knobs_dt.md and the library's newer types).
bool is_onednn_type(const std::string& v) {
  static const auto* names = new std::vector<std::string>{
      "f64", "f32", "bf16", "f16", "f8_e5m2", "f8_e4m3", "f4_e2m1", "f4_e3m0", "e8m0",
      "s32", "s8", "u8", "s4", "u4"};
  return absl::c_linear_search(*names, v);
}

bool is_int(const std::string& v) {
  int64_t x = 0;
  return absl::SimpleAtoi(v, &x);
}

bool is_number(const std::string& v) {
  double d = 0;
  return absl::SimpleAtod(v, &d) && std::isfinite(d);
}

bool is_bool(const std::string& v) {
  bool b = false;
  return parse_bool(v, &b);
}

// A tag error that no rank can fix: the tag is not in the grammar at all. Rank errors (a 4-d tag
// on a 2-d problem) are the library's INVALID_ARGUMENTS, per problem.
bool grammar_error(tag_error e) {
  switch (e) {
    case tag_error::empty: case tag_error::too_long: case tag_error::bad_character:
    case tag_error::bad_domain_letter: case tag_error::duplicate_dim: case tag_error::skipped_dim:
    case tag_error::uppercase_block_letter: case tag_error::block_without_letter:
    case tag_error::block_size_zero: case tag_error::block_of_unblocked_dim:
    case tag_error::blocked_dim_without_block: case tag_error::meta_x_twice:
    case tag_error::meta_x_uppercase:
      return true;
    default:
      return false;
  }
}

// ARG:POLICY[:VALUE[:DATA_TYPE[:GROUPS]]][+...] (scales and zero points).
// Whether benchdnn knows `policy` as a scale / zero-point / output-scale policy name.
bool is_policy(const std::string& pol) {
  return pol == "common" || pol == "per_oc" || pol == "per_ocic" || pol == "per_tensor" ||
         (absl::StartsWith(pol, "per_dim_") && pol.size() > 8 &&
          absl::c_all_of(pol.substr(8), [](char c) { return c >= '0' && c <= '9'; }));
}

std::string check_quant(const std::string& text, bool is_scale) {
  if (text.empty()) return "";
  for (absl::string_view entry_sv : absl::StrSplit(text, '+')) {
    std::string entry(entry_sv);
    std::vector<std::string> f = absl::StrSplit(entry, ':');
    if (f[0].empty()) return absl::StrCat("'", entry, "' has no argument (ARG:POLICY[:VALUE])");
    if (f.size() < 2) return absl::StrCat("'", entry, "' has no policy (ARG:POLICY[:VALUE])");
    const std::string& pol = f[1];
    if (!is_policy(pol)) return absl::StrCat("'", pol, "' is not a policy (common, per_oc, per_dim_*, ...)");
    // common: ARG:common:VALUE[:DATA_TYPE[:GROUPS]]; other policies have no value (older
    // benchdnn accepted one): ARG:POLICY[:DATA_TYPE[:GROUPS]].
    size_t dt_at = 3;
    if (pol != "common" && f.size() > 2 && is_onednn_type(f[2])) dt_at = 2;
    if (dt_at == 3 && f.size() > 2 && !f[2].empty() && !(is_scale ? is_number(f[2]) : is_int(f[2]))) {
      return absl::StrCat("value '", f[2], "' is not a number");
    }
    if (f.size() > dt_at && !is_onednn_type(f[dt_at])) return absl::StrCat("'", f[dt_at], "' is not a data type");
    if (f.size() > dt_at + 2) return absl::StrCat("'", entry, "' has too many fields");
  }
  return "";
}

}  // namespace

absl::Status validate_problem(const problem& p) {
  auto bad = [&](const std::string& k, const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat(knob_reason(k, p.knob(k), why), " (problem ", dims_to_string(p.dims), " at ", p.origin, ")"));
  };
  for (const char* k : {"sdt", "ddt"}) {
    if (!is_onednn_type(p.knob(k))) {
      return bad(k, "unknown data type (f64 f32 bf16 f16 f8_e5m2 f8_e4m3 f4_e2m1 f4_e3m0 e8m0 s32 s8 u8 s4 u4)");
    }
  }
  for (const char* k : {"stag", "dtag"}) {
    const std::string& v = p.knob(k);
    if (v == "any" || v == "undef") continue;
    tag_parse_result t = try_parse_tag(v, static_cast<int>(p.dims.size()));
    if (!t.ok() && grammar_error(t.error)) {
      return bad(k, absl::StrCat("not a format tag: ",
                                 tag_parse_error(v, t, static_cast<int>(p.dims.size())).message()));
    }
  }
  const std::string& strides = p.knob("strides");
  if (!strides.empty() && strides != ":") {
    std::vector<std::string> sides = absl::StrSplit(strides, ':');
    if (sides.size() != 2) return bad("strides", "expected SRC_STRIDES:DST_STRIDES");
    for (const std::string& side : sides) {
      if (side.empty()) continue;
      for (absl::string_view v : absl::StrSplit(side, 'x')) {
        if (!is_int(std::string(v))) return bad("strides", absl::StrCat("'", std::string(v), "' is not an integer"));
      }
    }
  }
  if (const std::string& v = p.knob("cross-engine"); !v.empty() && v != "none" && v != "cpu2gpu" && v != "gpu2cpu") {
    return bad("cross-engine", "not a cross-engine kind (none, cpu2gpu, gpu2cpu)");
  }
  if (const std::string& v = p.knob("runtime-dim-mask"); !v.empty() && !is_int(v)) {
    return bad("runtime-dim-mask", "not an integer mask");
  }
  if (const std::string& v = p.knob("oflag"); !v.empty()) {
    for (absl::string_view e : absl::StrSplit(v, '+')) {
      std::vector<std::string> f = absl::StrSplit(e, ':');
      if ((f[0] != "s8s8_comp" && f[0] != "zp_comp") || f.size() != 2 || !is_int(f[1])) {
        return bad("oflag", "expected FLAG:MASK[+...] with FLAG s8s8_comp or zp_comp");
      }
    }
  }
  for (const auto& [k, is_scale] : {std::pair<const char*, bool>{"attr-scales", true}, {"attr-zero-points", false}}) {
    if (std::string why = check_quant(p.knob(k), is_scale); !why.empty()) return bad(k, why);
  }
  if (const std::string& v = p.knob("attr-oscale"); !v.empty()) {
    std::vector<std::string> f = absl::StrSplit(v, ':');
    if (!is_policy(f[0])) {
      return bad("attr-oscale", absl::StrCat("'", f[0], "' is not a policy (common, per_oc, per_dim_*, ...)"));
    }
    if (f.size() > 1 && !f[1].empty() && !is_number(f[1])) return bad("attr-oscale", absl::StrCat("'", f[1], "' is not a number"));
  }
  if (const std::string& v = p.knob("attr-post-ops"); !v.empty()) {
    for (absl::string_view op : absl::StrSplit(v, '+')) {
      std::vector<std::string> f = absl::StrSplit(op, ':');
      if (f[0].empty()) return bad("attr-post-ops", "empty post-op");
      if (f[0] != "sum") continue;  // eltwise, binary, ...: valid, not Tessera's (SKIPPED)
      if (f.size() > 1 && !is_number(f[1])) return bad("attr-post-ops", absl::StrCat("'", f[1], "' is not a number"));
      if (f.size() > 2 && !is_int(f[2])) return bad("attr-post-ops", absl::StrCat("'", f[2], "' is not an integer"));
      if (f.size() > 3 && f[3] != "undef" && !is_onednn_type(f[3])) {
        return bad("attr-post-ops", absl::StrCat("'", f[3], "' is not a data type"));
      }
    }
  }
  if (const std::string& v = p.knob("attr-rounding-mode"); !v.empty()) {
    for (absl::string_view e : absl::StrSplit(v, '+')) {
      std::vector<std::string> f = absl::StrSplit(e, ':');
      if (f.size() < 2 || (f[1] != "environment" && f[1] != "stochastic")) {
        return bad("attr-rounding-mode", "expected ARG:MODE with MODE environment or stochastic");
      }
    }
  }
  if (const std::string& v = p.knob("attr-fpmath"); !v.empty()) {
    std::vector<std::string> f = absl::StrSplit(v, ':');
    static const std::vector<std::string> modes = {"strict", "bf16", "f16", "tf32", "any", "f32"};
    if (!absl::c_linear_search(modes, f[0]) || f.size() > 2 || (f.size() == 2 && !is_bool(f[1]))) {
      return bad("attr-fpmath", "expected MATHMODE[:APPLY_TO_INT] (strict, bf16, f16, tf32, any)");
    }
  }
  if (const std::string& v = p.knob("attr-acc-mode"); !v.empty()) {
    static const std::vector<std::string> modes = {"strict", "relaxed", "any", "f32", "s32", "f16"};
    if (!absl::c_linear_search(modes, v)) return bad("attr-acc-mode", "not an accumulation mode (strict, relaxed, any, f32, s32, f16)");
  }
  if (!is_bool(p.knob("attr-deterministic"))) return bad("attr-deterministic", "not a boolean");
  if (const std::string& v = p.knob("attr-scratchpad"); v != "library" && v != "user") {
    return bad("attr-scratchpad", "unknown mode (library or user)");
  }
  if (const std::string& v = p.knob("attr-dropout"); !v.empty()) {
    std::vector<std::string> f = absl::StrSplit(v, ':');
    if (!is_number(f[0]) || (f.size() > 1 && !is_int(f[1]))) {
      return bad("attr-dropout", "expected PROBABILITY[:SEED[:TAG]]");
    }
  }
  if (p.driver == driver_kind::softmax) {
    static const std::vector<std::string> dirs = {"FWD_D", "FWD_I", "FWD_B", "BWD_D", "BWD_W", "BWD_WB", "BWD_DW",
                                                  "forward_training", "forward_inference", "backward_data"};
    if (!absl::c_linear_search(dirs, p.knob("dir"))) return bad("dir", "not a direction (FWD_D, FWD_I, BWD_D, ...)");
    static const std::vector<std::string> algs = {"SOFTMAX", "softmax_accurate", "softmax", "LOGSOFTMAX",
                                                  "softmax_log", "logsoftmax", "softmax_accurate_inf_as_zero"};
    if (!absl::c_linear_search(algs, p.knob("alg"))) {
      return bad("alg", "unknown softmax algorithm (SOFTMAX, LOGSOFTMAX, softmax_accurate_inf_as_zero)");
    }
    if (!is_int(p.knob("axis"))) return bad("axis", "not an integer");
    if (!is_bool(p.knob("inplace"))) return bad("inplace", "expected true or false");
    int64_t mb = 0;
    if (!absl::SimpleAtoi(p.knob("mb"), &mb) || mb < 0) return bad("mb", "expected a non-negative integer");
  }
  return absl::OkStatus();
}

namespace {

// --oflag=FLAG:MASK[+...] as the dst's extra fields, and benchdnn's skips for compensation:
// an s8 dst only, no zero points or post-ops, no run-time dims (oneDNN defines none of them).
bool parse_oflag(const problem& p, resolved_reorder* o, std::string* skip_reason) {
  const std::string& v = p.knob("oflag");
  if (v.empty()) return true;
  for (absl::string_view e : absl::StrSplit(v, '+')) {
    std::vector<std::string> f = absl::StrSplit(e, ':');
    int mask = 0;
    if (!absl::SimpleAtoi(f[1], &mask) || mask == 0) continue;  // validated; 0: benchdnn's "no flag"
    if (f[0] == "s8s8_comp") {
      o->dst_extra.flags |= extra_flags::compensation_conv_s8s8;
      o->dst_extra.compensation_mask = mask;
    } else {
      o->dst_extra.flags |= extra_flags::compensation_conv_asymmetric_src;
      o->dst_extra.asymm_compensation_mask = mask;
    }
  }
  if (!o->dst_extra.has_compensation()) return true;
  // benchdnn's own skips of compensating reorders (case_not_supported): oneDNN computes
  // compensation for s8 dst, with scales only, on concrete dims.
  const char* why = nullptr;
  if (o->ddt != data_type::s8) {
    why = "compensation needs an s8 dst";
  } else if (o->attr.src_zero_points || o->attr.dst_zero_points) {
    why = "compensation pairs with scales only, not zero points";
  } else if (o->attr.sum || !p.knob("attr-post-ops").empty()) {
    why = "compensation pairs with scales only, not post-ops";
  } else if (o->runtime_dim_mask != 0) {
    why = "compensation needs concrete dims (benchdnn and oneDNN skip it with run-time dims)";
  }
  if (why != nullptr) {
    *skip_reason = knob_reason("oflag", v, why);
    return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<resolved> resolve(const problem& p) {
  if (absl::Status v = validate_problem(p); !v.ok()) return v;
  resolved r;
  r.dims = p.dims;
  if (!p.unsupported.empty()) {
    const auto& [k, v] = p.unsupported.front();
    r.skip_reason = absl::StrCat("--", k, v.empty() ? "" : "=", v,
                                 k == "engine" ? ": Tessera is CPU-only" : ": knob not supported by Tessera's driver");
    return r;
  }
  r.impl = p.knob("impl");
  r.skip_impl = p.knob("skip-impl");
  if (!check_neutral_knobs(p, &r.skip_reason)) return r;

  if (p.driver == driver_kind::reorder) {
    resolved_reorder& o = r.reorder;
    if (!parse_dt(p, "sdt", &o.sdt, &r.skip_reason) || !parse_dt(p, "ddt", &o.ddt, &r.skip_reason)) return r;
    o.stag = p.knob("stag");
    o.dtag = p.knob("dtag");
    if (!parse_strides(p.knob("strides"), &o.src_strides, &o.dst_strides, &r.skip_reason)) return r;
    if (const std::string& m = p.knob("runtime-dim-mask");
        !m.empty() && (!absl::SimpleAtoi(m, &o.runtime_dim_mask) || o.runtime_dim_mask < 0)) {
      r.skip_reason = knob_reason("runtime-dim-mask", m, "not a non-negative mask");
      return r;
    }
    if (!parse_quant("attr-scales", p.knob("attr-scales"), true, p.dims, &o.attr, &o.values, &r.skip_reason) ||
        !parse_quant("attr-zero-points", p.knob("attr-zero-points"), false, p.dims, &o.attr, &o.values,
                     &r.skip_reason) ||
        !parse_oscale(p.knob("attr-oscale"), p.dims, &o.attr, &r.skip_reason) ||
        !parse_rounding(p.knob("attr-rounding-mode"), true, &o.attr, &o.values, &r.skip_reason)) {
      return r;
    }
    const std::string& po = p.knob("attr-post-ops");
    if (!po.empty()) {
      std::vector<std::string> ops = absl::StrSplit(po, '+');
      std::vector<std::string> f = absl::StrSplit(ops[0], ':');
      if (ops.size() != 1 || f[0] != "sum" || f.size() > 4 || (f.size() == 4 && f[3] != "undef")) {
        r.skip_reason = knob_reason("attr-post-ops", po, "reorder supports one sum post-op only");
        return r;
      }
      sum_post_op sum;
      double beta = 1.0;
      if (f.size() > 1 && !(absl::SimpleAtod(f[1], &beta) && std::isfinite(beta))) {
        r.skip_reason = knob_reason("attr-post-ops", po, absl::StrCat("'", f[1], "' is not a number"));
        return r;
      }
      sum.beta = static_cast<float>(beta);
      if (f.size() > 2 && !absl::SimpleAtoi(f[2], &sum.zero_point)) {
        r.skip_reason = knob_reason("attr-post-ops", po, absl::StrCat("'", f[2], "' is not an integer"));
        return r;
      }
      o.attr.sum = sum;
    }
    if (!parse_oflag(p, &o, &r.skip_reason)) return r;
    return r;
  }

  resolved_softmax& o = r.softmax;
  const std::string& dir = p.knob("dir");
  if (dir == "FWD_D" || dir == "FWD_I" || dir == "forward_training" || dir == "forward_inference") {
    o.dir = softmax_dir::forward;
  } else if (dir == "BWD_D" || dir == "backward_data") {
    o.dir = softmax_dir::backward;
  } else {
    r.skip_reason = knob_reason("dir", dir, "softmax has FWD_D, FWD_I and BWD_D");
    return r;
  }
  const std::string& alg = p.knob("alg");
  if (alg == "SOFTMAX" || alg == "softmax_accurate" || alg == "softmax") {
    o.alg = "softmax";
  } else if (alg == "LOGSOFTMAX" || alg == "softmax_log" || alg == "logsoftmax") {
    o.alg = "logsoftmax";
  } else if (alg == "softmax_accurate_inf_as_zero") {
    o.alg = "softmax_inf_as_zero";
  } else {
    r.skip_reason = knob_reason("alg", alg, "unknown softmax algorithm");
    return r;
  }
  if (!parse_dt(p, "sdt", &o.sdt, &r.skip_reason) || !parse_dt(p, "ddt", &o.ddt, &r.skip_reason)) return r;
  o.stag = p.knob("stag");
  o.dtag = p.knob("dtag");
  if (!absl::SimpleAtoi(p.knob("axis"), &o.axis)) {
    r.skip_reason = knob_reason("axis", p.knob("axis"), "not an integer");
    return r;
  }
  if (!parse_bool(p.knob("inplace"), &o.inplace)) {
    r.skip_reason = knob_reason("inplace", p.knob("inplace"), "expected true or false");
    return r;
  }
  int64_t mb = 0;
  if (!absl::SimpleAtoi(p.knob("mb"), &mb) || mb < 0) {
    r.skip_reason = knob_reason("mb", p.knob("mb"), "expected a non-negative integer");
    return r;
  }
  if (mb > 0 && !r.dims.empty()) r.dims[0] = mb;
  if (!parse_post_ops(p.knob("attr-post-ops"), r.dims, &o.attr.post_ops, &r.skip_reason)) return r;
  if (!parse_rounding(p.knob("attr-rounding-mode"), false, &o.attr, &o.values, &r.skip_reason)) {
    return r;
  }
  if (!o.attr.post_ops.empty() && o.dir == softmax_dir::backward) {
    r.skip_reason = knob_reason("attr-post-ops", p.knob("attr-post-ops"), "post-ops are forward only");
    return r;
  }
  // check_neutral_knobs admitted strict, relaxed, any and f32; the softmax takes each as stated.
  if (const std::string& acc = p.knob("attr-acc-mode"); acc == "relaxed") {
    o.attr.acc_mode = accumulation_mode::relaxed;
  } else if (acc == "any") {
    o.attr.acc_mode = accumulation_mode::any;
  } else if (acc == "f32") {
    o.attr.acc_mode = accumulation_mode::f32;
  }
  if (!p.knob("attr-zero-points").empty()) {
    r.skip_reason = knob_reason("attr-zero-points", p.knob("attr-zero-points"),
                                "softmax has no zero points");
    return r;
  }
  if (!parse_quant("attr-scales", p.knob("attr-scales"), true, r.dims, &o.attr, &o.values, &r.skip_reason) ||
      !parse_oscale(p.knob("attr-oscale"), r.dims, &o.attr, &r.skip_reason)) {
    return r;
  }
  return r;
}

}  // namespace tessera::bench
