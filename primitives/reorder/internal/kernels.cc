#include "tessera/primitives/reorder/internal/kernels.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tessera/core/status.h"
#include "tessera/primitives/reorder/internal/element_math.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/simd/kernel_table.h"

namespace tessera::reorder_internal {
namespace {

// Work smaller than this many elements is not worth a task.
constexpr int64_t kMinElementsPerTask = 16384;

int bytes_of(data_type dt) { return bits_of(dt) / 8; }

// Visits every index of nodes[0, n) in row-major order from flat position begin to end, calling
// fn with the element offsets of each operand.
template <class F>
void walk(const nest_box& box, size_t n, int64_t begin, int64_t end, F&& fn) {
  if (begin >= end) return;
  std::array<dim_t, 4 * kMaxRank> idx{};
  strides_t off = box.base;
  int64_t rest = begin;
  for (size_t k = n; k-- > 0;) {
    const nest_node& node = box.nodes[k];
    idx[k] = rest % node.size;
    rest /= node.size;
    for (int op = 0; op < kOperands; ++op) off[op] += idx[k] * node.stride[op];
  }
  for (int64_t it = begin; it < end; ++it) {
    fn(off);
    for (size_t k = n; k-- > 0;) {
      const nest_node& node = box.nodes[k];
      ++idx[k];
      for (int op = 0; op < kOperands; ++op) off[op] += node.stride[op];
      if (idx[k] < node.size) break;
      for (int op = 0; op < kOperands; ++op) off[op] -= idx[k] * node.stride[op];
      idx[k] = 0;
    }
  }
}

int64_t product(const nest_box& box, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t k = from; k < to; ++k) n *= box.nodes[k].size;
  return n;
}

// --- generic strided: every box, every element through apply_one -------------------------------

template <class S, class D>
void strided_box(const plan& p, const exec_ctx& ctx, const nest_box& box) {
  const size_t n = box.nodes.size();
  const size_t outer = n == 0 ? 0 : n - 1;
  const nest_node inner = n == 0 ? nest_node{} : box.nodes[n - 1];
  const int64_t outer_count = product(box, 0, outer);
  const S* src = reinterpret_cast<const S*>(ctx.src);
  D* dst = reinterpret_cast<D*>(ctx.dst);
  const bool bit_copy = p.bit_copy;
  parallel_for(outer_count, std::max<int64_t>(1, kMinElementsPerTask / inner.size),
               [&](int64_t begin, int64_t end) {
                 walk(box, outer, begin, end, [&](strides_t off) {
                   for (dim_t i = 0; i < inner.size; ++i) {
                     if (bit_copy) {
                       std::memcpy(dst + off[kDst], src + off[kSrc], sizeof(D));
                     } else {
                       dst[off[kDst]] = apply_one<S, D>(src[off[kSrc]], dst + off[kDst], ctx.q, off);
                     }
                     for (int op = 0; op < kOperands; ++op) off[op] += inner.stride[op];
                   }
                 });
               });
}

void strided_box_any(const plan& p, const exec_ctx& ctx, const nest_box& box) {
  visit_type_pair(p.src.dt(), p.dst.dt(), [&](auto s, auto d) {
    strided_box<decltype(s), decltype(d)>(p, ctx, box);
  });
}

void run_strided(const plan& p, const exec_ctx& ctx) {
  for (const nest_box& box : p.nest.data) strided_box_any(p, ctx, box);
}

// --- contiguous runs: copy (bits) or convert (vector) ------------------------------------------

bool innermost_contiguous(const nest_box& box) {
  return box.nodes.empty() ||
         (box.nodes.back().stride[kSrc] == 1 && box.nodes.back().stride[kDst] == 1);
}

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

void run_copy(const plan& p, const exec_ctx& ctx) {
  const int es = bytes_of(p.dst.dt());
  for (const nest_box& box : p.nest.data) {
    if (!innermost_contiguous(box)) {
      strided_box_any(p, ctx, box);
      continue;
    }
    for_each_run(box, [&](const strides_t& off, int64_t len) {
      std::memcpy(ctx.dst + off[kDst] * es, ctx.src + off[kSrc] * es, len * es);
    });
  }
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

void run_convert(const plan& p, const exec_ctx& ctx) {
  const int ss = bytes_of(p.src.dt()), ds = bytes_of(p.dst.dt());
  for (const nest_box& box : p.nest.data) {
    if (!innermost_contiguous(box)) {
      strided_box_any(p, ctx, box);
      continue;
    }
    for_each_run(box, [&](const strides_t& off, int64_t len) {
      p.convert(ctx.src + off[kSrc] * ss, ctx.dst + off[kDst] * ds, len, quant_at(ctx.q, off),
                p.stream_stores);
    });
  }
}

// --- transpose: the src-contiguous node against the dst-contiguous one -------------------------

// Index of the node contiguous in src (not the innermost), or -1.
int src_contiguous_node(const nest_box& box) {
  if (box.nodes.size() < 2 || box.nodes.back().stride[kDst] != 1) return -1;
  for (size_t k = 0; k + 1 < box.nodes.size(); ++k) {
    if (box.nodes[k].stride[kSrc] == 1) return static_cast<int>(k);
  }
  return -1;
}

// Moves columns [0, cn) of the strip of box `tb` whose first element is at `off`: all nb rows.
// scratch: kScratchRows x kScratchCols elements of 8 bytes, used only by two-pass conversions.
constexpr int64_t kScratchRows = 256, kScratchCols = 16;
void move_strip(const plan& p, const exec_ctx& ctx, const transpose_box& tb, int64_t src_off,
                int64_t dst_off, int64_t cn, unsigned char* scratch) {
  const int ss = bytes_of(p.src.dt()), ds = bytes_of(p.dst.dt());
  const nest_node &na = tb.na, &nb = tb.nb;
  if (p.bit_copy) {
    p.transpose(ctx.src + src_off * ss, nb.stride[kSrc], ctx.dst + dst_off * ds, tb.columns(),
                nb.size, cn, tb.pad_rows, p.stream_stores);
    return;
  }
  if (p.transpose_convert) {
    p.transpose_convert(ctx.src + src_off * ss, nb.stride[kSrc], ctx.dst + dst_off * ds,
                        tb.columns(), nb.size, cn, tb.pad_rows, ctx.q, p.stream_stores);
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
      p.transpose(ctx.src + at_src * ss, nb.stride[kSrc], scratch, dst_columns{rn}, rn, cm, rn,
                  false);
      for (int64_t c = 0; c < cm; ++c) {
        p.convert(scratch + c * rn * ss, ctx.dst + (at_dst + c * na.stride[kDst]) * ds, rn, ctx.q,
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
strip_tasks split_into_tasks(const plan& p, const transpose_box& tb) {
  const nest_node &na = tb.na, &nb = tb.nb;
  const int64_t cols = tb.cols();
  const int64_t outer = product(tb.outer, 0, tb.outer.nodes.size());
  strip_tasks st;
  st.cols_per_task = std::max<int64_t>(64, (kMinElementsPerTask / nb.size) / 16 * 16);
  const bool banded = banded_transpose(nb.stride[kSrc] * bytes_of(p.src.dt()), nb.size);
  const int64_t band_cols = p.wide_bands ? kWideBandCols : kBandCols;
  if (p.bit_copy && banded && outer * ((cols + band_cols - 1) / band_cols) >= num_threads()) {
    st.cols_per_task = std::max(st.cols_per_task, band_cols);
  }
  if (p.bit_copy && p.stream_stores && !banded) {
    st.cols_per_task =
        std::max<int64_t>(st.cols_per_task, kMinStripRunBytes / bytes_of(p.src.dt()));
  }
  if (p.byte_blocks64 && nb.size >= 64) {
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

void run_transpose(const plan& p, const exec_ctx& ctx) {
  if (!p.listed_strips.empty()) {
    for (const strip_call& s : p.listed_strips) {
      move_strip(p, ctx, p.transpose_boxes[s.box], s.src, s.dst, s.cols, nullptr);
    }
    return;
  }
  for (size_t i = 0; i < p.nest.data.size(); ++i) {
    const transpose_box& tb = p.transpose_boxes[i];
    if (tb.a < 0) {
      strided_box_any(p, ctx, p.nest.data[i]);
      continue;
    }
    const strip_tasks st = split_into_tasks(p, tb);
    parallel_for(st.tasks, st.min_chunk, [&](int64_t begin, int64_t end) {
      alignas(64) unsigned char scratch[kScratchRows * kScratchCols * 8];
      for_each_strip(p, tb, st, ctx.src, begin, end,
                     [&](int64_t src_off, int64_t dst_off, int64_t cn) {
                       move_strip(p, ctx, tb, src_off, dst_off, cn, scratch);
                     });
    });
  }
}

// Lists the strips of a small one-pass transpose (p.listed_strips), when every box runs as one
// task anyway: each box's tasks then fit in one chunk, so listing them changes nothing but
// the per-call work (the task split and the walk: a large share of a 2x16x3x4 nchw -> nhwc call).
void list_strips(plan& p) {
  constexpr size_t kMaxListed = 256;
  if (!p.bit_copy && !p.transpose_convert) return;  // the two-pass path needs scratch
  if (p.nest.total_elements > kMinElementsPerTask) return;
  std::vector<strip_call> list;
  for (size_t i = 0; i < p.transpose_boxes.size(); ++i) {
    const transpose_box& tb = p.transpose_boxes[i];
    if (tb.a < 0) return;
    const strip_tasks st = split_into_tasks(p, tb);
    if (st.col_tasks > 1 || st.tasks > st.min_chunk) return;
    // One strip per task (a single column task per row).
    if (list.size() + static_cast<size_t>(st.tasks) > kMaxListed) return;
    for_each_strip(p, tb, st, nullptr, 0, st.tasks,
                   [&](int64_t src_off, int64_t dst_off, int64_t cn) {
                     list.push_back({src_off, dst_off, cn, i});
                   });
  }
  p.listed_strips = std::move(list);
}

// --- acceptance rules ----------------------------------------------------------------------------

const nest_box* main_box(const plan& p) {
  if (!p.normalised) return nullptr;
  if (p.nest.data.empty()) return nullptr;
  return &p.nest.data[p.main_box];
}

bool all_quant_common(const plan& p) {
  const operand_masks& m = p.masks;
  return m.src_scale <= 0 && m.dst_scale <= 0 && m.src_zp <= 0 && m.dst_zp <= 0 && m.oscale <= 0;
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

absl::Status need_nest(const plan& p) {
  if (!p.normalised) return absl::FailedPreconditionError(p.normalise_error);
  return absl::OkStatus();
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

absl::Status accept_copy(plan& p) {
  TESSERA_RETURN_IF_ERROR(need_nest(p));
  if (!p.bit_copy) return absl::FailedPreconditionError("converts types or has attributes");
  TESSERA_RETURN_IF_ERROR(need_contiguous_run(p));
  p.run = &run_copy;
  return absl::OkStatus();
}

// Beyond a few MiB the dst does not stay in cache anyway: write it around the cache.
constexpr int64_t kStreamBytes = int64_t{8} << 20;
bool large_dst(const plan& p) { return p.dst.size_bytes() >= kStreamBytes; }

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
  p.convert = cvt;
  // Not with the sum post-op: its dst lines are in cache already (read for the old values), so a
  // non-temporal store saves no read and only evicts them (measured well behind oneDNN on sum
  // beta=1 32x64x56x56 cold). Into narrower elements the kernel puts src on cache lines and
  // streams only if that puts dst on one too (convert_run_with): with dst off its lines
  // (malloc's 16-byte offset), f32 -> bf16 32x64x56x56 cold streamed measured slower than plain
  // on AVX-512 Zen 5; with both on lines, faster on AVX-512 Intel Xeon at 1 and 2 threads.
  p.stream_stores = large_dst(p) && !p.attr.sum;
  p.run = &run_convert;
  return absl::OkStatus();
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

absl::Status accept_transpose(plan& p, const vector_kernels* vk) {
  TESSERA_RETURN_IF_ERROR(need_nest(p));
  const nest_box* box = main_box(p);
  const blocking_desc& dst_blocks = p.dst.blocking();
  const dim_t block =
      dst_blocks.inner_nblks > 0 ? dst_blocks.inner_blks[dst_blocks.inner_nblks - 1] : 0;
  // Tiles moved bit for bit or converted in one pass can write the padding with their data and
  // map widened columns (the two-pass conversion through scratch does neither).
  const bool one_pass = p.bit_copy || vk->find_transpose_convert(p.src.dt(), p.dst.dt());
  std::vector<transpose_box> boxes;
  bool fused = false;
  if (one_pass && !p.nest.padding.empty() && block > 1) {
    boxes = transpose_view(p.nest.data, block, one_pass);
    fused = fuse_block_padding(p, boxes, block);
  }
  if (!fused) boxes = transpose_view(p.nest.data, 0, one_pass);
  if (!box || boxes[p.main_box].a < 0) {
    return absl::FailedPreconditionError("no pair of nodes contiguous in src and in dst");
  }
  p.transpose = vk->find_transpose(bytes_of(p.src.dt()));
  if (!p.transpose) return absl::FailedPreconditionError("element size");
  const bool stream = stream_transposed_dst(p);
  if (!p.bit_copy) {
    if (!all_quant_common(p)) {
      return absl::FailedPreconditionError("per-dimension scales or zero points");
    }
    p.convert = vk->find_convert_run(p.src.dt(), p.dst.dt());
    if (!p.convert) {
      return absl::FailedPreconditionError(absl::StrCat(
          "no vector conversion ", name_of(p.src.dt()), " -> ", name_of(p.dst.dt())));
    }
    p.transpose_convert = vk->find_transpose_convert(p.src.dt(), p.dst.dt());
    // AVX2 takes its 64-row byte blocks only when it streams dst (transpose_convert_avx2).
    p.byte_blocks64 = p.transpose_convert != nullptr &&
                      (vk->transpose_tile() == 16 || stream) &&
                      bytes_of(p.dst.dt()) == 1 && !p.attr.sum;
  }
  // AVX2's streamed 32-bit banded copies move 16 rows at a time across strips of
  // kWideBandCols (transpose_rows16_streamed_avx2).
  p.wide_bands = p.bit_copy && stream && vk->transpose_tile() == 8 && bytes_of(p.src.dt()) == 4;
  p.transpose_boxes = std::move(boxes);
  p.run_writes_padding = fused;
  p.stream_stores = stream;
  p.run = &run_transpose;
  list_strips(p);
  return absl::OkStatus();
}

// --- gather: small problems whose transpose tiles would be tiny ---------------------------------

// A problem of at most kMaxGatherElements dst elements (padding included) whose src-contiguous
// and dst-contiguous nodes make tiles of fewer than kMaxGatherTile elements (abx -> xba
// 2x16x3x4: 48 tiles of 2 x 4) spends its time in per-tile and per-strip calls, many times
// oneDNN's time, as does the strided kernel. Its dst elements are listed at create with the src
// element each takes (plan::gather_src); execution gathers them in dst order, in chunks through
// a local block, and converts each chunk with the ISA's contiguous conversion (the convert
// kernel's lanes: bit for bit the reference). dst must be dense: its elements and padding fill
// one range with no holes, so that chunks are contiguous. Per-dimension scales and zero points:
// each element's operand offsets are listed too, and a chunk is widened to f32, quantized step by
// step (quantize_chunk) and narrowed to dst (the strided kernel, one element at a time, is
// several times slower on 2x16x3x4 nchw -> nhwc with per-channel src scales).
constexpr int64_t kMaxGatherElements = 4096, kMaxGatherTile = 64, kMaxGatherConversion = 512,
                  kGatherChunk = 256;

template <class Bits>
void gather_chunk(const plan& p, const char* src, int64_t i0, int64_t n, char* out) {
  const auto* from = reinterpret_cast<const Bits*>(src);
  auto* to = reinterpret_cast<Bits*>(out);
  const int32_t* idx = p.gather_src.data() + i0;
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
void quantize_chunk(const plan& p, const exec_ctx& ctx, int64_t i0, int64_t len, char* dst_chunk,
                    float* x) {
  const quant_ptrs& q = ctx.q;
  const int32_t* off = p.gather_quant.data() + i0 * kGatherQuantOperands;
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
    p.gather_dst_to_f32(dst_chunk, old, len, quant_ptrs{}, false);
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

void run_gather(const plan& p, const exec_ctx& ctx) {
  const int ss = bytes_of(p.src.dt()), ds = bytes_of(p.dst.dt());
  const int64_t n = static_cast<int64_t>(p.gather_src.size());
  char* dst = ctx.dst + p.gather_dst_base * ds;
  alignas(64) char local[kGatherChunk * 8];
  for (int64_t i0 = 0; i0 < n; i0 += kGatherChunk) {
    const int64_t len = std::min(kGatherChunk, n - i0);
    char* out = p.bit_copy ? dst + i0 * ds : local;
    switch (ss) {
      case 1: gather_chunk<uint8_t>(p, ctx.src, i0, len, out); break;
      case 2: gather_chunk<uint16_t>(p, ctx.src, i0, len, out); break;
      case 4: gather_chunk<uint32_t>(p, ctx.src, i0, len, out); break;
      default: gather_chunk<uint64_t>(p, ctx.src, i0, len, out); break;
    }
    if (p.bit_copy) continue;
    if (p.gather_quant.empty()) {
      p.convert(local, dst + i0 * ds, len, ctx.q, false);
    } else {
      alignas(64) float x[kGatherChunk];
      p.gather_src_to_f32(local, x, len, quant_ptrs{}, false);
      quantize_chunk(p, ctx, i0, len, dst + i0 * ds, x);
      p.gather_f32_to_dst(x, dst + i0 * ds, len, quant_ptrs{}, false);
    }
    if (p.nest.padding.empty()) continue;
    for (int64_t i = 0; i < len; ++i) {  // padding is zero whatever the attributes
      if (p.gather_src[i0 + i] < 0) std::memset(dst + (i0 + i) * ds, 0, ds);
    }
  }
}

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
  if (!p.bit_copy) {
    p.convert = vk->find_convert_run(p.src.dt(), p.dst.dt());
    if (!p.convert) {
      return absl::FailedPreconditionError(absl::StrCat(
          "no vector conversion ", name_of(p.src.dt()), " -> ", name_of(p.dst.dt())));
    }
  }
  if (per_dim) {
    // Per-dimension quantization in f32 between exact conversions (f64 has none: not here).
    p.gather_src_to_f32 = vk->find_convert_run(p.src.dt(), data_type::f32);
    p.gather_dst_to_f32 = vk->find_convert_run(p.dst.dt(), data_type::f32);
    p.gather_f32_to_dst = vk->find_convert_run(data_type::f32, p.dst.dt());
    if (!p.gather_src_to_f32 || !p.gather_dst_to_f32 || !p.gather_f32_to_dst) {
      return absl::FailedPreconditionError("per-dimension attributes: no conversion through f32");
    }
  }
  // Every dst element (data and padding) once, src offsets within int32.
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
  p.gather_src = std::move(table);
  p.gather_quant = std::move(quant);
  p.gather_dst_base = count > 0 ? lo : 0;
  p.run = &run_gather;
  p.run_writes_padding = true;
  return absl::OkStatus();
}

absl::Status accept_strided(plan& p) {
  TESSERA_RETURN_IF_ERROR(need_nest(p));
  p.run = &run_strided;
  return absl::OkStatus();
}

// --- element-wise: logical index by logical index through memory_desc::offset --------------------

template <class S, class D>
void elementwise(const plan& p, const exec_ctx& ctx) {
  const int rank = p.dst.rank();
  const S* src = reinterpret_cast<const S*>(ctx.src);
  D* dst = reinterpret_cast<D*>(ctx.dst);
  auto quant_offset = [&](int mask, const std::array<dim_t, kMaxRank>& idx) {
    dim_t off = 0;
    for (int d = 0; d < rank; ++d) {
      if (mask > 0 && (mask & (1 << d))) off = off * p.dst.dims()[d] + idx[d];
    }
    return off;
  };
  std::array<dim_t, kMaxRank> idx{};
  // Walks the padded dst index space; the logical part is converted, the rest zeroed.
  const auto padded = p.dst.padded_dims();
  for (int d = 0; d < rank; ++d) {
    if (padded[d] == 0) return;
  }
  while (true) {
    bool inside = true;
    for (int d = 0; d < rank; ++d) inside = inside && idx[d] < p.dst.dims()[d];
    const absl::Span<const dim_t> index(idx.data(), rank);
    D* out = dst + p.dst.offset(index);
    if (!inside) {
      std::memset(out, 0, sizeof(D));
    } else if (p.bit_copy) {
      std::memcpy(out, src + p.src.offset(index), sizeof(D));
    } else {
      strides_t off{};
      off[kSrcScale] = quant_offset(p.masks.src_scale, idx);
      off[kDstScale] = quant_offset(p.masks.dst_scale, idx);
      off[kSrcZp] = quant_offset(p.masks.src_zp, idx);
      off[kDstZp] = quant_offset(p.masks.dst_zp, idx);
      off[kOscale] = quant_offset(p.masks.oscale, idx);
      *out = apply_one<S, D>(src[p.src.offset(index)], out, ctx.q, off);
    }
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < padded[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
}

void run_elementwise(const plan& p, const exec_ctx& ctx) {
  visit_type_pair(p.src.dt(), p.dst.dt(), [&](auto s, auto d) {
    elementwise<decltype(s), decltype(d)>(p, ctx);
  });
}

using vector_kernels_getter = const vector_kernels*();

const simd::kernel_table<vector_kernels_getter>& vector_table() {
  static const auto table = simd::make_kernel_table<vector_kernels_getter>(
      "reorder", [](auto arch) { return &vector_kernels_for<decltype(arch)>; });
  return table;
}

}  // namespace

void zero_padding(const plan& p, char* dst) {
  const int es = bytes_of(p.dst.dt());
  for (const nest_box& box : p.nest.padding) {
    const size_t n = box.nodes.size();
    const bool contiguous = n == 0 || box.nodes.back().stride[kDst] == 1;
    const size_t outer = contiguous && n > 0 ? n - 1 : n;
    const int64_t run = contiguous && n > 0 ? box.nodes.back().size : 1;
    parallel_for(product(box, 0, outer), std::max<int64_t>(1, kMinElementsPerTask / run),
                 [&](int64_t begin, int64_t end) {
                   walk(box, outer, begin, end, [&](const strides_t& off) {
                     std::memset(dst + off[kDst] * es, 0, run * es);
                   });
                 });
  }
}

std::vector<candidate> candidates() {
  std::vector<candidate> list;
  list.push_back({"native:any:copy", &accept_copy});
  // Best ISA first, down to the weakest: the dispatcher's cap (simd::max_isa) bounds the list.
  for (int i = simd::index_of(simd::max_isa()); i >= 0; --i) {
    const auto choice = vector_table().select(simd::kAllIsas[i]);
    if (choice.chosen != simd::kAllIsas[i]) continue;
    const vector_kernels* vk = choice.fn();
    const std::string isa(simd::name_of(choice.chosen));
    list.push_back({absl::StrCat("xsimd:", isa, ":convert"),
                    [vk](plan& p) { return accept_convert(p, vk); }});
    list.push_back({absl::StrCat("xsimd:", isa, ":gather"),
                    [vk](plan& p) { return accept_gather(p, vk); }});
    const int tile = vk->transpose_tile();
    list.push_back({absl::StrCat("xsimd:", isa, ":transpose", tile, "x", tile),
                    [vk](plan& p) { return accept_transpose(p, vk); }});
  }
  list.push_back({"native:any:strided", &accept_strided});
  list.push_back({"ref:any:scalar", [](plan& p) {
                    p.run = &run_elementwise;
                    p.run_writes_padding = true;
                    return absl::OkStatus();
                  }});
  return list;
}

}  // namespace tessera::reorder_internal
