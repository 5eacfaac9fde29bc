#include "tessera/primitives/runtime/verbose.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tessera {
namespace internal {

std::atomic<int> g_verbose{-1};

bool init_verbose_from_env() {
  int on = 0;
  if (const char* env = std::getenv("TESSERA_VERBOSE"); env != nullptr) {
    int level = 0;
    on = absl::SimpleAtoi(env, &level) && level > 0 ? 1 : 0;
  }
  // Only the first reader decides; a set_verbose() that ran meanwhile wins.
  int expected = -1;
  g_verbose.compare_exchange_strong(expected, on, std::memory_order_relaxed);
  return g_verbose.load(std::memory_order_relaxed) != 0;
}

}  // namespace internal

namespace {

// std::mutex, not absl::Mutex: TSan sees its synchronisation (Debian's Abseil is not
// instrumented).
std::mutex& sink_mutex() {
  static auto* mu = new std::mutex;
  return *mu;
}
verbose_capture* g_capture = nullptr;  // guarded by sink_mutex()

}  // namespace

void set_verbose(bool on) { internal::g_verbose.store(on ? 1 : 0, std::memory_order_relaxed); }

std::string format_verbose_line(const verbose_record& r, double time_ms) {
  return absl::StrCat("tessera_verbose,exec,", r.primitive, ",", r.impl, ",", r.descs, ",", r.attrs,
                      ",", r.problem, ",", absl::StrFormat("%.6g", time_ms));
}

void emit_verbose_line(const verbose_record& record, double time_ms) {
  std::string line = format_verbose_line(record, time_ms);
  std::lock_guard<std::mutex> lock(sink_mutex());
  if (g_capture != nullptr) {
    g_capture->append(std::move(line));
    return;
  }
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
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

void verbose_capture::append(std::string line) {
  std::lock_guard<std::mutex> lock(mu_);
  lines_.push_back(std::move(line));
}

}  // namespace tessera
