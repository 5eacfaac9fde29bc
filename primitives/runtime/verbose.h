// Verbose mode: ONEDNN_VERBOSE's lines (oneDNN 3.x, verbose format v1) on stderr, so that tools
// written for oneDNN's output read Tessera's. The levels, the fields and an example of each line
// kind are in docs/verbose.md.
//
//   $ TESSERA_VERBOSE=1 ./my_app      # or 2 (adds creation lines), all (adds dispatch lines)
//   onednn_verbose,v1,info,Tessera v0.1.0
//   ...                                  (the header: version, runtime, ISA, the template)
//   onednn_verbose,v1,primitive,exec,cpu,reorder,xsimd:avx512bw:transpose16x16,undef,
//       src:f32::blocked:abcd::f0 dst:f32::blocked:acdb::f0,,,2x16x8x8,0.0132   (one line)
//
// In a primitive's execute (nothing is formatted and no clock is read when execution lines are
// off; the cost is then one relaxed atomic load and a branch):
//
//   absl::Status reorder::execute(const exec_args& args) const {
//     tessera::verbose_exec trace([&] { return describe(*plan_); });  // a verbose_record
//     TESSERA_RETURN_IF_ERROR(check(args));   // an early error return prints no exec line...
//     run(args);
//     trace.commit();                          // ...only a committed execution does
//     return absl::OkStatus();
//   }
//
// In a test:
//   tessera::verbose_capture capture;          // lines go here instead of stderr
//   tessera::scoped_verbose on(tessera::verbose_flags::all);   // or on(true): level 1
//   ... create, execute ...
//   EXPECT_THAT(capture.lines_of("exec"), ElementsAre(HasSubstr(",reorder,")));
//
// TESSERA_VERBOSE is read once, on first use, with ONEDNN_VERBOSE's syntax: 0/none, 1, 2, all, or
// comma-separated flags (profile_exec, profile_create, profile, dispatch, check, error, warn). An
// unknown value turns verbose off with one warning on stderr. TESSERA_VERBOSE_TIMESTAMP=1 (read
// once) adds the start time of each call. set_verbose() overrides the environment at any time.
#ifndef TESSERA_PRIMITIVES_RUNTIME_VERBOSE_H_
#define TESSERA_PRIMITIVES_RUNTIME_VERBOSE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tessera/primitives/common/attr.h"

namespace tessera {

// What verbose prints: ONEDNN_VERBOSE's flags, with its bit values.
enum class verbose_flags : uint32_t {
  none = 0,
  error = 1u << 2,            // accepted; Tessera reports errors through Status only
  create_check = 1u << 3,     // primitive,create:check: why a create() failed
  create_dispatch = 1u << 4,  // primitive,create:dispatch: one per declined kernel
  create_profile = 1u << 5,   // primitive,create:cache_miss / create:cache_hit
  exec_check = 1u << 6,       // primitive,exec:check: why an execute() failed
  exec_profile = 1u << 7,     // primitive,exec
  warn = 1u << 9,             // accepted; Tessera prints no warnings here
  check = create_check | exec_check,
  profile = create_profile | exec_profile,
  level1 = error | exec_profile | warn,    // TESSERA_VERBOSE=1
  level2 = level1 | create_profile,        // TESSERA_VERBOSE=2
  all = error | create_check | create_dispatch | create_profile | exec_check | exec_profile |
        warn,
};
constexpr verbose_flags operator|(verbose_flags a, verbose_flags b) {
  return static_cast<verbose_flags>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr verbose_flags operator&(verbose_flags a, verbose_flags b) {
  return static_cast<verbose_flags>(static_cast<uint32_t>(a) & static_cast<uint32_t>(b));
}

// "2", "all", "profile_exec,dispatch", ... as ONEDNN_VERBOSE takes them ("0" and "none" clear
// the flags before them). Errors name an unknown or unsupported token (e.g. filter=).
absl::StatusOr<verbose_flags> parse_verbose_flags(absl::string_view value);

namespace internal {
// -1 until TESSERA_VERBOSE was read, then the verbose_flags bits.
extern std::atomic<int> g_verbose;
int init_verbose_from_env();
}  // namespace internal

// Whether lines of any of these kinds are printed now (default: execution lines).
inline bool verbose_enabled(verbose_flags kind = verbose_flags::exec_profile) {
  int v = internal::g_verbose.load(std::memory_order_relaxed);
  if (v < 0) [[unlikely]] v = internal::init_verbose_from_env();
  return (static_cast<uint32_t>(v) & static_cast<uint32_t>(kind)) != 0;
}
// The flags in force (reads TESSERA_VERBOSE on first use).
verbose_flags verbose_setting();

void set_verbose(verbose_flags flags);
// true: level 1 (execution lines); false: none.
void set_verbose(bool on);

// Whether lines carry the start time of the call (ms since the Unix epoch) after "v1".
// TESSERA_VERBOSE_TIMESTAMP=1 turns it on (read once); set_verbose_timestamp overrides it.
bool verbose_timestamp();
void set_verbose_timestamp(bool on);

// The marker every line starts with, and the format version after it (oneDNN 3.6+'s).
inline constexpr char kVerboseMarker[] = "onednn_verbose";
inline constexpr char kVerboseVersion[] = "v1";

// The primitive fields of a line. None may contain a comma or a newline; fields use spaces inside.
struct verbose_record {
  std::string primitive;  // oneDNN's primitive kind: "reorder", "softmax"
  std::string impl;       // impl_name(): "<engine>:<isa>:<kernel>"
  std::string prop_kind;  // "undef" (reorder), "forward_training", "backward_data"
  std::string descs;      // "src:f32::blocked:abcd::f0 dst:f32::blocked:acdb::f0"
  std::string attrs;      // verbose_attr_string(attr): "attr-scales:src0:0:f32", "" for none
  std::string aux;        // "alg:softmax_accurate axis:1", "" for none
  std::string problem;    // dims: "2x16x8x8"
};

// The attributes in ONEDNN_VERBOSE's syntax, space-separated:
// "attr-oscale:0:0.5 attr-scales:src0:0:f32+dst:2:f32 attr-zero-points:src0:0:s32
// attr-post-ops:sum:0.5:3" ("" for none).
std::string verbose_attr_string(const primitive_attr& attr);

enum class verbose_event { exec, create_cache_miss, create_cache_hit };

// "<marker>,v1,[<timestamp>,]primitive,<exec|create:cache_miss|create:cache_hit>,cpu,<primitive>,
// <impl>,<prop_kind>,<descs>,<attrs>,<aux>,<problem>,<time ms>". timestamp_ms < 0: none.
std::string format_verbose_line(verbose_event event, const verbose_record& record, double time_ms,
                                double timestamp_ms = -1);

// Prints (or captures) one line, after the header if it is the first. Thread-safe; lines never
// interleave. The caller checks verbose_enabled() for the line's kind.
void emit_verbose_line(verbose_event event, const verbose_record& record, double time_ms);
// One declined kernel (record.impl) at creation: "...,primitive,create:dispatch,<primitive>,cpu,
// <primitive>,<impl>,...,<problem>,<reason>,<source file>". Commas in reason become ';'.
void emit_verbose_dispatch(const verbose_record& record, absl::string_view reason,
                           absl::string_view source);
// The dispatch lines of a primitive's refusals, each "<kernel>: <reason>" (reorder::declined()'s
// form), when dispatch lines are on; describe(kernel) gives the line's fields for that kernel.
template <class Describe>
void emit_verbose_declined(const std::vector<std::string>& declined, Describe&& describe,
                           absl::string_view source) {
  if (!verbose_enabled(verbose_flags::create_dispatch)) return;
  for (const std::string& d : declined) {
    const size_t colon = d.find(": ");
    emit_verbose_dispatch(describe(d.substr(0, colon)), d.substr(colon + 2), source);
  }
}
// A failed create() or execute(): "...,primitive,<create:check|exec:check>,<primitive>,<message>,
// <source file>".
void emit_verbose_check(bool at_create, absl::string_view primitive, absl::string_view message,
                        absl::string_view source);

// The header lines: version, CPU runtime and threads, GPU runtime, ISA, the primitive template.
std::vector<std::string> verbose_header_lines();

// Milliseconds since the Unix epoch, as a line's timestamp.
double verbose_now_ms();

// Times a primitive's execution and prints its line when committed. `describe` (returning
// verbose_record) is called only when execution lines are on and the execution committed.
template <class Describe>
class verbose_exec {
 public:
  explicit verbose_exec(Describe describe) : describe_(std::move(describe)), on_(verbose_enabled()) {
    if (on_) start_ = std::chrono::steady_clock::now();
  }
  verbose_exec(const verbose_exec&) = delete;
  verbose_exec& operator=(const verbose_exec&) = delete;

  // Marks the execution as done: its line is printed now, with the time since construction.
  // Lines are printed only for committed executions, so an error return prints nothing.
  void commit() {
    if (!on_) return;
    on_ = false;
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start_;
    emit_verbose_line(verbose_event::exec, describe_(), ms.count());
  }

 private:
  Describe describe_;
  bool on_;
  std::chrono::steady_clock::time_point start_{};
};

template <class Describe>
verbose_exec(Describe) -> verbose_exec<Describe>;

namespace internal {
// Sends a formatted line to the innermost capture, or to stderr; the header goes first.
void emit_to_sink(std::string line);
}  // namespace internal

// Times a primitive's creation and prints its create:cache_miss or create:cache_hit line.
// Nothing is timed or formatted when creation lines are off.
class verbose_create {
 public:
  verbose_create() : on_(verbose_enabled(verbose_flags::create_profile)) {
    if (on_) start_ = std::chrono::steady_clock::now();
  }
  verbose_create(const verbose_create&) = delete;
  verbose_create& operator=(const verbose_create&) = delete;

  // `describe` (returning verbose_record) is called only when creation lines are on.
  template <class Describe>
  void commit(bool cache_hit, Describe&& describe) {
    if (!on_) return;
    on_ = false;
    const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - start_;
    emit_verbose_line(cache_hit ? verbose_event::create_cache_hit : verbose_event::create_cache_miss,
                      describe(), ms.count());
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point start_{};
};

// While alive, verbose lines from every thread are collected here instead of going to stderr.
// Captures nest: the innermost one receives the lines. Does not turn verbose on. A capture
// stands for a fresh log: it receives the header before its first line (stderr receives the
// header once per process).
class verbose_capture {
 public:
  verbose_capture();
  ~verbose_capture();
  verbose_capture(const verbose_capture&) = delete;
  verbose_capture& operator=(const verbose_capture&) = delete;

  // Every line, the header included.
  std::vector<std::string> lines() const;
  // The lines whose operation field (after "primitive,") is `operation` or starts with
  // `operation` + ":": lines_of("create") gives create:cache_miss, create:cache_hit and
  // create:dispatch lines; lines_of("exec") the execution lines. "info" gives the header.
  std::vector<std::string> lines_of(absl::string_view operation) const;

 private:
  friend void internal::emit_to_sink(std::string line);
  void append(std::string line);

  mutable std::mutex mu_;
  std::vector<std::string> lines_;
  bool header_done_ = false;  // guarded by the sink's mutex
  verbose_capture* previous_;
};

// Sets the verbose flags for a scope and restores the previous ones after.
class scoped_verbose {
 public:
  explicit scoped_verbose(verbose_flags flags) : previous_(verbose_setting()) { set_verbose(flags); }
  explicit scoped_verbose(bool on)
      : scoped_verbose(on ? verbose_flags::level1 : verbose_flags::none) {}
  ~scoped_verbose() { set_verbose(previous_); }
  scoped_verbose(const scoped_verbose&) = delete;
  scoped_verbose& operator=(const scoped_verbose&) = delete;

 private:
  verbose_flags previous_;
};

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_RUNTIME_VERBOSE_H_
