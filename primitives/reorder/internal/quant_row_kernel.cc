#include "tessera/primitives/reorder/internal/quant_row_kernel.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tessera/core/convert.h"
#include "tessera/core/low_precision.h"
#include "tessera/primitives/common/quant_args.h"
#include "tessera/primitives/reorder/internal/kernel_rules.h"
#include "tessera/primitives/reorder/internal/nest_walk.h"
#include "tessera/primitives/reorder/internal/plan.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/simd/memory.h"

namespace tessera::reorder_internal {
namespace {

bool is_nibble(data_type dt) { return dt == data_type::s4 || dt == data_type::u4; }

// Bytes of the first `elements` elements of dt (an even count for a 4-bit dt).
int64_t bytes_of(data_type dt, int64_t elements) { return elements * bits_of(dt) / 8; }

// Plain, dense, row-major (the last dim innermost, each stride the product of the dims after it),
// without padding or extra buffers.
bool is_row_major(const memory_desc& md) {
  if (!md.is_plain() || md.padded_dims() != md.dims() || md.extra().flags != 0) return false;
  dim_t stride = 1;
  for (int d = md.rank() - 1; d >= 0; --d) {
    if (md.dims()[d] != 1 && md.blocking().strides[d] != stride) return false;
    stride *= md.dims()[d];
  }
  return true;
}

// One scale or zero-point attribute as the rows read it: its values as given (grouped, of type
// dt), the number of values per row of the last dim, the group along the last dim.
struct operand_rows {
  const void* values = nullptr;  // null: absent
  data_type dt = data_type::undef;
  int mask = 0;
  std::vector<int64_t> groups;  // per logical dim (1 where unmasked or ungrouped)
  int64_t per_row = 1;          // values along the last dim: n / its group, or 1 unmasked
  bool per_column = false;      // the last dim is masked

  // The index, among the given values, of the first value of row `row` (row-major over the
  // leading dims) divided by per_row.
  int64_t row_base(absl::Span<const dim_t> dims, int64_t row) const {
    const int rank = static_cast<int>(dims.size());
    int64_t base = 0, stride = 1;
    for (int d = rank - 2; d >= 0; --d) {
      const int64_t index = row % dims[d];
      row /= dims[d];
      if (mask & (1 << d)) {
        base += (index / groups[d]) * stride;
        stride *= dims[d] / groups[d];
      }
    }
    return base;
  }
};

operand_rows operand_of(const plan& p, arg which, const void* values) {
  operand_rows o;
  const std::optional<quant_param>& q = quant_attr_of(p.attr, which);
  if (!q || values == nullptr) return o;
  o.values = values;
  o.dt = quant_value_type(which, *q);
  const auto dims = p.dst.dims();
  const int rank = p.dst.rank();
  o.mask = q->mask;
  for (int d = 0; d < rank; ++d) o.groups.push_back((q->mask & (1 << d)) ? quant_group(*q, rank, d) : 1);
  o.per_column = (q->mask & (1 << (rank - 1))) != 0;
  o.per_row = o.per_column ? dims[rank - 1] / o.groups[rank - 1] : 1;
  return o;
}

// count values of type dt from index first of `values`, as f32 (zero points exactly, as
// apply_one converts them), each repeated `repeat` times into out.
void widen_values(data_type dt, const void* values, int64_t first, int64_t count, int64_t repeat,
                  float* out) {
  auto fill = [&](auto value_at) {
    if (repeat == 1) {  // one value per column: a loop the compiler vectorizes
      for (int64_t g = 0; g < count; ++g) out[g] = value_at(first + g);
      return;
    }
    for (int64_t g = 0; g < count; ++g) {
      const float v = value_at(first + g);
      for (int64_t k = 0; k < repeat; ++k) *out++ = v;
    }
  };
  if (is_low_precision(dt)) {  // s4 / u4 zero points, e8m0 scales
    fill([&](int64_t i) { return low_precision_to_f32(dt, load_code(dt, values, i)); });
    return;
  }
  visit_data_type(dt, [&](auto tag) {
    using T = decltype(tag);
    const T* typed = static_cast<const T*>(values);
    if constexpr (IntegralElement<T>) {
      fill([&](int64_t i) { return static_cast<float>(static_cast<int32_t>(typed[i])); });
    } else {
      fill([&](int64_t i) { return to_f32(typed[i]); });
    }
  });
}

// The f32 values of one operand for the current row, refreshed when the row's values change.
class row_values {
 public:
  explicit row_values(const operand_rows& o) : o_(o) {}

  row_operand for_row(absl::Span<const dim_t> dims, int64_t row) {
    if (o_.values == nullptr) return {};
    const int64_t base = o_.row_base(dims, row);
    const int64_t first = base * o_.per_row;
    // f32 scales, one per column: read in place.
    if (o_.dt == data_type::f32 && o_.per_column && o_.groups.back() == 1) {
      return {static_cast<const float*>(o_.values) + first, true};
    }
    if (base != cached_base_) {
      cached_base_ = base;
      const int64_t repeat = o_.per_column ? o_.groups.back() : 1;
      buffer_.resize(static_cast<size_t>(o_.per_row * repeat));
      widen_values(o_.dt, o_.values, first, o_.per_row, repeat, buffer_.data());
    }
    return {buffer_.data(), o_.per_column};
  }

 private:
  const operand_rows& o_;
  int64_t cached_base_ = -1;
  std::vector<float> buffer_;
};

}  // namespace

absl::Status accept_quant_rows(plan& p, const vector_kernels* vk) {
  const data_type s = p.src.dt(), d = p.dst.dt();
  quant_row_fn* row = vk->find_quant_row(s, d);
  if (row == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "not a 4-bit weight reorder (", name_of(s), " -> ", name_of(d),
        "; takes f32, bf16 or f16 to s4 or u4, and back)"));
  }
  const primitive_attr& a = p.attr;
  if (a.dst_rounding == rounding_mode::stochastic || a.oscale || a.sum || p.scale_adjust != 1.0f) {
    return absl::FailedPreconditionError(
        "stochastic rounding, the output scale, the sum post-op and compensation take the "
        "element-wise kernel");
  }
  if (p.src.dims() != p.dst.dims() || !is_row_major(p.src) || !is_row_major(p.dst)) {
    return absl::FailedPreconditionError("src and dst are not both dense row-major");
  }
  const int rank = p.dst.rank();
  const int64_t n = rank == 0 ? 1 : p.dst.dims()[rank - 1];
  const data_type nibble = is_nibble(s) ? s : d;
  const dim_t nibble_offset0 = is_nibble(s) ? p.src.offset0() : p.dst.offset0();
  if (rank == 0 || n % 2 != 0 || nibble_offset0 % 2 != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the ", name_of(nibble), " rows do not start on bytes (last dim ", n, ", offset0 ",
        nibble_offset0, ")"));
  }
  p.kernel = quant_rows_state{row, large_dst(p)};
  p.grouped_quant_values = true;
  return absl::OkStatus();
}

void run_kernel(const plan& p, const quant_rows_state& s, const exec_ctx& ctx) {
  const auto dims = p.dst.dims();
  const int64_t n = dims.back();
  const int64_t rows = p.dst.nelems() / n;
  if (rows == 0 || n == 0) return;
  const operand_rows src_zp = operand_of(p, arg::src_zero_points, ctx.given.src_zp);
  const operand_rows src_scale = operand_of(p, arg::src_scales, ctx.given.src_scale);
  const operand_rows dst_scale = operand_of(p, arg::dst_scales, ctx.given.dst_scale);
  const operand_rows dst_zp = operand_of(p, arg::dst_zero_points, ctx.given.dst_zp);
  const data_type sdt = p.src.dt(), ddt = p.dst.dt();
  const char* src = ctx.src + bytes_of(sdt, p.src.offset0());
  char* dst = ctx.dst + bytes_of(ddt, p.dst.offset0());
  const int64_t src_row_bytes = bytes_of(sdt, n), dst_row_bytes = bytes_of(ddt, n);
  parallel_for(rows, std::max<int64_t>(1, kMinElementsPerTask / n), [&](int64_t begin, int64_t end) {
    row_values values[] = {row_values(src_zp), row_values(src_scale), row_values(dst_scale),
                           row_values(dst_zp)};
    for (int64_t r = begin; r < end; ++r) {
      const row_quant q{values[0].for_row(dims, r), values[1].for_row(dims, r),
                        values[2].for_row(dims, r), values[3].for_row(dims, r)};
      s.row(src + r * src_row_bytes, dst + r * dst_row_bytes, n, q, s.stream_stores);
    }
    if (s.stream_stores) simd::store_fence();  // streamed stores visible before the task ends
  });
}

}  // namespace tessera::reorder_internal
