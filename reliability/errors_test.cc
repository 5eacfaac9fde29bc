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
#include "tessera/formats/make_memory_desc.h"
#include "tessera/formats/md_string.h"
#include "tessera/formats/tag.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/softmax/softmax.h"

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

absl::Status reorder_exec(const exec_args& args) {
  const memory_desc s = md({2, 3}, data_type::f32, "ab");
  const memory_desc d = md({2, 3}, data_type::f32, "ba");
  return reorder::create(s, d)->execute(args);
}
float g_buf[64];

// reorder_typed with an int8_t buffer for an f32 descriptor.
absl::Status typed_mismatch() {
  const memory_desc s = md({2, 3}, data_type::f32, "ab");
  int8_t out[6];
  return reorder_typed<float, int8_t>(g_buf, s, out, s);
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
      CASE("md_string.dims", parse_dims("2x-3"), "-3"),
      CASE("md_string.dims_empty_field", parse_dims("2xx3"), "2xx3"),
      CASE("md_string.verbose_type", parse_verbose_md("f33::blocked:ab:f0", "2x3"), "f33"),
      CASE("md_string.verbose_fields", parse_verbose_md("f32:blocked", "2x3"), "f32:blocked"),
      CASE("md_string.benchdnn_unknown", parse_benchdnn_args("--sdt=f32 --bogus=1 2x3"),
           "--bogus"),
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
      CASE("reorder.scales_count", [] {
             const memory_desc s = md({2, 3}, data_type::f32, "ab");
             return reorder::create(s, s, with_src_scales(2))
                 ->execute({{arg_from, {s, g_buf}}, {arg_to, {s, g_buf + 16}},
                            {arg::src_scales, {md({2}, data_type::f32, "a"), g_buf + 32}}});
           }(), "3"),
      CASE("reorder.typed_mismatch", typed_mismatch(), "s8"),
      // ---- softmax ----
      CASE("softmax.axis", softmax_forward::create(softmax_alg::softmax, f32_23, f32_23, 2), "2"),
      CASE("softmax.dims_differ",
           softmax_forward::create(softmax_alg::softmax, f32_23, md({3, 2}, data_type::f32, "ab"),
                                   1), "3x2"),
      CASE("softmax.src_any",
           softmax_forward::create(softmax_alg::softmax, *memory_desc::any({2, 3}, data_type::f32),
                                   f32_23, 1), "any"),
      CASE("softmax.type",
           softmax_forward::create(softmax_alg::softmax, md({2, 3}, data_type::s32, "ab"), f32_23,
                                   1), "s32"),
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
      // ---- runtime ----
      CASE("threads.zero", set_num_threads(0), "0"),
      CASE("threads.too_many", set_num_threads(5000), "5000"),
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

// Regression (docs/reliability.md, finding 3): with_blocking once computed dims[d] + block - 1
// before its overflow check (UB for dims within a block of INT64_MAX).
TEST(Errors, DimsNearInt64MaxAreRejectedWithoutUndefinedBehaviour) {
  EXPECT_FALSE(memory_desc::with_strides({kMax}, data_type::u8, {1}).ok());
  EXPECT_FALSE(make_memory_desc({kMax, kMax}, data_type::u8, "ab").ok());
  EXPECT_FALSE(make_memory_desc({1, kMax - 1}, data_type::u8, "aB16b").ok());
}

}  // namespace
}  // namespace tessera
