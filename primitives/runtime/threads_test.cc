#include "tessera/primitives/runtime/threads.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/primitives/runtime/internal/counting_pool.h"
#include "tessera/primitives/runtime/internal/spinning_pool.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// Runs parallel_for and returns every (begin, end) it produced, sorted.
std::vector<std::pair<int64_t, int64_t>> chunks_of(int64_t n, int64_t min_chunk) {
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  parallel_for(n, min_chunk, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mu);
    chunks.emplace_back(b, e);
  });
  std::sort(chunks.begin(), chunks.end());
  return chunks;
}

// The chunks tile [0, n) exactly: sorted, adjacent, non-empty.
void expect_tiles(const std::vector<std::pair<int64_t, int64_t>>& chunks, int64_t n) {
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks.front().first, 0);
  EXPECT_EQ(chunks.back().second, n);
  for (size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_LT(chunks[i].first, chunks[i].second) << "chunk " << i;
    if (i > 0) EXPECT_EQ(chunks[i - 1].second, chunks[i].first) << "chunk " << i;
  }
}

TEST(Threads, CoversEveryIndexExactlyOnceForManyShapes) {
  for (int threads : {1, 2, 3, 4}) {
    scoped_num_threads scope(threads);
    ASSERT_TRUE(scope.status().ok()) << scope.status();
    for (int64_t n : {1, 2, 3, 7, 64, 1000, 4097}) {
      for (int64_t min_chunk : {-5, 0, 1, 2, 16, 1000, 5000}) {
        SCOPED_TRACE(testing::Message() << "threads=" << threads << " n=" << n
                                        << " min_chunk=" << min_chunk);
        std::vector<std::atomic<int>> seen(n);
        parallel_for(n, min_chunk, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) seen[i].fetch_add(1);
        });
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "index " << i;

        const auto chunks = chunks_of(n, min_chunk);
        expect_tiles(chunks, n);
        EXPECT_LE(static_cast<int64_t>(chunks.size()), threads);
        const int64_t floor = std::max<int64_t>(min_chunk, 1);
        for (size_t i = 0; i + 1 < chunks.size(); ++i) {
          EXPECT_GE(chunks[i].second - chunks[i].first, floor) << "chunk " << i;
        }
      }
    }
  }
}

TEST(Threads, NothingIsCalledForEmptyOrNegativeRanges) {
  int calls = 0;
  parallel_for(0, 1, [&](int64_t, int64_t) { ++calls; });
  parallel_for(-3, 1, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(Threads, SmallWorkRunsInlineAsOneCall) {
  scoped_num_threads scope(4);
  ASSERT_TRUE(scope.status().ok());
  const std::thread::id caller = std::this_thread::get_id();
  int calls = 0;
  parallel_for(100, 100, [&](int64_t b, int64_t e) {
    ++calls;
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 100);
    EXPECT_EQ(std::this_thread::get_id(), caller);
  });
  EXPECT_EQ(calls, 1);
}

TEST(Threads, OneThreadIsSequentialOnTheCallingThread) {
  scoped_num_threads scope(1);
  ASSERT_TRUE(scope.status().ok());
  EXPECT_EQ(num_threads(), 1);
  const std::thread::id caller = std::this_thread::get_id();
  int calls = 0;
  parallel_for(1 << 20, 1, [&](int64_t b, int64_t e) {
    ++calls;
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 1 << 20);
    EXPECT_EQ(std::this_thread::get_id(), caller);
  });
  EXPECT_EQ(calls, 1);
}

TEST(Threads, SplitsLargeWorkIntoOneChunkPerThread) {
  scoped_num_threads scope(2);
  ASSERT_TRUE(scope.status().ok());
  EXPECT_EQ(num_threads(), 2);
  const auto chunks = chunks_of(1000, 1);
  ASSERT_EQ(chunks.size(), 2u);
  expect_tiles(chunks, 1000);
  EXPECT_EQ(chunks[0].second, 500);
}

TEST(Threads, RejectsBadCountsNamingTheValue) {
  for (int bad : {0, -1, 1025}) {
    absl::Status s = set_num_threads(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(s.message()), HasSubstr(std::to_string(bad)));
  }
}

TEST(Threads, ScopedCountRestoresThePreviousOne) {
  const int before = num_threads();
  {
    scoped_num_threads scope(before == 3 ? 2 : 3);
    ASSERT_TRUE(scope.status().ok());
    EXPECT_EQ(num_threads(), before == 3 ? 2 : 3);
  }
  EXPECT_EQ(num_threads(), before);
}

// A user pool that runs chunks in order on the calling thread and records them.
class recording_pool : public thread_pool {
 public:
  explicit recording_pool(int n) : n_(n) {}
  int num_threads() const override { return n_; }
  void parallel_for(int64_t n, int64_t chunk,
                    absl::FunctionRef<void(int64_t, int64_t)> fn) override {
    calls.fetch_add(1);
    for (int64_t b = 0; b < n; b += chunk) fn(b, std::min(n, b + chunk));
  }
  std::atomic<int> calls{0};

 private:
  int n_;
};

TEST(Threads, InjectedPoolRunsTheWorkAndOwnsTheCount) {
  auto pool = std::make_shared<recording_pool>(5);
  set_thread_pool(pool);
  EXPECT_EQ(num_threads(), 5);
  EXPECT_EQ(set_num_threads(2).code(), absl::StatusCode::kFailedPrecondition);

  const auto chunks = chunks_of(1000, 10);
  expect_tiles(chunks, 1000);
  EXPECT_EQ(chunks.size(), 5u);
  EXPECT_EQ(pool->calls.load(), 1);

  // Small work still runs inline: the pool is not even asked.
  parallel_for(10, 10, [](int64_t, int64_t) {});
  EXPECT_EQ(pool->calls.load(), 1);

  set_thread_pool(nullptr);
  EXPECT_TRUE(set_num_threads(2).ok());
  chunks_of(1000, 10);
  EXPECT_EQ(pool->calls.load(), 1) << "the pool was removed";
}

TEST(Threads, InjectedPoolOfOneThreadMeansSequential) {
  auto pool = std::make_shared<recording_pool>(1);
  set_thread_pool(pool);
  EXPECT_EQ(chunks_of(1000, 1).size(), 1u);
  EXPECT_EQ(pool->calls.load(), 0);
  set_thread_pool(nullptr);
}

// The built-in pool's workers sleep as soon as a call ends unless polling is asked for.
TEST(ThreadSpin, DefaultIsToSleepAtOnce) {
  EXPECT_EQ(thread_spin_micros(), 0);
}

TEST(ThreadSpin, ApiSetsThePollingTimeAndRejectsBadValues) {
  ASSERT_TRUE(set_thread_spin_micros(250).ok());
  EXPECT_EQ(thread_spin_micros(), 250);
  for (int64_t bad : {int64_t{-1}, int64_t{1000001}}) {
    absl::Status s = set_thread_spin_micros(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(s.message()), HasSubstr(std::to_string(bad)));
    EXPECT_THAT(std::string(s.message()), HasSubstr("[0, 1000000]"));
    EXPECT_EQ(thread_spin_micros(), 250) << "a rejected value changes nothing";
  }
  ASSERT_TRUE(set_thread_spin_micros(0).ok());
  EXPECT_EQ(thread_spin_micros(), 0);
}

TEST(ThreadSpin, BuiltinWorkersSleepAfterACallByDefault) {
  scoped_num_threads two(2);
  ASSERT_TRUE(two.status().ok());
  chunks_of(1000, 1);
  std::shared_ptr<runtime_internal::spinning_pool> pool = runtime_internal::builtin_pool();
  EXPECT_EQ(pool->spin_micros(), 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (pool->sleeping_workers() < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(pool->sleeping_workers(), 1);
}

TEST(ThreadSpin, TheBuiltinPoolPollsForTheTimeAsked) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "2 threads would oversubscribe";
  scoped_num_threads two(2);
  ASSERT_TRUE(two.status().ok());
  ASSERT_TRUE(set_thread_spin_micros(250).ok());
  EXPECT_EQ(runtime_internal::builtin_pool()->spin_micros(), 250);
  expect_tiles(chunks_of(1000, 1), 1000);
  ASSERT_TRUE(set_thread_spin_micros(0).ok());
  EXPECT_EQ(runtime_internal::builtin_pool()->spin_micros(), 0);
}

// Sums i * 100 + j over i < outer, j < 100 with a parallel_for inside each chunk of another.
int64_t nested_sum(int64_t outer) {
  std::atomic<int64_t> sum{0};
  parallel_for(outer, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      parallel_for(100, 1, [&](int64_t b2, int64_t e2) {
        int64_t local = 0;
        for (int64_t j = b2; j < e2; ++j) local += i * 100 + j;
        sum.fetch_add(local);
      });
    }
  });
  return sum.load();
}

using runtime_internal::counting_pool;

TEST(ScopedThreadPool, RunsTheCallingThreadsWorkAndRestoresAfter) {
  scoped_num_threads two(2);
  ASSERT_TRUE(two.status().ok());
  counting_pool pool(4);
  {
    scoped_thread_pool on(&pool);
    EXPECT_EQ(num_threads(), 4);
    const auto chunks = chunks_of(1000, 10);
    expect_tiles(chunks, 1000);
    EXPECT_EQ(chunks.size(), 4u);
    EXPECT_EQ(pool.calls.load(), 1);
    EXPECT_EQ(pool.chunks.load(), 4);
    // Small work runs inline: the pool is not asked.
    parallel_for(10, 10, [](int64_t, int64_t) {});
    EXPECT_EQ(pool.calls.load(), 1);
  }
  EXPECT_EQ(num_threads(), 2);
  chunks_of(1000, 10);
  EXPECT_EQ(pool.calls.load(), 1) << "the scope ended";
}

TEST(ScopedThreadPool, WinsOverTheInjectedPoolAndNests) {
  auto global = std::make_shared<counting_pool>(3);
  set_thread_pool(global);
  counting_pool outer(2), inner(5);
  {
    scoped_thread_pool on_outer(&outer);
    {
      scoped_thread_pool on_inner(&inner);
      EXPECT_EQ(chunks_of(1000, 1).size(), 5u);
      {
        scoped_thread_pool process_wide(nullptr);
        EXPECT_EQ(num_threads(), 3);
        EXPECT_EQ(chunks_of(1000, 1).size(), 3u);
      }
    }
    EXPECT_EQ(chunks_of(1000, 1).size(), 2u);
  }
  EXPECT_EQ(chunks_of(1000, 1).size(), 3u);
  EXPECT_EQ(inner.calls.load(), 1);
  EXPECT_EQ(outer.calls.load(), 1);
  EXPECT_EQ(global->calls.load(), 2);
  set_thread_pool(nullptr);
}

TEST(ScopedThreadPool, OfOneThreadMeansSequential) {
  counting_pool pool(1);
  scoped_thread_pool on(&pool);
  EXPECT_EQ(chunks_of(1000, 1).size(), 1u);
  EXPECT_EQ(pool.calls.load(), 0);
}

// A parallel_for inside a chunk runs on another thread of the pool: it must still use the pool.
TEST(ScopedThreadPool, NestedCallsInsideChunksStayOnThePool) {
  auto global = std::make_shared<counting_pool>(3);
  set_thread_pool(global);
  counting_pool pool(2);
  int64_t sum = 0;
  {
    scoped_thread_pool on(&pool);
    sum = nested_sum(4);
  }
  EXPECT_EQ(sum, 400 * 399 / 2);
  EXPECT_EQ(pool.calls.load(), 1 + 4);
  EXPECT_EQ(global->calls.load(), 0);
  set_thread_pool(nullptr);
}

// Threads that each scope their own pool at once: every call lands on its own thread's pool.
TEST(ScopedThreadPool, ConcurrentThreadsEachUseTheirOwnPool) {
  auto global = std::make_shared<counting_pool>(2);
  set_thread_pool(global);
  constexpr int kThreads = 4;
  constexpr int kCalls = 50;
  std::vector<std::unique_ptr<counting_pool>> pools;
  for (int t = 0; t < kThreads; ++t) pools.push_back(std::make_unique<counting_pool>(2 + t));
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([&, t] {
      scoped_thread_pool on(pools[t].get());
      for (int iter = 0; iter < kCalls; ++iter) {
        if (num_threads() != 2 + t) failures.fetch_add(1);
        const int64_t n = 1000 + iter;
        std::atomic<int64_t> sum{0};
        parallel_for(n, 1, [&](int64_t b, int64_t e) {
          int64_t local = 0;
          for (int64_t i = b; i < e; ++i) local += i;
          sum.fetch_add(local);
        });
        if (sum.load() != n * (n - 1) / 2) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& c : callers) c.join();
  EXPECT_EQ(failures.load(), 0);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(pools[t]->calls.load(), kCalls) << "pool " << t;
    EXPECT_EQ(pools[t]->chunks.load(), kCalls * (2 + t)) << "pool " << t;
  }
  EXPECT_EQ(global->calls.load(), 0);
  set_thread_pool(nullptr);
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TESSERA_TEST_UNDER_TSAN_ 1
#endif
#endif

TEST(Threads, OneTbbPoolCanBeInjected) {
#ifdef TESSERA_TEST_UNDER_TSAN_
  // Debian's libtbb is not instrumented: TSan cannot see oneTBB's synchronisation and reports
  // races inside oneTBB's inline code.
  GTEST_SKIP() << "oneTBB under ThreadSanitizer";
#endif
  std::shared_ptr<thread_pool> pool = make_onetbb_thread_pool(3);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->num_threads(), 3);
  EXPECT_EQ(make_onetbb_thread_pool(0)->num_threads(), 1);
  set_thread_pool(pool);
  EXPECT_EQ(num_threads(), 3);
  const auto chunks = chunks_of(1000, 1);
  EXPECT_EQ(chunks.size(), 3u);
  expect_tiles(chunks, 1000);
  set_thread_pool(nullptr);
}

TEST(Threads, NestedParallelForCompletes) {
  scoped_num_threads scope(2);
  ASSERT_TRUE(scope.status().ok());
  EXPECT_EQ(nested_sum(8), 800 * 799 / 2);
}

// Many user threads run parallel_for while another keeps changing the thread count.
TEST(Threads, ConcurrentCallersWhileTheCountChanges) {
  std::atomic<bool> stop{false};
  std::thread changer([&] {
    int k = 0;
    while (!stop.load()) {
      EXPECT_TRUE(set_num_threads(1 + (k++ % 3)).ok());
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&, t] {
      for (int iter = 0; iter < 200; ++iter) {
        const int64_t n = 1000 + 37 * t + iter;
        std::atomic<int64_t> sum{0};
        parallel_for(n, 16, [&](int64_t b, int64_t e) {
          int64_t local = 0;
          for (int64_t i = b; i < e; ++i) local += i;
          sum.fetch_add(local);
        });
        if (sum.load() != n * (n - 1) / 2) failures.fetch_add(1);
      }
    });
  }
  for (auto& c : callers) c.join();
  stop.store(true);
  changer.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_TRUE(set_num_threads(2).ok());
}

}  // namespace
}  // namespace tessera
