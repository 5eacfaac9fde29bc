// The verbose lines real primitives print, parsed field by field as oneDNN's tools read them:
// header, create:cache_miss / create:cache_hit, exec, create:dispatch and create:check / exec:check,
// and which levels print which.
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/runtime/verbose.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/simd/isa.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr int kHeaderLines = 5;

memory_desc md(std::vector<dim_t> dims, data_type dt, const char* tag) {
  auto m = make_memory_desc(dims, dt, tag);
  EXPECT_TRUE(m.ok()) << m.status();
  return *m;
}

// The build's ISAs as regex alternatives: "sse4_2|avx2|avx512bw" on x86-64, "neon64" on aarch64.
std::string build_isa_names() {
  std::vector<std::string> names;
  for (simd::isa i : simd::kAllIsas) names.emplace_back(simd::name_of(i));
  return absl::StrJoin(names, "|");
}

// What a primitive line holds once split on commas.
struct parsed_line {
  std::string operation, primitive, impl, prop_kind;
  std::vector<std::string> mds;
  std::string attrs, aux, problem;
  double time_ms = 0;
  std::string reason, source;  // create:dispatch only
};

// Checks every field's syntax (ONEDNN_VERBOSE v1) and returns the fields.
parsed_line parse(const std::string& line) {
  parsed_line p;
  const std::vector<std::string> f = absl::StrSplit(line, ',');
  const bool dispatch = f.size() > 3 && f[3] == "create:dispatch";
  EXPECT_THAT(f, SizeIs(dispatch ? 15 : 13)) << line;
  if (f.size() != (dispatch ? 15u : 13u)) return p;
  EXPECT_EQ(f[0], "onednn_verbose") << line;
  EXPECT_EQ(f[1], "v1") << line;
  EXPECT_EQ(f[2], "primitive") << line;
  p.operation = f[3];
  size_t i = 4;
  if (dispatch) EXPECT_EQ(f[i++], f[6]) << "the primitive kind, twice: " << line;
  EXPECT_EQ(f[i++], "cpu") << line;
  p.primitive = f[i++];
  p.impl = f[i++];
  p.prop_kind = f[i++];
  p.mds = absl::StrSplit(f[i++], ' ');
  p.attrs = f[i++];
  p.aux = f[i++];
  p.problem = f[i++];
  static const std::regex kImpl("(xsimd:(" + build_isa_names() + ")|native:any|ref:any):[a-z0-9_]+");
  EXPECT_TRUE(std::regex_match(p.impl, kImpl)) << p.impl;
  // <arg>:<dt>:<properties>:<format kind>:<tag>:<strides>:<flags>
  static const std::regex kMd(
      "(src|dst|diff_dst):(f32|f64|bf16|f16|s32|s8|u8):p?o?0?:(blocked:[a-lA-L0-9]+:([0-9]+(x[0-9]+)*)?"
      "|any:any:):f0");
  for (const std::string& m : p.mds) EXPECT_TRUE(std::regex_match(m, kMd)) << m << " in " << line;
  static const std::regex kProblem("[0-9]+(x[0-9]+)*");
  EXPECT_TRUE(std::regex_match(p.problem, kProblem)) << p.problem;
  if (dispatch) {
    p.reason = f[13];
    p.source = f[14];
    EXPECT_FALSE(p.reason.empty()) << line;
    EXPECT_TRUE(absl::StartsWith(p.source, "primitives/")) << line;
  } else {
    EXPECT_TRUE(absl::SimpleAtod(f[12], &p.time_ms)) << f[12];
    EXPECT_GT(p.time_ms, 0.0) << line;
  }
  return p;
}

std::vector<parsed_line> parse_all(const std::vector<std::string>& lines) {
  std::vector<parsed_line> out;
  for (const std::string& l : lines) out.push_back(parse(l));
  return out;
}

// Counts the header lines and checks they come first, once.
void expect_header_once(const verbose_capture& capture) {
  const std::vector<std::string> lines = capture.lines();
  ASSERT_GE(lines.size(), static_cast<size_t>(kHeaderLines));
  EXPECT_EQ(std::vector<std::string>(lines.begin(), lines.begin() + kHeaderLines),
            verbose_header_lines());
  EXPECT_THAT(capture.lines_of("info"), SizeIs(kHeaderLines));
}

TEST(VerboseLines, ReorderWithAttributesIntoABlockedPaddedLayout) {
  verbose_capture capture;
  scoped_verbose on(verbose_flags::all);
  const memory_desc src = md({2, 17, 3, 3}, data_type::f32, "abcd");
  const memory_desc dst = md({2, 17, 3, 3}, data_type::s8, "aBcd16b");
  primitive_attr attr;
  attr.src_scales = quant_param{0};
  attr.dst_zero_points = quant_param{0};
  attr.sum = sum_post_op{.beta = 0.5f, .zero_point = 0};
  auto r = reorder::create(src, dst, attr);
  ASSERT_TRUE(r.ok()) << r.status();
  auto again = reorder::create(src, dst, attr);
  ASSERT_TRUE(again.ok());

  std::vector<float> in(src.nelems(), 1.f), scale{2.f};
  std::vector<int8_t> out(dst.size_bytes(), 0);
  std::vector<int32_t> zp{3};
  const memory_desc one_f32 = *memory_desc::with_strides({1}, data_type::f32, {1});
  const memory_desc one_s32 = *memory_desc::with_strides({1}, data_type::s32, {1});
  ASSERT_TRUE(r->execute({{arg_from, {src, in.data()}},
                          {arg_to, {dst, out.data()}},
                          {arg::src_scales, {one_f32, scale.data()}},
                          {arg::dst_zero_points, {one_s32, zp.data()}}})
                  .ok());

  expect_header_once(capture);
  const std::string descs = "src:f32::blocked:abcd::f0 dst:s8:p:blocked:aBcd16b::f0";
  const std::string attrs = "attr-scales:src0:0:f32 attr-zero-points:dst:0:s32 attr-post-ops:sum:0.5";

  // One dispatch line per declined kernel, in the order tried, then the miss, the hit, the run.
  const auto dispatch = parse_all(capture.lines_of("create:dispatch"));
  ASSERT_EQ(dispatch.size(), r->declined().size());
  ASSERT_FALSE(dispatch.empty());
  for (size_t k = 0; k < dispatch.size(); ++k) {
    const parsed_line& d = dispatch[k];
    EXPECT_EQ(d.operation, "create:dispatch");
    EXPECT_EQ(d.primitive, "reorder");
    EXPECT_NE(d.impl, r->impl_name());
    EXPECT_TRUE(absl::StartsWith(r->declined()[k], d.impl + ": ")) << r->declined()[k];
    EXPECT_EQ(d.prop_kind, "undef");
    EXPECT_EQ(absl::StrJoin(d.mds, " "), descs);
    EXPECT_EQ(d.attrs, attrs);
    EXPECT_EQ(d.aux, "");
    EXPECT_EQ(d.problem, "2x17x3x3");
    EXPECT_EQ(d.source, "primitives/reorder/internal/kernels.cc");
  }
  const auto create = parse_all(capture.lines_of("create:cache_miss"));
  const auto hit = parse_all(capture.lines_of("create:cache_hit"));
  const auto exec = parse_all(capture.lines_of("exec"));
  ASSERT_THAT(create, SizeIs(1));
  ASSERT_THAT(hit, SizeIs(1));
  ASSERT_THAT(exec, SizeIs(1));
  for (const parsed_line* p : {&create[0], &hit[0], &exec[0]}) {
    EXPECT_EQ(p->primitive, "reorder");
    EXPECT_EQ(p->impl, r->impl_name());
    EXPECT_EQ(p->prop_kind, "undef");
    EXPECT_EQ(absl::StrJoin(p->mds, " "), descs);
    EXPECT_EQ(p->attrs, attrs);
    EXPECT_EQ(p->aux, "");
    EXPECT_EQ(p->problem, "2x17x3x3");
  }
  // Order: dispatch lines, then the miss (after its dispatch), the hit, the execution.
  const std::vector<std::string> all = capture.lines();
  const std::vector<std::string> expected_ops = [&] {
    std::vector<std::string> ops(dispatch.size(), "create:dispatch");
    ops.insert(ops.end(), {"create:cache_miss", "create:cache_hit", "exec"});
    return ops;
  }();
  std::vector<std::string> ops;
  for (size_t k = kHeaderLines; k < all.size(); ++k) {
    ops.push_back(std::vector<std::string>(absl::StrSplit(all[k], ','))[3]);
  }
  EXPECT_EQ(ops, expected_ops);
}

TEST(VerboseLines, FilteredReorderDispatchesEachDeclinedKernel) {
  verbose_capture capture;
  scoped_verbose on(verbose_flags::all);
  // A transpose the element-wise kernels would take: only the reference is left by the filter
  // "scalar"; with "a" (every name has it) the first kernels decline a transpose.
  const memory_desc src = md({8, 8}, data_type::f32, "ab"), dst = md({8, 8}, data_type::f32, "ba");
  auto r = reorder::create(src, dst, {}, reorder_options{.impl_filter = "a"});
  ASSERT_TRUE(r.ok()) << r.status();
  const auto dispatch = parse_all(capture.lines_of("create:dispatch"));
  ASSERT_GE(dispatch.size(), 1u);  // at least native:any:copy declines a transpose
  ASSERT_EQ(dispatch.size(), r->declined().size());
  EXPECT_EQ(dispatch[0].impl, "native:any:copy");
  for (size_t k = 0; k < dispatch.size(); ++k) {
    // The reason as declined() gives it, with commas (field separators) written as ';'.
    EXPECT_EQ(absl::StrReplaceAll(r->declined()[k], {{",", ";"}}),
              dispatch[k].impl + ": " + dispatch[k].reason);
  }
  const auto create = parse_all(capture.lines_of("create"));
  ASSERT_THAT(create, SizeIs(dispatch.size() + 1));
  EXPECT_EQ(create.back().operation, "create:cache_miss");  // options bypass the cache
}

TEST(VerboseLines, SoftmaxForwardAndBackward) {
  verbose_capture capture;
  scoped_verbose on(verbose_flags::level2);
  const memory_desc m = md({3, 11}, data_type::f32, "ab");
  auto fwd = softmax_forward::create(softmax_alg::softmax, m, m, 1);
  ASSERT_TRUE(fwd.ok()) << fwd.status();
  auto bwd = softmax_backward::create(softmax_alg::logsoftmax, m, m, m, 1);
  ASSERT_TRUE(bwd.ok()) << bwd.status();
  std::vector<float> a(33, 0.5f), b(33), c(33, 0.1f), d(33);
  ASSERT_TRUE(fwd->execute({{arg::src, {m, a.data()}}, {arg::dst, {m, b.data()}}}).ok());
  ASSERT_TRUE(bwd->execute({{arg::dst, {m, b.data()}},
                            {arg::diff_dst, {m, c.data()}},
                            {arg::diff_src, {m, d.data()}}})
                  .ok());
  expect_header_once(capture);
  EXPECT_THAT(capture.lines_of("create:dispatch"), IsEmpty());  // level 2: no dispatch lines
  const auto create = parse_all(capture.lines_of("create"));
  const auto exec = parse_all(capture.lines_of("exec"));
  ASSERT_THAT(create, SizeIs(2));
  ASSERT_THAT(exec, SizeIs(2));
  const std::string md_text = "f32::blocked:ab::f0";
  for (const parsed_line* p : {&create[0], &exec[0]}) {
    EXPECT_EQ(p->primitive, "softmax");
    EXPECT_EQ(p->impl, fwd->impl_name());
    EXPECT_EQ(p->prop_kind, "forward_training");
    EXPECT_THAT(p->mds, ElementsAre("src:" + md_text, "dst:" + md_text));
    EXPECT_EQ(p->attrs, "");
    EXPECT_EQ(p->aux, "alg:softmax_accurate axis:1");
    EXPECT_EQ(p->problem, "3x11");
  }
  for (const parsed_line* p : {&create[1], &exec[1]}) {
    EXPECT_EQ(p->primitive, "softmax");
    EXPECT_EQ(p->impl, bwd->impl_name());
    EXPECT_EQ(p->prop_kind, "backward_data");
    EXPECT_THAT(p->mds, ElementsAre("src:" + md_text, "dst:" + md_text, "diff_dst:" + md_text));
    EXPECT_EQ(p->aux, "alg:softmax_log axis:1");
    EXPECT_EQ(p->problem, "3x11");
  }
}

TEST(VerboseLines, SoftmaxDispatchNamesEachRefusedKernel) {
  verbose_capture capture;
  scoped_verbose on(verbose_flags::all);
  // Scales go to the reference kernel: every vector kernel declines.
  const memory_desc m = md({4, 6}, data_type::f32, "ab");
  primitive_attr attr;
  attr.src_scales = quant_param{0};
  auto fwd = softmax_forward::create(softmax_alg::logsoftmax, m, m, 0, attr);
  ASSERT_TRUE(fwd.ok()) << fwd.status();
  EXPECT_EQ(fwd->impl_name(), "ref:any:scalar");
  const auto dispatch = parse_all(capture.lines_of("create:dispatch"));
  ASSERT_GE(dispatch.size(), 2u);  // dense and strided on sse4_2 at least
  for (const parsed_line& d : dispatch) {
    EXPECT_EQ(d.primitive, "softmax");
    EXPECT_TRUE(absl::StartsWith(d.impl, "xsimd:")) << d.impl;
    EXPECT_EQ(d.prop_kind, "forward_training");
    EXPECT_EQ(d.attrs, "attr-scales:src0:0:f32");
    EXPECT_EQ(d.aux, "alg:softmax_log axis:0");
    EXPECT_EQ(d.problem, "4x6");
    EXPECT_EQ(d.source, "primitives/softmax/internal/plan.cc");
  }
  EXPECT_EQ(dispatch[0].reason, "the axis is not dense");
  const auto miss = parse_all(capture.lines_of("create:cache_miss"));
  ASSERT_THAT(miss, SizeIs(1));
  EXPECT_EQ(miss[0].impl, "ref:any:scalar");
}

TEST(VerboseLines, LevelsFilterTheKinds) {
  const memory_desc src = md({5, 7}, data_type::f32, "ab"), dst = md({5, 7}, data_type::f32, "ba");
  std::vector<float> in(35, 1.f), out(35);
  auto run = [&](verbose_flags flags) {
    verbose_capture capture;
    scoped_verbose on(flags);
    auto r = reorder::create(src, dst, {}, reorder_options{.impl_filter = "a"});  // never cached
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE(r->execute({{arg_from, {src, in.data()}}, {arg_to, {dst, out.data()}}}).ok());
    return std::vector<size_t>{capture.lines_of("info").size(), capture.lines_of("exec").size(),
                               capture.lines_of("create:cache_miss").size(),
                               capture.lines_of("create:dispatch").size()};
  };
  EXPECT_THAT(run(verbose_flags::none), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(run(verbose_flags::level1), ElementsAre(kHeaderLines, 1, 0, 0));
  EXPECT_THAT(run(verbose_flags::level2), ElementsAre(kHeaderLines, 1, 1, 0));
  const auto all = run(verbose_flags::all);
  EXPECT_THAT(std::vector<size_t>(all.begin(), all.begin() + 3), ElementsAre(kHeaderLines, 1, 1));
  EXPECT_GE(all[3], 1u);
  EXPECT_THAT(run(*parse_verbose_flags("dispatch")), ElementsAre(kHeaderLines, 0, 0, all[3]));
  EXPECT_THAT(run(*parse_verbose_flags("profile_create")), ElementsAre(kHeaderLines, 0, 1, 0));
}

TEST(VerboseLines, CheckLinesNameTheError) {
  verbose_capture capture;
  scoped_verbose on(verbose_flags::check);
  const memory_desc a = md({2, 3}, data_type::f32, "ab"), b = md({3, 2}, data_type::f32, "ab");
  EXPECT_FALSE(reorder::create(a, b).ok());
  auto r = reorder::create(a, a);
  ASSERT_TRUE(r.ok());
  std::vector<float> in(6);
  EXPECT_FALSE(r->execute({{arg_from, {a, in.data()}}}).ok());
  const auto create = capture.lines_of("create:check");
  const auto exec = capture.lines_of("exec:check");
  // With check only: no create:cache_miss, dispatch or exec lines.
  EXPECT_EQ(capture.lines_of("create"), create);
  EXPECT_EQ(capture.lines_of("exec"), exec);
  ASSERT_THAT(create, SizeIs(1));
  ASSERT_THAT(exec, SizeIs(1));
  const std::vector<std::string> f = absl::StrSplit(create[0], ',');
  ASSERT_THAT(f, SizeIs(7)) << create[0];
  EXPECT_EQ(f[4], "reorder");
  EXPECT_THAT(f[5], ::testing::HasSubstr("dims mismatch"));
  EXPECT_EQ(f[6], "primitives/reorder/reorder.cc");
  EXPECT_THAT(std::vector<std::string>(absl::StrSplit(exec[0], ',')), SizeIs(7)) << exec[0];
}

}  // namespace
}  // namespace tessera
