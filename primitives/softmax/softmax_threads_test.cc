// Threads: results do not depend on the thread count (rows are independent and each is computed by
// one thread, except a split strided group, whose parts are fixed by the problem), and concurrent
// executions of one primitive are safe.
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/primitives/softmax/softmax_test_util.h"
#include "tessera/testing/softmax/softmax_reference.h"

namespace tessera {
namespace {

using softmax_test::buffer;
using softmax_test::plain;

std::vector<uint8_t> run(const softmax_forward& fwd, const std::vector<uint8_t>& src) {
  auto dst = buffer(fwd.dst_desc());
  EXPECT_TRUE(fwd.execute({{arg::src, {fwd.src_desc(), const_cast<uint8_t*>(src.data())}},
                           {arg::dst, {fwd.dst_desc(), dst.data()}}})
                  .ok());
  return dst;
}

TEST(SoftmaxThreads, SameResultForAnyThreadCount) {
  for (int axis : {0, 1}) {
    const memory_desc md = plain({512, 300}, data_type::f32);
    for (const std::string& filter : softmax_test::kernel_filters()) {
      auto fwd = softmax_forward::create(softmax_alg::softmax, md, md, axis, {}, {filter});
      if (!fwd.ok()) continue;
      auto src = buffer(md);
      std::vector<double> v(md.nelems());
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 97) * 0.1;
      testing::write_logical(md, src.data(), v);
      std::vector<uint8_t> one, two;
      {
        scoped_num_threads t(1);
        one = run(*fwd, src);
      }
      {
        scoped_num_threads t(2);
        two = run(*fwd, src);
      }
      EXPECT_EQ(one, two) << fwd->impl_name();
    }
  }
}

// A single strided group split along its axis (a fixed number of parts, whatever the thread
// count): 1, 2 and 3 threads give the same bits, for every algorithm, on every ISA.
TEST(SoftmaxThreads, SplitGroupSameResultForAnyThreadCount) {
  for (const std::vector<dim_t>& dims :
       {std::vector<dim_t>{9000, 8}, {5001, 20}, {12000, 3}, {20001, 2}}) {
    const memory_desc md = plain(dims, data_type::f32);
    auto src = buffer(md);
    std::vector<double> v(md.nelems());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7919) % 1013) * 0.03;
    testing::write_logical(md, src.data(), v);
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax,
                            softmax_alg::softmax_inf_as_zero}) {
      for (const std::string& filter : softmax_test::kernel_filters()) {
        auto fwd = softmax_forward::create(alg, md, md, 0, {}, {filter});
        ASSERT_TRUE(fwd.ok()) << fwd.status();
        std::vector<uint8_t> one;
        {
          scoped_num_threads t(1);
          one = run(*fwd, src);
        }
        for (int threads : {2, 3}) {
          scoped_num_threads t(threads);
          EXPECT_EQ(run(*fwd, src), one) << fwd->impl_name() << " " << name_of(alg) << " "
                                         << dims[0] << "x" << dims[1] << ", " << threads
                                         << " threads";
        }
      }
    }
  }
}

// The backward of a split group likewise: 1, 2 and 3 threads give the same bits.
TEST(SoftmaxThreads, SplitGroupBackwardSameResultForAnyThreadCount) {
  for (const std::vector<dim_t>& dims :
       {std::vector<dim_t>{9000, 8}, {5001, 20}, {12000, 3}, {20001, 2}}) {
    const memory_desc md = plain(dims, data_type::f32);
    auto y = buffer(md);
    auto dy = buffer(md);
    std::vector<double> v(md.nelems());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 7919) % 1013) * 1e-4;
    testing::write_logical(md, y.data(), v);
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = static_cast<double>((i * 104729) % 997) * 1e-3 - 0.5;
    }
    testing::write_logical(md, dy.data(), v);
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      for (const std::string& filter : softmax_test::kernel_filters()) {
        auto bwd = softmax_backward::create(alg, md, md, md, 0, {}, {filter});
        ASSERT_TRUE(bwd.ok()) << bwd.status();
        auto run_bwd = [&] {
          auto dx = buffer(md);
          EXPECT_TRUE(bwd->execute({{arg::dst, {md, y.data()}},
                                    {arg::diff_dst, {md, dy.data()}},
                                    {arg::diff_src, {md, dx.data()}}})
                          .ok());
          return dx;
        };
        std::vector<uint8_t> one;
        {
          scoped_num_threads t(1);
          one = run_bwd();
        }
        for (int threads : {2, 3}) {
          scoped_num_threads t(threads);
          EXPECT_EQ(run_bwd(), one) << bwd->impl_name() << " " << name_of(alg) << " " << dims[0]
                                    << "x" << dims[1] << ", " << threads << " threads";
        }
      }
    }
  }
}

TEST(SoftmaxThreads, ConcurrentExecutions) {
  const memory_desc md = plain({256, 1000}, data_type::f32);
  auto fwd = softmax_forward::create(softmax_alg::logsoftmax, md, md, 1);
  ASSERT_TRUE(fwd.ok());
  auto src = buffer(md);
  std::vector<double> v(md.nelems());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 31) - 15;
  testing::write_logical(md, src.data(), v);
  const auto want = run(*fwd, src);
  std::vector<std::thread> threads;
  std::vector<std::vector<uint8_t>> got(4);
  for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { got[t] = run(*fwd, src); });
  for (auto& t : threads) t.join();
  for (const auto& g : got) EXPECT_EQ(g, want);
}

}  // namespace
}  // namespace tessera
