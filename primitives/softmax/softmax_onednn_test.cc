// Differential test against oneDNN 2.6.3 (softmax_v2) with benchdnn's comparison rule, on the
// problems both implement: Tessera's output is compared with oneDNN's, and both with the f64
// reference.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/primitives/softmax/softmax_test_util.h"
#include "tessera/testing/onednn.h"
#include "tessera/testing/softmax/softmax_reference.h"

namespace tessera {
namespace {

using softmax_test::blocked;
using softmax_test::buffer;
using softmax_test::plain;

struct diff_case {
  std::string name;
  memory_desc src;
  data_type ddt;
  int axis;
};

std::vector<diff_case> cases() {
  std::vector<diff_case> c;
  for (data_type st : {data_type::f32, data_type::bf16, data_type::f16}) {
    for (data_type dt : {data_type::f32, data_type::bf16, data_type::f16}) {
      c.push_back({"dense 64x1000", plain({64, 1000}, st), dt, 1});
    }
  }
  c.push_back({"dense 8x30522", plain({8, 30522}, data_type::f32), data_type::f32, 1});
  c.push_back({"dense 100x128", plain({100, 128}, data_type::f32), data_type::f32, 1});
  c.push_back({"nchw axis 1", plain({2, 1000, 7, 7}, data_type::f32), data_type::f32, 1});
  c.push_back({"nChw16c axis 1", blocked({2, 1000, 7, 7}, data_type::f32, 1, 16), data_type::f32, 1});
  c.push_back({"nChw16c C=17 axis 1", blocked({2, 17, 3, 5}, data_type::f32, 1, 16), data_type::f32, 1});
  c.push_back({"3000x8 axis 0", plain({3000, 8}, data_type::f32), data_type::f32, 0});
  c.push_back({"nhwc axis 1", plain({2, 64, 5, 5}, data_type::bf16, {0, 2, 3, 1}), data_type::bf16, 1});
  c.push_back({"axis 2 of 4d", plain({3, 4, 50, 6}, data_type::f32), data_type::f32, 2});
  return c;
}

// oneDNN is the oracle except where it is the less accurate of the two: an element where Tessera
// is at least as close to the f64 result as oneDNN counts as agreeing (oneDNN 2.6.3's logsoftmax
// and backward are off the exact result by more than benchdnn's threshold in places; the test
// prints how many elements this rule settled).
std::vector<double> oracle(const std::vector<double>& onednn, const std::vector<double>& ours,
                           const std::vector<double>& exact, const std::string& what,
                           double threshold) {
  std::vector<double> o = onednn;
  int settled = 0;
  for (size_t i = 0; i < o.size(); ++i) {
    const bool beyond = std::fabs(o[i] - ours[i]) > threshold * std::max(std::fabs(o[i]), 1e-5);
    if (beyond && std::fabs(ours[i] - exact[i]) <= std::fabs(onednn[i] - exact[i])) {
      o[i] = ours[i];
      ++settled;
    }
  }
  if (settled) std::printf("%s: %d elements where oneDNN is farther from f64 than Tessera\n",
                           what.c_str(), settled);
  return o;
}

// What oneDNN 2.6.3's CPU softmax must implement here: f32 everywhere, and bf16 where the CPU has
// AVX512-core (without it, it declines bf16: seen on an AVX2-only Zen 3). Other cases (f16) are
// compared when oneDNN takes them and skipped, with a line saying so, when it declines.
bool onednn_must_implement(std::initializer_list<data_type> types) {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto core = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
  const bool bf16 = (isa & core) == core;
  for (data_type t : types) {
    if (t != data_type::f32 && !(t == data_type::bf16 && bf16)) return false;
  }
  return true;
}

double vs_exact_threshold(const testing::softmax_compare_setup& setup) {
  return testing::benchdnn_softmax_compare(setup, {}, {}).threshold;
}

std::vector<double> fill(size_t n, std::mt19937& rng) {
  // benchdnn's two regimes: all negative (max < 0), and values beyond exp's overflow argument.
  std::vector<double> v(n);
  std::uniform_real_distribution<double> neg(-16, -1), wide(-10, 100);
  const bool negative = rng() % 2;
  for (auto& x : v) x = negative ? neg(rng) : wide(rng);
  return v;
}

TEST(SoftmaxOneDnn, ForwardMatchesWithinBenchdnnTolerance) {
  std::mt19937 rng(5);
  int compared = 0, required = 0;
  for (const diff_case& c : cases()) {
    const bool must = onednn_must_implement({c.src.dt(), c.ddt});
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      const memory_desc dst = *memory_desc::any(
          std::vector<dim_t>(c.src.dims().begin(), c.src.dims().end()), c.ddt);
      auto ours = softmax_forward::create(alg, c.src, dst, c.axis);
      ASSERT_TRUE(ours.ok()) << ours.status();
      auto src = buffer(c.src);
      testing::write_logical(c.src, src.data(), fill(c.src.nelems(), rng));
      auto a = buffer(ours->dst_desc()), b = buffer(ours->dst_desc());
      const absl::Status peer = testing::onednn_softmax_forward(
          {c.src, src.data()}, {ours->dst_desc(), b.data()}, c.axis,
          alg == softmax_alg::logsoftmax);
      required += must;
      if (!peer.ok()) {
        EXPECT_FALSE(must) << c.name << " " << name_of(alg) << ": " << peer;
        std::printf("skip %s %s %s->%s: %s\n", c.name.c_str(), std::string(name_of(alg)).c_str(),
                    std::string(name_of(c.src.dt())).c_str(), std::string(name_of(c.ddt)).c_str(),
                    std::string(peer.message()).c_str());
        continue;
      }
      ASSERT_TRUE(ours->execute({{arg::src, {c.src, src.data()}},
                                 {arg::dst, {ours->dst_desc(), a.data()}}})
                      .ok());
      const auto got = testing::read_logical(ours->dst_desc(), a.data());
      const auto theirs = testing::read_logical(ours->dst_desc(), b.data());
      const auto exact = testing::softmax_forward_reference(alg, c.src, src.data(), c.axis);
      const testing::softmax_compare_setup setup{false, alg, c.ddt, c.src.dims()[c.axis]};
      const std::string what = c.name + " " + std::string(name_of(alg)) + " " +
                               std::string(name_of(c.src.dt())) + "->" +
                               std::string(name_of(c.ddt)) + " ours " + ours->impl_name();
      auto vs_peer = testing::benchdnn_softmax_compare(setup, oracle(theirs, got, exact, what, vs_exact_threshold(setup)), got);
      auto vs_exact = testing::benchdnn_softmax_compare(setup, exact, got);
      auto peer_vs_exact = testing::benchdnn_softmax_compare(setup, exact, theirs);
      EXPECT_TRUE(vs_peer.ok) << what << ": vs oneDNN: " << vs_peer.message;
      EXPECT_TRUE(vs_exact.ok) << what << ": vs f64: " << vs_exact.message;
      if (!peer_vs_exact.ok) std::printf("note: oneDNN itself off the f64 reference: %s: %s\n",
                                         what.c_str(), peer_vs_exact.message.c_str());
      ++compared;
    }
  }
  std::printf("compared %d (oneDNN must implement %d of them here)\n", compared, required);
  EXPECT_GE(compared, required);
  EXPECT_GE(required, 16);  // the f32 cases, both algorithms
}

TEST(SoftmaxOneDnn, Int8OutputScale) {
  const memory_desc src = plain({16, 300}, data_type::f32);
  for (data_type dt : {data_type::s8, data_type::u8}) {
    const memory_desc dst = plain({16, 300}, dt);
    primitive_attr attr;
    attr.oscale = output_scales{0, {200.f}};
    auto ours = softmax_forward::create(softmax_alg::softmax, src, dst, 1, attr);
    ASSERT_TRUE(ours.ok());
    std::mt19937 rng(3);
    auto in = buffer(src);
    testing::write_logical(src, in.data(), fill(src.nelems(), rng));
    // testing/onednn's bridge takes no output scale: oneDNN computes the f32 softmax, and the
    // 200x scale, rounding (half to even) and saturation are applied here.
    auto b = buffer(src);
    const absl::Status peer = testing::onednn_softmax_forward({src, in.data()}, {src, b.data()}, 1,
                                                              /*log=*/false);
    if (!peer.ok()) GTEST_SKIP() << peer;
    std::vector<double> theirs = testing::read_logical(src, b.data());
    const double lo = dt == data_type::s8 ? -128 : 0, hi = dt == data_type::s8 ? 127 : 255;
    for (double& v : theirs) v = std::clamp(std::nearbyint(v * 200.0), lo, hi);
    auto a = buffer(dst);
    ASSERT_TRUE(ours->execute({{arg::src, {src, in.data()}}, {arg::dst, {dst, a.data()}}}).ok());
    const testing::softmax_compare_setup setup{false, softmax_alg::softmax, dt, 300};
    auto r = testing::benchdnn_softmax_compare(setup, theirs, testing::read_logical(dst, a.data()));
    // Rows of benchdnn's fills are mostly zeros after int8 rounding: only the element rule applies.
    EXPECT_EQ(r.failures, 0) << r.message;
  }
}

// oneDNN 2.6.3's softmax takes no post-ops; 3.x's are its f32 softmax followed by the chain in
// f32, which testing/onednn builds from 2.6.3's softmax, binary and eltwise primitives
// (onednn_softmax_forward_with_post_ops). Every binary algorithm, every eltwise one, operands of
// every broadcast (common, per row, per column, full) and type, dense, strided and blocked
// layouts, f32 / bf16 / u8 dst. An element agrees when it is within `tol` of oneDNN's (both NaN
// included), or at least as close to the f64 reference as oneDNN's.
TEST(SoftmaxOneDnn, PostOpsMatchOneDnnPrimitivesChained) {
  struct layout_case {
    std::string name;
    memory_desc src;
    memory_desc dst;
    int axis;
  };
  const memory_desc dense = plain({16, 300}, data_type::f32);
  const memory_desc strided = plain({300, 16}, data_type::f32);
  const memory_desc nchw16c = blocked({2, 40, 3, 3}, data_type::f32, 1, 16);
  const std::vector<layout_case> layouts = {
      {"dense 16x300", dense, dense, 1},
      {"strided 300x16 axis 0", strided, strided, 0},
      {"nChw16c axis 1", nchw16c, nchw16c, 1},
      {"dense 16x300 to bf16", dense, plain({16, 300}, data_type::bf16), 1},
      {"dense 16x300 to u8", dense, plain({16, 300}, data_type::u8), 1},
  };
  const binary_alg binaries[] = {binary_alg::add, binary_alg::sub, binary_alg::mul,
                                 binary_alg::div, binary_alg::max, binary_alg::min,
                                 binary_alg::ge,  binary_alg::gt,  binary_alg::le,
                                 binary_alg::lt,  binary_alg::eq,  binary_alg::ne};
  const post_op eltwises[] = {
      post_op::eltwise(eltwise_alg::linear, 0.5f, 0.25f), post_op::eltwise(eltwise_alg::relu, 0.1f),
      post_op::eltwise(eltwise_alg::clip, 0.001f, 0.5f),  post_op::eltwise(eltwise_alg::abs),
      post_op::eltwise(eltwise_alg::square),              post_op::eltwise(eltwise_alg::sqrt),
      post_op::eltwise(eltwise_alg::exp),                 post_op::eltwise(eltwise_alg::tanh),
      post_op::eltwise(eltwise_alg::logistic)};
  const data_type operand_types[] = {data_type::f32, data_type::bf16, data_type::f16,
                                     data_type::s8, data_type::u8};
  std::mt19937 rng(11);
  int compared = 0;
  for (const layout_case& l : layouts) {
    const std::vector<dim_t> dims(l.src.dims().begin(), l.src.dims().end());
    // Operand shapes: common, per position along the axis, per row (axis dim 1), full.
    std::vector<std::vector<dim_t>> shapes(4, std::vector<dim_t>(dims.size(), 1));
    shapes[1][static_cast<size_t>(l.axis)] = dims[static_cast<size_t>(l.axis)];
    shapes[2] = dims;
    shapes[2][static_cast<size_t>(l.axis)] = 1;
    shapes[3] = dims;
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      for (int i = 0; i < 12; ++i) {
        const memory_desc operand = plain(shapes[static_cast<size_t>(i % 4)], operand_types[i % 5]);
        std::vector<uint8_t> b = buffer(operand);
        std::vector<double> values(static_cast<size_t>(operand.nelems()));
        const bool integral = operand.dt() == data_type::s8 || operand.dt() == data_type::u8;
        for (size_t j = 0; j < values.size(); ++j) {
          values[j] = static_cast<double>(j % 4 + 1) * (integral ? 1 : 0.375);
        }
        testing::write_logical(operand, b.data(), values);
        primitive_attr attr;
        attr.post_ops = {eltwises[i % 9], post_op::binary(binaries[i], operand),
                         eltwises[(i + 4) % 9]};
        const memory_desc& dst = l.dst;
        const data_type ddt = dst.dt();
        auto ours = softmax_forward::create(alg, l.src, dst, l.axis, attr);
        ASSERT_TRUE(ours.ok()) << ours.status();
        auto src = buffer(l.src);
        testing::write_logical(l.src, src.data(), fill(l.src.nelems(), rng));
        auto a = buffer(dst), theirs_buf = buffer(dst);
        exec_args args{{arg::src, {l.src, src.data()}}, {arg::dst, {dst, a.data()}}};
        args.set(post_op_src1{1}, {operand, b.data()});
        ASSERT_TRUE(ours->execute(args).ok());
        const absl::Status peer = testing::onednn_softmax_forward_with_post_ops(
            {l.src, src.data()}, {dst, theirs_buf.data()}, l.axis, alg == softmax_alg::logsoftmax,
            attr.post_ops, {{}, {operand, b.data()}, {}});
        ASSERT_TRUE(peer.ok()) << peer;
        testing::softmax_reference_attr ref;
        ref.post_ops = attr.post_ops;
        ref.post_op_src1 = {nullptr, b.data(), nullptr};
        std::vector<double> exact = testing::softmax_forward_reference(alg, l.src, src.data(), l.axis, ref);
        const auto got = testing::read_logical(dst, a.data());
        const auto theirs = testing::read_logical(dst, theirs_buf.data());
        const double tol = ddt == data_type::f32 ? 1e-5 : ddt == data_type::bf16 ? 0x1p-7 : 1.0;
        int failures = 0, settled = 0;
        std::string first;
        for (size_t j = 0; j < got.size(); ++j) {
          const double t = got[j], o = theirs[j];
          if ((std::isnan(t) && std::isnan(o)) || std::fabs(t - o) <= tol * std::max(1.0, std::fabs(o))) continue;
          // The reference is rounded to dst's type as the outputs are.
          double e = exact[j];
          if (ddt == data_type::u8) e = std::isnan(e) ? 0 : std::clamp(std::nearbyint(e), 0.0, 255.0);
          if (!std::isnan(t) && std::fabs(t - e) <= std::fabs(o - e)) {
            ++settled;
            continue;
          }
          if (failures++ == 0) {
            first = "element " + std::to_string(j) + ": Tessera " + std::to_string(t) + ", oneDNN " +
                    std::to_string(o) + ", f64 " + std::to_string(exact[j]);
          }
        }
        const std::string what = l.name + " " + std::string(name_of(alg)) + " " +
                                 std::string(name_of(attr.post_ops[0].eltwise_algorithm)) + ", " +
                                 std::string(name_of(binaries[i])) + ":" +
                                 std::string(name_of(operand.dt())) + ", " +
                                 std::string(name_of(attr.post_ops[2].eltwise_algorithm)) +
                                 " (" + ours->impl_name() + ")";
        EXPECT_EQ(failures, 0) << what << ": " << first;
        if (settled) std::printf("%s: %d elements where oneDNN is farther from f64\n", what.c_str(), settled);
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 5 * 2 * 12);
}

TEST(SoftmaxOneDnn, BackwardMatchesWithinBenchdnnTolerance) {
  std::mt19937 rng(6);
  for (const memory_desc& md : {plain({64, 1000}, data_type::f32), plain({64, 1000}, data_type::bf16),
                                plain({2, 100, 7, 7}, data_type::f32)}) {
    for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
      auto ours = softmax_backward::create(alg, md, md, md, 1);
      ASSERT_TRUE(ours.ok());
      auto s = buffer(md), y = buffer(md), dy = buffer(md);
      testing::write_logical(md, s.data(), fill(md.nelems(), rng));
      testing::write_logical(md, y.data(), testing::softmax_forward_reference(alg, md, s.data(), 1));
      // benchdnn: negative integers for diff_dst.
      std::vector<double> d(md.nelems());
      for (auto& x : d) x = -static_cast<double>(rng() % 8 + 1);
      testing::write_logical(md, dy.data(), d);
      auto a = buffer(md), b = buffer(md);
      ASSERT_TRUE(ours->execute({{arg::dst, {md, y.data()}},
                                 {arg::diff_dst, {md, dy.data()}},
                                 {arg::diff_src, {md, a.data()}}})
                      .ok());
      const absl::Status peer = testing::onednn_softmax_backward(
          {md, y.data()}, {md, dy.data()}, {md, b.data()}, 1, alg == softmax_alg::logsoftmax);
      if (!peer.ok() && !onednn_must_implement({md.dt()})) {
        std::printf("skip backward %s %s: %s\n", std::string(name_of(alg)).c_str(),
                    std::string(name_of(md.dt())).c_str(), std::string(peer.message()).c_str());
        continue;
      }
      ASSERT_TRUE(peer.ok()) << peer;
      const testing::softmax_compare_setup setup{true, alg, md.dt(), md.dims()[1]};
      const auto got = testing::read_logical(md, a.data());
      const auto exact = testing::softmax_backward_reference(alg, md, y.data(), md, dy.data(), 1);
      const std::string what = std::string(name_of(alg)) + " " + std::string(name_of(md.dt())) +
                               " " + ours->impl_name();
      auto r = testing::benchdnn_softmax_compare(
          setup, oracle(testing::read_logical(md, b.data()), got, exact, what, vs_exact_threshold(setup)), got);
      EXPECT_TRUE(r.ok) << what << ": " << r.message;
      // No relative check against f64 here: diff_dst - sum cancels (benchdnn's negative-integer
      // fill makes it cancel often); softmax_accuracy_test bounds the error by the operand sizes.
    }
  }
}

}  // namespace
}  // namespace tessera
