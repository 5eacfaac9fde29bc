// memory_desc's extra fields: validation, and the compensation buffers' sizes and offsets.
#include <algorithm>
#include <array>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "tessera/core/memory_desc.h"

namespace tessera {
namespace {

constexpr int64_t kCompensationAlignment = 4;  // bytes: the buffers hold s32
constexpr int64_t kCompensationValueBytes = 4;

absl::Status check_mask(const char* name, int mask, int rank) {
  if (mask < 0 || (rank < 31 && mask >= (1 << rank))) {
    return absl::InvalidArgumentError(absl::StrCat("memory_extra: ", name, " ", mask,
                                                   " names a dim the descriptor does not have (rank ", rank,
                                                   ": the mask must be below ", 1 << rank, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<memory_desc> memory_desc::with_extra(const memory_extra& extra) const {
  if ((extra.flags & ~extra_flags::known) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("memory_extra: flags 0x", absl::Hex(extra.flags),
                                                   " hold bits Tessera does not know (known: 0x",
                                                   absl::Hex(extra_flags::known), ")"));
  }
  if ((extra.flags & extra_flags::scale_adjust) && !(std::isfinite(extra.scale_adjust) && extra.scale_adjust > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("memory_extra: scale_adjust ", extra.scale_adjust, " must be finite and positive"));
  }
  if (extra.has_s8s8_compensation()) {
    if (absl::Status s = check_mask("compensation_mask", extra.compensation_mask, rank_); !s.ok()) return s;
  }
  if (extra.has_zp_compensation()) {
    if (absl::Status s = check_mask("asymm_compensation_mask", extra.asymm_compensation_mask, rank_); !s.ok()) {
      return s;
    }
  }
  if (extra.has_compensation() && (kind_ != format_kind::blocked || runtime_)) {
    return absl::InvalidArgumentError(
        "memory_extra: compensation needs a blocked descriptor with no run-time dims or strides");
  }
  memory_desc md = *this;
  md.extra_ = extra;
  return md;
}

int64_t memory_desc::size_bytes() const {
  const int64_t data = data_size_bytes();
  if (data <= 0 || !extra_.has_compensation()) return data;
  const int64_t tail = zp_compensation_offset_bytes() >= 0
                           ? zp_compensation_offset_bytes() +
                                 kCompensationValueBytes * compensation_count(padded_dims(), extra_.asymm_compensation_mask)
                           : s8s8_compensation_offset_bytes() +
                                 kCompensationValueBytes * compensation_count(padded_dims(), extra_.compensation_mask);
  return tail;
}

int64_t memory_desc::s8s8_compensation_offset_bytes() const {
  if (!extra_.has_s8s8_compensation()) return -1;
  const int64_t data = data_size_bytes();
  return (data + kCompensationAlignment - 1) / kCompensationAlignment * kCompensationAlignment;
}

int64_t memory_desc::zp_compensation_offset_bytes() const {
  if (!extra_.has_zp_compensation()) return -1;
  const int64_t data = data_size_bytes();
  const int64_t start = (data + kCompensationAlignment - 1) / kCompensationAlignment * kCompensationAlignment;
  if (!extra_.has_s8s8_compensation()) return start;
  return start + kCompensationValueBytes * compensation_count(padded_dims(), extra_.compensation_mask);
}

memory_desc memory_desc::compensation_desc(int mask) const {
  std::array<int, kMaxRank> kept{};  // kept[k]: the dim of this descriptor that is dim k
  std::array<int, kMaxRank> new_index{};
  int n = 0;
  for (int d = 0; d < rank_; ++d) {
    new_index[d] = -1;
    if (mask & (1 << d)) {
      new_index[d] = n;
      kept[n++] = d;
    }
  }
  std::array<dim_t, kMaxRank> dims{};
  for (int k = 0; k < n; ++k) dims[k] = dims_[kept[k]];
  blocking_desc b;
  dim_t tile = 1;  // the inner blocks of the kept dims, in this descriptor's order
  for (int i = 0; i < blocking_.inner_nblks; ++i) {
    const int k = new_index[blocking_.inner_idxs[i]];
    if (k < 0) continue;
    b.inner_blks[b.inner_nblks] = blocking_.inner_blks[i];
    b.inner_idxs[b.inner_nblks++] = k;
    tile *= blocking_.inner_blks[i];
  }
  // Outer dims innermost first: smallest stride of this descriptor first, later dims first on ties.
  std::array<int, kMaxRank> order{};
  for (int k = 0; k < n; ++k) order[k] = k;
  std::sort(order.begin(), order.begin() + n, [&](int x, int y) {
    const dim_t sx = blocking_.strides[kept[x]], sy = blocking_.strides[kept[y]];
    return sx != sy ? sx < sy : x > y;
  });
  const std::array<dim_t, kMaxRank> blocks = block_products();
  dim_t stride = tile;
  for (int j = 0; j < n; ++j) {
    const int k = order[j];
    b.strides[k] = stride;
    stride *= padded_dims_[kept[k]] / blocks[kept[k]];
  }
  absl::StatusOr<memory_desc> md = with_blocking(absl::Span<const dim_t>(dims.data(), n), data_type::s32, b);
  return md.ok() ? *md : memory_desc();
}

}  // namespace tessera
