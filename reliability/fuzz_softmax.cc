// libFuzzer target: softmax forward and backward create + execute on arbitrary small shapes,
// axes, layouts and types, compared with testing/softmax's float64 reference under benchdnn's
// per-element tolerance.
// Input: rank byte (1 + mod 4), dims (mod 12 each; 0 allowed), axis byte (mod rank+1: out of
// range allowed), alg byte (mod 3), direction byte (bit 0: backward), two types, the input
// descriptor, a byte choosing the output descriptor (0: any) then that descriptor, a scales byte
// (forward: bit 0 src_scales, bit 1 dst_scales, bit 2 output scale, bits 3-4 the number of
// post-ops) with the values, a fill seed, then per post-op: a kind byte (bit 0: binary), an
// algorithm byte, and for a binary one an operand type byte and a broadcast mask byte (mod 2^rank),
// for an eltwise one alpha and beta (from the scale table, negated by bit 7).
// Properties: never crashes; on success every element is within benchdnn's threshold of the
// reference and the guard bytes are intact; on failure the output buffer is untouched.
// The "zero trust" rule of benchdnn (too many exact zeros makes a run suspicious) judges the test
// data, not the result, and is not applied: a fuzzer picks its own data.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tessera/core/convert.h"
#include "tessera/primitives/common/post_ops.h"
#include "tessera/formats/md_string.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/reliability/fuzz_input.h"
#include "tessera/testing/compare.h"
#include "tessera/testing/fill.h"
#include "tessera/testing/softmax/softmax_reference.h"

namespace {

using tessera::data_type;
using tessera::dim_t;
using tessera::memory_desc;
using tessera::reliability::byte_reader;

constexpr float kScales[] = {1.f, 0.5f, 2.f, 0.25f, 3.f, 1.f / 3, 100.f, 0.01f};

std::vector<uint8_t> bytes_of(const memory_desc& md) {
  return std::vector<uint8_t>(static_cast<size_t>(md.size_bytes()) + 1, 0);
}

std::string problem_text(const memory_desc& in, const memory_desc& out, int axis,
                         tessera::softmax_alg alg, bool backward, const std::string& impl) {
  return absl::StrCat(backward ? "backward " : "forward ", tessera::name_of(alg), " axis ", axis,
                      " dims ", tessera::dims_to_string(in.dims()), " in ",
                      tessera::verbose_md_string(in), " out ", tessera::verbose_md_string(out),
                      " impl ", impl);
}

// f64 outputs: benchdnn has no f64 softmax; docs/softmax.md states 1e-12 relative for them.
void check_f64(const std::vector<double>& want, const std::vector<double>& got,
               const std::string& problem) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == got[i] || (std::isnan(want[i]) && std::isnan(got[i]))) continue;
    const double err = std::fabs(got[i] - want[i]);
    TESSERA_FUZZ_CHECK(err <= 1e-12 * std::fabs(want[i]) || err <= 1e-300,
                       absl::StrCat(problem, ": element ", i, " expected ",
                                    absl::StrFormat("%.17g", want[i]), " got ",
                                    absl::StrFormat("%.17g", got[i]), " (relative error ",
                                    err / std::fabs(want[i]), " > 1e-12)"));
  }
}

// A post-op decoded from the input; for a binary one its operand's dims and type.
tessera::post_op decode_post_op(byte_reader& in, const std::vector<dim_t>& dims) {
  const bool binary = in.u8() & 1;
  const uint8_t alg = in.u8();
  if (!binary) {
    auto value = [&in] {
      const uint8_t b = in.u8();
      return (b & 0x80 ? -1.f : 1.f) * kScales[b % 8];
    };
    const float alpha = value(), beta = value();
    return tessera::post_op::eltwise(static_cast<tessera::eltwise_alg>(alg % 9), alpha, beta);
  }
  static constexpr data_type kTypes[] = {data_type::f32, data_type::bf16, data_type::f16,
                                         data_type::s8, data_type::u8};
  const data_type dt = kTypes[in.u8() % 5];
  const int mask = in.u8() % (1 << dims.size());
  std::vector<dim_t> src1_dims(dims), strides(dims.size());
  dim_t st = 1;
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    if (!(mask & (1 << d))) src1_dims[d] = 1;
    strides[d] = st;
    st *= src1_dims[d];
  }
  return tessera::post_op::binary(static_cast<tessera::binary_alg>(alg % 12),
                                  *memory_desc::with_strides(src1_dims, dt, strides));
}

// What the kernels store for a NaN result in dst's type (NaN for the floating types; for the
// integer ones the conversion's rule, <tessera/core/convert.h>).
double nan_stored_as(data_type dt) {
  return tessera::visit_data_type(dt, [](auto tag) -> double {
    return tessera::to_f64(tessera::from_f32<decltype(tag)>(std::nanf("")));
  });
}

// A post-op chain may cancel (logsoftmax divided by an operand, plus another): the kernels'
// softmax error (4 eps relative, docs/softmax.md) then moves the chain's result far more than
// benchdnn's threshold allows. The property checked is the chain, in f64 or in f32 steps (as the
// vector kernels run it), applied to a softmax within that bound: each expected value becomes
// the one nearest the kernel's among the references at shifts 0 and +-4 eps, each in f64 and in
// f32 steps (where they bracket it, the kernel's value itself), and in f32 steps from the
// unshifted softmax's subnormal neighbours (an f32 softmax below FLT_MIN is within one subnormal
// step of the correctly rounded value, which the src scale can round to either side of 0), and in
// f32 steps with each exp, tanh and logistic result 2 ulps off (their vector forms' error, which
// a cancelling post-op after them amplifies: exp(v) + 1 - 2 for a small v). A
// reference that is NaN (1 - s below zero under a sqrt) is left out of the bracket, which the
// others still bound. Where an f32 chain from the unshifted softmax or a neighbour gives NaN (a
// result that underflows f32, then divided by 0), the kernel's NaN as dst stores it, as where the
// f64 chain gives NaN (the reference kernel runs the chain in f64). f64 dst: the
// reference's values, unshifted (its bound is 1e-12 relative).
std::vector<double> nearest_within_softmax_bound(
    tessera::softmax_alg alg, const memory_desc& src_md, const void* src, int axis,
    tessera::testing::softmax_reference_attr ref, const memory_desc& dst_md,
    const std::vector<double>& got) {
  const std::vector<double> want = tessera::testing::softmax_forward_reference(alg, src_md, src,
                                                                               axis, ref);
  if (ref.post_ops.empty() || dst_md.dt() == data_type::f64) return want;
  constexpr double kSoftmaxBound = 4 * 0x1p-23;
  constexpr int kEltwiseUlps = 2;  // the vector kernels' exp, tanh and logistic (post_op_stage.h)
  std::vector<std::vector<double>> bracket;  // every reference but `want`, at each shift and mode
  for (bool f32_steps : {false, true}) {
    for (double shift : {-kSoftmaxBound, 0.0, kSoftmaxBound}) {
      if (!f32_steps && shift == 0) continue;
      ref.f32_steps = f32_steps;
      ref.softmax_shift = shift;
      bracket.push_back(tessera::testing::softmax_forward_reference(alg, src_md, src, axis, ref));
    }
  }
  ref.softmax_shift = 0;
  for (int steps : {-1, 1}) {  // f32 steps from the subnormal neighbours of the softmax value
    ref.subnormal_start_steps = steps;
    bracket.push_back(tessera::testing::softmax_forward_reference(alg, src_md, src, axis, ref));
  }
  ref.subnormal_start_steps = 0;
  for (int ulps : {-kEltwiseUlps, kEltwiseUlps}) {  // f32 steps with the kernels' exp error
    ref.eltwise_ulps = ulps;
    bracket.push_back(tessera::testing::softmax_forward_reference(alg, src_md, src, axis, ref));
  }
  // The f32 chains from the unshifted softmax and its subnormal neighbours.
  const std::vector<double>* f32_starts[] = {&bracket[3], &bracket[5], &bracket[6]};
  std::vector<double> nearest(want);
  const double stored_nan = nan_stored_as(dst_md.dt());
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    const bool f32_nan =
        std::any_of(std::begin(f32_starts), std::end(f32_starts),
                    [&](const std::vector<double>* r) { return std::isnan((*r)[i]); });
    if (f32_nan && (std::isnan(got[i]) || got[i] == stored_nan)) {
      nearest[i] = got[i];
      continue;
    }
    // The kernel's NaN where the f64 chain has one (the reference kernel runs it in f64): want.
    if (std::isnan(got[i]) || (std::isnan(want[i]) && got[i] == stored_nan)) continue;
    // A number: the nearest within every reference that is one (NaN in f64 only, e.g. sqrt of
    // a tiny negative value that f32 rounds to -0, leaves the f32 steps' values).
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    if (!std::isnan(want[i])) lo = hi = want[i];
    for (const std::vector<double>& r : bracket) {
      if (std::isnan(r[i])) continue;
      lo = std::min(lo, r[i]);
      hi = std::max(hi, r[i]);
    }
    if (lo <= hi) nearest[i] = std::clamp(got[i], lo, hi);
  }
  return nearest;
}

void check_verdict(const tessera::testing::softmax_compare_result& v, const std::string& problem) {
  TESSERA_FUZZ_CHECK(v.failures == 0, absl::StrCat(problem, ": ", v.failures,
                                                   " elements beyond threshold ", v.threshold,
                                                   "; ", v.message));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  byte_reader in(data, size);
  const int rank = 1 + in.u8() % 4;
  std::vector<dim_t> dims(rank);
  for (auto& d : dims) d = in.u8() % 12;
  const int axis = in.u8() % (rank + 1);
  const auto alg = static_cast<tessera::softmax_alg>(in.u8() % 3);
  const bool backward = in.u8() & 1;
  const data_type in_dt = tessera::reliability::decode_type(in);
  const data_type out_dt = tessera::reliability::decode_type(in);
  auto in_md = tessera::reliability::decode_desc(in, dims, in_dt);
  if (!in_md.ok() || in_md->size_bytes() > (1 << 15)) return 0;
  absl::StatusOr<memory_desc> out_md = in.u8() == 0
                                           ? memory_desc::any(dims, out_dt)
                                           : tessera::reliability::decode_desc(in, dims, out_dt);
  if (!out_md.ok() || out_md->size_bytes() > (1 << 15)) return 0;
  const uint8_t scale_flags = in.u8();
  const float src_scale = kScales[in.u8() % 8], dst_scale = kScales[in.u8() % 8];
  const uint64_t seed = in.u8();
  const int64_t axis_size = axis < rank ? dims[axis] : 1;
  // testing/softmax's reference divides by zero on an empty tensor (reported); primitives on
  // empty tensors are covered by reliability/canary_test instead.
  for (dim_t d : dims)
    if (d == 0) return 0;

  if (!backward) {
    tessera::primitive_attr attr;
    if (scale_flags & 1) attr.src_scales = tessera::quant_param{};
    if (scale_flags & 2) attr.dst_scales = tessera::quant_param{};
    if (scale_flags & 4) attr.oscale = tessera::output_scales{.mask = 0, .values = {src_scale}};
    const int post_op_count = (scale_flags >> 3) & 3;
    std::vector<std::vector<uint8_t>> operands;
    for (int i = 0; i < post_op_count; ++i) {
      attr.post_ops.push_back(decode_post_op(in, dims));
      const tessera::post_op& op = attr.post_ops.back();
      operands.emplace_back();
      if (op.kind != tessera::post_op_kind::binary) continue;
      operands.back() = bytes_of(op.src1);
      TESSERA_FUZZ_CHECK(tessera::testing::fill_random(op.src1, operands.back().data(),
                                                       {.seed = seed + 2 + i, .lo = -4, .hi = 4})
                             .ok(),
                         "fill post-op operand");
    }
    auto fwd = tessera::softmax_forward::create(alg, *in_md, *out_md, axis, attr);
    if (!fwd.ok()) return 0;
    const memory_desc& dst_md = fwd->dst_desc();
    if (dst_md.size_bytes() > (1 << 15)) return 0;
    std::vector<uint8_t> src = bytes_of(*in_md);
    TESSERA_FUZZ_CHECK(tessera::testing::fill_random(*in_md, src.data(), {.seed = seed}).ok(),
                       "fill src");
    tessera::testing::guarded_buffer dst(dst_md.size_bytes());
    std::memset(dst.data(), 0x7E, dst_md.size_bytes());
    std::vector<uint8_t> before(dst_md.size_bytes(), 0x7E);
    auto one_f32 = *memory_desc::with_strides({1}, data_type::f32, {1});
    float ss = src_scale, ds = dst_scale;
    tessera::exec_args args{{tessera::arg::src, {*in_md, src.data()}},
                            {tessera::arg::dst, {dst_md, dst.data()}}};
    tessera::testing::softmax_reference_attr ref;
    ref.post_ops = attr.post_ops;
    for (size_t i = 0; i < operands.size(); ++i) {
      ref.post_op_src1.push_back(operands[i].empty() ? nullptr : operands[i].data());
      if (!operands[i].empty()) {
        args.set(tessera::post_op_src1{static_cast<int>(i)},
                 {attr.post_ops[i].src1, operands[i].data()});
      }
    }
    if (attr.src_scales) {
      args.set(tessera::arg::src_scales, {one_f32, &ss});
      ref.src_scale *= ss;
    }
    if (attr.dst_scales) {
      args.set(tessera::arg::dst_scales, {one_f32, &ds});
      ref.dst_scale = ds;
    }
    if (attr.oscale) ref.src_scale *= attr.oscale->values[0];
    const double out_scale = ref.src_scale / ref.dst_scale;
    const std::string problem = absl::StrCat(
        problem_text(*in_md, dst_md, axis, alg, false, fwd->impl_name()), " attr ",
        tessera::to_string(attr));
    const absl::Status ran = fwd->execute(args);
    TESSERA_FUZZ_CHECK(dst.guards_intact(), problem);
    if (!ran.ok()) {
      TESSERA_FUZZ_CHECK(std::memcmp(before.data(), dst.data(), before.size()) == 0,
                         absl::StrCat(problem, ": failed (", ran.ToString(),
                                      ") but wrote to dst"));
      return 0;
    }
    const auto got = tessera::testing::read_logical(dst_md, dst.data());
    const auto want =
        attr.post_ops.empty()
            ? tessera::testing::softmax_forward_reference(alg, *in_md, src.data(), axis, out_scale)
            : nearest_within_softmax_bound(alg, *in_md, src.data(), axis, ref, dst_md, got);
    if (dst_md.dt() == data_type::f64) {
      check_f64(want, got, problem);
      return 0;
    }
    check_verdict(tessera::testing::benchdnn_softmax_compare(
                      {.backward = false, .alg = alg, .dt = dst_md.dt(), .axis_size = axis_size},
                      want, got),
                  problem);
    return 0;
  }

  // Backward: dst (the forward output) is in_md, diff_dst has out_md's layout but dst's type
  // unless out_dt is given; diff_src is `any`.
  if (out_md->kind() != tessera::format_kind::blocked) return 0;
  auto diff_src_any = memory_desc::any(dims, out_dt);
  auto bwd = tessera::softmax_backward::create(alg, *diff_src_any, *out_md, *in_md, axis);
  if (!bwd.ok()) return 0;
  const memory_desc& diff_src_md = bwd->diff_src_desc();
  std::vector<uint8_t> dst = bytes_of(*in_md), diff_dst = bytes_of(*out_md);
  // dst holds a real forward result (from the reference) so that the backward formula sees the
  // values it is defined for.
  {
    auto logits = *memory_desc::with_strides(dims, data_type::f64, [&] {
      std::vector<dim_t> s(rank);
      dim_t st = 1;
      for (int d = rank - 1; d >= 0; --d) {
        s[d] = st;
        st *= std::max<dim_t>(dims[d], 1);
      }
      return s;
    }());
    std::vector<uint8_t> x = bytes_of(logits);
    TESSERA_FUZZ_CHECK(tessera::testing::fill_random(logits, x.data(), {.seed = seed}).ok(),
                       "fill logits");
    tessera::testing::write_logical(
        *in_md, dst.data(),
        tessera::testing::softmax_forward_reference(alg, logits, x.data(), axis));
  }
  TESSERA_FUZZ_CHECK(tessera::testing::fill_random(*out_md, diff_dst.data(),
                                                   {.seed = seed + 1, .lo = -1, .hi = 1})
                         .ok(),
                     "fill diff_dst");
  tessera::testing::guarded_buffer diff_src(diff_src_md.size_bytes());
  std::memset(diff_src.data(), 0x7E, diff_src_md.size_bytes());
  std::vector<uint8_t> before(diff_src_md.size_bytes(), 0x7E);
  const std::string problem =
      problem_text(*out_md, diff_src_md, axis, alg, true, bwd->impl_name());
  const absl::Status ran =
      bwd->execute({{tessera::arg::dst, {*in_md, dst.data()}},
                    {tessera::arg::diff_dst, {*out_md, diff_dst.data()}},
                    {tessera::arg::diff_src, {diff_src_md, diff_src.data()}}});
  TESSERA_FUZZ_CHECK(diff_src.guards_intact(), problem);
  if (!ran.ok()) {
    TESSERA_FUZZ_CHECK(std::memcmp(before.data(), diff_src.data(), before.size()) == 0,
                       absl::StrCat(problem, ": failed (", ran.ToString(),
                                    ") but wrote to diff_src"));
    return 0;
  }
  const auto want = tessera::testing::softmax_backward_reference(alg, *in_md, dst.data(), *out_md,
                                                                 diff_dst.data(), axis);
  const auto got = tessera::testing::read_logical(diff_src_md, diff_src.data());
  if (diff_src_md.dt() == data_type::f64) {
    check_f64(want, got, problem);
    return 0;
  }
  check_verdict(tessera::testing::benchdnn_softmax_compare(
                    {.backward = true, .alg = alg, .dt = diff_src_md.dt(), .axis_size = axis_size},
                    want, got),
                problem);
  return 0;
}
