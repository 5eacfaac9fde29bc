// Threads: how Tessera's kernels split work, and how a user controls it.
//
//   // In a kernel: rows [0, n) in chunks of at least 64 rows; runs inline when small or when
//   // only one thread is allowed.
//   tessera::parallel_for(n, 64, [&](int64_t begin, int64_t end) {
//     for (int64_t r = begin; r < end; ++r) do_row(r);
//   });
//
//   // In an application:
//   TESSERA_RETURN_IF_ERROR(tessera::set_num_threads(4));   // 1 = sequential
//   tessera::set_thread_pool(std::make_shared<my_pool>());  // inject your own pool
//   tessera::set_thread_pool(tessera::make_onetbb_thread_pool(4));  // share oneTBB's threads
//   tessera::set_thread_pool(nullptr);                      // back to the built-in pool
//
// The built-in pool has num_threads() - 1 persistent workers (the calling thread is the other
// one). After a call its workers poll for the next one for TESSERA_SPIN_US microseconds
// (environment, read once; default 5000, about libgomp's default; 0 = sleep at once) before they
// sleep: a call that comes within that time starts on them in under a microsecond, one that
// comes later pays a futex wake-up (tens of microseconds on a VM). One call at a time uses the
// workers; a concurrent or nested call runs its chunks on its own thread. The thread count starts
// at TESSERA_NUM_THREADS (environment, read once; a positive integer) or else at the number of
// hardware threads oneTBB sees. Every function here may be called from many threads at once;
// changing the count or the pool while other threads run parallel_for is safe (calls already
// running finish on the pool they started with).
#ifndef TESSERA_PRIMITIVES_RUNTIME_THREADS_H_
#define TESSERA_PRIMITIVES_RUNTIME_THREADS_H_

#include <cstdint>
#include <memory>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"

namespace tessera {

// A thread pool Tessera can run its work on. Implement it to share your application's threads.
class thread_pool {
 public:
  virtual ~thread_pool() = default;

  // How many threads may work at once (>= 1). Tessera sizes its chunks by it.
  virtual int num_threads() const = 0;

  // Must call fn(i * chunk, min(n, (i + 1) * chunk)) exactly once for every i in
  // [0, ceil(n / chunk)), possibly concurrently, and return only when all calls have returned.
  // Tessera passes n >= 1 and chunk >= 1. fn does not throw. A kernel may call parallel_for
  // from inside fn (nested parallelism): the pool must not deadlock then (running the nested
  // call inline is fine).
  virtual void parallel_for(int64_t n, int64_t chunk,
                            absl::FunctionRef<void(int64_t, int64_t)> fn) = 0;
};

// The number of threads Tessera's kernels may use now: the injected pool's num_threads() when a
// pool is injected, else the count set by set_num_threads / TESSERA_NUM_THREADS.
int num_threads();

// How long the built-in pool's idle workers poll for the next call before they sleep, in
// microseconds: TESSERA_SPIN_US, or 5000. (A pool with more threads than the machine has
// hardware threads does not poll at all.)
int64_t thread_spin_micros();

// Sets the thread count of the built-in pool (1 = sequential: everything runs on the calling
// thread). Errors: n < 1, or n above 1024; or a user pool is injected (its size is its own).
absl::Status set_num_threads(int n);

// Installs a user pool for all later parallel_for calls (nullptr: back to the built-in pool).
void set_thread_pool(std::shared_ptr<thread_pool> pool);

// A pool on oneTBB: a task_arena of n slots (n clamped to [1, 1024]), for applications whose own
// work runs on oneTBB, so that Tessera's chunks run on the same worker threads. (oneTBB's workers
// sleep soon after a call: after an idle gap a call waits tens of microseconds for them.)
std::shared_ptr<thread_pool> make_onetbb_thread_pool(int n);

// Runs fn over [0, n) split into chunks (one per thread at most; every chunk but the last has at
// least min_chunk elements), possibly concurrently. Runs fn(0, n) inline, without any task overhead, when n <=
// min_chunk or only one thread is allowed. n <= 0 calls nothing; min_chunk < 1 counts as 1.
void parallel_for(int64_t n, int64_t min_chunk, absl::FunctionRef<void(int64_t, int64_t)> fn);

// Sets the thread count for a scope and restores the previous count after (tests, benchmarks).
// Not for concurrent use with other scoped_num_threads.
class scoped_num_threads {
 public:
  explicit scoped_num_threads(int n);
  ~scoped_num_threads();
  scoped_num_threads(const scoped_num_threads&) = delete;
  scoped_num_threads& operator=(const scoped_num_threads&) = delete;
  // The status of the set_num_threads call made by the constructor.
  const absl::Status& status() const { return status_; }

 private:
  int previous_;
  absl::Status status_;
};

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_RUNTIME_THREADS_H_
