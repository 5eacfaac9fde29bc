#include "tessera/primitives/reorder/internal/compensation.h"

#include <array>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace tessera::reorder_internal {
namespace {

// Index of x in the buffer over `mask`, laid out as `layout` (memory_desc::compensation_desc).
int64_t buffer_index(const memory_desc& layout, int mask, int rank, const std::array<dim_t, kMaxRank>& x) {
  if (layout.rank() == 0) return 0;
  std::array<dim_t, kMaxRank> kept{};
  int n = 0;
  for (int d = 0; d < rank; ++d) {
    if (mask & (1 << d)) kept[n++] = x[d];
  }
  return layout.offset(absl::Span<const dim_t>(kept.data(), n));
}

// Adds `v` to the s32 at `p` with wrapping arithmetic (oneDNN's int32 sums; no signed overflow).
void add_wrapping(char* p, int64_t v) {
  uint32_t u = 0;
  std::memcpy(&u, p, 4);
  u += static_cast<uint32_t>(v);
  std::memcpy(p, &u, 4);
}

}  // namespace

absl::Status check_compensation(const memory_desc& src, const memory_desc& dst, const primitive_attr& attr) {
  if (src.extra().flags != extra_flags::none) {
    return absl::InvalidArgumentError(absl::StrCat("src memory_desc carries extra flags ", extra_string(src.extra()),
                                                   ": only a reorder's dst may ask for compensation"));
  }
  if (!dst.extra().has_compensation()) return absl::OkStatus();
  if (dst.dt() != data_type::s8) {
    return absl::InvalidArgumentError(absl::StrCat("dst extra ", extra_string(dst.extra()),
                                                   " asks for compensation, which needs an s8 dst; dst is ",
                                                   name_of(dst.dt())));
  }
  const char* other = attr.src_zero_points   ? "src zero points"
                      : attr.dst_zero_points ? "dst zero points"
                      : attr.sum             ? "a sum post-op"
                      : !attr.post_ops.empty() ? "post-ops"
                                               : nullptr;
  if (other != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("dst extra ", extra_string(dst.extra()),
                                                   " asks for compensation, which pairs with scales only; the "
                                                   "attributes have ",
                                                   other));
  }
  return absl::OkStatus();
}

float scale_adjust_of(const memory_desc& dst) {
  return dst.extra().has_compensation() ? dst.extra().applied_scale_adjust() : 1.0f;
}

void write_compensation(const memory_desc& dst, char* dst_data) {
  const memory_extra& e = dst.extra();
  if (!e.has_compensation()) return;
  const int64_t s8_at = dst.s8s8_compensation_offset_bytes(), zp_at = dst.zp_compensation_offset_bytes();
  if (s8_at >= 0) std::memset(dst_data + s8_at, 0, 4 * compensation_count(dst.padded_dims(), e.compensation_mask));
  if (zp_at >= 0) std::memset(dst_data + zp_at, 0, 4 * compensation_count(dst.padded_dims(), e.asymm_compensation_mask));
  const int rank = dst.rank();
  for (int d = 0; d < rank; ++d) {
    if (dst.dims()[d] == 0) return;
  }
  const memory_desc s8_layout = dst.compensation_desc(e.compensation_mask);
  const memory_desc zp_layout = dst.compensation_desc(e.asymm_compensation_mask);
  std::array<dim_t, kMaxRank> x{};
  const auto* data = reinterpret_cast<const int8_t*>(dst_data);
  while (true) {
    const int64_t v = data[dst.offset(absl::Span<const dim_t>(x.data(), rank))];
    if (s8_at >= 0) add_wrapping(dst_data + s8_at + 4 * buffer_index(s8_layout, e.compensation_mask, rank, x), -128 * v);
    if (zp_at >= 0) add_wrapping(dst_data + zp_at + 4 * buffer_index(zp_layout, e.asymm_compensation_mask, rank, x), -v);
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++x[d] < dst.dims()[d]) break;
      x[d] = 0;
    }
    if (d < 0) break;
  }
}

}  // namespace tessera::reorder_internal
