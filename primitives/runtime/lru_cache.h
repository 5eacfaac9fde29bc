// A small thread-safe LRU cache: re-creating an identical primitive returns the cached one.
//
//   // One cache per primitive kind; it follows the global capacity (default 1024, or
//   // TESSERA_PRIMITIVE_CACHE_CAPACITY read once, or set_primitive_cache_capacity()).
//   static tessera::lru_cache<reorder_key, reorder_impl, reorder_key_hash> cache;
//   absl::StatusOr<std::shared_ptr<const reorder_impl>> impl =
//       cache.get_or_create(key, [&]() -> absl::StatusOr<std::shared_ptr<const reorder_impl>> {
//         return build_reorder(key);   // runs outside the lock; errors are not cached
//       });
//
//   TESSERA_RETURN_IF_ERROR(tessera::set_primitive_cache_capacity(0));   // 0 turns caching off
//
// Values are shared_ptr<const V>: an evicted value lives on while someone holds it.
#ifndef TESSERA_PRIMITIVES_RUNTIME_LRU_CACHE_H_
#define TESSERA_PRIMITIVES_RUNTIME_LRU_CACHE_H_

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tessera {

inline constexpr int kDefaultPrimitiveCacheCapacity = 1024;

// The capacity every lru_cache without an explicit one follows. Starts at
// TESSERA_PRIMITIVE_CACHE_CAPACITY (environment, read once; an integer >= 0) or 1024.
int primitive_cache_capacity();
// Errors: capacity < 0. Caches shrink to the new capacity on their next use.
absl::Status set_primitive_cache_capacity(int capacity);

template <class Key, class Value, class Hash = absl::Hash<Key>, class Eq = std::equal_to<Key>>
class lru_cache {
 public:
  using value_ptr = std::shared_ptr<const Value>;

  // Follows primitive_cache_capacity().
  lru_cache() = default;
  // A fixed capacity (>= 0; a negative one counts as 0), independent of the global one.
  explicit lru_cache(int capacity) : fixed_capacity_(capacity < 0 ? 0 : capacity) {}

  lru_cache(const lru_cache&) = delete;
  lru_cache& operator=(const lru_cache&) = delete;

  // The value for key (marked most recently used), or nullptr. Counts a hit or a miss.
  value_ptr find(const Key& key) {
    std::vector<value_ptr> evicted;  // destroyed after the lock is released
    std::lock_guard<std::mutex> lock(mu_);
    trim(capacity(), evicted);
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }

  // Inserts value unless key is present; returns what the cache holds for key afterwards (the
  // existing value if there was one; `value` itself when the capacity is 0).
  value_ptr insert(const Key& key, value_ptr value) {
    std::vector<value_ptr> evicted;  // destroyed after the lock is released
    std::lock_guard<std::mutex> lock(mu_);
    const int cap = capacity();
    trim(cap, evicted);
    if (cap == 0) return value;
    if (auto it = index_.find(key); it != index_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return it->second->second;
    }
    order_.emplace_front(key, std::move(value));
    index_.emplace(key, order_.begin());
    trim(cap, evicted);
    return order_.front().second;
  }

  // find(), or on a miss make() (called without the lock held, so creations of different keys
  // run in parallel) then insert(). make returns absl::StatusOr<value_ptr>; an error is returned
  // as is and not cached. Two threads missing the same key at once both call make(); both get
  // the value inserted first. When `hit` is given, it is set to whether the value was found
  // (false whenever make() was called).
  template <class Make>
  absl::StatusOr<value_ptr> get_or_create(const Key& key, Make&& make, bool* hit = nullptr) {
    value_ptr found = find(key);
    if (hit != nullptr) *hit = found != nullptr;
    if (found) return found;
    absl::StatusOr<value_ptr> made = std::forward<Make>(make)();
    if (!made.ok()) return made.status();
    if (*made == nullptr) return absl::InternalError("lru_cache::get_or_create: make() returned null");
    return insert(key, *std::move(made));
  }

  void clear() {
    std::list<entry> dropped;  // destroyed after the lock is released
    std::lock_guard<std::mutex> lock(mu_);
    index_.clear();
    dropped.swap(order_);
  }
  // Entries now (may exceed capacity() until the next use after the capacity shrank).
  int64_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int64_t>(order_.size());
  }
  int capacity() const { return fixed_capacity_ ? *fixed_capacity_ : primitive_cache_capacity(); }

  int64_t hits() const {
    std::lock_guard<std::mutex> lock(mu_);
    return hits_;
  }
  int64_t misses() const {
    std::lock_guard<std::mutex> lock(mu_);
    return misses_;
  }
  void reset_counters() {
    std::lock_guard<std::mutex> lock(mu_);
    hits_ = misses_ = 0;
  }

 private:
  using entry = std::pair<Key, value_ptr>;

  // Evicted values are handed out, so that their destructors (which may be heavy, or even use
  // this cache) run without the lock.
  void trim(int cap, std::vector<value_ptr>& evicted) {  // mu_ held
    while (static_cast<int64_t>(order_.size()) > cap) {
      evicted.push_back(std::move(order_.back().second));
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

  const std::optional<int> fixed_capacity_{};
  // std::mutex, not absl::Mutex: Debian's Abseil is not built with TSan annotations, so TSan
  // could not see absl::Mutex synchronise.
  mutable std::mutex mu_;
  std::list<entry> order_;  // most recently used first
  absl::flat_hash_map<Key, typename std::list<entry>::iterator, Hash, Eq> index_;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
};

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_RUNTIME_LRU_CACHE_H_
