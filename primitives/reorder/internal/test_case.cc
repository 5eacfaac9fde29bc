#include "tessera/primitives/reorder/internal/test_case.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/core/convert.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/md_string.h"
#include "tessera/primitives/common/quant_args.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/simd/isa.h"
#include "tessera/testing/fill.h"
#include "tessera/testing/index.h"
#include "tessera/testing/reorder/reference.h"

namespace tessera::reorder_test {
namespace {

// Deterministic, varied scale values: powers of two and non-trivial fractions.
float scale_value(int64_t i, uint64_t seed) {
  static constexpr float kScales[] = {0.5f, 2.f, 0.3f, 1.75f, 3.f, 0.125f, 1.f / 3, 10.f};
  return kScales[(i + seed) % 8];
}
int32_t zp_value(int64_t i, uint64_t seed) { return static_cast<int32_t>((i * 7 + seed) % 11) - 5; }

// Fills src (random values, or probes) and the old dst: the old dst matters for the sum post-op,
// and its padding starts dirty so that zeroing is checked. Empty, or what failed.
std::string fill_buffers(const reorder_case& c, std::vector<unsigned char>& src,
                         std::vector<unsigned char>& dst) {
  absl::Status filled =
      c.fill == fill_kind::probe
          ? testing::fill_probe(c.src, src.data(), c.dst.dt())
          : testing::fill_random(c.src, src.data(), {.seed = c.seed});
  if (!filled.ok()) return absl::StrCat("fill: ", filled.ToString());
  absl::Status dst_filled = testing::fill_random(
      c.dst, dst.data(), {.seed = c.seed + 100, .padding_byte = 0xA5, .lo = -4, .hi = 4});
  if (!dst_filled.ok()) return absl::StrCat("fill dst: ", dst_filled.ToString());
  return "";
}

// A copy of `from` in `storage`, placed `misalign` bytes past a 64-byte boundary.
unsigned char* place_copy(const std::vector<unsigned char>& from, int misalign,
                          std::vector<unsigned char>& storage) {
  storage.resize(from.size() + 64 + misalign);
  unsigned char* at = storage.data() +
                      (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 + misalign;
  if (!from.empty()) std::memcpy(at, from.data(), from.size());
  return at;
}

// The scale and zero-point arrays of a case, as bytes of the types the attributes declare;
// they back the arguments add_quant_args sets.
struct case_quant_arrays {
  std::vector<unsigned char> src_scales, dst_scales, src_zps, dst_zps;
};

// Value i of a quantization argument in type dt (scales f32, f16 or bf16; zero points s32, s8,
// or u8, whose values are shifted to be non-negative), appended to `bytes`.
void append_value(arg a, data_type dt, int64_t i, uint64_t seed, std::vector<unsigned char>& bytes) {
  visit_data_type(dt, [&](auto tag) {
    using T = decltype(tag);
    T v{};
    if (is_zero_point_arg(a)) {
      const int32_t z = zp_value(i, seed) + (dt == data_type::u8 ? 5 : 0);
      if constexpr (IntegralElement<T>) v = static_cast<T>(z);
    } else {
      if constexpr (FloatingElement<T>) v = from_f32<T>(scale_value(i, seed));
    }
    const auto* raw = reinterpret_cast<const unsigned char*>(&v);
    bytes.insert(bytes.end(), raw, raw + sizeof(T));
  });
}

// Sets the case's scale and zero-point arguments (values from scale_value and zp_value, in
// the declared types, one per group) in both `args` (for the reorder) and `quant` (for the
// reference).
void add_quant_args(const reorder_case& c, case_quant_arrays& v, exec_args& args,
                    exec_args& quant) {
  auto add = [&](arg a, const std::optional<quant_param>& q, std::vector<unsigned char>& bytes) {
    if (!q) return;
    const data_type dt = quant_value_type(a, *q);
    const int64_t n = grouped_value_count(*q, c.dst.dims());
    for (int64_t i = 0; i < n; ++i) append_value(a, dt, i, c.seed, bytes);
    memory m{*memory_desc::with_strides({n}, dt, {1}), bytes.data()};
    args.set(a, m);
    quant.set(a, m);
  };
  const primitive_attr& at = c.attr;
  add(arg::src_scales, at.src_scales, v.src_scales);
  add(arg::dst_scales, at.dst_scales, v.dst_scales);
  add(arg::src_zero_points, at.src_zero_points, v.src_zps);
  add(arg::dst_zero_points, at.dst_zero_points, v.dst_zps);
}

// "first difference at dst element offset <e>: got 0x.. want 0x.. (impl ..)" for the first
// element (of `es` bytes) where got and want differ; got != want.
std::string first_difference(const std::vector<unsigned char>& got,
                             const std::vector<unsigned char>& want, int es,
                             const std::string& impl) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;
    const size_t e = i / es;
    std::string hex_got, hex_want;
    for (int b = es - 1; b >= 0; --b) {
      absl::StrAppend(&hex_got, absl::Hex(got[e * es + b], absl::kZeroPad2));
      absl::StrAppend(&hex_want, absl::Hex(want[e * es + b], absl::kZeroPad2));
    }
    return absl::StrCat("first difference at dst element offset ", e, ": got 0x", hex_got,
                        " want 0x", hex_want, " (impl ", impl, ")");
  }
  return "";
}

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
  result.mismatch = fill_buffers(c, src, got);
  if (!result.mismatch.empty()) return result;
  std::vector<unsigned char> want = got;

  // The kernel writes a copy of `got` placed dst_misalign bytes past a 64-byte boundary.
  std::vector<unsigned char> placed_storage;
  unsigned char* placed = place_copy(got, c.dst_misalign, placed_storage);
  // And reads a copy of src placed src_misalign bytes past one, when asked.
  std::vector<unsigned char> src_storage;
  unsigned char* src_placed =
      c.src_misalign >= 0 ? place_copy(src, c.src_misalign, src_storage) : src.data();
  exec_args args{{arg_from, {c.src, src_placed}}, {arg_to, {c.dst, placed}}};
  exec_args quant;
  case_quant_arrays values;
  add_quant_args(c, values, args, quant);

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
    result.mismatch = first_difference(got, want, bits_of(c.dst.dt()) / 8, result.impl);
  }
  return result;
}

}  // namespace tessera::reorder_test
