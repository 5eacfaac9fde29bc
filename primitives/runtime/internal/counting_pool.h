// A thread_pool for tests: runs each chunk on a thread of its own and counts the parallel_for
// calls and the chunks it ran, so a test can tell which pool did the work.
//
//   tessera::runtime_internal::counting_pool pool(4);
//   ASSERT_TRUE(r.execute(args, pool).ok());
//   EXPECT_GT(pool.chunks.load(), 1);
#ifndef TESSERA_PRIMITIVES_RUNTIME_INTERNAL_COUNTING_POOL_H_
#define TESSERA_PRIMITIVES_RUNTIME_INTERNAL_COUNTING_POOL_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "tessera/primitives/runtime/threads.h"

namespace tessera::runtime_internal {

class counting_pool : public thread_pool {
 public:
  explicit counting_pool(int n) : n_(n) {}
  int num_threads() const override { return n_; }
  void parallel_for(int64_t n, int64_t chunk,
                    absl::FunctionRef<void(int64_t, int64_t)> fn) override {
    calls.fetch_add(1);
    std::vector<std::thread> threads;
    for (int64_t b = 0; b < n; b += chunk) {
      chunks.fetch_add(1);
      threads.emplace_back([fn, b, n, chunk] { fn(b, std::min(n, b + chunk)); });
    }
    for (std::thread& t : threads) t.join();
  }
  std::atomic<int> calls{0};
  std::atomic<int> chunks{0};

 private:
  int n_;
};

}  // namespace tessera::runtime_internal

#endif  // TESSERA_PRIMITIVES_RUNTIME_INTERNAL_COUNTING_POOL_H_
