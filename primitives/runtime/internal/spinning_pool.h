// The built-in thread pool: persistent workers that poll for a while between calls, then sleep.
// Internal to //primitives/runtime (threads.cc creates it); not part of the public API.
//
//   spinning_pool pool(2, 5000);   // the calling thread + 1 worker, polling 5 ms when idle
//   pool.parallel_for(n, chunk, [&](int64_t begin, int64_t end) { ... });
//
// Why not oneTBB's task_arena: after an idle gap of a few milliseconds (a single-threaded 64 MB
// read), a 2-slot arena takes several times as long as libgomp (what oneDNN uses) to run two
// trivial tasks, a sizeable share of a 2-thread softmax call. A futex wake-up costs about as much
// (measured with this pool's own workers after they slept), so these workers can keep polling
// after their last chunk, as libgomp's do, and only then block in a futex (std::atomic::wait),
// which the next call wakes. A call within the polling time starts on the workers almost at once.
// threads.cc gives them no polling time unless the application asks (set_thread_spin_micros).
//
// One call at a time runs on the workers. A call that finds the pool busy (another application
// thread's call, or a nested call from inside a chunk) runs its chunks inline, in order, on its
// own thread: never a deadlock, and each chunk still runs exactly once.
// Chunks are claimed from a shared counter, so the calling thread takes a chunk a slow-to-wake
// worker has not started yet.
#ifndef TESSERA_PRIMITIVES_RUNTIME_INTERNAL_SPINNING_POOL_H_
#define TESSERA_PRIMITIVES_RUNTIME_INTERNAL_SPINNING_POOL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "tessera/primitives/runtime/threads.h"

namespace tessera::runtime_internal {

// Chunk arithmetic of thread_pool::parallel_for, shared by the pools in threads.cc.
inline int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }
// The end of the chunk that starts at `begin`.
inline int64_t chunk_end(int64_t n, int64_t chunk, int64_t begin) {
  return n - begin <= chunk ? n : begin + chunk;
}

class spinning_pool final : public thread_pool {
 public:
  // n threads in all: the caller and n - 1 workers (n >= 1). A worker polls for the next call
  // for spin_micros after its last chunk (0: it sleeps at once), then sleeps until a call.
  spinning_pool(int n, int64_t spin_micros);
  ~spinning_pool() override;
  spinning_pool(const spinning_pool&) = delete;
  spinning_pool& operator=(const spinning_pool&) = delete;

  int num_threads() const override { return n_; }
  void parallel_for(int64_t n, int64_t chunk,
                    absl::FunctionRef<void(int64_t, int64_t)> fn) override;

  // How many workers are asleep now (tests).
  int sleeping_workers() const { return sleepers_.load(std::memory_order_relaxed); }
  // How long a worker polls after its last chunk (tests).
  int64_t spin_micros() const { return spin_micros_; }

 private:
  using chunk_fn = absl::FunctionRef<void(int64_t, int64_t)>;

  // The ticket packs (call number, next chunk, chunk count) so that one compare-and-swap both
  // claims a chunk and checks that it belongs to the call the worker was woken for.
  static constexpr int kCountBits = 16;
  static constexpr uint64_t kCountMask = (uint64_t{1} << kCountBits) - 1;
  static uint64_t make_ticket(uint32_t call, uint64_t next, uint64_t count) {
    return (uint64_t{call} << 32) | (next << kCountBits) | count;
  }

  void worker_main();
  // Claims and runs chunks of `call` until none is left or the ticket belongs to another call.
  void run_chunks(uint32_t call);
  static void run_inline(int64_t n, int64_t chunk, chunk_fn fn);

  const int n_;
  const int64_t spin_micros_;
  std::atomic<bool> busy_{false};      // a call owns the workers
  std::atomic<bool> stop_{false};
  std::atomic<uint32_t> call_{0};      // bumped once per call; workers wait on it
  std::atomic<int> sleepers_{0};
  std::atomic<uint64_t> ticket_{0};
  std::atomic<int64_t> pending_{0};    // chunks of the current call not finished yet
  // The current call's arguments, written before call_ is bumped (release) and read after a
  // chunk is claimed (acquire through ticket_).
  std::atomic<const chunk_fn*> fn_{nullptr};
  std::atomic<int64_t> n_items_{0};
  std::atomic<int64_t> chunk_{0};
  std::vector<std::thread> workers_;
};

// The built-in pool with the current thread count, created if needed (threads.cc; for tests:
// what parallel_for uses when no user pool is installed). With more threads than the machine
// has, its workers do not poll (spin_micros() == 0).
std::shared_ptr<spinning_pool> builtin_pool();

}  // namespace tessera::runtime_internal

#endif  // TESSERA_PRIMITIVES_RUNTIME_INTERNAL_SPINNING_POOL_H_
