#include "tessera/primitives/runtime/threads.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tessera/primitives/runtime/internal/spinning_pool.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/info.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/partitioner.h"
#include "oneapi/tbb/task_arena.h"

namespace tessera {
namespace {

constexpr int kMaxThreads = 1024;
// How long the built-in pool's workers poll for the next call before sleeping: not at all unless
// asked, so that an idle Tessera leaves the cores to the application's other runtimes.
constexpr int64_t kDefaultSpinMicros = 0;
constexpr int64_t kMaxSpinMicros = 1000000;

// A task_arena, so Tessera never uses more threads than asked even when the application's own
// oneTBB work uses the whole machine (make_onetbb_thread_pool).
class tbb_pool final : public thread_pool {
 public:
  explicit tbb_pool(int n) : n_(n), arena_(n) { arena_.initialize(); }

  int num_threads() const override { return n_; }

  void parallel_for(int64_t n, int64_t chunk,
                    absl::FunctionRef<void(int64_t, int64_t)> fn) override {
    const int64_t nchunks = runtime_internal::ceil_div(n, chunk);
    arena_.execute([&] {
      // One task per chunk: chunks are already sized to one per thread.
      tbb::parallel_for(
          tbb::blocked_range<int64_t>(0, nchunks, 1),
          [&](const tbb::blocked_range<int64_t>& r) {
            for (int64_t i = r.begin(); i < r.end(); ++i) {
              const int64_t begin = i * chunk;
              fn(begin, runtime_internal::chunk_end(n, chunk, begin));
            }
          },
          tbb::static_partitioner());
    });
  }

 private:
  const int n_;
  tbb::task_arena arena_;
};

struct runtime_threads {
  // std::mutex, not absl::Mutex: TSan sees its synchronisation (Debian's Abseil is not
  // instrumented).
  std::mutex mu;
  int configured = 1;                        // guarded by mu
  int64_t spin_micros = kDefaultSpinMicros;  // guarded by mu; from the environment or the API
  std::shared_ptr<thread_pool> user;         // guarded by mu
  std::shared_ptr<runtime_internal::spinning_pool> builtin;  // guarded by mu; made on first use
};

runtime_threads& state() {
  static auto* s = new runtime_threads;  // never destroyed: usable during static destruction
  return *s;
}

// 0 until initialised; then the number of threads parallel_for may use (1 = run inline).
std::atomic<int> g_effective_threads{0};
std::once_flag g_env_once;

// The calling thread's scoped_thread_pool, or nullptr.
thread_local thread_pool* t_scoped_pool = nullptr;

// The integer in environment variable `name` if it lies in [lo, hi], else `fallback` (with a
// warning on stderr when the variable is set but unusable).
int64_t env_integer(const char* name, int64_t lo, int64_t hi, int64_t fallback) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return fallback;
  int64_t parsed = 0;
  if (absl::SimpleAtoi(env, &parsed) && parsed >= lo && parsed <= hi) return parsed;
  std::fprintf(stderr, "tessera: ignoring %s=%s (want an integer in [%lld, %lld]); using %lld\n",
               name, env, static_cast<long long>(lo), static_cast<long long>(hi),
               static_cast<long long>(fallback));
  return fallback;
}

void read_environment() {
  const int hardware =
      static_cast<int>(std::clamp<int64_t>(tbb::info::default_concurrency(), 1, kMaxThreads));
  const int n = static_cast<int>(env_integer("TESSERA_NUM_THREADS", 1, kMaxThreads, hardware));
  const int64_t spin = env_integer("TESSERA_SPIN_US", 0, kMaxSpinMicros, kDefaultSpinMicros);
  runtime_threads& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.configured = n;
  s.spin_micros = spin;
  g_effective_threads.store(n, std::memory_order_relaxed);
}

int effective_threads() {
  int t = g_effective_threads.load(std::memory_order_relaxed);
  if (t != 0) [[likely]] return t;
  std::call_once(g_env_once, read_environment);
  return g_effective_threads.load(std::memory_order_relaxed);
}

// The built-in pool, created if needed; s.mu held.
std::shared_ptr<runtime_internal::spinning_pool> builtin_pool_locked(runtime_threads& s) {
  if (!s.builtin) {
    // More threads than the machine has: a polling worker would take the core another one
    // needs, so they sleep at once (libgomp, too, cuts its spinning then).
    const bool oversubscribed = s.configured > tbb::info::default_concurrency();
    s.builtin = std::make_shared<runtime_internal::spinning_pool>(
        s.configured, oversubscribed ? 0 : s.spin_micros);
  }
  return s.builtin;
}

std::shared_ptr<thread_pool> current_pool() {
  runtime_threads& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.user) return s.user;
  return builtin_pool_locked(s);
}

}  // namespace

namespace runtime_internal {
std::shared_ptr<spinning_pool> builtin_pool() {
  effective_threads();  // reads the environment (thread count, polling time) on first use
  runtime_threads& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return builtin_pool_locked(s);
}
}  // namespace runtime_internal

std::shared_ptr<thread_pool> make_onetbb_thread_pool(int n) {
  return std::make_shared<tbb_pool>(std::clamp(n, 1, kMaxThreads));
}

int64_t thread_spin_micros() {
  effective_threads();
  runtime_threads& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.spin_micros;
}

absl::Status set_thread_spin_micros(int64_t micros) {
  if (micros < 0 || micros > kMaxSpinMicros) {
    return absl::InvalidArgumentError(absl::StrCat("set_thread_spin_micros(", micros,
                                                   "): the polling time must be in [0, ",
                                                   kMaxSpinMicros, "] microseconds"));
  }
  effective_threads();  // the environment must not override this call later
  runtime_threads& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (micros != s.spin_micros) {
    s.spin_micros = micros;
    s.builtin.reset();  // running calls keep the old pool alive until they finish
  }
  return absl::OkStatus();
}

int num_threads() {
  if (thread_pool* scoped = t_scoped_pool) return std::max(1, scoped->num_threads());
  effective_threads();
  runtime_threads& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.user ? std::max(1, s.user->num_threads()) : s.configured;
}

absl::Status set_num_threads(int n) {
  if (n < 1 || n > kMaxThreads) {
    return absl::InvalidArgumentError(
        absl::StrCat("set_num_threads(", n, "): the thread count must be in [1, ", kMaxThreads, "]"));
  }
  effective_threads();  // the environment must not override this call later
  runtime_threads& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.user) {
    return absl::FailedPreconditionError(
        absl::StrCat("set_num_threads(", n,
                     "): a user thread pool is installed; its size is its own "
                     "(call set_thread_pool(nullptr) first)"));
  }
  if (n != s.configured) {
    s.configured = n;
    s.builtin.reset();  // running calls keep the old arena alive until they finish
  }
  g_effective_threads.store(n, std::memory_order_relaxed);
  return absl::OkStatus();
}

void set_thread_pool(std::shared_ptr<thread_pool> pool) {
  effective_threads();
  runtime_threads& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.user = std::move(pool);
  g_effective_threads.store(s.user ? std::max(1, s.user->num_threads()) : s.configured,
                            std::memory_order_relaxed);
}

scoped_thread_pool::scoped_thread_pool(thread_pool* pool) : previous_(t_scoped_pool) {
  t_scoped_pool = pool;
}

scoped_thread_pool::~scoped_thread_pool() { t_scoped_pool = previous_; }

namespace {

// fn over [0, n) on `pool` in chunks (one per thread at most, each at least min_chunk), inline
// when that leaves one chunk. scope_chunks: each chunk runs with `pool` scoped on its own thread,
// so that a nested parallel_for stays on a per-call pool.
void run_in_chunks(thread_pool& pool, int64_t n, int64_t min_chunk,
                   absl::FunctionRef<void(int64_t, int64_t)> fn, bool scope_chunks) {
  const int threads = std::max(1, pool.num_threads());
  const int64_t chunk = std::max(min_chunk, runtime_internal::ceil_div(n, threads));
  if (threads == 1 || chunk >= n) {
    fn(0, n);
  } else if (!scope_chunks) {
    pool.parallel_for(n, chunk, fn);
  } else {
    pool.parallel_for(n, chunk, [&pool, fn](int64_t begin, int64_t end) {
      scoped_thread_pool on(&pool);
      fn(begin, end);
    });
  }
}

}  // namespace

void parallel_for(int64_t n, int64_t min_chunk, absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  if (min_chunk < 1) min_chunk = 1;
  if (n <= min_chunk) {
    fn(0, n);
  } else if (thread_pool* scoped = t_scoped_pool) {
    run_in_chunks(*scoped, n, min_chunk, fn, /*scope_chunks=*/true);
  } else if (effective_threads() == 1) {
    fn(0, n);
  } else {
    std::shared_ptr<thread_pool> pool = current_pool();
    run_in_chunks(*pool, n, min_chunk, fn, /*scope_chunks=*/false);
  }
}

scoped_num_threads::scoped_num_threads(int n) : previous_(num_threads()) {
  status_ = set_num_threads(n);
}

scoped_num_threads::~scoped_num_threads() {
  if (status_.ok()) set_num_threads(previous_).IgnoreError();
}

}  // namespace tessera
