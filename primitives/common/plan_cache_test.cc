// The plan cache: key equality and hash, hits and misses, errors not cached, the verbose lines.
#include "tessera/primitives/common/plan_cache.h"

#include <string>
#include <vector>

#include "absl/hash/hash_testing.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/attr.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct toy_problem {
  memory_desc md;
  primitive_attr attr;
  friend bool operator==(const toy_problem&, const toy_problem&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const toy_problem& p) {
    return H::combine(std::move(h), p.md, p.attr);
  }
};

struct toy_plan {
  std::string name;
};

// A dense row-major f32 tensor.
toy_problem problem(std::vector<dim_t> dims) {
  std::vector<dim_t> strides(dims.size(), 1);
  for (size_t d = dims.size() - 1; d-- > 0;) strides[d] = strides[d + 1] * dims[d + 1];
  return {*memory_desc::with_strides(dims, data_type::f32, strides), {}};
}

TEST(PlanKey, EqualityAndHashAgree) {
  primitive_attr scales;
  scales.src_scales = quant_param{.mask = 1};
  primitive_attr other_mask;
  other_mask.src_scales = quant_param{.mask = 2};
  primitive_attr oscale;
  oscale.oscale = output_scales{.mask = 0, .values = {0.5f}};
  primitive_attr sum;
  sum.sum = sum_post_op{.beta = 0.5f, .zero_point = 3};
  toy_problem a = problem({2, 3}), b = problem({3, 2});
  toy_problem a_scales = a, a_mask = a, a_oscale = a, a_sum = a;
  a_scales.attr = scales;
  a_mask.attr = other_mask;
  a_oscale.attr = oscale;
  a_sum.attr = sum;
  using key = plan_key<toy_problem>;
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly({
      key{a, simd::isa::avx2, ""},
      key{a, simd::isa::avx512bw, ""},
      key{a, simd::isa::avx2, "avx2"},
      key{b, simd::isa::avx2, ""},
      key{a_scales, simd::isa::avx2, ""},
      key{a_mask, simd::isa::avx2, ""},
      key{a_oscale, simd::isa::avx2, ""},
      key{a_sum, simd::isa::avx2, ""},
  }));
  EXPECT_EQ((key{a, simd::isa::avx2, ""}), (key{problem({2, 3}), simd::isa::avx2, ""}));
  EXPECT_NE((key{a, simd::isa::avx2, ""}), (key{a_scales, simd::isa::avx2, ""}));
}

TEST(PlanCache, BuildsOnceAndPrintsMissThenHit) {
  plan_cache<toy_problem, toy_plan> cache;
  verbose_capture capture;
  scoped_verbose on(verbose_flags::create_profile);
  int built = 0;
  auto make = [&]() -> absl::StatusOr<std::shared_ptr<const toy_plan>> {
    ++built;
    return std::make_shared<const toy_plan>(toy_plan{"xsimd:avx2:toy"});
  };
  auto describe = [](const toy_plan& p) {
    return verbose_record{"reorder", p.name, "undef", "", "", "", "2x3"};
  };
  const plan_key<toy_problem> k{problem({2, 3}), simd::isa::avx2, ""};
  auto first = cache.get_or_create(k, make, describe);
  auto second = cache.get_or_create(k, make, describe);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(built, 1);
  EXPECT_EQ(first->get(), second->get());
  EXPECT_EQ(cache.entries().size(), 1);
  EXPECT_THAT(capture.lines_of("create"),
              ElementsAre(HasSubstr("create:cache_miss,cpu,reorder,xsimd:avx2:toy,"),
                          HasSubstr("create:cache_hit,cpu,reorder,xsimd:avx2:toy,")));
}

TEST(PlanCache, ErrorsAreNotCachedAndPrintNoLine) {
  plan_cache<toy_problem, toy_plan> cache;
  verbose_capture capture;
  scoped_verbose on(verbose_flags::create_profile);
  int built = 0;
  auto fail = [&]() -> absl::StatusOr<std::shared_ptr<const toy_plan>> {
    ++built;
    return absl::InvalidArgumentError("no");
  };
  auto describe = [](const toy_plan&) { return verbose_record{}; };
  const plan_key<toy_problem> k{problem({4}), simd::isa::sse4_2, ""};
  EXPECT_FALSE(cache.get_or_create(k, fail, describe).ok());
  EXPECT_FALSE(cache.get_or_create(k, fail, describe).ok());
  EXPECT_EQ(built, 2);
  EXPECT_EQ(cache.entries().size(), 0);
  EXPECT_TRUE(capture.lines_of("create").empty());
}

}  // namespace
}  // namespace tessera
