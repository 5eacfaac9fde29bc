// Verbose mode: one line on stderr per primitive execution, in the spirit of ONEDNN_VERBOSE.
//
//   $ TESSERA_VERBOSE=1 ./my_app
//   tessera_verbose,exec,reorder,xsimd:avx512bw:transpose16x16,src:f32::abcd dst:f32::acdb,,2x16x8x8,0.0132
//
// In a primitive's execute (nothing is formatted and no clock is read when verbose is off; the
// cost is then one relaxed atomic load and a branch):
//
//   absl::Status reorder::execute(const exec_args& args) const {
//     tessera::verbose_exec trace([&] {
//       return tessera::verbose_record{"reorder", impl_name(), descs_text(), to_string(attr_),
//                                      problem_text()};
//     });
//     TESSERA_RETURN_IF_ERROR(check(args));   // an early error return prints no line...
//     run(args);
//     trace.commit();                          // ...only a committed execution does
//     return absl::OkStatus();
//   }
//
// In a test:
//   tessera::verbose_capture capture;          // lines go here instead of stderr
//   tessera::scoped_verbose on(true);
//   ... execute ...
//   EXPECT_THAT(capture.lines(), ElementsAre(StartsWith("tessera_verbose,exec,reorder,")));
//
// TESSERA_VERBOSE is read once, on first use: "1" (or any positive integer) turns it on.
// set_verbose() overrides it at any time.
#ifndef TESSERA_PRIMITIVES_RUNTIME_VERBOSE_H_
#define TESSERA_PRIMITIVES_RUNTIME_VERBOSE_H_

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <utility>
#include <vector>


namespace tessera {

namespace internal {
// -1 until TESSERA_VERBOSE was read, then 0 (off) or 1 (on).
extern std::atomic<int> g_verbose;
bool init_verbose_from_env();
}  // namespace internal

// Whether verbose lines are printed now.
inline bool verbose_enabled() {
  const int v = internal::g_verbose.load(std::memory_order_relaxed);
  if (v >= 0) [[likely]] return v != 0;
  return internal::init_verbose_from_env();
}

void set_verbose(bool on);

// The fields of one line. None may contain a newline; commas separate fields, so a field should
// use spaces or ';' inside (as primitive_attr's text form does).
struct verbose_record {
  std::string primitive;  // "reorder", "softmax_fwd", ...
  std::string impl;       // impl_name(): "<engine>:<isa>:<kernel>"
  std::string descs;      // memory descriptors, e.g. "src:f32::abcd dst:bf16::acdb"
  std::string attrs;      // to_string(primitive_attr); empty for none
  std::string problem;    // dims, e.g. "2x16x8x8" (softmax adds the axis: "2x1000:1")
};

// "tessera_verbose,exec,<primitive>,<impl>,<descs>,<attrs>,<problem>,<time ms>"
std::string format_verbose_line(const verbose_record& record, double time_ms);

// Prints (or captures) the line of one execution. Thread-safe; lines never interleave.
void emit_verbose_line(const verbose_record& record, double time_ms);

// Times a primitive's execution and prints its line when committed. `describe` (returning
// verbose_record) is called only when verbose is on and the execution committed.
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
    emit_verbose_line(describe_(), ms.count());
  }

 private:
  Describe describe_;
  bool on_;
  std::chrono::steady_clock::time_point start_{};
};

template <class Describe>
verbose_exec(Describe) -> verbose_exec<Describe>;

// While alive, verbose lines from every thread are collected here instead of going to stderr.
// Captures nest: the innermost one receives the lines. Does not turn verbose on.
class verbose_capture {
 public:
  verbose_capture();
  ~verbose_capture();
  verbose_capture(const verbose_capture&) = delete;
  verbose_capture& operator=(const verbose_capture&) = delete;

  std::vector<std::string> lines() const;

 private:
  friend void emit_verbose_line(const verbose_record&, double);
  void append(std::string line);

  mutable std::mutex mu_;
  std::vector<std::string> lines_;
  verbose_capture* previous_;
};

// Sets verbose on or off for a scope and restores the previous state after.
class scoped_verbose {
 public:
  explicit scoped_verbose(bool on) : previous_(verbose_enabled()) { set_verbose(on); }
  ~scoped_verbose() { set_verbose(previous_); }
  scoped_verbose(const scoped_verbose&) = delete;
  scoped_verbose& operator=(const scoped_verbose&) = delete;

 private:
  bool previous_;
};

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_RUNTIME_VERBOSE_H_
