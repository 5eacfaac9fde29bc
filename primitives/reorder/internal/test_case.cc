#include "tessera/primitives/reorder/internal/test_case.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/core/convert.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/md_string.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/simd/isa.h"
#include "tessera/testing/fill.h"
#include "tessera/testing/index.h"
#include "tessera/testing/reorder/reference.h"

namespace tessera::reorder_test {
namespace {

int64_t masked_count(int mask, const memory_desc& md) {
  int64_t n = 1;
  for (int d = 0; d < md.rank(); ++d) {
    if (mask & (1 << d)) n *= md.dims()[d];
  }
  return n;
}

// Deterministic, varied scale values: powers of two and non-trivial fractions.
float scale_value(int64_t i, uint64_t seed) {
  static constexpr float kScales[] = {0.5f, 2.f, 0.3f, 1.75f, 3.f, 0.125f, 1.f / 3, 10.f};
  return kScales[(i + seed) % 8];
}
int32_t zp_value(int64_t i, uint64_t seed) { return static_cast<int32_t>((i * 7 + seed) % 11) - 5; }

}  // namespace

std::string describe(const reorder_case& c) {
  return absl::StrCat(dims_to_string(c.src.dims()), " src ", verbose_md_string(c.src), " dst ",
                      verbose_md_string(c.dst), " attr '",
                      to_string(c.attr), "' seed ", c.seed,
                      c.fill == fill_kind::probe ? " probe" : "", " dst at 64k+",
                      c.dst_misalign,
                      c.src_misalign >= 0 ? absl::StrCat(" src at 64k+", c.src_misalign) : "");
}

std::vector<std::string> all_impl_filters() {
  simd::scoped_max_isa all(simd::detected_isa());
  return reorder_kernel_names();
}

case_result run_case(const reorder_case& c, const std::string& filter) {
  case_result result;
  // The ISA list of create() is capped by max_isa: lift the cap to what the CPU has.
  simd::scoped_max_isa all(simd::detected_isa());
  absl::StatusOr<reorder> r = reorder::create(c.src, c.dst, c.attr, {.impl_filter = filter});
  if (!r.ok()) {
    if (r.status().code() != absl::StatusCode::kNotFound) {
      result.mismatch = absl::StrCat("create failed: ", r.status().ToString());
      result.accepted = true;
    }
    return result;
  }
  result.accepted = true;
  result.impl = r->impl_name();

  std::vector<unsigned char> src(c.src.size_bytes()), got(c.dst.size_bytes());
  absl::Status filled =
      c.fill == fill_kind::probe
          ? testing::fill_probe(c.src, src.data(), c.dst.dt())
          : testing::fill_random(c.src, src.data(), {.seed = c.seed});
  if (!filled.ok()) {
    result.mismatch = absl::StrCat("fill: ", filled.ToString());
    return result;
  }
  // The old dst matters for the sum post-op; padding starts dirty so zeroing is checked.
  absl::Status dst_filled = testing::fill_random(
      c.dst, got.data(), {.seed = c.seed + 100, .padding_byte = 0xA5, .lo = -4, .hi = 4});
  if (!dst_filled.ok()) {
    result.mismatch = absl::StrCat("fill dst: ", dst_filled.ToString());
    return result;
  }
  std::vector<unsigned char> want = got;

  std::vector<float> src_scales, dst_scales;
  std::vector<int32_t> src_zps, dst_zps;
  std::vector<memory_desc> quant_mds;
  // The kernel writes a copy of `got` placed dst_misalign bytes past a 64-byte boundary.
  std::vector<unsigned char> placed_storage(got.size() + 64 + c.dst_misalign);
  unsigned char* placed = placed_storage.data() +
                          (64 - reinterpret_cast<uintptr_t>(placed_storage.data()) % 64) % 64 +
                          c.dst_misalign;
  if (!got.empty()) std::memcpy(placed, got.data(), got.size());
  // And reads a copy of src placed src_misalign bytes past one, when asked.
  std::vector<unsigned char> src_storage;
  unsigned char* src_placed = src.data();
  if (c.src_misalign >= 0) {
    src_storage.resize(src.size() + 64 + c.src_misalign);
    unsigned char* at = src_storage.data() +
                        (64 - reinterpret_cast<uintptr_t>(src_storage.data()) % 64) % 64 +
                        c.src_misalign;
    if (!src.empty()) std::memcpy(at, src.data(), src.size());
    src_placed = at;
  }
  exec_args args{{arg_from, {c.src, src_placed}}, {arg_to, {c.dst, placed}}};
  exec_args quant;
  auto add = [&](arg a, int mask, auto& values, data_type dt, auto make) {
    const int64_t n = masked_count(mask, c.dst);
    for (int64_t i = 0; i < n; ++i) values.push_back(make(i, c.seed));
    memory m{*memory_desc::with_strides({n}, dt, {1}), values.data()};
    args.set(a, m);
    quant.set(a, m);
  };
  if (c.attr.src_scales) add(arg::src_scales, c.attr.src_scales->mask, src_scales, data_type::f32, scale_value);
  if (c.attr.dst_scales) add(arg::dst_scales, c.attr.dst_scales->mask, dst_scales, data_type::f32, scale_value);
  if (c.attr.src_zero_points) add(arg::src_zero_points, c.attr.src_zero_points->mask, src_zps, data_type::s32, zp_value);
  if (c.attr.dst_zero_points) add(arg::dst_zero_points, c.attr.dst_zero_points->mask, dst_zps, data_type::s32, zp_value);

  absl::Status ran = r->execute(args);
  if (!ran.ok()) {
    result.mismatch = absl::StrCat("execute: ", ran.ToString());
    return result;
  }
  if (!got.empty()) std::memcpy(got.data(), placed, got.size());
  absl::Status ref = testing::reference_reorder({c.src, src.data()}, {c.dst, want.data()}, c.attr,
                                                quant);
  if (!ref.ok()) {
    result.mismatch = absl::StrCat("reference: ", ref.ToString());
    return result;
  }
  if (got != want) {
    const int es = bits_of(c.dst.dt()) / 8;
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] != want[i]) {
        const size_t e = i / es;
        std::string hex_got, hex_want;
        for (int b = es - 1; b >= 0; --b) {
          absl::StrAppend(&hex_got, absl::Hex(got[e * es + b], absl::kZeroPad2));
          absl::StrAppend(&hex_want, absl::Hex(want[e * es + b], absl::kZeroPad2));
        }
        result.mismatch = absl::StrCat("first difference at dst element offset ", e, ": got 0x",
                                       hex_got, " want 0x", hex_want, " (impl ", result.impl, ")");
        break;
      }
    }
  }
  return result;
}

}  // namespace tessera::reorder_test
