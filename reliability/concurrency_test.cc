// Concurrency: one reorder and one softmax primitive executed from 8 threads at once on
// different buffers give exactly the sequential results; primitives created concurrently (through
// the primitive caches) behave like ones created alone; the thread count can change between calls
// and while other threads execute. Tagged "threads": run under --config=tsan as well.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/testing/fill.h"

namespace tessera {
namespace {

constexpr int kThreads = 8;

using bytes = std::vector<uint8_t>;

bytes random_buffer(const memory_desc& md, uint64_t seed) {
  bytes b(md.size_bytes());
  EXPECT_TRUE(testing::fill_random(md, b.data(), {.seed = seed}).ok());
  return b;
}

// Starts fn(i) on kThreads threads released together, so the executions really overlap.
template <class Fn>
void run_together(Fn fn) {
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      fn(i);
    });
  }
  for (auto& t : threads) t.join();
}

struct reorder_case {
  memory_desc src, dst;
};

// f32 nchw -> bf16 nChw16c with C = 17 (padded), big enough to be split by parallel_for.
reorder_case padded_reorder() {
  return {*make_memory_desc({4, 17, 12, 13}, data_type::f32, "nchw"),
          *make_memory_desc({4, 17, 12, 13}, data_type::bf16, "nChw16c")};
}

bytes run_reorder(const reorder& r, const reorder_case& c, const bytes& src) {
  bytes dst(c.dst.size_bytes(), 0xEE);
  const absl::Status s = r.execute({{arg_from, {c.src, const_cast<uint8_t*>(src.data())}},
                                    {arg_to, {c.dst, dst.data()}}});
  EXPECT_TRUE(s.ok()) << s;
  return dst;
}

TEST(Concurrency, OneReorderFromEightThreadsMatchesSequentialRuns) {
  const reorder_case c = padded_reorder();
  auto r = reorder::create(c.src, c.dst);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<bytes> src, want(kThreads), got(kThreads);
  for (int i = 0; i < kThreads; ++i) src.push_back(random_buffer(c.src, 100 + i));
  for (int i = 0; i < kThreads; ++i) want[i] = run_reorder(*r, c, src[i]);
  for (int round = 0; round < 3; ++round) {
    run_together([&](int i) { got[i] = run_reorder(*r, c, src[i]); });
    for (int i = 0; i < kThreads; ++i) EXPECT_EQ(got[i], want[i]) << "thread " << i;
  }
  // The inputs differ, so equal outputs cannot come from one thread's buffer leaking to another.
  EXPECT_NE(want[0], want[1]);
}

struct softmax_case {
  memory_desc src, dst;
  int axis;
};

softmax_case strided_softmax() {
  return {*make_memory_desc({16, 37, 9}, data_type::f32, "acb"),
          *make_memory_desc({16, 37, 9}, data_type::f32, "abc"), 1};
}

bytes run_softmax(const softmax_forward& f, const softmax_case& c, const bytes& src) {
  bytes dst(c.dst.size_bytes(), 0xEE);
  const absl::Status s = f.execute({{arg::src, {c.src, const_cast<uint8_t*>(src.data())}},
                                    {arg::dst, {c.dst, dst.data()}}});
  EXPECT_TRUE(s.ok()) << s;
  return dst;
}

TEST(Concurrency, OneSoftmaxFromEightThreadsMatchesSequentialRuns) {
  const softmax_case c = strided_softmax();
  auto f = softmax_forward::create(softmax_alg::softmax, c.src, c.dst, c.axis);
  ASSERT_TRUE(f.ok()) << f.status();
  std::vector<bytes> src, want(kThreads), got(kThreads);
  for (int i = 0; i < kThreads; ++i) src.push_back(random_buffer(c.src, 200 + i));
  for (int i = 0; i < kThreads; ++i) want[i] = run_softmax(*f, c, src[i]);
  for (int round = 0; round < 3; ++round) {
    run_together([&](int i) { got[i] = run_softmax(*f, c, src[i]); });
    for (int i = 0; i < kThreads; ++i) EXPECT_EQ(got[i], want[i]) << "thread " << i;
  }
  EXPECT_NE(want[0], want[1]);
}

TEST(Concurrency, PrimitivesCreatedConcurrentlyBehaveLikeOnesCreatedAlone) {
  // Half of the threads ask for the same primitives (cache hits racing with the first
  // creation), half for their own shapes (concurrent insertions).
  auto shape = [](int i) -> std::vector<dim_t> {
    return {2, 16 + (i % 2 == 0 ? 0 : i), 5, 3};
  };
  std::vector<bytes> want_r(kThreads), want_s(kThreads), got_r(kThreads), got_s(kThreads);
  std::vector<bytes> src(kThreads);
  auto work = [&](int i, bytes& out_r, bytes& out_s) {
    const auto dims = shape(i);
    const reorder_case rc{*make_memory_desc(dims, data_type::f32, "nchw"),
                          *make_memory_desc(dims, data_type::f16, "nChw8c")};
    auto r = reorder::create(rc.src, rc.dst);
    ASSERT_TRUE(r.ok()) << r.status();
    out_r = run_reorder(*r, rc, src[i]);
    const softmax_case sc{rc.src, *make_memory_desc(dims, data_type::f32, "nhwc"), 1};
    auto f = softmax_forward::create(softmax_alg::logsoftmax, sc.src, sc.dst, sc.axis);
    ASSERT_TRUE(f.ok()) << f.status();
    out_s = run_softmax(*f, sc, src[i]);
  };
  for (int i = 0; i < kThreads; ++i) {
    src[i] = random_buffer(*make_memory_desc(shape(i), data_type::f32, "nchw"), 300 + i);
  }
  run_together([&](int i) { work(i, got_r[i], got_s[i]); });
  for (int i = 0; i < kThreads; ++i) work(i, want_r[i], want_s[i]);
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(got_r[i], want_r[i]) << "reorder, thread " << i;
    EXPECT_EQ(got_s[i], want_s[i]) << "softmax, thread " << i;
  }
}

TEST(Concurrency, ThreadCountChangedBetweenCallsGivesTheSameResults) {
  const reorder_case rc = padded_reorder();
  const softmax_case sc = strided_softmax();
  auto r = reorder::create(rc.src, rc.dst);
  auto f = softmax_forward::create(softmax_alg::softmax, sc.src, sc.dst, sc.axis);
  ASSERT_TRUE(r.ok() && f.ok());
  const bytes rsrc = random_buffer(rc.src, 1), ssrc = random_buffer(sc.src, 2);
  bytes want_r, want_s;
  {
    scoped_num_threads one(1);
    ASSERT_TRUE(one.status().ok());
    want_r = run_reorder(*r, rc, rsrc);
    want_s = run_softmax(*f, sc, ssrc);
  }
  for (int n : {2, 3, 8, 1, 5}) {
    scoped_num_threads scoped(n);
    ASSERT_TRUE(scoped.status().ok()) << scoped.status();
    EXPECT_EQ(num_threads(), n);
    EXPECT_EQ(run_reorder(*r, rc, rsrc), want_r) << n << " threads";
    EXPECT_EQ(run_softmax(*f, sc, ssrc), want_s) << n << " threads";
  }
}

TEST(Concurrency, ThreadCountChangedWhileOtherThreadsExecute) {
  const reorder_case rc = padded_reorder();
  const softmax_case sc = strided_softmax();
  auto r = reorder::create(rc.src, rc.dst);
  auto f = softmax_forward::create(softmax_alg::softmax, sc.src, sc.dst, sc.axis);
  ASSERT_TRUE(r.ok() && f.ok());
  const bytes rsrc = random_buffer(rc.src, 3), ssrc = random_buffer(sc.src, 4);
  const bytes want_r = run_reorder(*r, rc, rsrc), want_s = run_softmax(*f, sc, ssrc);
  const int before = num_threads();
  std::vector<int> mismatches(kThreads, 0);
  run_together([&](int i) {
    for (int k = 0; k < 4; ++k) {
      if (i == 0) {
        // set_num_threads is documented as safe while others run parallel_for.
        EXPECT_TRUE(set_num_threads(1 + k % 3).ok());
      } else if (i % 2 == 1) {
        mismatches[i] += run_reorder(*r, rc, rsrc) != want_r;
      } else {
        mismatches[i] += run_softmax(*f, sc, ssrc) != want_s;
      }
    }
  });
  ASSERT_TRUE(set_num_threads(before).ok());
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(mismatches[i], 0) << "thread " << i;
}

}  // namespace
}  // namespace tessera
