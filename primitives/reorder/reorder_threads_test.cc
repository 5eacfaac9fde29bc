// Multithreaded reorders: work split by the runtime's parallel_for, and one primitive executed
// from several threads at once, each result equal to the reference byte for byte.
#include <thread>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/testing/fill.h"
#include "tessera/testing/reorder/reference.h"

namespace tessera {
namespace {

struct problem {
  memory_desc src, dst;
  primitive_attr attr;
};

// Executes r on fresh buffers and returns whether dst equals the reference's.
bool matches_reference(const reorder& r, const problem& p, uint64_t seed) {
  std::vector<unsigned char> src(p.src.size_bytes()), got(p.dst.size_bytes(), 0x5A);
  EXPECT_TRUE(testing::fill_random(p.src, src.data(), {.seed = seed}).ok());
  std::vector<unsigned char> want = got;
  float scale = 0.75f;
  memory scale_mem{*memory_desc::with_strides({1}, data_type::f32, {1}), &scale};
  exec_args args{{arg_from, {p.src, src.data()}}, {arg_to, {p.dst, got.data()}}};
  exec_args quant;
  if (p.attr.src_scales) {
    args.set(arg::src_scales, scale_mem);
    quant.set(arg::src_scales, scale_mem);
  }
  if (!r.execute(args).ok()) return false;
  if (!testing::reference_reorder({p.src, src.data()}, {p.dst, want.data()}, p.attr, quant).ok()) {
    return false;
  }
  return got == want;
}

std::vector<problem> problems() {
  primitive_attr scaled;
  scaled.src_scales = quant_param{.mask = 0};
  const std::vector<dim_t> dims = {4, 35, 33, 31};
  return {
      {*make_memory_desc(dims, data_type::f32, "nchw"), *make_memory_desc(dims, data_type::f32, "nChw16c"), {}},
      {*make_memory_desc(dims, data_type::f32, "nchw"), *make_memory_desc(dims, data_type::s8, "nhwc"), scaled},
      {*make_memory_desc(dims, data_type::f32, "nchw"), *make_memory_desc(dims, data_type::bf16, "nchw"), {}},
      {*make_memory_desc(dims, data_type::u8, "nhwc"), *make_memory_desc(dims, data_type::f16, "nchw"), {}},
  };
}

TEST(ReorderThreads, SplitWorkMatchesReference) {
  scoped_num_threads two(2);
  ASSERT_TRUE(two.status().ok());
  uint64_t seed = 1;
  for (const problem& p : problems()) {
    for (const char* filter : {"", "strided"}) {
      auto r = reorder::create(p.src, p.dst, p.attr, {.impl_filter = filter});
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_TRUE(matches_reference(*r, p, seed++)) << r->impl_name();
    }
  }
}

TEST(ReorderThreads, OnePrimitiveFromManyThreads) {
  scoped_num_threads two(2);
  for (const problem& p : problems()) {
    auto r = reorder::create(p.src, p.dst, p.attr);
    ASSERT_TRUE(r.ok()) << r.status();
    std::vector<int> ok(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] { ok[t] = matches_reference(*r, p, 100 + t); });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t) EXPECT_TRUE(ok[t]) << r->impl_name() << " thread " << t;
  }
}

// One primitive created with every dim at run time, executed from 8 threads at once, each on its
// own shapes (each shape twice: the second call finds its plan), so plans of different shapes
// are built and looked up concurrently.
TEST(ReorderThreads, OneRuntimePatternFromEightThreadsOnDifferentShapes) {
  scoped_num_threads two(2);
  constexpr dim_t R = kRuntimeDim;
  primitive_attr scaled;
  scaled.src_scales = quant_param{.mask = 0};
  for (const auto& [stag, dtag, attr] :
       {std::tuple{"nchw", "nChw16c", primitive_attr{}}, std::tuple{"nhwc", "nchw", scaled}}) {
    auto r = reorder::create(*make_memory_desc({R, R, R, R}, data_type::f32, stag),
                             *make_memory_desc({R, R, R, R}, data_type::f32, dtag), attr);
    ASSERT_TRUE(r.ok()) << r.status();
    std::vector<int> ok(8, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        int passed = 0;
        for (int i = 0; i < 4; ++i) {
          const std::vector<dim_t> dims = {1 + (t + i / 2) % 3, 5 + 3 * t, 3 + i / 2, 2 + t};
          problem p{*make_memory_desc(dims, data_type::f32, stag), *make_memory_desc(dims, data_type::f32, dtag),
                    attr};
          passed += matches_reference(*r, p, 200 + 10 * t + i);
        }
        ok[t] = passed == 4;
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 8; ++t) EXPECT_TRUE(ok[t]) << stag << " -> " << dtag << " thread " << t;
  }
}

}  // namespace
}  // namespace tessera
