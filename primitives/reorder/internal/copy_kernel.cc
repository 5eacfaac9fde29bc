#include "tessera/primitives/reorder/internal/copy_kernel.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tessera/core/status.h"
#include "tessera/primitives/reorder/internal/kernel_rules.h"
#include "tessera/primitives/reorder/internal/nest_walk.h"
#include "tessera/primitives/reorder/internal/plan.h"
#include "tessera/primitives/reorder/internal/strided_kernel.h"
#include "tessera/primitives/runtime/threads.h"

namespace tessera::reorder_internal {
namespace {

// Splits the box into (outer index, piece of the innermost run) tasks and calls
// fn(offsets of the piece's first element, length).
template <class F>
void for_each_run(const nest_box& box, F&& fn) {
  const size_t n = box.nodes.size();
  const int64_t run = n == 0 ? 1 : box.nodes.back().size;
  const size_t outer = n == 0 ? 0 : n - 1;
  const int64_t pieces = (run + kMinElementsPerTask - 1) / kMinElementsPerTask;
  const int64_t piece_len = (run + pieces - 1) / pieces;
  const int64_t tasks = product(box, 0, outer) * pieces;
  const int64_t min_chunk = std::max<int64_t>(1, kMinElementsPerTask / run);
  parallel_for(tasks, min_chunk, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end;) {
      const int64_t o = t / pieces;
      const int64_t last = std::min(end, (o + 1) * pieces);
      walk(box, outer, o, o + 1, [&](const strides_t& off) {
        for (int64_t k = t - o * pieces; k < last - o * pieces; ++k) {
          const int64_t start = k * piece_len;
          const int64_t len = std::min(run, start + piece_len) - start;
          strides_t at = off;
          if (n > 0) {
            for (int op = 0; op < kOperands; ++op) at[op] += start * box.nodes.back().stride[op];
          }
          fn(at, len);
        }
      });
      t = last;
    }
  });
}

// The attribute values of the element at off. Along a run whose per-dimension values are constant
// (quant_constant_along_runs) they are what the convert kernel takes as common values; for
// common attributes the offsets are 0.
quant_ptrs quant_at(const quant_ptrs& q, const strides_t& off) {
  quant_ptrs at = q;
  if (at.src_scale) at.src_scale += off[kSrcScale];
  if (at.dst_scale) at.dst_scale += off[kDstScale];
  if (at.src_zp) at.src_zp += off[kSrcZp];
  if (at.dst_zp) at.dst_zp += off[kDstZp];
  if (at.oscale) at.oscale += off[kOscale];
  return at;
}

// Whether every per-dimension scale and zero point keeps one value along each contiguous run (its
// stride along the innermost node is 0: the run's dims are outside its mask), so that a run
// takes them as common values: per-channel values on nchw -> nchw, per-output-channel weights
// on oihw -> oihw. Not nhwc -> nhwc per channel: there the run is the channels.
bool quant_constant_along_runs(const plan& p) {
  for (const nest_box& box : p.nest.data) {
    if (box.nodes.empty()) continue;
    const nest_node& run = box.nodes.back();
    for (int op = kSrcScale; op < kOperands; ++op) {
      if (run.stride[op] != 0) return false;
    }
  }
  return true;
}

constexpr int64_t kMinRun = 8;

// What copy and convert both need: the innermost loop contiguous on both sides, and long enough
// that a transpose would not serve better.
absl::Status need_contiguous_run(const plan& p) {
  const nest_box* box = main_box(p);
  if (box && !innermost_contiguous(*box)) {
    return absl::FailedPreconditionError("innermost loop is not contiguous in both src and dst");
  }
  if (box && !box->nodes.empty() && box->nodes.back().size < kMinRun &&
      src_contiguous_node(*box) >= 0) {
    return absl::FailedPreconditionError("contiguous run too short; a transpose fits better");
  }
  return absl::OkStatus();
}

}  // namespace

void run_kernel(const plan& p, const copy_state&, const exec_ctx& ctx) {
  const int es = bytes_of(p.dst.dt());
  for (const nest_box& box : p.nest.data) {
    if (!innermost_contiguous(box)) {
      run_strided_box(p, ctx, box);
      continue;
    }
    for_each_run(box, [&](const strides_t& off, int64_t len) {
      std::memcpy(ctx.dst + off[kDst] * es, ctx.src + off[kSrc] * es, len * es);
    });
  }
}

void run_kernel(const plan& p, const convert_state& s, const exec_ctx& ctx) {
  const int ss = bytes_of(p.src.dt()), ds = bytes_of(p.dst.dt());
  for (const nest_box& box : p.nest.data) {
    if (!innermost_contiguous(box)) {
      run_strided_box(p, ctx, box);
      continue;
    }
    for_each_run(box, [&](const strides_t& off, int64_t len) {
      s.convert(ctx.src + off[kSrc] * ss, ctx.dst + off[kDst] * ds, len, quant_at(ctx.q, off),
                s.stream_stores);
    });
  }
}

absl::Status accept_copy(plan& p) {
  TESSERA_RETURN_IF_ERROR(need_nest(p));
  if (!p.bit_copy) return absl::FailedPreconditionError("converts types or has attributes");
  TESSERA_RETURN_IF_ERROR(need_contiguous_run(p));
  p.kernel = copy_state{};
  return absl::OkStatus();
}

absl::Status accept_convert(plan& p, const vector_kernels* vk) {
  TESSERA_RETURN_IF_ERROR(need_nest(p));
  if (p.bit_copy) return absl::FailedPreconditionError("plain copy: nothing to convert");
  if (!all_quant_common(p) && !quant_constant_along_runs(p)) {
    return absl::FailedPreconditionError(
        "per-dimension scales or zero points that vary along the contiguous run");
  }
  convert_run_fn* cvt = vk->find_convert_run(p.src.dt(), p.dst.dt());
  if (!cvt) {
    return absl::FailedPreconditionError(absl::StrCat("no vector conversion ", name_of(p.src.dt()),
                                                      " -> ", name_of(p.dst.dt())));
  }
  TESSERA_RETURN_IF_ERROR(need_contiguous_run(p));
  convert_state s;
  s.convert = cvt;
  // Not with the sum post-op: its dst lines are in cache already (read for the old values), so a
  // non-temporal store saves no read and only evicts them (measured well behind oneDNN on sum
  // beta=1 32x64x56x56 cold). Into narrower elements the kernel puts src on cache lines and
  // streams only if that puts dst on one too (convert_run_with): with dst off its lines
  // (malloc's 16-byte offset), f32 -> bf16 32x64x56x56 cold streamed measured slower than plain
  // on AVX-512 Zen 5; with both on lines, faster on AVX-512 Intel Xeon at 1 and 2 threads.
  s.stream_stores = large_dst(p) && !p.attr.sum;
  p.kernel = s;
  return absl::OkStatus();
}

}  // namespace tessera::reorder_internal
