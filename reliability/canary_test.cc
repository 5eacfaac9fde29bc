// Canaries: on any error a primitive leaves its destination (padding included) byte for byte as
// it was; on success it changes no byte outside the destination's elements and padding — not the
// guard bytes around the buffer, not the gaps of a strided layout, not the parent of a
// submemory view.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/testing/compare.h"
#include "tessera/testing/fill.h"
#include "tessera/testing/index.h"

namespace tessera {
namespace {

constexpr uint8_t kCanary = 0x5A;

using bytes = std::vector<uint8_t>;

bytes random_buffer(const memory_desc& md, uint64_t seed) {
  bytes b(md.size_bytes());
  EXPECT_TRUE(testing::fill_random(md, b.data(), {.seed = seed}).ok());
  return b;
}

// A guarded buffer of md.size_bytes() filled with the canary byte.
struct canary_buffer {
  explicit canary_buffer(const memory_desc& md) : buf(md.size_bytes()) {
    std::memset(buf.data(), kCanary, md.size_bytes());
  }
  uint8_t* data() { return static_cast<uint8_t*>(buf.data()); }
  // Every byte still holds the canary, and so do the guards.
  ::testing::AssertionResult untouched() {
    for (int64_t i = 0; i < buf.size(); ++i) {
      if (data()[i] != kCanary) {
        return ::testing::AssertionFailure() << "byte " << i << " of " << buf.size()
                                             << " changed to " << int{data()[i]};
      }
    }
    return buf.guards_intact();
  }
  testing::guarded_buffer buf;
};

// The bytes md's elements and padding occupy (within the padded dims).
std::set<int64_t> owned_bytes(const memory_desc& md) {
  std::set<int64_t> owned;
  const int64_t elem = bits_of(md.dt()) / 8;
  testing::for_each_index(md.padded_dims(), [&](absl::Span<const dim_t> idx) {
    const int64_t off = testing::offset_of(md, idx) * elem;
    for (int64_t b = 0; b < elem; ++b) owned.insert(off + b);
  });
  return owned;
}

// Every byte not owned by md still holds the canary, and the guards are intact.
::testing::AssertionResult nothing_outside(canary_buffer& b, const memory_desc& md) {
  const std::set<int64_t> owned = owned_bytes(md);
  for (int64_t i = 0; i < b.buf.size(); ++i) {
    if (!owned.count(i) && b.data()[i] != kCanary) {
      return ::testing::AssertionFailure() << "byte " << i << " outside the destination changed";
    }
  }
  return b.buf.guards_intact();
}

// ---- errors leave the destination untouched ----------------------------------------------

struct reorder_setup {
  memory_desc src = *make_memory_desc({2, 17, 3, 5}, data_type::f32, "nchw");
  memory_desc dst = *make_memory_desc({2, 17, 3, 5}, data_type::s8, "nChw16c");  // padded C
  memory_desc one_f32 = *memory_desc::with_strides({1}, data_type::f32, {1});
  memory_desc two_f32 = *memory_desc::with_strides({2}, data_type::f32, {1});
};

TEST(Canary, ReorderExecutionErrorsLeaveTheDestinationUntouched) {
  reorder_setup s;
  primitive_attr attr;
  attr.src_scales = quant_param{.mask = 0};
  auto r = reorder::create(s.src, s.dst, attr);
  ASSERT_TRUE(r.ok()) << r.status();
  bytes src = random_buffer(s.src, 1);
  float good_scale = 0.5f;
  float two_scales[2] = {1.f, 2.f};
  const memory_desc other_src = *make_memory_desc({2, 17, 3, 5}, data_type::f32, "nhwc");
  struct bad_case {
    const char* what;
    std::function<exec_args(uint8_t* dst)> args;
  };
  const std::vector<bad_case> cases = {
      {"missing src", [&](uint8_t* d) {
         return exec_args{{arg_to, {s.dst, d}}, {arg::src_scales, {s.one_f32, &good_scale}}};
       }},
      {"src descriptor other than at creation", [&](uint8_t* d) {
         return exec_args{{arg_from, {other_src, src.data()}}, {arg_to, {s.dst, d}},
                          {arg::src_scales, {s.one_f32, &good_scale}}};
       }},
      {"null src", [&](uint8_t* d) {
         return exec_args{{arg_from, {s.src, nullptr}}, {arg_to, {s.dst, d}},
                          {arg::src_scales, {s.one_f32, &good_scale}}};
       }},
      {"missing scales", [&](uint8_t* d) {
         return exec_args{{arg_from, {s.src, src.data()}}, {arg_to, {s.dst, d}}};
       }},
      {"two scales for mask 0", [&](uint8_t* d) {
         return exec_args{{arg_from, {s.src, src.data()}}, {arg_to, {s.dst, d}},
                          {arg::src_scales, {s.two_f32, two_scales}}};
       }},
      {"null scales", [&](uint8_t* d) {
         return exec_args{{arg_from, {s.src, src.data()}}, {arg_to, {s.dst, d}},
                          {arg::src_scales, {s.one_f32, nullptr}}};
       }},
      {"undeclared dst scales", [&](uint8_t* d) {
         return exec_args{{arg_from, {s.src, src.data()}}, {arg_to, {s.dst, d}},
                          {arg::src_scales, {s.one_f32, &good_scale}},
                          {arg::dst_scales, {s.one_f32, &good_scale}}};
       }},
      {"a diff_dst argument", [&](uint8_t* d) {
         return exec_args{{arg_from, {s.src, src.data()}}, {arg_to, {s.dst, d}},
                          {arg::src_scales, {s.one_f32, &good_scale}},
                          {arg::diff_dst, {s.src, src.data()}}};
       }},
  };
  for (const auto& c : cases) {
    canary_buffer dst(s.dst);
    const absl::Status st = r->execute(c.args(dst.data()));
    EXPECT_FALSE(st.ok()) << c.what;
    EXPECT_TRUE(dst.untouched()) << c.what << ": " << st;
  }
}

TEST(Canary, ReorderOverlappingBuffersAreRefusedUntouched) {
  const memory_desc md = *make_memory_desc({4, 32}, data_type::f32, "ab");
  const memory_desc t = *make_memory_desc({4, 32}, data_type::f32, "ba");
  auto r = reorder::create(md, t);
  ASSERT_TRUE(r.ok());
  canary_buffer buf(*memory_desc::with_strides({2 * 4 * 32}, data_type::f32, {1}));
  // src is the second half of dst's bytes shifted by one element: a partial overlap.
  const absl::Status st =
      r->execute({{arg_from, {md, buf.data() + 4}}, {arg_to, {t, buf.data()}}});
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(buf.untouched()) << st;
}

TEST(Canary, SoftmaxExecutionErrorsLeaveTheDestinationUntouched) {
  const memory_desc src = *make_memory_desc({3, 20, 4}, data_type::f32, "abc");
  const memory_desc dst = *make_memory_desc({3, 20, 4}, data_type::s8, "aBc16b");  // padded
  const memory_desc one_f32 = *memory_desc::with_strides({1}, data_type::f32, {1});
  primitive_attr attr;
  attr.src_scales = quant_param{};
  attr.dst_scales = quant_param{};
  auto f = softmax_forward::create(softmax_alg::softmax, src, dst, 1, attr);
  ASSERT_TRUE(f.ok()) << f.status();
  bytes x = random_buffer(src, 2);
  float one = 1.f, zero = 0.f, nan = std::numeric_limits<float>::quiet_NaN(),
        inf = std::numeric_limits<float>::infinity();
  auto args = [&](uint8_t* d, float* ss, float* ds) {
    exec_args a{{arg::src, {src, x.data()}}, {arg::dst, {dst, d}}};
    if (ss) a.set(arg::src_scales, {one_f32, ss});
    if (ds) a.set(arg::dst_scales, {one_f32, ds});
    return a;
  };
  struct bad_case {
    const char* what;
    std::function<exec_args(uint8_t*)> args;
  };
  const std::vector<bad_case> cases = {
      {"dst scale 0", [&](uint8_t* d) { return args(d, &one, &zero); }},
      {"src scale NaN", [&](uint8_t* d) { return args(d, &nan, &one); }},
      {"dst scale Inf", [&](uint8_t* d) { return args(d, &one, &inf); }},
      {"missing dst scale", [&](uint8_t* d) { return args(d, &one, nullptr); }},
      {"missing src", [&](uint8_t* d) {
         exec_args a = args(d, &one, &one);
         a.set(arg::src, {src, nullptr});
         return a;
       }},
      {"dst descriptor other than at creation", [&](uint8_t* d) {
         exec_args a = args(d, &one, &one);
         a.set(arg::dst, {*make_memory_desc({3, 20, 4}, data_type::s8, "abc"), d});
         return a;
       }},
  };
  for (const auto& c : cases) {
    canary_buffer d(dst);
    const absl::Status st = f->execute(c.args(d.data()));
    EXPECT_FALSE(st.ok()) << c.what;
    EXPECT_TRUE(d.untouched()) << c.what << ": " << st;
  }
}

TEST(Canary, SoftmaxPartialOverlapIsRefusedUntouched) {
  const memory_desc md = *make_memory_desc({8, 16}, data_type::f32, "ab");
  auto f = softmax_forward::create(softmax_alg::softmax, md, md, 1);
  ASSERT_TRUE(f.ok());
  canary_buffer buf(*memory_desc::with_strides({2 * 8 * 16}, data_type::f32, {1}));
  const absl::Status st =
      f->execute({{arg::src, {md, buf.data() + 4}}, {arg::dst, {md, buf.data()}}});
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(buf.untouched()) << st;
}

// ---- success writes nothing outside the destination -------------------------------------

// Destinations with padding, with gaps between rows, and a view inside a larger parent buffer.
struct dst_case {
  std::string name;
  memory_desc md;
};

std::vector<dst_case> destinations(data_type dt) {
  const std::vector<dim_t> dims = {2, 17, 3, 5};
  std::vector<dst_case> out;
  out.push_back({"nChw16c (padded C)", *make_memory_desc(dims, dt, "nChw16c")});
  out.push_back({"nhwc with gaps",
                 *memory_desc::with_strides(dims, dt, {3 * 5 * 20, 1, 5 * 20, 20})});
  const memory_desc parent = *make_memory_desc({4, 20, 6, 9}, dt, "nchw");
  out.push_back({"submemory of nchw", *parent.submemory(dims, {1, 2, 3, 4})});
  const memory_desc bparent = *make_memory_desc({2, 48, 3, 5}, dt, "nChw16c");
  out.push_back({"submemory of nChw16c", *bparent.submemory({2, 16, 3, 5}, {0, 16, 0, 0})});
  return out;
}

TEST(Canary, ReorderWritesNothingOutsideTheDestination) {
  const memory_desc src = *make_memory_desc({2, 17, 3, 5}, data_type::f32, "nchw");
  const bytes x = random_buffer(src, 3);
  for (data_type dt : {data_type::f32, data_type::bf16, data_type::s8}) {
    for (const auto& c : destinations(dt)) {
      const memory_desc s = c.md.dims()[1] == 17
                                ? src
                                : *make_memory_desc(c.md.dims(), data_type::f32, "nchw");
      const bytes sx = c.md.dims()[1] == 17 ? x : random_buffer(s, 4);
      auto r = reorder::create(s, c.md);
      ASSERT_TRUE(r.ok()) << c.name << ": " << r.status();
      canary_buffer d(c.md);
      const absl::Status st =
          r->execute({{arg_from, {s, const_cast<uint8_t*>(sx.data())}}, {arg_to, {c.md, d.data()}}});
      ASSERT_TRUE(st.ok()) << c.name << ": " << st;
      EXPECT_TRUE(nothing_outside(d, c.md)) << c.name << " " << name_of(dt) << " "
                                            << r->impl_name();
    }
  }
}

TEST(Canary, SoftmaxWritesNothingOutsideTheDestination) {
  for (data_type dt : {data_type::f32, data_type::bf16}) {
    for (const auto& c : destinations(dt)) {
      const memory_desc s = *make_memory_desc(c.md.dims(), data_type::f32, "nchw");
      const bytes sx = random_buffer(s, 5);
      for (int axis : {1, 3}) {
        auto f = softmax_forward::create(softmax_alg::softmax, s, c.md, axis);
        ASSERT_TRUE(f.ok()) << c.name << ": " << f.status();
        canary_buffer d(c.md);
        const absl::Status st = f->execute(
            {{arg::src, {s, const_cast<uint8_t*>(sx.data())}}, {arg::dst, {c.md, d.data()}}});
        ASSERT_TRUE(st.ok()) << c.name << ": " << st;
        EXPECT_TRUE(nothing_outside(d, c.md))
            << c.name << " " << name_of(dt) << " axis " << axis << " " << f->impl_name();
      }
    }
  }
}

TEST(Canary, EmptyReorderWritesNothing) {
  const memory_desc src = *make_memory_desc({0, 17, 3}, data_type::f32, "abc");
  const memory_desc dst = *make_memory_desc({0, 17, 3}, data_type::f32, "aBc16b");
  canary_buffer d(*memory_desc::with_strides({64}, data_type::f32, {1}));
  auto r = reorder::create(src, dst);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->execute({{arg_from, {src, nullptr}}, {arg_to, {dst, d.data()}}}).ok());
  EXPECT_TRUE(d.untouched());
}

// A softmax with a 0-byte blocked destination writes nothing, not even its padding.
TEST(Canary, EmptySoftmaxWritesNothing) {
  const memory_desc src = *make_memory_desc({0, 17, 3}, data_type::f32, "abc");
  const memory_desc dst = *make_memory_desc({0, 17, 3}, data_type::f32, "aBc16b");
  canary_buffer d(*memory_desc::with_strides({64}, data_type::f32, {1}));
  auto f = softmax_forward::create(softmax_alg::softmax, src, dst, 1);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->execute({{arg::src, {src, nullptr}}, {arg::dst, {dst, d.data()}}}).ok());
  EXPECT_TRUE(d.untouched());
}

}  // namespace
}  // namespace tessera
