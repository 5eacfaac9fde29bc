#include "tessera/primitives/runtime/lru_cache.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

using int_cache = lru_cache<int, std::string>;

std::shared_ptr<const std::string> value(std::string s) {
  return std::make_shared<const std::string>(std::move(s));
}

TEST(LruCache, FindCountsHitsAndMisses) {
  int_cache cache(4);
  EXPECT_EQ(cache.find(1), nullptr);
  cache.insert(1, value("one"));
  auto hit = cache.find(1);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(*hit, "one");
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.misses(), 1);
  cache.reset_counters();
  EXPECT_EQ(cache.hits(), 0);
  EXPECT_EQ(cache.misses(), 0);
}

TEST(LruCache, InsertKeepsTheFirstValueOfAKey) {
  int_cache cache(4);
  auto first = cache.insert(1, value("first"));
  auto second = cache.insert(1, value("second"));
  EXPECT_EQ(first, second);
  EXPECT_EQ(*cache.find(1), "first");
  EXPECT_EQ(cache.size(), 1);
}

TEST(LruCache, EvictsTheLeastRecentlyUsed) {
  int_cache cache(3);
  for (int k : {1, 2, 3}) cache.insert(k, value(std::to_string(k)));
  ASSERT_NE(cache.find(1), nullptr);  // 1 is now the most recent; 2 the least
  cache.insert(4, value("4"));
  EXPECT_EQ(cache.size(), 3);
  EXPECT_EQ(cache.find(2), nullptr);
  EXPECT_NE(cache.find(1), nullptr);
  EXPECT_NE(cache.find(3), nullptr);
  EXPECT_NE(cache.find(4), nullptr);
}

TEST(LruCache, EvictedValuesLiveWhileHeld) {
  int_cache cache(1);
  auto held = cache.insert(1, value("kept"));
  cache.insert(2, value("other"));
  EXPECT_EQ(cache.find(1), nullptr);
  EXPECT_EQ(*held, "kept");
}

TEST(LruCache, CapacityZeroCachesNothing) {
  int_cache cache(0);
  auto v = cache.insert(1, value("x"));
  EXPECT_EQ(*v, "x");
  EXPECT_EQ(cache.size(), 0);
  EXPECT_EQ(cache.find(1), nullptr);
}

TEST(LruCache, GetOrCreateCallsMakeOnlyOnAMiss) {
  int_cache cache(4);
  int made = 0;
  auto make = [&]() -> absl::StatusOr<std::shared_ptr<const std::string>> {
    ++made;
    return value("made");
  };
  auto a = cache.get_or_create(7, make);
  auto b = cache.get_or_create(7, make);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.misses(), 1);
}

TEST(LruCache, GetOrCreateReportsHitOrMiss) {
  int_cache cache(4);
  auto make = []() -> absl::StatusOr<std::shared_ptr<const std::string>> { return value("v"); };
  bool hit = true;
  ASSERT_TRUE(cache.get_or_create(7, make, &hit).ok());
  EXPECT_FALSE(hit);
  ASSERT_TRUE(cache.get_or_create(7, make, &hit).ok());
  EXPECT_TRUE(hit);
  int_cache off(0);  // nothing is kept: every call misses
  ASSERT_TRUE(off.get_or_create(7, make, &hit).ok());
  ASSERT_TRUE(off.get_or_create(7, make, &hit).ok());
  EXPECT_FALSE(hit);
}

TEST(LruCache, GetOrCreateDoesNotCacheErrors) {
  int_cache cache(4);
  int made = 0;
  auto failing = [&]() -> absl::StatusOr<std::shared_ptr<const std::string>> {
    ++made;
    return absl::InvalidArgumentError("bad key 7");
  };
  auto a = cache.get_or_create(7, failing);
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(a.status().message()), HasSubstr("bad key 7"));
  auto b = cache.get_or_create(7, failing);
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(made, 2);
  EXPECT_EQ(cache.size(), 0);
}

TEST(LruCache, GlobalCapacityIsFollowedAndValidated) {
  const int before = primitive_cache_capacity();
  lru_cache<int, int> cache;  // follows the global capacity
  ASSERT_TRUE(set_primitive_cache_capacity(2).ok());
  EXPECT_EQ(cache.capacity(), 2);
  for (int k = 0; k < 5; ++k) cache.insert(k, std::make_shared<const int>(k));
  EXPECT_EQ(cache.size(), 2);

  ASSERT_TRUE(set_primitive_cache_capacity(1).ok());
  cache.find(4);  // shrinks on next use
  EXPECT_EQ(cache.size(), 1);
  EXPECT_NE(cache.find(4), nullptr);

  absl::Status bad = set_primitive_cache_capacity(-3);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()), HasSubstr("-3"));
  EXPECT_EQ(primitive_cache_capacity(), 1);
  ASSERT_TRUE(set_primitive_cache_capacity(before).ok());
}

TEST(LruCache, DefaultCapacityIs1024) {
  // This test binary does not set TESSERA_PRIMITIVE_CACHE_CAPACITY (env_test does).
  EXPECT_EQ(primitive_cache_capacity(), 1024);
}

// An evicted value's destructor may use the cache: eviction must not hold the lock then.
struct reentrant {
  lru_cache<int, reentrant>* cache;
  ~reentrant() { cache->size(); }
};

TEST(LruCache, EvictedDestructorsRunWithoutTheLock) {
  lru_cache<int, reentrant> cache(1);
  cache.insert(1, std::make_shared<const reentrant>(reentrant{&cache}));
  cache.insert(2, std::make_shared<const reentrant>(reentrant{&cache}));  // evicts 1
  EXPECT_EQ(cache.size(), 1);
  cache.clear();
  EXPECT_EQ(cache.size(), 0);
}

struct pair_key {
  int a;
  std::string b;
  friend bool operator==(const pair_key&, const pair_key&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const pair_key& k) {
    return H::combine(std::move(h), k.a, k.b);
  }
};

TEST(LruCache, CompositeKeysWithAbslHash) {
  lru_cache<pair_key, int> cache(8);
  cache.insert({1, "x"}, std::make_shared<const int>(10));
  cache.insert({1, "y"}, std::make_shared<const int>(11));
  EXPECT_EQ(*cache.find({1, "x"}), 10);
  EXPECT_EQ(*cache.find({1, "y"}), 11);
  EXPECT_EQ(cache.find({2, "x"}), nullptr);
}

// Several threads create and look up overlapping keys; every result is the right value, and
// each key keeps one value once inserted.
TEST(LruCache, ConcurrentGetOrCreate) {
  lru_cache<int, int> cache(16);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const int key = (i * 7 + t) % 24;  // more keys than capacity: evictions happen
        auto v = cache.get_or_create(key, [&]() -> absl::StatusOr<std::shared_ptr<const int>> {
          return std::make_shared<const int>(key * 3);
        });
        if (!v.ok() || **v != key * 3) wrong.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(cache.size(), 16);
  EXPECT_EQ(cache.hits() + cache.misses(), 4 * 2000);
}

}  // namespace
}  // namespace tessera
