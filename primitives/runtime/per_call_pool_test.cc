// Reorder and softmax executed with a per-call pool: the pool given to execute runs the chunks,
// the results equal those of a sequential run, and threads with different pools do not mix.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/runtime/internal/counting_pool.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/softmax/softmax.h"

namespace tessera {
namespace {

memory_desc md(std::vector<dim_t> dims, data_type dt, const char* tag) {
  auto m = make_memory_desc(dims, dt, tag);
  EXPECT_TRUE(m.ok()) << m.status();
  return *m;
}

using runtime_internal::counting_pool;

std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>(i % 251) - 125) / 16;
  return v;
}

// An nchw -> nhwc reorder of 2 MiB, large enough to be split over threads.
struct reorder_case {
  memory_desc src = md({8, 64, 32, 32}, data_type::f32, "nchw");
  memory_desc dst = md({8, 64, 32, 32}, data_type::f32, "nhwc");
  std::vector<float> in = ramp(8 * 64 * 32 * 32);

  std::vector<float> run(thread_pool* pool) const {
    auto r = reorder::create(src, dst);
    EXPECT_TRUE(r.ok()) << r.status();
    std::vector<float> out(in.size(), -1.0f);
    exec_args args{{arg_from, {src, const_cast<float*>(in.data())}}, {arg_to, {dst, out.data()}}};
    absl::Status s = pool == nullptr ? r->execute(args) : r->execute(args, *pool);
    EXPECT_TRUE(s.ok()) << s;
    return out;
  }
};

// A 1024 x 1000 softmax forward and its backward.
struct softmax_case {
  memory_desc desc = md({1024, 1000}, data_type::f32, "ab");
  std::vector<float> x = ramp(1024 * 1000);

  std::vector<float> run(thread_pool* pool) const {
    auto fwd = softmax_forward::create(softmax_alg::softmax, desc, desc, 1);
    auto bwd = softmax_backward::create(softmax_alg::softmax, desc, desc, desc, 1);
    EXPECT_TRUE(fwd.ok()) << fwd.status();
    EXPECT_TRUE(bwd.ok()) << bwd.status();
    std::vector<float> y(x.size()), dx(x.size());
    exec_args f{{arg::src, {desc, const_cast<float*>(x.data())}}, {arg::dst, {desc, y.data()}}};
    exec_args b{{arg::dst, {desc, y.data()}},
                {arg::diff_dst, {desc, const_cast<float*>(x.data())}},
                {arg::diff_src, {desc, dx.data()}}};
    absl::Status fs = pool == nullptr ? fwd->execute(f) : fwd->execute(f, *pool);
    EXPECT_TRUE(fs.ok()) << fs;
    absl::Status bs = pool == nullptr ? bwd->execute(b) : bwd->execute(b, *pool);
    EXPECT_TRUE(bs.ok()) << bs;
    y.insert(y.end(), dx.begin(), dx.end());
    return y;
  }
};

// The case run on a 3-thread counting pool gives the sequential run's bits, on more than one chunk.
template <class Case>
void expect_pool_runs_it_with_the_same_result() {
  Case c;
  std::vector<float> sequential;
  {
    scoped_num_threads one(1);
    ASSERT_TRUE(one.status().ok());
    sequential = c.run(nullptr);
  }
  counting_pool pool(3);
  EXPECT_EQ(c.run(&pool), sequential);
  EXPECT_GT(pool.chunks.load(), 1);
}

TEST(PerCallPool, RunsTheReorderWithTheSameResult) {
  expect_pool_runs_it_with_the_same_result<reorder_case>();
}

TEST(PerCallPool, RunsTheSoftmaxWithTheSameResult) {
  expect_pool_runs_it_with_the_same_result<softmax_case>();
}

TEST(PerCallPool, OverridesTheInjectedPoolForThatCallOnly) {
  reorder_case c;
  auto global = std::make_shared<counting_pool>(2);
  set_thread_pool(global);
  counting_pool per_call(4);
  const std::vector<float> on_per_call = c.run(&per_call);
  EXPECT_GT(per_call.chunks.load(), 1);
  EXPECT_EQ(global->chunks.load(), 0);
  EXPECT_EQ(c.run(nullptr), on_per_call);
  EXPECT_GT(global->chunks.load(), 1);
  set_thread_pool(nullptr);
}

// Several application threads execute at once, each with its own pool.
TEST(PerCallPool, ConcurrentCallsWithDifferentPools) {
  reorder_case r;
  softmax_case s;
  std::vector<float> r_want, s_want;
  {
    scoped_num_threads one(1);
    ASSERT_TRUE(one.status().ok());
    r_want = r.run(nullptr);
    s_want = s.run(nullptr);
  }
  auto global = std::make_shared<counting_pool>(2);
  set_thread_pool(global);
  constexpr int kThreads = 4;
  constexpr int kRounds = 3;
  std::vector<std::unique_ptr<counting_pool>> pools;
  for (int t = 0; t < kThreads; ++t) pools.push_back(std::make_unique<counting_pool>(2 + t % 2));
  std::atomic<int> mismatches{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        const bool ok = t % 2 == 0 ? r.run(pools[t].get()) == r_want
                                   : s.run(pools[t].get()) == s_want;
        if (!ok) mismatches.fetch_add(1);
      }
    });
  }
  for (std::thread& c : callers) c.join();
  EXPECT_EQ(mismatches.load(), 0);
  for (int t = 0; t < kThreads; ++t) EXPECT_GT(pools[t]->chunks.load(), kRounds) << "pool " << t;
  EXPECT_EQ(global->chunks.load(), 0);
  set_thread_pool(nullptr);
}

}  // namespace
}  // namespace tessera
