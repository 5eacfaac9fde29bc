#include "tessera/primitives/runtime/verbose.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "tessera/core/version.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/simd/isa.h"

namespace tessera {
namespace internal {

std::atomic<int> g_verbose{-1};

namespace {
std::atomic<int> g_timestamp{-1};  // -1 until TESSERA_VERBOSE_TIMESTAMP was read
}  // namespace

int init_verbose_from_env() {
  int flags = 0;
  if (const char* env = std::getenv("TESSERA_VERBOSE"); env != nullptr) {
    absl::StatusOr<verbose_flags> parsed = parse_verbose_flags(env);
    if (parsed.ok()) {
      flags = static_cast<int>(*parsed);
    } else {
      std::fprintf(stderr, "tessera: ignoring TESSERA_VERBOSE=\"%s\" (%s); verbose is off\n", env,
                   std::string(parsed.status().message()).c_str());
    }
  }
  // Only the first reader decides (and warns); a set_verbose() that ran meanwhile wins.
  int expected = -1;
  g_verbose.compare_exchange_strong(expected, flags, std::memory_order_relaxed);
  return g_verbose.load(std::memory_order_relaxed);
}

}  // namespace internal

absl::StatusOr<verbose_flags> parse_verbose_flags(absl::string_view value) {
  uint32_t flags = 0;
  for (absl::string_view token : absl::StrSplit(value, ',')) {
    token = absl::StripAsciiWhitespace(token);
    if (token.empty()) continue;
    auto add = [&](verbose_flags f) { flags |= static_cast<uint32_t>(f); };
    if (token == "0" || token == "none") {
      flags = 0;
    } else if (token == "1") {
      add(verbose_flags::level1);
    } else if (token == "2") {
      add(verbose_flags::level2);
    } else if (token == "all" || token == "-1") {
      add(verbose_flags::all);
    } else if (token == "error") {
      add(verbose_flags::error);
    } else if (token == "warn") {
      add(verbose_flags::warn);
    } else if (token == "check") {
      add(verbose_flags::check);
    } else if (token == "dispatch") {
      add(verbose_flags::create_dispatch);
    } else if (token == "profile") {
      add(verbose_flags::profile);
    } else if (token == "profile_create") {
      add(verbose_flags::create_profile);
    } else if (token == "profile_exec") {
      add(verbose_flags::exec_profile);
    } else if (absl::StartsWith(token, "filter=") || absl::StartsWith(token, "debuginfo=") ||
               token == "profile_externals") {
      return absl::UnimplementedError(
          absl::StrCat("'", token, "' is a ONEDNN_VERBOSE option Tessera does not support"));
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown value '", token,
          "': want 0, 1, 2, all, none, or flags among error, warn, check, dispatch, profile, "
          "profile_create, profile_exec"));
    }
  }
  return static_cast<verbose_flags>(flags);
}

verbose_flags verbose_setting() {
  int v = internal::g_verbose.load(std::memory_order_relaxed);
  if (v < 0) v = internal::init_verbose_from_env();
  return static_cast<verbose_flags>(v);
}

void set_verbose(verbose_flags flags) {
  internal::g_verbose.store(static_cast<int>(flags), std::memory_order_relaxed);
}
void set_verbose(bool on) { set_verbose(on ? verbose_flags::level1 : verbose_flags::none); }

bool verbose_timestamp() {
  int v = internal::g_timestamp.load(std::memory_order_relaxed);
  if (v < 0) {
    const char* env = std::getenv("TESSERA_VERBOSE_TIMESTAMP");
    int expected = -1;
    internal::g_timestamp.compare_exchange_strong(
        expected, env != nullptr && std::string(env) == "1" ? 1 : 0, std::memory_order_relaxed);
    v = internal::g_timestamp.load(std::memory_order_relaxed);
  }
  return v == 1;
}
void set_verbose_timestamp(bool on) {
  internal::g_timestamp.store(on ? 1 : 0, std::memory_order_relaxed);
}

double verbose_now_ms() {
  const std::chrono::duration<double, std::milli> ms =
      std::chrono::system_clock::now().time_since_epoch();
  return ms.count();
}

namespace {

// std::mutex, not absl::Mutex: TSan sees its synchronisation (Debian's Abseil is not
// instrumented).
std::mutex& sink_mutex() {
  static auto* mu = new std::mutex;
  return *mu;
}
verbose_capture* g_capture = nullptr;  // guarded by sink_mutex()
bool g_stderr_header_done = false;     // guarded by sink_mutex()

// "<marker>,v1,[<timestamp>,]": every line's start.
std::string line_start(double timestamp_ms) {
  std::string s = absl::StrCat(kVerboseMarker, ",", kVerboseVersion, ",");
  if (timestamp_ms >= 0) absl::StrAppend(&s, absl::StrFormat("%f", timestamp_ms), ",");
  return s;
}

// A free-text field: no commas (they separate fields) and no line breaks.
std::string field_text(absl::string_view text) {
  return absl::StrReplaceAll(text, {{",", ";"}, {"\n", " "}, {"\r", " "}});
}

absl::string_view event_name(verbose_event e) {
  switch (e) {
    case verbose_event::exec:
      return "exec";
    case verbose_event::create_cache_miss:
      return "create:cache_miss";
    case verbose_event::create_cache_hit:
      return "create:cache_hit";
  }
  return "exec";
}

// "cpu,<primitive>,<impl>,<prop_kind>,<descs>,<attrs>,<aux>,<problem>": oneDNN's pd info.
std::string info_fields(const verbose_record& r) {
  return absl::StrCat("cpu,", r.primitive, ",", r.impl, ",", r.prop_kind, ",", r.descs, ",",
                      r.attrs, ",", r.aux, ",", r.problem);
}

absl::string_view isa_description(simd::isa i) {
  switch (i) {
    case simd::isa::sse4_2:
      return "x86-64 SSE4.2";
    case simd::isa::avx2:
      return "x86-64 AVX2 with FMA F16C and BMI2";
    case simd::isa::avx512bw:
      return "x86-64 AVX-512 (F CD DQ BW VL)";
    case simd::isa::neon64:
      return "aarch64 Advanced SIMD";
  }
  return "unknown";
}

std::string time_text(double ms) { return absl::StrFormat("%g", ms); }

std::string float_text(float v) { return absl::StrFormat("%g", v); }

}  // namespace

std::vector<std::string> verbose_header_lines() {
  const std::string start = line_start(-1);
  const simd::isa isa = simd::max_isa();
  return {
      absl::StrCat(start, "info,Tessera v", kVersionString),
      absl::StrCat(start, "info,cpu,runtime:tessera_pool,nthr:", num_threads()),
      absl::StrCat(start, "info,cpu,isa:", simd::name_of(isa), " ", isa_description(isa)),
      absl::StrCat(start, "info,gpu,runtime:none"),
      absl::StrCat(start, "primitive,info,template:", verbose_timestamp() ? "timestamp," : "",
                   "operation,engine,primitive,implementation,prop_kind,memory_descriptors,"
                   "attributes,auxiliary,problem_desc,exec_time"),
  };
}

std::string verbose_attr_string(const primitive_attr& attr) {
  std::vector<std::string> fields;
  if (attr.oscale) {
    std::string s = absl::StrCat("attr-oscale:", attr.oscale->mask);
    if (attr.oscale->mask == 0 && attr.oscale->values.size() == 1) {
      absl::StrAppend(&s, ":", float_text(attr.oscale->values[0]));
    }
    fields.push_back(std::move(s));
  }
  auto per_arg = [](const char* name, const std::optional<quant_param>& src,
                    const std::optional<quant_param>& dst, const char* dt) {
    std::string s;
    if (!src && !dst) return s;
    s = name;
    const char* delim = "";
    if (src) {
      absl::StrAppend(&s, "src0:", src->mask, ":", dt);
      delim = "+";
    }
    if (dst) absl::StrAppend(&s, delim, "dst:", dst->mask, ":", dt);
    return s;
  };
  if (std::string s = per_arg("attr-scales:", attr.src_scales, attr.dst_scales, "f32"); !s.empty()) {
    fields.push_back(std::move(s));
  }
  if (std::string s = per_arg("attr-zero-points:", attr.src_zero_points, attr.dst_zero_points,
                              "s32");
      !s.empty()) {
    fields.push_back(std::move(s));
  }
  if (attr.acc_mode != accumulation_mode::strict) {
    fields.push_back(absl::StrCat("attr-acc-mode:", name_of(attr.acc_mode)));
  }
  if (attr.sum || !attr.post_ops.empty()) {
    std::string s = "attr-post-ops:";
    if (attr.sum) {
      absl::StrAppend(&s, "sum");
      if (attr.sum->beta != 1.f || attr.sum->zero_point != 0) {
        absl::StrAppend(&s, ":", float_text(attr.sum->beta));
      }
      if (attr.sum->zero_point != 0) absl::StrAppend(&s, ":", attr.sum->zero_point);
      if (!attr.post_ops.empty()) absl::StrAppend(&s, "+");
    }
    absl::StrAppend(&s, verbose_string(attr.post_ops));
    fields.push_back(std::move(s));
  }
  return absl::StrJoin(fields, " ");
}

std::string format_verbose_line(verbose_event event, const verbose_record& r, double time_ms,
                                double timestamp_ms) {
  return absl::StrCat(line_start(timestamp_ms), "primitive,", event_name(event), ",",
                      info_fields(r), ",", time_text(time_ms));
}

namespace internal {

void emit_to_sink(std::string line) {
  std::lock_guard<std::mutex> lock(sink_mutex());
  if (g_capture != nullptr) {
    if (!g_capture->header_done_) {
      g_capture->header_done_ = true;
      for (std::string& h : verbose_header_lines()) g_capture->append(std::move(h));
    }
    g_capture->append(std::move(line));
    return;
  }
  std::string text;
  if (!g_stderr_header_done) {
    g_stderr_header_done = true;
    for (const std::string& h : verbose_header_lines()) absl::StrAppend(&text, h, "\n");
  }
  absl::StrAppend(&text, line, "\n");
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace internal

namespace {
double timestamp_now() { return verbose_timestamp() ? verbose_now_ms() : -1; }
}  // namespace

void emit_verbose_line(verbose_event event, const verbose_record& record, double time_ms) {
  // The start of the call: now minus its duration.
  double stamp = timestamp_now();
  if (stamp >= 0) stamp -= time_ms;
  internal::emit_to_sink(format_verbose_line(event, record, time_ms, stamp));
}

void emit_verbose_dispatch(const verbose_record& record, absl::string_view reason,
                           absl::string_view source) {
  internal::emit_to_sink(absl::StrCat(line_start(timestamp_now()), "primitive,create:dispatch,",
                                      record.primitive, ",", info_fields(record), ",",
                                      field_text(reason), ",", source));
}

void emit_verbose_check(bool at_create, absl::string_view primitive, absl::string_view message,
                        absl::string_view source) {
  internal::emit_to_sink(absl::StrCat(line_start(timestamp_now()), "primitive,",
                                      at_create ? "create:check," : "exec:check,", primitive, ",",
                                      field_text(message), ",", source));
}

verbose_capture::verbose_capture() {
  std::lock_guard<std::mutex> lock(sink_mutex());
  previous_ = g_capture;
  g_capture = this;
}

verbose_capture::~verbose_capture() {
  std::lock_guard<std::mutex> lock(sink_mutex());
  // Captures are scoped, so this one is the innermost; unlink it wherever it is to stay safe.
  if (g_capture == this) {
    g_capture = previous_;
    return;
  }
  for (verbose_capture* c = g_capture; c != nullptr; c = c->previous_) {
    if (c->previous_ == this) {
      c->previous_ = previous_;
      return;
    }
  }
}

std::vector<std::string> verbose_capture::lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

std::vector<std::string> verbose_capture::lines_of(absl::string_view operation) const {
  std::vector<std::string> out;
  for (std::string& line : lines()) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ',');
    // marker, version, [timestamp,] component, operation
    size_t at = 2;
    if (f.size() > at && f[at] != "primitive" && f[at] != "info") ++at;  // a timestamp
    absl::string_view op;
    if (f.size() > at && f[at] == "info") {
      op = "info";
    } else if (f.size() > at + 1) {
      op = f[at + 1];
    }
    if (op == operation || absl::StartsWith(op, absl::StrCat(operation, ":"))) {
      out.push_back(std::move(line));
    }
  }
  return out;
}

void verbose_capture::append(std::string line) {
  std::lock_guard<std::mutex> lock(mu_);
  lines_.push_back(std::move(line));
}

}  // namespace tessera
