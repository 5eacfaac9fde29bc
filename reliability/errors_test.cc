// The bad-input catalogue of docs/errors.md: every case here is one row there. Each case checks
// that the input is rejected with a Status (never a crash) whose message names the bad value
// (the `names` substrings). Run with TESSERA_PRINT_ERRORS=1 to print "id<TAB>message" for every
// case: that output is what docs/errors.md quotes.
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/core/data_type.h"
#include "tessera/core/memory_desc.h"
#include "tessera/formats/algebra.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/formats/md_string.h"
#include "tessera/formats/tag.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/runtime/lru_cache.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/simd/isa.h"

namespace tessera {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

memory_desc md(std::vector<dim_t> dims, data_type dt, const char* tag) {
  return *make_memory_desc(dims, dt, tag);
}
absl::Status status_of(const absl::Status& s) { return s; }
template <class T>
absl::Status status_of(const absl::StatusOr<T>& s) { return s.status(); }

struct error_case {
  std::string id;
  std::function<absl::Status()> run;
  std::vector<std::string> names;  // substrings the message must contain
};

#define CASE(id, expr, ...) \
  error_case { id, [=] { return status_of(expr); }, { __VA_ARGS__ } }

primitive_attr with_src_scales(int mask) {
  primitive_attr a;
  a.src_scales = quant_param{.mask = mask};
  return a;
}
primitive_attr with_oscale(int mask, std::vector<float> v) {
  primitive_attr a;
  a.oscale = output_scales{.mask = mask, .values = std::move(v)};
  return a;
}
primitive_attr with_src_zp() {
  primitive_attr a;
  a.src_zero_points = quant_param{};
  return a;
}
primitive_attr with_sum() {
  primitive_attr a;
  a.sum = sum_post_op{};
  return a;
}
primitive_attr with_stochastic_rounding() {
  primitive_attr a;
  a.dst_rounding = rounding_mode::stochastic;
  return a;
}



absl::Status reorder_exec(const exec_args& args) {
  const memory_desc s = md({2, 3}, data_type::f32, "ab");
  const memory_desc d = md({2, 3}, data_type::f32, "ba");
  return reorder::create(s, d)->execute(args);
}
float g_buf[64];

// An f32 -> f8_e5m2 reorder, stochastic when asked, executed with `seed` (when given).
absl::Status stochastic_exec(bool stochastic, const memory* seed) {
  const memory_desc s = md({2, 3}, data_type::f32, "ab");
  const memory_desc d = md({2, 3}, data_type::f8_e5m2, "ab");
  exec_args args{{arg_from, {s, g_buf}}, {arg_to, {d, g_buf + 16}}};
  if (seed) args.set(arg::attr_rounding_seed, *seed);
  return reorder::create(s, d, stochastic ? with_stochastic_rounding() : primitive_attr{})
      ->execute(args);
}

// reorder_typed with an int8_t buffer for an f32 descriptor.
absl::Status typed_mismatch() {
  const memory_desc s = md({2, 3}, data_type::f32, "ab");
  int8_t out[6];
  return reorder_typed<float, int8_t>(g_buf, s, out, s);
}


// A blocking with one inner block of `size` on `dim` and the given outer strides.
blocking_desc one_block(int dim, dim_t size, std::vector<dim_t> strides) {
  blocking_desc b;
  b.inner_nblks = 1;
  b.inner_blks[0] = size;
  b.inner_idxs[0] = dim;
  for (size_t d = 0; d < strides.size(); ++d) b.strides[d] = strides[d];
  return b;
}

// Two hand-built node lists over one dim of 2^62 whose block boundaries interleave (src blocks
// of 4 starting at 1, dst blocks of 4 starting at 2): 62 components that never merge, more
// loops than a loop_nest holds.
absl::Status too_many_loops() {
  node_list src, dst;
  src.rank = dst.rank = 1;
  src.dims[0] = dst.dims[0] = int64_t{1} << 62;
  for (int k = 0; k < 31; ++k) src.nodes[src.count++] = {4, 1, 0, int64_t{1} << (2 * k)};
  dim_t stride = 1;
  dst.nodes[dst.count++] = {2, stride, 0, 1};
  for (int k = 0; k < 30; ++k) {
    stride *= 3;
    dst.nodes[dst.count++] = {4, stride, 0, int64_t{2} << (2 * k)};
  }
  dst.nodes[dst.count++] = {2, stride * 3, 0, int64_t{1} << 61};
  return joint_coalesce(src, dst).status();
}

// A user pool that runs everything inline: only its presence matters here.
class inline_pool : public thread_pool {
 public:
  int num_threads() const override { return 2; }
  void parallel_for(int64_t n, int64_t chunk,
                    absl::FunctionRef<void(int64_t, int64_t)> fn) override {
    for (int64_t b = 0; b < n; b += chunk) fn(b, std::min(n, b + chunk));
  }
};

absl::Status set_num_threads_under_user_pool() {
  set_thread_pool(std::make_shared<inline_pool>());
  absl::Status s = set_num_threads(2);
  set_thread_pool(nullptr);
  return s;
}

absl::Status lru_make_returns_null() {
  lru_cache<int, int> cache(4);
  return cache
      .get_or_create(1, [] { return absl::StatusOr<std::shared_ptr<const int>>(nullptr); })
      .status();
}

memory_desc f32_desc(const char* tag) { return md({2, 3}, data_type::f32, tag); }

absl::Status softmax_fwd_exec(const memory_desc& src, const memory_desc& dst,
                              const primitive_attr& attr, const exec_args& args) {
  return softmax_forward::create(softmax_alg::softmax, src, dst, 1, attr)->execute(args);
}
absl::Status softmax_bwd_exec(const exec_args& args) {
  const memory_desc s = f32_desc("ab");
  return softmax_backward::create(softmax_alg::softmax, s, s, s, 1)->execute(args);
}

// A 2x3 softmax with post-ops `ops`, src at g_buf, dst at g_buf + 16 and post_op_src1{0}: a 1x3
// f32 operand at `operand`.
absl::Status softmax_post_op_exec(post_ops_list ops, float* operand) {
  primitive_attr a;
  a.post_ops = std::move(ops);
  const memory_desc s = f32_desc("ab");
  exec_args args{{arg::src, {s, g_buf}}, {arg::dst, {s, g_buf + 16}}};
  args.set(post_op_src1{0}, {md({1, 3}, data_type::f32, "ab"), operand});
  return softmax_fwd_exec(s, s, a, args);
}

primitive_attr with_post_ops(int count) {
  primitive_attr a;
  a.post_ops.assign(count, post_op::eltwise(eltwise_alg::relu));
  return a;
}
primitive_attr with_any_operand() {
  primitive_attr a;
  a.post_ops = {post_op::binary(binary_alg::add, *memory_desc::any({1, 3}, data_type::f32))};
  return a;
}
absl::Status softmax_bwd_post_op_arg() {
  const memory_desc s = f32_desc("ab");
  exec_args args{{arg::dst, {s, g_buf}}, {arg::diff_dst, {s, g_buf + 16}},
                 {arg::diff_src, {s, g_buf + 32}}};
  args.set(post_op_src1{0}, {md({1, 3}, data_type::f32, "ab"), g_buf + 48});
  return softmax_bwd_exec(args);
}

std::vector<error_case> all_cases() {
  const memory_desc f32_23 = md({2, 3}, data_type::f32, "ab");
  return {
      // ---- descriptor (core/memory_desc) ----
      CASE("desc.rank", memory_desc::with_strides(std::vector<dim_t>(13, 1), data_type::f32,
                                                  std::vector<dim_t>(13, 1)), "13"),
      CASE("desc.undef_type", memory_desc::with_strides({2}, data_type::undef, {1}), "undef"),
      CASE("desc.negative_dim", memory_desc::with_strides({2, -3}, data_type::f32, {3, 1}), "-3"),
      CASE("desc.strides_count", memory_desc::with_strides({2, 3}, data_type::f32, {1}), "strides"),
      CASE("desc.negative_stride", memory_desc::with_strides({2, 3}, data_type::f32, {3, -1}),
           "-1"),
      CASE("desc.overlap", memory_desc::with_strides({2, 3}, data_type::f32, {2, 1}), "2"),
      CASE("desc.zero_stride", memory_desc::with_strides({2, 3}, data_type::f32, {0, 1}), "0"),
      CASE("desc.sub_byte_odd_stride", memory_desc::with_strides({2, 4}, data_type::s4, {5, 1}),
           "odd stride 5"),
      CASE("desc.sub_byte_odd_run", memory_desc::with_strides({2, 3}, data_type::u4, {4, 1}),
           "runs of 3"),
      CASE("desc.sub_byte_view_start",
           memory_desc::with_strides({4, 6}, data_type::s4, {6, 1})->submemory({2, 2}, {0, 1}),
           "offset 1"),
      CASE("desc.compensation_mask", [] {
             memory_extra e;
             e.flags = extra_flags::compensation_conv_s8s8;
             e.compensation_mask = 4;
             return memory_desc::with_strides({2, 3}, data_type::s8, {3, 1})->with_extra(e);
           }(), "4"),
      CASE("desc.extra_flags", [] {
             memory_extra e;
             e.flags = 0x4;
             return memory_desc::with_strides({2, 3}, data_type::s8, {3, 1})->with_extra(e);
           }(), "0x4"),
      CASE("desc.scale_adjust", [] {
             memory_extra e;
             e.flags = extra_flags::scale_adjust;
             e.scale_adjust = -2.0f;
             return memory_desc::with_strides({2, 3}, data_type::s8, {3, 1})->with_extra(e);
           }(), "-2"),
      CASE("desc.compensation_runtime", [] {
             memory_extra e;
             e.flags = extra_flags::compensation_conv_asymmetric_src;
             e.asymm_compensation_mask = 1;
             return memory_desc::with_strides({kRuntimeDim, 3}, data_type::s8, {3, 1})->with_extra(e);
           }(), "run-time"),
      CASE("desc.too_many_blocks", [] {
             blocking_desc b;
             b.inner_nblks = 13;
             return memory_desc::with_blocking({2}, data_type::f32, b);
           }(), "13"),
      CASE("desc.block_size", [] {
             blocking_desc b;
             b.inner_nblks = 1;
             b.inner_blks[0] = 0;
             b.strides[0] = 1;
             return memory_desc::with_blocking({2}, data_type::f32, b);
           }(), "size 0"),
      CASE("desc.block_dim", [] {
             blocking_desc b;
             b.inner_nblks = 1;
             b.inner_blks[0] = 4;
             b.inner_idxs[0] = 3;
             b.strides[0] = 4;
             return memory_desc::with_blocking({2}, data_type::f32, b);
           }(), "3"),
      CASE("desc.elements_overflow",
           memory_desc::with_strides({kMax / 2, 4}, data_type::f32, {4, 1}), "overflow"),
      CASE("desc.bytes_overflow",
           memory_desc::with_strides({int64_t{1} << 61}, data_type::f32, {1}), "int64"),
      CASE("desc.bytes_overflow_f64",
           memory_desc::with_strides({int64_t{1} << 59, 2}, data_type::f64, {2, 1}), "int64"),
      CASE("desc.tag_bytes_overflow",
           make_memory_desc({int64_t{1} << 31, int64_t{1} << 31}, data_type::f32, "ab"), "int64"),
      CASE("desc.submemory_out_of_range", f32_23.submemory({2, 2}, {0, 2}), "2"),
      CASE("desc.submemory_block_offset",
           md({2, 32}, data_type::f32, "aB16b").submemory({2, 16}, {0, 8}), "8"),
      CASE("desc.permute_not_permutation", f32_23.permute_axes(std::vector<int>{0, 0}), "0,0"),
      CASE("desc.reshape_volume", f32_23.reshape({7}), "7"),
      CASE("desc.reshape_blocked", md({2, 32}, data_type::f32, "aB16b").reshape({64}), "64"),
      CASE("desc.undef_permute", memory_desc().permute_axes(std::vector<int>{}), "undef"),
      CASE("desc.block_product_overflow", [] {
             blocking_desc b = one_block(0, int64_t{1} << 32, {int64_t{1} << 32});
             b.inner_nblks = 2;
             b.inner_blks[1] = int64_t{1} << 32;
             b.inner_idxs[1] = 0;
             return memory_desc::with_blocking({2}, data_type::u8, b);
           }(), "dim 0", "2^63"),
      CASE("desc.padded_dim_overflow",
           memory_desc::with_blocking({kMax - 1}, data_type::u8, one_block(0, 16, {16})),
           "9223372036854775806", "16"),
      CASE("desc.any_elements_overflow", memory_desc::any({kMax / 2, 4}, data_type::f32),
           "{4611686018427387903,4}"),
      CASE("desc.submemory_not_blocked",
           memory_desc::any({2, 3}, data_type::f32)->submemory({1, 1}, {0, 0}), "any"),
      CASE("desc.submemory_rank", f32_23.submemory({2}, {0}), "{2}", "rank 2"),
      CASE("desc.submemory_block_size",
           md({2, 64}, data_type::f32, "aB16b").submemory({2, 24}, {0, 0}), "24", "16"),
      CASE("desc.submemory_offset_overflow",
           memory_desc::with_strides({3, 0}, data_type::f32, {kMax, 1})->submemory({1, 0}, {2, 0}),
           "offset 2", "9223372036854775807"),
      CASE("desc.permute_count", f32_23.permute_axes(std::vector<int>{0}), "{0}", "rank is 2"),
      CASE("desc.reshape_rank", f32_23.reshape(std::vector<dim_t>(13, 1)), "13"),
      CASE("desc.reshape_undef", memory_desc().reshape({}), "undef"),
      CASE("desc.runtime_submemory",
           memory_desc::with_strides({kRuntimeDim, 3}, data_type::f32, {3, 1})->submemory({1, 3}, {0, 0}),
           "run-time", "{*,3}"),
      CASE("desc.runtime_reshape",
           memory_desc::with_strides({kRuntimeDim, 3}, data_type::f32, {3, 1})->reshape({3, 1}), "run-time"),
      CASE("desc.runtime_not_fitting",
           f32_23.check_fits(*memory_desc::with_strides({kRuntimeDim, 4}, data_type::f32, {4, 1})),
           "dims[1] = 3", "dims[1] = 4"),
      CASE("desc.reshape_negative", f32_23.reshape({-6}), "-6"),
      CASE("desc.reshape_overflow", f32_23.reshape({kMax, kMax}), "9223372036854775807"),
      CASE("desc.reshape_dense_strides_overflow",
           md({0}, data_type::f32, "a").reshape({0, kMax, 2}), "{0,9223372036854775807,2}"),
      CASE("desc.reshape_padded_one",
           md({2, 1}, data_type::f32, "aB16b").reshape({2}), "dim 1", "16"),
      CASE("desc.reshape_stride_overflow",
           memory_desc::with_blocking({int64_t{1} << 31}, data_type::f32,
                                      one_block(0, int64_t{1} << 31, {int64_t{1} << 40}))
               ->reshape({1, int64_t{1} << 31}),
           "1099511627776"),
      CASE("desc.reshape_split_block",
           memory_desc::with_blocking({2, 16}, data_type::f32, one_block(1, 16, {16, 1}))
               ->reshape({32}),
           "dim 1 is blocked"),
      // ---- formats ----
      CASE("tag.empty", parse_tag(""), "empty"),
      CASE("tag.bad_character", parse_tag("ab?"), "ab?"),
      CASE("tag.duplicate_dim", parse_tag("aba"), "aba"),
      CASE("tag.skipped_dim", parse_tag("ac"), "ac"),
      CASE("tag.block_size_zero", parse_tag("aB0b"), "aB0b"),
      CASE("tag.blocked_dim_without_block", parse_tag("aBc"), "aBc"),
      CASE("tag.block_of_unblocked_dim", parse_tag("abc16b"), "abc16b"),
      CASE("tag.meta_x_needs_rank", parse_tag("aBx16b"), "aBx16b"),
      CASE("tag.rank_mismatch", make_memory_desc({2, 3, 4}, data_type::f32, "nchw"), "nchw"),
      CASE("tag.domain_mix", parse_tag("nciw"), "nciw"),
      CASE("tag.too_long", parse_tag(std::string(65, 'a')), "64"),
      CASE("tag.undef", parse_tag("undef"), "undef"),
      CASE("tag.too_many_dims_x", parse_tag("abx", 13), "abx", "12"),
      CASE("tag.uppercase_block_letter", parse_tag("aB16B"), "aB16B"),
      CASE("tag.block_without_letter", parse_tag("aB16"), "aB16"),
      CASE("tag.block_size_too_large", parse_tag("aB4294967296b"), "aB4294967296b", "2^31"),
      CASE("tag.too_many_blocks", parse_tag("aB2b2b2b2b2b2b2b2b2b2b2b2b2b"), "12"),
      CASE("tag.meta_x_twice", parse_tag("axbx", 4), "axbx"),
      CASE("tag.meta_x_uppercase", parse_tag("aX"), "aX"),
      CASE("tag.meta_x_rank_too_small", parse_tag("abcx", 2), "abcx"),
      CASE("tag.rank_given", parse_tag("abc", 2), "abc", "the dims have 2"),
      CASE("layout.any", make_layout("any", {2, 3}), "any"),
      CASE("layout.rank_mismatch", make_layout(tag<"abc">, {2, 3}), "3", "2"),
      CASE("layout.negative_dim", make_layout("ab", {2, -3}), "-3"),
      CASE("layout.overflow", make_layout("ab", {kMax, kMax}), "9223372036854775807"),
      CASE("layout.rank", make_layout("a", std::vector<dim_t>(13, 1)), "13"),
      CASE("layout.rank_of_tag_layout", make_layout(tag<"a">, std::vector<dim_t>(13, 1)), "13"),
      CASE("algebra.permute", permute_tag(tag<"ab">, std::vector<int>{0, 0}), "{0,0}", "ab"),
      CASE("algebra.block", block_tag(tag<"ab">, 2, 16), "dim 2", "16"),
      CASE("algebra.nodes_of_any", nodes_of(*memory_desc::any({2, 3}, data_type::f32)), "any"),
      CASE("algebra.coalesce_rank",
           joint_coalesce(*nodes_of(f32_23), *nodes_of(md({6}, data_type::f32, "a"))), "2", "1"),
      CASE("algebra.coalesce_dims",
           joint_coalesce(*nodes_of(f32_23), *nodes_of(md({3, 2}, data_type::f32, "ab"))),
           "dim 0", "covers 2"),
      CASE("algebra.coalesce_blocks_nest",
           joint_coalesce(*nodes_of(md({2, 12}, data_type::f32, "aB4b")),
                          *nodes_of(md({2, 12}, data_type::f32, "aB3b"))),
           "3 does not divide 4"),
      CASE("algebra.coalesce_no_node", [] {
             node_list empty;  // covers dim 0 with no node at all
             empty.rank = 1;
             empty.dims[0] = 8;
             return joint_coalesce(empty, *nodes_of(md({8}, data_type::f32, "a")));
           }(), "[1, 8)", "source"),
      CASE("algebra.coalesce_too_many_loops", too_many_loops(), "kMaxNodes"),
      CASE("md_string.dims", parse_dims("2x-3"), "-3"),
      CASE("md_string.dims_empty_field", parse_dims("2xx3"), "2xx3"),
      CASE("md_string.verbose_type", parse_verbose_md("f33::blocked:ab:f0", "2x3"), "f33"),
      CASE("md_string.verbose_fields", parse_verbose_md("f32:blocked", "2x3"), "f32:blocked"),
      CASE("md_string.benchdnn_unknown", parse_benchdnn_args("--sdt=f32 --bogus=1 2x3"),
           "--bogus"),
      CASE("md_string.dims_empty", parse_dims(""), "''"),
      CASE("md_string.dims_rank", parse_dims("1x1x1x1x1x1x1x1x1x1x1x1x1"), "13"),
      CASE("md_string.verbose_offset", parse_verbose_md("f32::blocked:ab:f0:off=3", "2x3"),
           "off=3"),
      CASE("md_string.verbose_any_tag", parse_verbose_md("f32::any:ab:f0", "2x3"), "'ab'"),
      CASE("md_string.verbose_kind", parse_verbose_md("f32::wino:ab:f0", "2x3"), "wino"),
      CASE("md_string.verbose_strides", parse_verbose_md("f32::blocked:ab@3:f0", "2x3"),
           "1 strides for 2 dims"),
      CASE("md_string.verbose_padding_flag",
           parse_verbose_md("f32::blocked:aBcd16b:f0", "2x17x3x3"), "aBcd16b", "'p'"),
      CASE("md_string.benchdnn_extra_word", parse_benchdnn_args("--stag=ab 2x3 4x5"), "4x5"),
      CASE("md_string.benchdnn_no_tag", parse_benchdnn_args("--sdt=f32 2x3"), "--stag"),
      CASE("md_string.tag_of_undef", tag_of(memory_desc()), "undef"),
      CASE("md_string.tag_of_strided",
           tag_of(*memory_desc::with_strides({2, 3}, data_type::f32, {1, 4})), "1x4"),
      CASE("data_type.unknown", parse_data_type("f31"), "f31"),
      // ---- reorder: creation ----
      CASE("reorder.dims_differ",
           reorder::create(f32_23, md({3, 2}, data_type::f32, "ab")), "2x3"),
      CASE("reorder.any_src",
           reorder::create(*memory_desc::any({2, 3}, data_type::f32), f32_23), "any"),
      CASE("reorder.mask_beyond_rank", reorder::create(f32_23, f32_23, with_src_scales(4)), "4"),
      CASE("reorder.oscale_count",
           reorder::create(f32_23, f32_23, with_oscale(2, {1.f, 2.f})), "2"),
      CASE("reorder.impl_filter",
           reorder::create(f32_23, f32_23, {}, reorder_options{.impl_filter = "nonexistent"}),
           "nonexistent"),
      CASE("reorder.src_extra_flags", [] {
             memory_extra e;
             e.flags = extra_flags::compensation_conv_s8s8;
             e.compensation_mask = 1;
             const memory_desc s8 = md({2, 3}, data_type::s8, "ab");
             return reorder::create(*s8.with_extra(e), s8, {});
           }(), "f1:s8m1"),
      CASE("reorder.compensation_dst_type", [] {
             memory_extra e;
             e.flags = extra_flags::compensation_conv_asymmetric_src;
             e.asymm_compensation_mask = 1;
             return reorder::create(f32_desc("ab"), *md({2, 3}, data_type::u8, "ab").with_extra(e), {});
           }(), "u8"),
      CASE("reorder.compensation_zero_points", [] {
             memory_extra e;
             e.flags = extra_flags::compensation_conv_s8s8;
             e.compensation_mask = 1;
             primitive_attr a;
             a.dst_zero_points = quant_param{};
             return reorder::create(f32_desc("ab"), *md({2, 3}, data_type::s8, "ab").with_extra(e), a);
           }(), "dst zero points"),
      CASE("reorder.zero_point_type", [] {
             primitive_attr a;
             a.src_zero_points = quant_param{.dt = data_type::f32};
             return reorder::create(f32_desc("ab"), md({2, 3}, data_type::s8, "ab"), a);
           }(), "f32"),
      CASE("reorder.scale_type", [] {
             primitive_attr a;
             a.dst_scales = quant_param{.dt = data_type::s8};
             return reorder::create(md({2, 3}, data_type::s8, "ab"), f32_desc("ab"), a);
           }(), "s8"),
      CASE("reorder.zero_point_type_f4", [] {
             primitive_attr a;
             a.src_zero_points = quant_param{.dt = data_type::f4_e2m1};
             return reorder::create(md({2, 4}, data_type::s4, "ab"), md({2, 4}, data_type::f32, "ab"), a);
           }(), "f4_e2m1"),
      CASE("reorder.low_precision_forced_kernel",
           reorder::create(md({2, 4}, data_type::u4, "ab"), md({2, 4}, data_type::u4, "ab"), {},
                           reorder_options{.impl_filter = "native:any:copy"}),
           "s4, u4"),
      CASE("reorder.sum_zero_point_float", [] {
             primitive_attr a;
             a.sum = sum_post_op{};
             a.sum->zero_point = 3;
             return reorder::create(f32_desc("ab"), f32_desc("ba"), a);
           }(), "3", "f32"),
      CASE("reorder.sum_zero_point_and_dst_zero_points", [] {
             primitive_attr a;
             a.sum = sum_post_op{};
             a.sum->zero_point = 3;
             a.dst_zero_points = quant_param{};
             return reorder::create(f32_desc("ab"), md({2, 3}, data_type::s8, "ab"), a);
           }(), "sum zero point", "dst zero points"),
      CASE("reorder.stochastic_dst_type",
           reorder::create(f32_23, md({2, 3}, data_type::s8, "ab"), with_stochastic_rounding()),
           "stochastic rounding of a s8 dst"),
      CASE("reorder.impl_refused",
           reorder::create(f32_23, f32_23, {}, reorder_options{.impl_filter = "convert"}),
           "convert", "plain copy"),
      // ---- reorder: execution ----
      CASE("reorder.missing_src", reorder_exec({{arg_to, {md({2, 3}, data_type::f32, "ba"),
                                                          g_buf}}}), "src"),
      CASE("reorder.wrong_desc", reorder_exec({{arg_from, {md({2, 3}, data_type::f32, "ba"),
                                                           g_buf}},
                                               {arg_to, {md({2, 3}, data_type::f32, "ba"),
                                                         g_buf + 16}}}), "descriptor"),
      CASE("reorder.null_dst", reorder_exec({{arg_from, {md({2, 3}, data_type::f32, "ab"), g_buf}},
                                             {arg_to, {md({2, 3}, data_type::f32, "ba"),
                                                       nullptr}}}), "null"),
      CASE("reorder.overlap", reorder_exec({{arg_from, {md({2, 3}, data_type::f32, "ab"), g_buf}},
                                            {arg_to, {md({2, 3}, data_type::f32, "ba"),
                                                      g_buf + 2}}}), "overlap"),
      CASE("reorder.undeclared_arg",
           reorder_exec({{arg_from, {md({2, 3}, data_type::f32, "ab"), g_buf}},
                         {arg_to, {md({2, 3}, data_type::f32, "ba"), g_buf + 16}},
                         {arg::src_scales, {md({1}, data_type::f32, "a"), g_buf + 32}}}),
           "src_scales"),
      CASE("reorder.missing_scales", [] {
             const memory_desc s = md({2, 3}, data_type::f32, "ab");
             return reorder::create(s, s, with_src_scales(0))
                 ->execute({{arg_from, {s, g_buf}}, {arg_to, {s, g_buf + 16}}});
           }(), "src_scales"),
      CASE("reorder.scales_type", [] {
             const memory_desc s = md({2, 3}, data_type::f32, "ab");
             return reorder::create(s, s, with_src_scales(0))
                 ->execute({{arg_from, {s, g_buf}}, {arg_to, {s, g_buf + 16}},
                            {arg::src_scales, {md({1}, data_type::s32, "a"), g_buf + 32}}});
           }(), "s32"),
      CASE("reorder.stochastic_missing_seed", stochastic_exec(true, nullptr),
           "attr_rounding_seed"),
      CASE("reorder.stochastic_seed_type",
           stochastic_exec(true, [] {
             static const memory m{md({1}, data_type::f32, "a"), g_buf + 40};
             return &m;
           }()),
           "attr_rounding_seed has type f32"),
      CASE("reorder.stochastic_seed_undeclared",
           stochastic_exec(false, [] {
             static const memory m{md({1}, data_type::s32, "a"), g_buf + 40};
             return &m;
           }()),
           "without stochastic rounding"),
      // ---- reorder: run-time dims ----
      CASE("reorder.runtime_one_side",
           reorder::create(md({kRuntimeDim, 3}, data_type::f32, "ab"), f32_23), "dims[0]", "run-time in src but 2"),
      CASE("reorder.runtime_oscale",
           reorder::create(md({kRuntimeDim, 3}, data_type::f32, "ab"), md({kRuntimeDim, 3}, data_type::f32, "ab"),
                           with_oscale(1, {1.f, 2.f})),
           "mask 1", "run-time dim 0"),
      CASE("reorder.runtime_exec_dim", [] {
             const memory_desc p = md({kRuntimeDim, 4}, data_type::f32, "ab");
             return reorder::create(p, p)->execute({{arg_from, {md({2, 3}, data_type::f32, "ab"), g_buf}}, {arg_to, {md({2, 3}, data_type::f32, "ab"), g_buf + 16}}});
           }(), "src", "dims[1] = 3", "dims[1] = 4"),
      CASE("reorder.runtime_exec_pattern", [] {
             const memory_desc p = md({kRuntimeDim, 3}, data_type::f32, "ab");
             return reorder::create(p, p)->execute({{arg_from, {p, g_buf}}, {arg_to, {p, g_buf + 16}}});
           }(), "src", "run-time"),
      CASE("reorder.scales_count", [] {
             const memory_desc s = md({2, 3}, data_type::f32, "ab");
             return reorder::create(s, s, with_src_scales(2))
                 ->execute({{arg_from, {s, g_buf}}, {arg_to, {s, g_buf + 16}},
                            {arg::src_scales, {md({2}, data_type::f32, "a"), g_buf + 32}}});
           }(), "3"),
      CASE("reorder.null_scales", [] {
             const memory_desc s = md({2, 3}, data_type::f32, "ab");
             return reorder::create(s, s, with_src_scales(0))
                 ->execute({{arg_from, {s, g_buf}}, {arg_to, {s, g_buf + 16}},
                            {arg::src_scales, {md({1}, data_type::f32, "a"), nullptr}}});
           }(), "src_scales", "null"),
      CASE("reorder.diff_arg", reorder_exec({{arg_from, {f32_desc("ab"), g_buf}},
                                             {arg_to, {f32_desc("ba"), g_buf + 16}},
                                             {arg::diff_src, {f32_desc("ab"), g_buf + 32}}}),
           "diff_src"),
      CASE("reorder.typed_mismatch", typed_mismatch(), "s8"),
      // ---- softmax ----
      CASE("softmax.axis", softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 2), "2"),
      CASE("softmax.dims_differ",
           softmax_forward::create(softmax_alg::softmax, f32_23, md({3, 2}, data_type::f32, "ab"),
                                   1), "3x2"),
      CASE("softmax.runtime_dims",
           softmax_forward::create(softmax_alg::softmax, md({kRuntimeDim, 3}, data_type::f32, "ab"),
                                   md({kRuntimeDim, 3}, data_type::f32, "ab"), 1),
           "src", "run-time"),
      CASE("softmax.src_any",
           softmax_forward::create(softmax_alg::softmax, *memory_desc::any({2, 3}, data_type::f32),
                                   f32_23, 1), "any"),
      CASE("softmax.type",
           softmax_forward::create(softmax_alg::softmax, md({2, 3}, data_type::s32, "ab"), f32_23,
                                   1), "s32"),
      CASE("softmax.stochastic_rounding",
           softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 1,
                                   with_stochastic_rounding()),
           "stochastic rounding"),
      CASE("softmax.bwd_type",
           softmax_backward::create(softmax_alg::softmax, md({2, 3}, data_type::s8, "ab"), f32_23,
                                    f32_23, 1), "s8"),
      CASE("softmax.alg", softmax_forward::create(static_cast<softmax_alg>(7), f32_23, f32_23, 1),
           "7"),
      CASE("softmax.zero_points",
           softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 1, with_src_zp()),
           "zero points"),
      CASE("softmax.sum", softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 1,
                                                  with_sum()), "sum"),
      CASE("softmax.scale_mask", softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 1,
                                                         with_src_scales(1)), "mask 1"),
      CASE("softmax.scale_type", softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 1, [] {
             primitive_attr a;
             a.src_scales = quant_param{.mask = 0, .dt = data_type::bf16};
             return a;
           }()), "bf16"),
      CASE("softmax.scale_groups", softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 1, [] {
             primitive_attr a;
             a.dst_scales = quant_param{.mask = 0, .groups = {1, 3}};
             return a;
           }()), "groups 1x3"),
      CASE("softmax.oscale_not_finite",
           softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 1,
                                   with_oscale(0, {std::numeric_limits<float>::infinity()})),
           "inf"),
      CASE("softmax.impl_filter",
           softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 1, {},
                                   softmax_options{.impl_filter = "nonexistent"}), "nonexistent"),
      CASE("softmax.missing_dst", [] {
             const memory_desc s = md({2, 3}, data_type::f32, "ab");
             return softmax_forward::create(softmax_alg::softmax, s, s, 1)
                 ->execute({{arg::src, {s, g_buf}}});
           }(), "dst"),
      CASE("softmax.partial_overlap", [] {
             const memory_desc s = md({2, 3}, data_type::f32, "ab");
             return softmax_forward::create(softmax_alg::softmax, s, s, 1)
                 ->execute({{arg::src, {s, g_buf}}, {arg::dst, {s, g_buf + 1}}});
           }(), "overlaps"),
      CASE("softmax.dst_scale_zero", [] {
             const memory_desc s = md({2, 3}, data_type::f32, "ab");
             primitive_attr a;
             a.dst_scales = quant_param{};
             static float zero = 0.f;
             return softmax_forward::create(softmax_alg::softmax, s, s, 1, a)
                 ->execute({{arg::src, {s, g_buf}}, {arg::dst, {s, g_buf + 16}},
                            {arg::dst_scales, {md({1}, data_type::f32, "a"), &zero}}});
           }(), "dst_scales", "0"),
      CASE("softmax.rank", [] {
             const memory_desc scalar = *memory_desc::with_strides({}, data_type::f32, {});
             return softmax_forward::create(softmax_alg::softmax, scalar, scalar, 0);
           }(), "rank 0"),
      CASE("softmax.dst_undef",
           softmax_forward::create(softmax_alg::softmax, f32_23, memory_desc(), 1), "undef"),
      CASE("softmax.any_dst_overflow",
           softmax_forward::create(softmax_alg::softmax,
                                   md({int64_t{1} << 58}, data_type::u8, "a"),
                                   *memory_desc::any({int64_t{1} << 58}, data_type::f64), 0),
           "f64", "288230376151711744"),
      CASE("softmax.oscale_with_scales", [] {
             primitive_attr a = with_oscale(0, {2.f});
             a.src_scales = quant_param{};
             return softmax_forward::create(softmax_alg::softmax, f32_desc("ab"), f32_desc("ab"), 1, a);
           }(), "output scale", "src/dst scales"),
      CASE("softmax.oscale_count",
           softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 1,
                                   with_oscale(0, {1.f, 2.f})), "2 values"),
      CASE("softmax.bwd_attr",
           softmax_backward::create(softmax_alg::softmax, f32_23, f32_23, f32_23, 1,
                                    with_src_scales(0)), "scales:src:0"),
      CASE("softmax.post_op_broadcast", [] {
             primitive_attr a;
             a.post_ops = {post_op::binary(binary_alg::add, md({1, 2}, data_type::f32, "ab"))};
             return softmax_forward::create(softmax_alg::softmax, f32_desc("ab"), f32_desc("ab"), 1, a);
           }(), "1x2", "2x3"),
      CASE("softmax.post_op_operand_type", [] {
             primitive_attr a;
             a.post_ops = {post_op::binary(binary_alg::mul, md({1, 3}, data_type::s32, "ab"))};
             return softmax_forward::create(softmax_alg::softmax, f32_desc("ab"), f32_desc("ab"), 1, a);
           }(), "s32"),
      CASE("softmax.bwd_post_ops", [] {
             primitive_attr a;
             a.post_ops = {post_op::eltwise(eltwise_alg::linear, 0.5f, 2.f)};
             return softmax_backward::create(softmax_alg::softmax, f32_desc("ab"), f32_desc("ab"),
                                             f32_desc("ab"), 1, a);
           }(), "post-ops", "linear:0.5:2"),
      CASE("softmax.acc_mode", [] {
             primitive_attr a;
             a.acc_mode = accumulation_mode::f16;
             return softmax_forward::create(softmax_alg::softmax, f32_desc("ab"), f32_desc("ab"), 1, a);
           }(), "f16"),
      CASE("softmax.post_op_missing", [] {
             primitive_attr a;
             a.post_ops = {post_op::binary(binary_alg::add, md({1, 3}, data_type::f32, "ab"))};
             return softmax_fwd_exec(f32_desc("ab"), f32_desc("ab"), a,
                                     {{arg::src, {f32_desc("ab"), g_buf}},
                                      {arg::dst, {f32_desc("ab"), g_buf + 16}}});
           }(), "post_op_src1(0)", "missing"),
      CASE("softmax.post_op_not_binary",
           softmax_post_op_exec({post_op::eltwise(eltwise_alg::relu)}, g_buf + 32),
           "post_op_src1(0)", "position 0"),
      CASE("softmax.post_op_overlap",
           softmax_post_op_exec(
               {post_op::binary(binary_alg::add, md({1, 3}, data_type::f32, "ab"))}, g_buf + 18),
           "post_op_src1(0)", "overlaps dst"),
      CASE("softmax.post_op_wrong_desc",
           softmax_post_op_exec(
               {post_op::binary(binary_alg::add, md({2, 3}, data_type::f32, "ab"))}, g_buf + 32),
           "post_op_src1(0)", "other than"),
      CASE("softmax.post_op_null",
           softmax_post_op_exec(
               {post_op::binary(binary_alg::add, md({1, 3}, data_type::f32, "ab"))}, nullptr),
           "post_op_src1(0)", "null"),
      CASE("softmax.post_op_count",
           softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 1, with_post_ops(33)),
           "33"),
      CASE("softmax.post_op_operand_any",
           softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 1, with_any_operand()),
           "concrete layout"),
      CASE("softmax.bwd_post_op_arg", softmax_bwd_post_op_arg(), "post_op_src1(0)"),
      CASE("softmax.impl_refused",
           softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 1, {},
                                   softmax_options{.impl_filter = "strided"}),
           "strided", "the axis is dense"),
      CASE("softmax.wrong_desc",
           softmax_fwd_exec(f32_23, f32_23, {},
                            {{arg::src, {f32_desc("ba"), g_buf}}, {arg::dst, {f32_23, g_buf + 16}}}),
           "src", "other than"),
      CASE("softmax.null_src",
           softmax_fwd_exec(f32_23, f32_23, {},
                            {{arg::src, {f32_23, nullptr}}, {arg::dst, {f32_23, g_buf + 16}}}),
           "src", "null"),
      CASE("softmax.inplace_types",
           softmax_fwd_exec(f32_23, md({2, 3}, data_type::bf16, "ab"), {},
                            {{arg::src, {f32_23, g_buf}},
                             {arg::dst, {md({2, 3}, data_type::bf16, "ab"), g_buf}}}),
           "f32", "bf16"),
      CASE("softmax.missing_scale",
           softmax_fwd_exec(f32_23, f32_23, with_src_scales(0),
                            {{arg::src, {f32_23, g_buf}}, {arg::dst, {f32_23, g_buf + 16}}}),
           "src_scales", "missing"),
      CASE("softmax.scale_arg_type",
           softmax_fwd_exec(f32_23, f32_23, with_src_scales(0),
                            {{arg::src, {f32_23, g_buf}}, {arg::dst, {f32_23, g_buf + 16}},
                             {arg::src_scales, {md({1}, data_type::s32, "a"), g_buf + 32}}}),
           "src_scales", "s32"),
      CASE("softmax.null_scale",
           softmax_fwd_exec(f32_23, f32_23, with_src_scales(0),
                            {{arg::src, {f32_23, g_buf}}, {arg::dst, {f32_23, g_buf + 16}},
                             {arg::src_scales, {md({1}, data_type::f32, "a"), nullptr}}}),
           "src_scales", "null"),
      CASE("softmax.bwd_missing_diff_dst",
           softmax_bwd_exec({{arg::dst, {f32_23, g_buf}}, {arg::diff_src, {f32_23, g_buf + 16}}}),
           "diff_dst"),
      CASE("softmax.bwd_partial_overlap",
           softmax_bwd_exec({{arg::dst, {f32_23, g_buf}}, {arg::diff_dst, {f32_23, g_buf + 16}},
                             {arg::diff_src, {f32_23, g_buf + 17}}}),
           "diff_src", "diff_dst"),
      CASE("softmax.bwd_diff_src_overlaps_dst",
           softmax_bwd_exec({{arg::dst, {f32_23, g_buf}}, {arg::diff_dst, {f32_23, g_buf + 16}},
                             {arg::diff_src, {f32_23, g_buf + 2}}}),
           "diff_src", "dst"),
      CASE("softmax.undeclared_scale",
           softmax_fwd_exec(f32_23, f32_23, {},
                            {{arg::src, {f32_23, g_buf}}, {arg::dst, {f32_23, g_buf + 16}},
                             {arg::dst_scales, {md({1}, data_type::f32, "a"), g_buf + 40}}}),
           "dst_scales", "created without it"),
      CASE("softmax.bwd_unread_arg",
           softmax_bwd_exec({{arg::src, {f32_23, g_buf + 32}}, {arg::dst, {f32_23, g_buf}},
                             {arg::diff_dst, {f32_23, g_buf + 8}},
                             {arg::diff_src, {f32_23, g_buf + 16}}}),
           "takes no src"),
      // ---- runtime ----
      CASE("threads.zero", set_num_threads(0), "0"),
      CASE("threads.too_many", set_num_threads(5000), "5000"),
      CASE("threads.user_pool", set_num_threads_under_user_pool(), "set_num_threads(2)",
           "user thread pool"),
      CASE("threads.negative_spin", set_thread_spin_micros(-1), "-1", "[0, 1000000]"),
      CASE("threads.spin_too_long", set_thread_spin_micros(2000000), "2000000", "[0, 1000000]"),
      CASE("cache.negative_capacity", set_primitive_cache_capacity(-1), "-1"),
      CASE("cache.make_returned_null", lru_make_returns_null(), "null"),
      CASE("isa.unknown", simd::parse_isa("avx9"), "avx9"),
      CASE("isa.cap_value", simd::set_max_isa(static_cast<simd::isa>(7)), "7"),
  };
}

TEST(Errors, EveryCatalogueEntryIsRejectedWithAMessageNamingTheBadValue) {
  const bool print = std::getenv("TESSERA_PRINT_ERRORS") != nullptr;
  for (const error_case& c : all_cases()) {
    const absl::Status s = c.run();
    EXPECT_FALSE(s.ok()) << c.id << " was accepted";
    for (const std::string& n : c.names) {
      EXPECT_NE(s.message().find(n), absl::string_view::npos)
          << c.id << ": message \"" << s.message() << "\" does not name \"" << n << "\"";
    }
    if (print) std::cout << c.id << "\t" << s.ToString() << "\n";
  }
}

// The size rule of the spec: a descriptor whose byte count does not fit int64 is refused, at the
// boundary too; the largest that fits is accepted.
TEST(Errors, ByteCountOverflowIsRejectedAtTheBoundary) {
  const int64_t max_f32_elems = kMax / 32;  // sizes are counted in bits
  EXPECT_TRUE(memory_desc::with_strides({max_f32_elems}, data_type::f32, {1}).ok());
  EXPECT_FALSE(memory_desc::with_strides({max_f32_elems + 1}, data_type::f32, {1}).ok());
  EXPECT_FALSE(memory_desc::with_strides({kMax - 100}, data_type::u8, {1}).ok());
  EXPECT_FALSE(make_memory_desc({kMax - 100, kMax - 100}, data_type::u8, "ab").ok());
  EXPECT_FALSE(make_memory_desc({3, kMax / 2}, data_type::u8, "ba").ok());
  // Padding can overflow where the dims alone would not.
  EXPECT_FALSE(make_memory_desc({1, kMax - 100}, data_type::u8, "aB16b").ok());
}

// with_blocking checks for overflow before it computes dims[d] + block - 1 (UB for dims within a
// block of INT64_MAX).
TEST(Errors, DimsNearInt64MaxAreRejectedWithoutUndefinedBehaviour) {
  EXPECT_FALSE(memory_desc::with_strides({kMax}, data_type::u8, {1}).ok());
  EXPECT_FALSE(make_memory_desc({kMax, kMax}, data_type::u8, "ab").ok());
  EXPECT_FALSE(make_memory_desc({1, kMax - 1}, data_type::u8, "aB16b").ok());
}

// Executing a softmax with a src whose layout differs from the created one: the message names
// both layouts, not only type and dims, which are equal here ("(f32 2x3) other than ...").
TEST(Errors, SoftmaxWrongDescriptorMessageNamesBothLayouts) {
  const memory_desc ab = md({2, 3}, data_type::f32, "ab");
  const memory_desc ba = md({2, 3}, data_type::f32, "ba");
  const absl::Status s = softmax_fwd_exec(ab, ab, {}, {{arg::src, {ba, g_buf}},
                                                        {arg::dst, {ab, g_buf + 16}}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(":ba:"), absl::string_view::npos) << s.message();
  EXPECT_NE(s.message().find(":ab:"), absl::string_view::npos) << s.message();
}

// In-place execution with equal types but different layouts: the message names both layouts,
// not only "types are f32 and f32".
TEST(Errors, SoftmaxInPlaceLayoutMismatchMessageNamesBothLayouts) {
  const memory_desc ab = md({2, 3}, data_type::f32, "ab");
  const memory_desc ba = md({2, 3}, data_type::f32, "ba");
  const absl::Status s = softmax_fwd_exec(ab, ba, {}, {{arg::src, {ab, g_buf}},
                                                        {arg::dst, {ba, g_buf}}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(":ba:"), absl::string_view::npos) << s.message();
  EXPECT_NE(s.message().find(":ab:"), absl::string_view::npos) << s.message();
}

}  // namespace
}  // namespace tessera
