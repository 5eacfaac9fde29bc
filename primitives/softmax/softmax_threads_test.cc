// Threads: results do not depend on the thread count (rows are independent, each row is computed
// by one thread), and concurrent executions of one primitive are safe.
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
