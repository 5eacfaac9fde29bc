#include "tessera/primitives/reorder/internal/transpose_kernel.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tessera/core/status.h"
#include "tessera/primitives/reorder/internal/kernel_rules.h"
#include "tessera/primitives/reorder/internal/nest_walk.h"
#include "tessera/primitives/reorder/internal/plan.h"
#include "tessera/primitives/reorder/internal/strided_kernel.h"
#include "tessera/primitives/runtime/threads.h"

namespace tessera::reorder_internal {
namespace {

// Moves columns [0, cn) of the strip of box `tb` whose first element is at `off`: all nb rows.
// scratch: kScratchRows x kScratchCols elements of 8 bytes, used only by two-pass conversions.
constexpr int64_t kScratchRows = 256, kScratchCols = 16;
void move_strip(const plan& p, const transpose_state& s, const exec_ctx& ctx,
                const transpose_box& tb, int64_t src_off, int64_t dst_off, int64_t cn,
                unsigned char* scratch) {
  const int ss = bytes_of(p.src.dt()), ds = bytes_of(p.dst.dt());
  const nest_node &na = tb.na, &nb = tb.nb;
  if (p.bit_copy) {
    s.transpose(ctx.src + src_off * ss, nb.stride[kSrc], ctx.dst + dst_off * ds, tb.columns(),
                nb.size, cn, tb.pad_rows, s.stream_stores);
    return;
  }
  if (s.transpose_convert) {
    s.transpose_convert(ctx.src + src_off * ss, nb.stride[kSrc], ctx.dst + dst_off * ds,
                        tb.columns(), nb.size, cn, tb.pad_rows, ctx.q, s.stream_stores);
    return;
  }
  // Transpose a block into scratch (src type, dst order), then convert its rows (plain
  // columns only: transpose_view widens none for this path; common quantization only, so the
  // other operands' offsets are not needed).
  for (int64_t r0 = 0; r0 < nb.size; r0 += kScratchRows) {
    const int64_t rn = std::min(kScratchRows, nb.size - r0);
    for (int64_t cc = 0; cc < cn; cc += kScratchCols) {
      const int64_t cm = std::min(kScratchCols, cn - cc);
      const int64_t at_src = src_off + r0 * nb.stride[kSrc] + cc * na.stride[kSrc];
      const int64_t at_dst = dst_off + r0 * nb.stride[kDst] + cc * na.stride[kDst];
      s.transpose(ctx.src + at_src * ss, nb.stride[kSrc], scratch, dst_columns{rn}, rn, cm, rn,
                  false);
      for (int64_t c = 0; c < cm; ++c) {
        s.convert(scratch + c * rn * ss, ctx.dst + (at_dst + c * na.stride[kDst]) * ds, rn, ctx.q,
                  false);
      }
    }
  }
}

// How the strips of one transpose box are cut into tasks: (outer index, column block) pairs.
struct strip_tasks {
  int64_t cols_per_task, col_tasks, tasks, min_chunk;
};

// Strips of >= 64 columns and about kMinElementsPerTask elements: short rows (nchw -> nChw16c
// has 16) would otherwise make tasks of a few KiB. Banded transposes: kBandCols columns
// (kWideBandCols with wide_bands), while that leaves a strip for every thread. Widened columns:
// whole groups of na.size, since the kernels map a strip's columns from a group boundary.
// Streamed (large) bit-copy transposes of other kinds: runs of at least kMinStripRunBytes of
// each src row. The kernel reads a strip one row block at a time, and each row of the block is a
// run the hardware prefetcher must pick up anew: with strips of 256 f32 columns, nchw -> nhwc
// (64 rows) reads 1 KB runs. 4 KB runs, as for the 8-bit strips (kBytes64Chunk), with the
// kernel's prefetch along the rows (transpose_tiles) measured faster on f32 nchw -> nhwc
// 32x64x56x56 cold, at 1 and 2 threads, than 4 KB runs without the prefetch or 1 KB runs with
// a 512-byte one.
constexpr int64_t kMinStripRunBytes = 4096;
strip_tasks split_into_tasks(const plan& p, const transpose_state& s, const transpose_box& tb) {
  const nest_node &na = tb.na, &nb = tb.nb;
  const int64_t cols = tb.cols();
  const int64_t outer = product(tb.outer, 0, tb.outer.nodes.size());
  strip_tasks st;
  st.cols_per_task = std::max<int64_t>(64, (kMinElementsPerTask / nb.size) / 16 * 16);
  const bool banded = banded_transpose(nb.stride[kSrc] * bytes_of(p.src.dt()), nb.size);
  const int64_t band_cols = s.wide_bands ? kWideBandCols : kBandCols;
  if (p.bit_copy && banded && outer * ((cols + band_cols - 1) / band_cols) >= num_threads()) {
    st.cols_per_task = std::max(st.cols_per_task, band_cols);
  }
  if (p.bit_copy && s.stream_stores && !banded) {
    st.cols_per_task =
        std::max<int64_t>(st.cols_per_task, kMinStripRunBytes / bytes_of(p.src.dt()));
  }
  if (s.byte_blocks64 && nb.size >= 64) {
    // 8-bit dst in 64-row byte blocks (AVX-512's convert_strip64_to_bytes): each strip's first
    // 16 rows start without their lines prefetched, so strips of up to kByteStripCols columns
    // while that leaves kTasksPerThread tasks per thread (faster on f32 -> s8 nchw -> nhwc
    // 32x64x56x56 cold, 1 and 2 threads). AVX2 takes them when it streams dst (its local block
    // of row quads); its unstreamed 32-row blocks are slower in such strips.
    constexpr int64_t kByteStripCols = 4096, kTasksPerThread = 4;
    if (outer * ((cols + kByteStripCols - 1) / kByteStripCols) >= kTasksPerThread * num_threads()) {
      st.cols_per_task = std::max(st.cols_per_task, kByteStripCols);
    }
  }
  if (tb.ng.size > 1) st.cols_per_task = (st.cols_per_task + na.size - 1) / na.size * na.size;
  st.col_tasks = (cols + st.cols_per_task - 1) / st.cols_per_task;
  st.tasks = outer * st.col_tasks;
  st.min_chunk =
      std::max<int64_t>(1, kMinElementsPerTask / (nb.size * std::min(cols, st.cols_per_task)));
  return st;
}

// Calls fn(src offset, dst offset, columns) for the strips of tasks [begin, end) of box `tb`.
// src: the buffer (only its alignment is read, and only when a row has several column tasks;
// list_strips passes nullptr, having checked that no row has).
template <class F>
void for_each_strip(const plan& p, const transpose_box& tb, const strip_tasks& st,
                    const char* src, int64_t begin, int64_t end, F&& fn) {
  const int ss = bytes_of(p.src.dt());
  const nest_node &na = tb.na, &nb = tb.nb, &ng = tb.ng;
  const int64_t cols = tb.cols(), col_tasks = st.col_tasks;
  // One walk over the chunk's outer indices, not one per task: a task can be a single small
  // tile (oihw -> OIhw16i16o moves 16 x 9 tiles).
  int64_t o = begin / col_tasks;
  walk(tb.outer, tb.outer.nodes.size(), o, (end - 1) / col_tasks + 1,
       [&](const strides_t& base) {
         const int64_t t_end = std::min(end, (o + 1) * col_tasks);
         // Plain columns whose rows share src's line offset: strips after the first start on
         // src's cache lines (the first takes the columns before the line), so the kernel's
         // row loads are whole lines past each strip's first tile.
         int64_t shift = 0;
         if (col_tasks > 1 && ng.size <= 1 && (nb.stride[kSrc] * ss) % 64 == 0) {
           const auto src_at = reinterpret_cast<uintptr_t>(src + base[kSrc] * ss);
           if (src_at % ss == 0) shift = static_cast<int64_t>((64 - src_at % 64) % 64 / ss);
         }
         for (int64_t t = std::max(begin, o * col_tasks); t < t_end; ++t) {
           const int64_t k = t % col_tasks;
           const int64_t c0 = k == 0 ? 0 : shift + k * st.cols_per_task;
           const int64_t c_end = std::min(cols, shift + (k + 1) * st.cols_per_task);
           if (c0 >= c_end) continue;
           // Column c0 is (c0 / na.size, c0 % na.size) of (ng, na); without widening
           // c0 < na.size.
           const int64_t g = c0 / na.size, a = c0 % na.size;
           fn(base[kSrc] + g * ng.stride[kSrc] + a * na.stride[kSrc],
              base[kDst] + g * ng.stride[kDst] + a * na.stride[kDst], c_end - c0);
         }
         ++o;
       });
}

// Lists the strips of a small one-pass transpose (transpose_state::listed_strips), when every
// box runs as one task anyway: each box's tasks then fit in one chunk, so listing them changes
// nothing but the per-call work (the task split and the walk: a large share of a 2x16x3x4
// nchw -> nhwc call).
void list_strips(const plan& p, transpose_state& s) {
  constexpr size_t kMaxListed = 256;
  if (!p.bit_copy && !s.transpose_convert) return;  // the two-pass path needs scratch
  if (p.nest.total_elements > kMinElementsPerTask) return;
  std::vector<strip_call> list;
  for (size_t i = 0; i < s.boxes.size(); ++i) {
    const transpose_box& tb = s.boxes[i];
    if (tb.a < 0) return;
    const strip_tasks st = split_into_tasks(p, s, tb);
    if (st.col_tasks > 1 || st.tasks > st.min_chunk) return;
    // One strip per task (a single column task per row).
    if (list.size() + static_cast<size_t>(st.tasks) > kMaxListed) return;
    for_each_strip(p, tb, st, nullptr, 0, st.tasks,
                   [&](int64_t src_off, int64_t dst_off, int64_t cn) {
                     list.push_back({src_off, dst_off, cn, i});
                   });
  }
  s.listed_strips = std::move(list);
}

// --- the plan: which boxes, streaming, padding ------------------------------------------------

// Whether a transpose writes dst around the cache: a large dst, or a narrowing transpose into
// 8-bit elements whose src alone is more than a last-level cache keeps (f32 -> s8 32x64x56x56:
// 25.7 MB of src, 6.4 MB of dst). The src lines read after a dst line is written evict that
// line before a later reader could find it, so it would only cost a read for ownership.
// Bit copies of 8- and 16-bit elements stream from kStreamBytes of src and dst together (their
// line bands, transpose_line_bands_streamed): s8 32x64x56x56 (6.4 MB each) and f16 16x64x56x56
// with plain stores run several times slower warm than streamed; at half those sizes the two are
// level.
bool stream_transposed_dst(const plan& p) {
  constexpr int64_t kStreamSrcBytes = int64_t{24} << 20;
  const bool narrow_bit_copy = p.bit_copy && bytes_of(p.src.dt()) <= 2;
  return large_dst(p) ||
         (bytes_of(p.dst.dt()) == 1 && p.src.size_bytes() >= kStreamSrcBytes) ||
         (narrow_bit_copy && p.src.size_bytes() + p.dst.size_bytes() >= kStreamBytes);
}

// --- a partial dst block's padding written by the tile that writes its data ----------------------

// The dst elements of a box in a canonical form: its dst base and its nodes reduced to their dst
// strides, then ordered and merged by order_and_merge. Two boxes with equal forms cover the same
// dst elements.
std::pair<dim_t, std::vector<std::pair<dim_t, dim_t>>> dst_footprint(const nest_box& box) {
  std::vector<nest_node> nodes;
  for (const nest_node& n : box.nodes) {
    nest_node dst_only;
    dst_only.size = n.size;
    dst_only.stride[kDst] = n.stride[kDst];
    nodes.push_back(dst_only);
  }
  order_and_merge(nodes);
  std::vector<std::pair<dim_t, dim_t>> form;  // (size, dst stride), outermost first
  for (const nest_node& n : nodes) form.push_back({n.size, n.stride[kDst]});
  return {box.base[kDst], form};
}

// A box whose dst-innermost node is a block row (dst stride = the innermost block `block`, the
// partial block's one element having been dropped as a size-1 node) gets that node back, with
// size 1 and dst stride 1, so that the transpose can take the box.
nest_box with_unit_block_node(const nest_box& box, dim_t block) {
  if (box.nodes.empty() || box.nodes.back().stride[kDst] != block) return box;
  nest_box b = box;
  nest_node unit;
  unit.stride[kDst] = 1;
  b.nodes.push_back(unit);
  return b;
}

// Sets pad_rows = block on the boxes whose dst-contiguous node is a partial block, when the tiles
// of those boxes then write exactly the plan's padding (footprints compared, nothing assumed).
bool fuse_block_padding(const plan& p, std::vector<transpose_box>& boxes, dim_t block) {
  if (p.nest.padding.empty() || block <= 1) return false;
  using footprint = decltype(dst_footprint(nest_box{}));
  std::vector<footprint> written, padding;
  for (const nest_box& b : p.nest.padding) {
    if (b.elements() > 0) padding.push_back(dst_footprint(b));
  }
  for (transpose_box& tb : boxes) {
    if (tb.a < 0 || tb.nb.size >= block) continue;
    nest_box pad = tb.outer;
    pad.base[kDst] += tb.nb.size;
    pad.nodes.push_back(tb.na);
    if (tb.ng.size > 1) pad.nodes.push_back(tb.ng);
    nest_node lanes;
    lanes.size = block - tb.nb.size;
    lanes.stride[kDst] = 1;
    pad.nodes.push_back(lanes);
    if (pad.elements() > 0) written.push_back(dst_footprint(pad));
  }
  std::sort(written.begin(), written.end());
  std::sort(padding.begin(), padding.end());
  if (written != padding) return false;
  for (transpose_box& tb : boxes) {
    if (tb.a >= 0 && tb.nb.size < block) tb.pad_rows = block;
  }
  return true;
}

// Below this many src-contiguous elements a tile row is mostly masked lanes: widen it.
constexpr dim_t kWidenBelow = 64;

// widen: the kernels map grouped columns (bit copies and the one-pass conversions do).
std::vector<transpose_box> transpose_view(const std::vector<nest_box>& data, dim_t unit_block,
                                          bool widen) {
  std::vector<transpose_box> boxes;
  for (const nest_box& original : data) {
    const nest_box b = unit_block > 0 ? with_unit_block_node(original, unit_block) : original;
    transpose_box tb;
    tb.a = src_contiguous_node(b);
    if (tb.a >= 0) {
      tb.outer = b;
      tb.outer.nodes.erase(tb.outer.nodes.begin() + tb.a);
      tb.outer.nodes.pop_back();
      tb.na = b.nodes[tb.a];
      tb.nb = b.nodes.back();
      tb.pad_rows = tb.nb.size;
      auto& outer = tb.outer.nodes;
      const auto continues_a = [&](const nest_node& n) {
        return n.stride[kSrc] == tb.na.size * tb.na.stride[kSrc];
      };
      const auto g = std::find_if(outer.begin(), outer.end(), continues_a);
      if (widen && tb.na.size < kWidenBelow && g != outer.end()) {
        tb.ng = *g;
        outer.erase(g);
      }
    }
    boxes.push_back(std::move(tb));
  }
  return boxes;
}

}  // namespace

void run_kernel(const plan& p, const transpose_state& s, const exec_ctx& ctx) {
  if (!s.listed_strips.empty()) {
    for (const strip_call& c : s.listed_strips) {
      move_strip(p, s, ctx, s.boxes[c.box], c.src, c.dst, c.cols, nullptr);
    }
    return;
  }
  for (size_t i = 0; i < p.nest.data.size(); ++i) {
    const transpose_box& tb = s.boxes[i];
    if (tb.a < 0) {
      run_strided_box(p, ctx, p.nest.data[i]);
      continue;
    }
    const strip_tasks st = split_into_tasks(p, s, tb);
    parallel_for(st.tasks, st.min_chunk, [&](int64_t begin, int64_t end) {
      alignas(64) unsigned char scratch[kScratchRows * kScratchCols * 8];
      for_each_strip(p, tb, st, ctx.src, begin, end,
                     [&](int64_t src_off, int64_t dst_off, int64_t cn) {
                       move_strip(p, s, ctx, tb, src_off, dst_off, cn, scratch);
                     });
    });
  }
}

absl::Status accept_transpose(plan& p, const vector_kernels* vk) {
  TESSERA_RETURN_IF_ERROR(need_nest(p));
  const nest_box* box = main_box(p);
  const blocking_desc& dst_blocks = p.dst.blocking();
  const dim_t block =
      dst_blocks.inner_nblks > 0 ? dst_blocks.inner_blks[dst_blocks.inner_nblks - 1] : 0;
  // Tiles moved bit for bit or converted in one pass can write the padding with their data and
  // map widened columns (the two-pass conversion through scratch does neither).
  const bool one_pass = p.bit_copy || vk->find_transpose_convert(p.src.dt(), p.dst.dt());
  transpose_state s;
  bool fused = false;
  if (one_pass && !p.nest.padding.empty() && block > 1) {
    s.boxes = transpose_view(p.nest.data, block, one_pass);
    fused = fuse_block_padding(p, s.boxes, block);
  }
  if (!fused) s.boxes = transpose_view(p.nest.data, 0, one_pass);
  if (!box || s.boxes[p.main_box].a < 0) {
    return absl::FailedPreconditionError("no pair of nodes contiguous in src and in dst");
  }
  s.transpose = vk->find_transpose(bytes_of(p.src.dt()));
  if (!s.transpose) return absl::FailedPreconditionError("element size");
  const bool stream = stream_transposed_dst(p);
  if (!p.bit_copy) {
    if (!all_quant_common(p)) {
      return absl::FailedPreconditionError("per-dimension scales or zero points");
    }
    s.convert = vk->find_convert_run(p.src.dt(), p.dst.dt());
    if (!s.convert) {
      return absl::FailedPreconditionError(absl::StrCat(
          "no vector conversion ", name_of(p.src.dt()), " -> ", name_of(p.dst.dt())));
    }
    s.transpose_convert = vk->find_transpose_convert(p.src.dt(), p.dst.dt());
    // AVX2 takes its 64-row byte blocks only when it streams dst (transpose_convert_avx2).
    s.byte_blocks64 = s.transpose_convert != nullptr &&
                      (vk->transpose_tile() == 16 || stream) &&
                      bytes_of(p.dst.dt()) == 1 && !p.attr.sum;
  }
  // AVX2's streamed 32-bit banded copies move 16 rows at a time across strips of
  // kWideBandCols (transpose_rows16_streamed_avx2).
  s.wide_bands = p.bit_copy && stream && vk->transpose_tile() == 8 && bytes_of(p.src.dt()) == 4;
  s.stream_stores = stream;
  list_strips(p, s);
  p.kernel = std::move(s);
  p.run_writes_padding = fused;
  return absl::OkStatus();
}

}  // namespace tessera::reorder_internal
