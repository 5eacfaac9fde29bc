// Threads: how Tessera's kernels split work, and how a user controls it.
//
//   // In a kernel: rows [0, n) in chunks of at least 64 rows; runs inline when small or when
//   // only one thread is allowed.
//   tessera::parallel_for(n, 64, [&](int64_t begin, int64_t end) {
//     for (int64_t r = begin; r < end; ++r) do_row(r);
//   });
//
//   // In an application, for the whole process:
//   TESSERA_RETURN_IF_ERROR(tessera::set_num_threads(4));   // 1 = sequential
//   TESSERA_RETURN_IF_ERROR(tessera::set_thread_spin_micros(5000));  // opt in to polling
//   tessera::set_thread_pool(std::make_shared<my_pool>());  // inject your own pool
//   tessera::set_thread_pool(tessera::make_onetbb_thread_pool(4));  // share oneTBB's threads
//   tessera::set_thread_pool(nullptr);                      // back to the built-in pool
//
//   // Per call (oneDNN's per-stream pool): this thread's kernels run on `pool` for the scope.
//   {
//     tessera::scoped_thread_pool on(&pool);
//     TESSERA_RETURN_IF_ERROR(r.execute(args));  // or r.execute(args, pool)
//   }
//
// The built-in pool has num_threads() - 1 persistent workers (the calling thread is the other
// one). By default its workers sleep as soon as a call ends, so an idle Tessera burns no CPU
// beside another runtime's threads; the next call pays a futex wake-up (tens of microseconds on
// a VM). TESSERA_SPIN_US (environment, read once) or set_thread_spin_micros makes them poll for
// that long after a call instead: a call that comes within that time starts on them in under a
// microsecond, at the price of a busy core per worker while idle. One call at a time uses the
// workers; a concurrent or nested call runs its chunks on its own thread. The thread count starts
// at TESSERA_NUM_THREADS (environment, read once; a positive integer) or else at the number of
// hardware threads oneTBB sees. Every function here may be called from many threads at once;
// changing the count or the pool while other threads run parallel_for is safe (calls already
// running finish on the pool they started with).
//
// Which pool a parallel_for uses: the calling thread's scoped_thread_pool if one is active (also
// inside the chunks it runs, on whatever thread), else the pool of set_thread_pool, else the
// built-in pool.
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

// The number of threads Tessera's kernels may use now on this thread: the scoped_thread_pool's
// num_threads() when one is active, else the injected pool's when a pool is injected, else the
// count set by set_num_threads / TESSERA_NUM_THREADS.
int num_threads();

// How long the built-in pool's idle workers poll for the next call before they sleep, in
// microseconds: the last set_thread_spin_micros, else TESSERA_SPIN_US, else 0 (sleep at once).
// (A pool with more threads than the machine has hardware threads does not poll at all.)
int64_t thread_spin_micros();

// Makes the built-in pool's workers poll for `micros` microseconds after each call before they
// sleep (0: sleep at once, the default). Polling makes a call that follows within that time
// start sooner, and costs a busy core per worker meanwhile. Takes effect for calls that start
// after it. Errors: micros outside [0, 1000000].
absl::Status set_thread_spin_micros(int64_t micros);

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

// Runs the calling thread's parallel_for calls on `pool` while the scope lives, then restores
// what was there before (scopes nest). Chunks `pool` runs see it too, so a nested parallel_for
// inside a chunk also runs on `pool`. Other threads are not affected: several threads may each
// use their own pool at once. nullptr: the process-wide choice (set_thread_pool or the built-in
// pool) for the scope. `pool` must outlive the scope. Construct and destroy on the same thread.
class scoped_thread_pool {
 public:
  explicit scoped_thread_pool(thread_pool* pool);
  ~scoped_thread_pool();
  scoped_thread_pool(const scoped_thread_pool&) = delete;
  scoped_thread_pool& operator=(const scoped_thread_pool&) = delete;

 private:
  thread_pool* previous_;
};

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
