#include "tessera/primitives/runtime/internal/spinning_pool.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tessera::runtime_internal {
namespace {

// Runs one call and checks that every chunk index ran exactly once with the right bounds.
void expect_each_chunk_once(spinning_pool& pool, int64_t n, int64_t chunk) {
  const int64_t count = (n + chunk - 1) / chunk;
  std::vector<std::atomic<int>> hits(static_cast<size_t>(count));
  std::atomic<int> bad_bounds{0};
  pool.parallel_for(n, chunk, [&](int64_t begin, int64_t end) {
    const int64_t i = begin / chunk;
    if (begin % chunk != 0 || end != std::min(n, begin + chunk)) bad_bounds.fetch_add(1);
    hits[static_cast<size_t>(i)].fetch_add(1);
  });
  EXPECT_EQ(bad_bounds.load(), 0) << "n=" << n << " chunk=" << chunk;
  for (int64_t i = 0; i < count; ++i) {
    EXPECT_EQ(hits[static_cast<size_t>(i)].load(), 1) << "chunk " << i << " of n=" << n;
  }
}

void wait_until_asleep(const spinning_pool& pool, int workers) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (pool.sleeping_workers() != workers && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

TEST(SpinningPool, EveryChunkRunsOnceForManyShapesAndSpins) {
  for (int threads : {1, 2, 3, 5}) {
    for (int64_t spin : {int64_t{0}, int64_t{5000}}) {
      spinning_pool pool(threads, spin);
      EXPECT_EQ(pool.num_threads(), threads);
      for (int64_t n : {1, 2, 7, 64, 1000, 4099}) {
        for (int64_t chunk : {int64_t{1}, int64_t{3}, n}) expect_each_chunk_once(pool, n, chunk);
      }
    }
  }
}

// Back-to-back calls (workers still polling) and calls after the workers fell asleep (the
// futex wake-up path) all complete.
TEST(SpinningPool, CallsCompleteWhetherWorkersPollOrSleep) {
  spinning_pool pool(3, 0);
  wait_until_asleep(pool, 2);
  EXPECT_EQ(pool.sleeping_workers(), 2);
  for (int round = 0; round < 50; ++round) {
    expect_each_chunk_once(pool, 3, 1);
    if (round % 10 == 0) wait_until_asleep(pool, 2);
  }
  spinning_pool polling(2, 1000000);
  for (int round = 0; round < 1000; ++round) expect_each_chunk_once(polling, 2, 1);
  EXPECT_EQ(polling.sleeping_workers(), 0);
}

// A worker takes part, woken from its sleep (spin 0) or while polling: with the thread that runs
// chunk 0 stuck until chunk 1 has run, the call can only finish if another thread runs chunk 1.
TEST(SpinningPool, WorkersRunChunksConcurrentlyWithTheCaller) {
  for (int64_t spin : {int64_t{0}, int64_t{5000}}) {
    spinning_pool pool(2, spin);
    for (int round = 0; round < 10; ++round) {
      if (spin == 0) wait_until_asleep(pool, 1);
      std::atomic<bool> second_done{false};
      std::atomic<int> waited_out{0};
      pool.parallel_for(2, 1, [&](int64_t begin, int64_t) {
        if (begin == 1) {
          second_done.store(true);
          return;
        }
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!second_done.load()) {
          if (std::chrono::steady_clock::now() > give_up) {
            waited_out.fetch_add(1);
            return;
          }
        }
      });
      // If the caller claimed chunk 0 it waited for a worker's chunk 1; if a worker claimed
      // chunk 0 first, the caller ran chunk 1. Either way, never the 5 s timeout.
      ASSERT_EQ(waited_out.load(), 0) << "spin " << spin << " round " << round;
    }
  }
}

// A call made from inside a chunk (nested) and calls from several threads at once (the pool
// busy) run inline and still cover every chunk once.
TEST(SpinningPool, NestedAndConcurrentCallsRunEveryChunkOnce) {
  spinning_pool pool(2, 100);
  std::atomic<int64_t> sum{0};
  pool.parallel_for(4, 1, [&](int64_t b, int64_t) {
    pool.parallel_for(100, 7, [&](int64_t b2, int64_t e2) {
      for (int64_t j = b2; j < e2; ++j) sum.fetch_add(b * 100 + j);
    });
  });
  EXPECT_EQ(sum.load(), 400 * 399 / 2);

  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&, t] {
      for (int iter = 0; iter < 300; ++iter) {
        const int64_t n = 50 + 13 * t + iter;
        std::atomic<int64_t> s{0};
        pool.parallel_for(n, 9, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) s.fetch_add(i);
        });
        if (s.load() != n * (n - 1) / 2) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& c : callers) c.join();
  EXPECT_EQ(failures.load(), 0);
}

// Destroying a pool whose workers sleep, or poll, returns promptly (no lost wake-up).
TEST(SpinningPool, DestructionWakesSleepingAndPollingWorkers) {
  const auto start = std::chrono::steady_clock::now();
  {
    spinning_pool sleeping(4, 0);
    wait_until_asleep(sleeping, 3);
    EXPECT_EQ(sleeping.sleeping_workers(), 3);
  }
  { spinning_pool polling(4, 1000000); }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// The rule of threads.cc: the built-in pool's workers poll between calls, except when there
// are more threads than the machine has (a polling worker would take a core another needs).
TEST(SpinningPool, BuiltinPoolPollsUnlessOversubscribed) {
  ASSERT_TRUE(set_thread_spin_micros(5000).ok());
  ASSERT_GT(thread_spin_micros(), 0) << "the rule shows only with polling on (TESSERA_SPIN_US)";
  const int previous = num_threads();
  // tbb's default concurrency (the rule's measure) is at most the hardware thread count.
  const int oversubscribed = static_cast<int>(std::thread::hardware_concurrency()) + 1;
  ASSERT_TRUE(set_num_threads(oversubscribed).ok());
  std::shared_ptr<spinning_pool> pool = builtin_pool();
  EXPECT_EQ(pool->num_threads(), oversubscribed);
  EXPECT_EQ(pool->spin_micros(), 0);
  expect_each_chunk_once(*pool, 1000, 7);
  ASSERT_TRUE(set_num_threads(1).ok());
  pool = builtin_pool();
  EXPECT_EQ(pool->num_threads(), 1);
  EXPECT_EQ(pool->spin_micros(), thread_spin_micros());
  ASSERT_TRUE(set_num_threads(previous).ok());
  ASSERT_TRUE(set_thread_spin_micros(0).ok());
}

}  // namespace
}  // namespace tessera::runtime_internal
