#include "tessera/primitives/reorder/internal/gather_kernel.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tessera/core/status.h"
#include "tessera/primitives/reorder/internal/kernel_rules.h"
#include "tessera/primitives/reorder/internal/nest_walk.h"
#include "tessera/primitives/reorder/internal/plan.h"

namespace tessera::reorder_internal {
namespace {

// A problem of at most kMaxGatherElements dst elements (padding included) whose src-contiguous
// and dst-contiguous nodes make tiles of fewer than kMaxGatherTile elements (abx -> xba
// 2x16x3x4: 48 tiles of 2 x 4) spends its time in per-tile and per-strip calls, many times
// oneDNN's time, as does the strided kernel. Its dst elements are listed at create with the src
// element each takes (gather_state::src); execution gathers them in dst order, in chunks through
// a local block, and converts each chunk with the ISA's contiguous conversion (the convert
// kernel's lanes: bit for bit the reference). dst must be dense: its elements and padding fill
// one range with no holes, so that chunks are contiguous. Per-dimension scales and zero points:
// each element's operand offsets are listed too, and a chunk is widened to f32, quantized step by
// step (quantize_chunk) and narrowed to dst (the strided kernel, one element at a time, is
// several times slower on 2x16x3x4 nchw -> nhwc with per-channel src scales).
constexpr int64_t kMaxGatherElements = 4096, kMaxGatherTile = 64, kMaxGatherConversion = 512,
                  kGatherChunk = 256;

template <class Bits>
void gather_chunk(const gather_state& s, const char* src, int64_t i0, int64_t n, char* out) {
  const auto* from = reinterpret_cast<const Bits*>(src);
  auto* to = reinterpret_cast<Bits*>(out);
  const int32_t* idx = s.src.data() + i0;
  for (int64_t i = 0; i < n; ++i) {
    Bits v{};
    if (idx[i] >= 0) std::memcpy(&v, from + idx[i], sizeof(Bits));
    to[i] = v;
  }
}

constexpr int kGatherQuantOperands = kOscale - kSrcScale + 1;

// Each element's value of one quantization operand, as f32 (apply_one's static_cast).
template <class T>
void expand_quant(const T* values, const int32_t* offsets, int op, int64_t len, float* out) {
  for (int64_t i = 0; i < len; ++i) {
    out[i] = static_cast<float>(values[offsets[i * kGatherQuantOperands + (op - kSrcScale)]]);
  }
}

// apply_one's steps in its order on a chunk of f32 values, one step over the whole chunk at a
// time: the same operations per element, so the same bits, in loops the compiler vectorizes
// (per element, a subnormal operand costs a microcode assist on Intel, tens of ns per scalar
// multiplication, which the probe values of the driver's fill hit).
void quantize_chunk(const gather_state& s, const exec_ctx& ctx, int64_t i0, int64_t len,
                    char* dst_chunk, float* x) {
  const quant_ptrs& q = ctx.q;
  const int32_t* off = s.quant.data() + i0 * kGatherQuantOperands;
  alignas(64) float v[kGatherChunk];
  if (q.src_zp) {
    expand_quant(q.src_zp, off, kSrcZp, len, v);
    for (int64_t i = 0; i < len; ++i) x[i] -= v[i];
  }
  if (q.src_scale) {
    expand_quant(q.src_scale, off, kSrcScale, len, v);
    for (int64_t i = 0; i < len; ++i) x[i] *= v[i];
  }
  if (q.oscale) {
    expand_quant(q.oscale, off, kOscale, len, v);
    for (int64_t i = 0; i < len; ++i) x[i] *= v[i];
  }
  if (q.has_sum) {
    alignas(64) float old[kGatherChunk];
    s.dst_to_f32(dst_chunk, old, len, quant_ptrs{}, false);
    if (q.dst_zp) {
      expand_quant(q.dst_zp, off, kDstZp, len, v);
    } else {
      std::fill(v, v + len, static_cast<float>(q.sum_zp));
    }
    for (int64_t i = 0; i < len; ++i) x[i] += q.beta * (old[i] - v[i]);
  }
  if (q.dst_scale) {
    expand_quant(q.dst_scale, off, kDstScale, len, v);
    for (int64_t i = 0; i < len; ++i) x[i] /= v[i];
  }
  if (q.dst_zp) {
    expand_quant(q.dst_zp, off, kDstZp, len, v);
    for (int64_t i = 0; i < len; ++i) x[i] += v[i];
  }
}

}  // namespace

void run_kernel(const plan& p, const gather_state& s, const exec_ctx& ctx) {
  const int ss = bytes_of(p.src.dt()), ds = bytes_of(p.dst.dt());
  const int64_t n = static_cast<int64_t>(s.src.size());
  char* dst = ctx.dst + s.dst_base * ds;
  alignas(64) char local[kGatherChunk * 8];
  for (int64_t i0 = 0; i0 < n; i0 += kGatherChunk) {
    const int64_t len = std::min(kGatherChunk, n - i0);
    char* out = p.bit_copy ? dst + i0 * ds : local;
    switch (ss) {
      case 1: gather_chunk<uint8_t>(s, ctx.src, i0, len, out); break;
      case 2: gather_chunk<uint16_t>(s, ctx.src, i0, len, out); break;
      case 4: gather_chunk<uint32_t>(s, ctx.src, i0, len, out); break;
      default: gather_chunk<uint64_t>(s, ctx.src, i0, len, out); break;
    }
    if (p.bit_copy) continue;
    if (s.quant.empty()) {
      s.convert(local, dst + i0 * ds, len, ctx.q, false);
    } else {
      alignas(64) float x[kGatherChunk];
      s.src_to_f32(local, x, len, quant_ptrs{}, false);
      quantize_chunk(s, ctx, i0, len, dst + i0 * ds, x);
      s.f32_to_dst(x, dst + i0 * ds, len, quant_ptrs{}, false);
    }
    if (p.nest.padding.empty()) continue;
    for (int64_t i = 0; i < len; ++i) {  // padding is zero whatever the attributes
      if (s.src[i0 + i] < 0) std::memset(dst + (i0 + i) * ds, 0, ds);
    }
  }
}

namespace {

// Lists every dst element (data and padding) of plan p once, in memory order, with the src
// offset each takes (within int32) and, per_dim, its quantization operands' offsets; count: the
// dst elements.
absl::Status list_elements(const plan& p, int64_t count, bool per_dim, gather_state& s) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto* boxes : {&p.nest.data, &p.nest.padding}) {
    for (const nest_box& box : *boxes) {
      walk(box, box.nodes.size(), 0, box.elements(), [&](const strides_t& off) {
        lo = std::min<int64_t>(lo, off[kDst]);
        hi = std::max<int64_t>(hi, off[kDst]);
      });
    }
  }
  if (count > 0 && hi - lo + 1 != count) {
    return absl::FailedPreconditionError("dst elements do not fill one dense range");
  }
  std::vector<int32_t> table(static_cast<size_t>(count), -2);
  std::vector<int32_t> quant(per_dim ? static_cast<size_t>(count) * kGatherQuantOperands : 0, 0);
  bool fits = true;
  for (const nest_box& box : p.nest.data) {
    walk(box, box.nodes.size(), 0, box.elements(), [&](const strides_t& off) {
      if (off[kSrc] < 0 || off[kSrc] > INT32_MAX) fits = false;
      table[off[kDst] - lo] = static_cast<int32_t>(off[kSrc]);
      if (!per_dim) return;
      // Operand offsets are below the operand's element count: at most the dst's (count).
      for (int op = kSrcScale; op <= kOscale; ++op) {
        quant[(off[kDst] - lo) * kGatherQuantOperands + (op - kSrcScale)] =
            static_cast<int32_t>(off[op]);
      }
    });
  }
  for (const nest_box& box : p.nest.padding) {
    walk(box, box.nodes.size(), 0, box.elements(),
         [&](const strides_t& off) { table[off[kDst] - lo] = -1; });
  }
  if (!fits) return absl::FailedPreconditionError("src offsets beyond 2^31");
  if (std::find(table.begin(), table.end(), -2) != table.end()) {
    return absl::FailedPreconditionError("dst elements do not fill one dense range");
  }
  s.src = std::move(table);
  s.quant = std::move(quant);
  s.dst_base = count > 0 ? lo : 0;
  return absl::OkStatus();
}

}  // namespace

absl::Status accept_gather(plan& p, const vector_kernels* vk) {
  TESSERA_RETURN_IF_ERROR(need_nest(p));
  const bool per_dim = !all_quant_common(p);  // never a bit copy: that has no attributes
  int64_t count = 0;
  for (const auto* boxes : {&p.nest.data, &p.nest.padding}) {
    for (const nest_box& box : *boxes) count += box.elements();
  }
  if (count > kMaxGatherElements) {
    return absl::FailedPreconditionError(
        absl::StrCat(count, " dst elements: more than ", kMaxGatherElements));
  }
  // Conversions of up to kMaxGatherConversion elements without padding take the gather
  // whatever their tiles: the transpose's per-strip calls and scratch cost more (measured with
  // the driver over 30 layout and type pairs, 1 thread).
  const bool small_conversion =
      !p.bit_copy && count <= kMaxGatherConversion && p.nest.padding.empty();
  // Per-dimension attributes: the transpose and convert kernels decline them, and the strided
  // kernel takes them one element at a time, so the gather takes every size it allows.
  if (const nest_box* box = main_box(p); box && !small_conversion && !per_dim) {
    const int a = src_contiguous_node(*box);
    const bool b = !box->nodes.empty() && box->nodes.back().stride[kDst] == 1;
    if (a >= 0 && b && a != static_cast<int>(box->nodes.size()) - 1 &&
        box->nodes[a].size * box->nodes.back().size >= kMaxGatherTile) {
      return absl::FailedPreconditionError(
          absl::StrCat("tiles of ", box->nodes[a].size * box->nodes.back().size,
                       " elements: at least ", kMaxGatherTile, ", a transpose fits better"));
    }
  }
  gather_state s;
  if (!p.bit_copy) {
    s.convert = vk->find_convert_run(p.src.dt(), p.dst.dt());
    if (!s.convert) {
      return absl::FailedPreconditionError(absl::StrCat(
          "no vector conversion ", name_of(p.src.dt()), " -> ", name_of(p.dst.dt())));
    }
  }
  if (per_dim) {
    // Per-dimension quantization in f32 between exact conversions (f64 has none: not here).
    s.src_to_f32 = vk->find_convert_run(p.src.dt(), data_type::f32);
    s.dst_to_f32 = vk->find_convert_run(p.dst.dt(), data_type::f32);
    s.f32_to_dst = vk->find_convert_run(data_type::f32, p.dst.dt());
    if (!s.src_to_f32 || !s.dst_to_f32 || !s.f32_to_dst) {
      return absl::FailedPreconditionError("per-dimension attributes: no conversion through f32");
    }
  }
  TESSERA_RETURN_IF_ERROR(list_elements(p, count, per_dim, s));
  p.kernel = std::move(s);
  p.run_writes_padding = true;
  return absl::OkStatus();
}

}  // namespace tessera::reorder_internal
