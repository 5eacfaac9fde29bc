// libFuzzer target: reorder create + execute on arbitrary small descriptors, types and
// attributes, compared bit for bit with testing/reorder's scalar reference.
// Input: rank byte (1 + mod 4), dims (mod 18 each; 0 allowed), src type, dst type (the
// low-precision ones included, fuzz_input.h's decode_reorder_type), src and dst
// descriptors (fuzz_input.h), an attribute flags byte (bit 0 src_scales, 1 dst_scales,
// 2 src_zero_points, 3 dst_zero_points, 4 sum, 5 output scales, 6 typed and grouped
// quantization, 7 stochastic rounding of dst) each followed by its mask byte (raw: bits beyond
// the rank are rejected) and,
// with bit 6, a byte for each scale / zero point: bits 0-1 its value type (scales f32 f16 bf16
// e8m0, zero points s32 s8 u8 s4), bits 2-4 and 5-7 the groups of the last and the second-last dim
// (1 + value; 0 and 0: no groups; groups that do not divide are rejected), with bit 7 two bytes
// of a stochastic-rounding seed, a fill byte (bit 0: probe values, else random;
// the rest is the seed; low-precision buffers get random codes), and bytes for the scale /
// zero-point values.
// Properties: execute never crashes; when it succeeds, the whole destination buffer (elements,
// padding and the gaps between them) equals the reference's, and the guard bytes around it are
// intact; when it fails, the destination buffer is untouched.
// Then a run-time byte (bit d: dim d run-time in both descriptors) and a strides byte (low nibble:
// src strides run-time, high: dst): unless both are 0, the reorder created from those patterns
// (fuzz_input.h's runtime_pattern), executed on the same concrete descriptors, must succeed and
// write the same bytes, guards intact. Creation may refuse (output scales over a run-time dim).
// The input's last byte may give dst compensation flags (see below): the reference computes the
// buffers too, and they are part of the compared destination.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tessera/core/memory_desc.h"
#include "tessera/formats/md_string.h"
#include "tessera/core/convert.h"
#include "tessera/core/low_precision.h"
#include "tessera/primitives/common/attr.h"
#include "tessera/primitives/common/quant_args.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/reliability/fuzz_input.h"
#include "tessera/testing/compare.h"
#include "tessera/testing/fill.h"
#include "tessera/testing/reorder/reference.h"

namespace {

using tessera::data_type;
using tessera::dim_t;
using tessera::memory_desc;
using tessera::reliability::byte_reader;

constexpr float kScales[] = {1.f, 0.5f, 2.f, 0.25f, -1.5f, 3.f, 1.f / 3, 0.f,
                             1e-3f, 1e3f, 7.1f, -0.125f, 64.f, 1e-30f, 1e30f, -3.75f};

// The number of values a mask asks for (one per index of the masked dims).
int64_t values_for_mask(int mask, absl::Span<const dim_t> dims) {
  int64_t n = 1;
  for (size_t d = 0; d < dims.size(); ++d)
    if (mask & (1 << d)) n *= dims[d];
  return n;
}

struct quant_buffer {
  std::vector<uint8_t> bytes;
  tessera::memory mem;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  byte_reader in(data, size);
  const int rank = 1 + in.u8() % 4;
  std::vector<dim_t> dims(rank);
  for (auto& d : dims) d = in.u8() % 18;
  const data_type sdt = tessera::reliability::decode_reorder_type(in);
  const data_type ddt = tessera::reliability::decode_reorder_type(in);
  auto src_md = tessera::reliability::decode_desc(in, dims, sdt);
  auto dst_md = tessera::reliability::decode_desc(in, dims, ddt);
  if (!src_md.ok() || !dst_md.ok()) return 0;
  if (src_md->kind() != tessera::format_kind::blocked ||
      dst_md->kind() != tessera::format_kind::blocked)
    return 0;
  if (src_md->size_bytes() > (1 << 16) || dst_md->size_bytes() > (1 << 16)) return 0;
  // The input's last byte (also read in sequence; older inputs keep their meaning when it has
  // bits 0-1 clear) asks for compensation: bit 0 s8s8, bit 1 zero point, bit 2 a 0.5 scale
  // adjustment, bits 3-7 the mask of both (raw: bits beyond the rank are rejected).
  const uint8_t extra_byte = size > 0 ? data[size - 1] : 0;
  if (extra_byte & 3) {
    tessera::memory_extra e;
    if (extra_byte & 1) e.flags |= tessera::extra_flags::compensation_conv_s8s8;
    if (extra_byte & 2) e.flags |= tessera::extra_flags::compensation_conv_asymmetric_src;
    if (extra_byte & 4) e.flags |= tessera::extra_flags::scale_adjust;
    e.scale_adjust = 0.5f;
    e.compensation_mask = e.asymm_compensation_mask = extra_byte >> 3;
    auto with_extra = dst_md->with_extra(e);
    if (!with_extra.ok()) {
      TESSERA_FUZZ_CHECK(!with_extra.status().message().empty(), "with_extra refused without a message");
      return 0;
    }
    dst_md = *std::move(with_extra);
  }

  tessera::primitive_attr attr;
  const uint8_t flags = in.u8();
  const int rank_mask = (1 << rank) - 1;
  // Mask bytes: the low bits within the rank mostly, a raw out-of-range mask sometimes.
  auto mask = [&] {
    const uint8_t b = in.u8();
    return (b & 0x80) ? static_cast<int>(b & 0x7f) : (b & rank_mask);
  };
  auto quant = [&](bool zero_point) {
    tessera::quant_param q{.mask = mask()};
    if (!(flags & 64)) return q;
    const uint8_t b = in.u8();
    static constexpr data_type kScaleTypes[] = {data_type::f32, data_type::f16, data_type::bf16,
                                                data_type::e8m0};
    static constexpr data_type kZeroPointTypes[] = {data_type::s32, data_type::s8, data_type::u8,
                                                    data_type::s4};
    q.dt = (zero_point ? kZeroPointTypes : kScaleTypes)[b & 3];
    const int64_t last = 1 + ((b >> 2) & 7), second = 1 + (b >> 5);
    if (last > 1 || second > 1) {
      q.groups = rank >= 2 ? std::vector<int64_t>{second, last} : std::vector<int64_t>{last};
    }
    return q;
  };
  if (flags & 1) attr.src_scales = quant(false);
  if (flags & 2) attr.dst_scales = quant(false);
  if (flags & 4) attr.src_zero_points = quant(true);
  if (flags & 8) attr.dst_zero_points = quant(true);
  if (flags & 16) {
    attr.sum = tessera::sum_post_op{.beta = kScales[in.u8() % 16],
                                    .zero_point = static_cast<int8_t>(in.u8())};
  }
  if (flags & 32) {
    tessera::output_scales o{.mask = mask()};
    const int64_t n = (o.mask & ~rank_mask) ? 1 : values_for_mask(o.mask, dims);
    for (int64_t i = 0; i < n; ++i) o.values.push_back(kScales[in.u8() % 16]);
    attr.oscale = o;
  }
  // Stochastic rounding of dst, with a seed from the next two bytes (refused at creation unless
  // dst is bf16, f16 or an f8 type).
  int32_t rounding_seed = 0;
  if (flags & 128) {
    attr.dst_rounding = tessera::rounding_mode::stochastic;
    rounding_seed = in.u8() | (in.u8() << 8);
  }
  const uint8_t fill = in.u8();

  auto r = tessera::reorder::create(*src_md, *dst_md, attr);
  if (!r.ok()) return 0;

  std::vector<uint8_t> src(src_md->size_bytes() + 1);
  // Low-precision buffers: every bit pattern is a valid code.
  auto random_codes = [&](uint8_t* p, int64_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(rng());
  };
  if (tessera::is_low_precision(sdt)) {
    random_codes(src.data(), static_cast<int64_t>(src.size()), fill);
  } else if (fill & 1 && !tessera::is_low_precision(ddt)) {
    TESSERA_FUZZ_CHECK(tessera::testing::fill_probe(*src_md, src.data(), ddt).ok(), "fill_probe");
  } else {
    TESSERA_FUZZ_CHECK(
        tessera::testing::fill_random(*src_md, src.data(), {.seed = fill}).ok(), "fill_random");
  }
  // The destination starts with random values (the sum post-op reads them) and 0x5A padding.
  const int64_t dst_bytes = dst_md->size_bytes();
  tessera::testing::guarded_buffer dst(dst_bytes);
  std::memset(dst.data(), 0x3C, dst_bytes);
  if (tessera::is_low_precision(ddt)) {
    random_codes(static_cast<uint8_t*>(dst.data()), dst_bytes, fill + 1u);
  } else {
    TESSERA_FUZZ_CHECK(tessera::testing::fill_random(*dst_md, dst.data(),
                                                     {.seed = fill + 1u, .padding_byte = 0x5A})
                           .ok(),
                       "fill_random dst");
  }
  std::vector<uint8_t> before(static_cast<const uint8_t*>(dst.data()),
                              static_cast<const uint8_t*>(dst.data()) + dst_bytes);
  std::vector<uint8_t> want(before);

  // Scale and zero-point values, dense vectors of the types and lengths the attributes ask.
  std::vector<quant_buffer> quant_values;
  quant_values.reserve(4);
  tessera::exec_args args{{tessera::arg_from, {*src_md, src.data()}},
                          {tessera::arg_to, {*dst_md, dst.data()}}};
  tessera::exec_args quant_args;
  auto add_quant = [&](tessera::arg which, const std::optional<tessera::quant_param>& q,
                       bool is_scale) {
    if (!q) return;
    const data_type dt = tessera::quant_value_type(which, *q);
    const int64_t n = tessera::grouped_value_count(*q, dims);
    const int size = tessera::bits_of(dt) / 8;
    quant_buffer b;
    b.bytes.resize((n * tessera::bits_of(dt) + 7) / 8);
    for (int64_t i = 0; i < n; ++i) {
      if (tessera::is_low_precision(dt)) {  // e8m0 scales, s4 zero points
        const uint8_t code = is_scale ? tessera::low_precision_from_f32(dt, kScales[in.u8() % 16])
                                      : static_cast<uint8_t>(in.u8() & 0xF);
        tessera::store_code(dt, b.bytes.data(), i, code);
      } else if (is_scale) {
        const float v = kScales[in.u8() % 16];
        tessera::visit_data_type(dt, [&](auto tag) {
          using T = decltype(tag);
          if constexpr (tessera::FloatingElement<T>) {
            const T t = tessera::from_f32<T>(v);
            std::memcpy(&b.bytes[i * size], &t, sizeof(T));
          }
        });
      } else {
        const uint8_t raw = in.u8();
        const int32_t zp = dt == data_type::u8 ? raw : static_cast<int8_t>(raw);
        std::memcpy(&b.bytes[i * size], &zp, size);  // little-endian: the low bytes
      }
    }
    auto md = memory_desc::with_strides({n}, dt, {1});
    b.mem = {*md, b.bytes.data()};
    quant_values.push_back(std::move(b));
    args.set(which, quant_values.back().mem);
    quant_args.set(which, quant_values.back().mem);
  };
  add_quant(tessera::arg::src_scales, attr.src_scales, true);
  add_quant(tessera::arg::dst_scales, attr.dst_scales, true);
  add_quant(tessera::arg::src_zero_points, attr.src_zero_points, false);
  add_quant(tessera::arg::dst_zero_points, attr.dst_zero_points, false);
  if (attr.dst_rounding == tessera::rounding_mode::stochastic) {
    const tessera::memory seed{*memory_desc::with_strides({1}, data_type::s32, {1}), &rounding_seed};
    args.set(tessera::arg::attr_rounding_seed, seed);
    quant_args.set(tessera::arg::attr_rounding_seed, seed);
  }

  const std::string problem =
      absl::StrCat(tessera::verbose_md_string(*src_md), " -> ", tessera::verbose_md_string(*dst_md),
                   " dims ", tessera::dims_to_string(dims), " attr '", tessera::to_string(attr),
                   "' impl ", r->impl_name());
  const absl::Status ran = r->execute(args);
  TESSERA_FUZZ_CHECK(dst.guards_intact(), problem);
  if (!ran.ok()) {
    TESSERA_FUZZ_CHECK(dst_bytes == 0 || std::memcmp(before.data(), dst.data(), dst_bytes) == 0,
                       absl::StrCat(problem, ": failed (", ran.ToString(),
                                    ") but wrote to the destination"));
    return 0;
  }
  if (dst_bytes == 0) return 0;
  const absl::Status ref = tessera::testing::reference_reorder(
      {*src_md, src.data()}, {*dst_md, want.data()}, attr, quant_args);
  TESSERA_FUZZ_CHECK(ref.ok(), absl::StrCat(problem, ": reorder ran but the reference refused: ",
                                            ref.ToString()));
  if (std::memcmp(want.data(), dst.data(), dst_bytes) != 0) {
    const std::string exact =
        tessera::is_low_precision(ddt)
            ? std::string("low-precision codes differ")
            : std::string(
                  tessera::testing::bit_exact({*dst_md, dst.data()}, {*dst_md, want.data()})
                      .message());
    size_t first = 0;
    while (want[first] == static_cast<const uint8_t*>(dst.data())[first]) ++first;
    tessera::reliability::fail(absl::StrCat(problem, ": differs from the reference at byte ",
                                            first, "; ", exact));
  }

  const uint8_t runtime_dims = in.u8(), runtime_strides = in.u8();
  if (runtime_dims == 0 && runtime_strides == 0) return 0;
  if (dst_md->extra().has_compensation()) return 0;  // compensation needs concrete descriptors
  auto src_p = tessera::reliability::runtime_pattern(*src_md, runtime_dims, runtime_strides & 0xF);
  auto dst_p = tessera::reliability::runtime_pattern(*dst_md, runtime_dims, runtime_strides >> 4);
  TESSERA_FUZZ_CHECK(src_p.ok() && dst_p.ok(), absl::StrCat(problem, ": a run-time pattern was refused"));
  auto pr = tessera::reorder::create(*src_p, *dst_p, attr);
  if (!pr.ok()) return 0;
  tessera::testing::guarded_buffer again(dst_bytes);
  std::memcpy(again.data(), before.data(), dst_bytes);
  tessera::exec_args runtime_args = args;
  runtime_args.set(tessera::arg_to, {*dst_md, again.data()});
  const std::string runtime_problem = absl::StrCat(problem, " run-time dims mask ", runtime_dims,
                                                   " strides mask ", runtime_strides);
  const absl::Status again_ran = pr->execute(runtime_args);
  TESSERA_FUZZ_CHECK(again.guards_intact(), runtime_problem);
  TESSERA_FUZZ_CHECK(again_ran.ok(), absl::StrCat(runtime_problem, ": ", again_ran.ToString()));
  TESSERA_FUZZ_CHECK(std::memcmp(again.data(), dst.data(), dst_bytes) == 0,
                     absl::StrCat(runtime_problem, ": differs from the fixed reorder"));
  return 0;
}
