#include "tessera/primitives/runtime/internal/spinning_pool.h"

#include <algorithm>
#include <chrono>

namespace tessera::runtime_internal {
namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Whether `call` moved on from `seen` within `micros`, polling.
bool spin_until_changed(const std::atomic<uint32_t>& call, uint32_t seen, int64_t micros) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::microseconds(micros);
  for (;;) {
    // The clock is read once per 64 polls: a poll is a few ns, a clock read ~20.
    for (int i = 0; i < 64; ++i) {
      if (call.load(std::memory_order_acquire) != seen) return true;
      cpu_relax();
    }
    if (clock::now() >= deadline) return false;
  }
}

}  // namespace

spinning_pool::spinning_pool(int n, int64_t spin_micros)
    : n_(std::max(1, n)), spin_micros_(std::max<int64_t>(0, spin_micros)) {
  workers_.reserve(static_cast<size_t>(n_ - 1));
  for (int i = 1; i < n_; ++i) workers_.emplace_back([this] { worker_main(); });
}

spinning_pool::~spinning_pool() {
  stop_.store(true, std::memory_order_seq_cst);
  call_.fetch_add(1, std::memory_order_seq_cst);
  call_.notify_all();
  // Never one of this pool's own threads: threads.cc shares the pool by shared_ptr and every
  // call holds a reference until all its chunks have returned.
  for (std::thread& t : workers_) t.join();
}

void spinning_pool::worker_main() {
  // Not call_'s value now: a worker that starts late, after calls (which the caller can finish
  // alone) or after the destructor's bump, must see those as changes.
  uint32_t seen = 0;
  for (;;) {
    if (!spin_until_changed(call_, seen, spin_micros_)) {
      // Registering as a sleeper before re-checking call_ (both seq_cst) pairs with the caller's
      // bump-then-read in parallel_for: either the caller sees a sleeper and notifies, or this
      // wait sees the new call and returns at once.
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      call_.wait(seen, std::memory_order_seq_cst);
      sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = call_.load(std::memory_order_acquire);
    run_chunks(seen);
  }
}

void spinning_pool::run_chunks(uint32_t call) {
  uint64_t t = ticket_.load(std::memory_order_acquire);
  for (;;) {
    if (static_cast<uint32_t>(t >> 32) != call) return;
    const uint64_t count = t & kCountMask;
    const uint64_t next = (t >> kCountBits) & kCountMask;
    if (next >= count) return;
    if (!ticket_.compare_exchange_weak(t, t + (uint64_t{1} << kCountBits),
                                       std::memory_order_acq_rel, std::memory_order_acquire)) {
      continue;  // t now holds the current ticket
    }
    // Chunk `next` of this call is ours; the call cannot finish (and its arguments cannot
    // change) before pending_ counts it.
    const int64_t chunk = chunk_.load(std::memory_order_relaxed);
    const int64_t n = n_items_.load(std::memory_order_relaxed);
    const int64_t begin = static_cast<int64_t>(next) * chunk;
    (*fn_.load(std::memory_order_relaxed))(begin, chunk_end(n, chunk, begin));
    pending_.fetch_sub(1, std::memory_order_acq_rel);
    t = ticket_.load(std::memory_order_acquire);
  }
}

void spinning_pool::run_inline(int64_t n, int64_t chunk, chunk_fn fn) {
  for (int64_t begin = 0; begin < n; begin += chunk) fn(begin, chunk_end(n, chunk, begin));
}

void spinning_pool::parallel_for(int64_t n, int64_t chunk, chunk_fn fn) {
  const int64_t count = ceil_div(n, chunk);
  bool expected = false;
  if (workers_.empty() || count <= 1 || count > static_cast<int64_t>(kCountMask) ||
      !busy_.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
    run_inline(n, chunk, fn);
    return;
  }
  const uint32_t call = call_.load(std::memory_order_relaxed) + 1;
  fn_.store(&fn, std::memory_order_relaxed);
  n_items_.store(n, std::memory_order_relaxed);
  chunk_.store(chunk, std::memory_order_relaxed);
  pending_.store(count, std::memory_order_relaxed);
  ticket_.store(make_ticket(call, 0, static_cast<uint64_t>(count)), std::memory_order_release);
  call_.store(call, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) call_.notify_all();

  run_chunks(call);
  // Chunks claimed by workers may still be running.
  while (pending_.load(std::memory_order_acquire) != 0) cpu_relax();
  busy_.store(false, std::memory_order_release);
}

}  // namespace tessera::runtime_internal
