// Reorder: Tessera vs oneDNN 2.6.3 vs ATen vs memcpy, side by side in one run.
//
//   bazel run -c opt //bench/reorder:reorder_bench -- --benchmark_repetitions=5 \
//       --benchmark_report_aggregates_only=true
//
// Each case runs as tessera/onednn/aten/memcpy x threads {1, 2} x cache {warm, cold}; aten rows
// exist where ATen computes the same values (bench/aten_peer.h) and libtorch-dev is installed. Cold rotates
// over enough (src, dst) buffer sets to touch >= 256 MiB between two uses of one set. Counter
// "bytes_per_second" counts src bytes read + dst bytes written (+ dst read for the sum post-op);
// memcpy copies max(src, dst) bytes and counts 2x that. Cases ending in "_rt" create the reorder
// with the dims of runtime_mask at run time (kRuntimeDim) and execute it on the concrete
// descriptors, the shape repeated: compare them with the row of the same reorder with fixed dims
// (f32_tiny_2x16x3x4, f32_nchw_nhwc); Tessera only.
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/aten_peer.h"
#include "bench/bench_buffer.h"
#include "benchmark/benchmark.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/testing/fill.h"
#include "tessera/testing/onednn.h"

namespace tessera {
namespace {

struct bench_case {
  const char* name;
  std::vector<dim_t> dims;
  data_type sdt, ddt;
  const char* stag;
  const char* dtag;
  float oscale = 0;  // 0: none
  float beta = 0;    // 0: no sum
  int oscale_mask = 0;  // per dimension: oscale + 0.125 * (index % 4) along the masked dims
  int runtime_mask = 0;  // bit d: dim d is run-time at creation
  // 4-bit weights (one side s4 or u4): the 4-bit side's scales (scale_dt) and zero points
  // (zp_dt), mask 3, one per `group` rows of each column (groups group x 1).
  int64_t group = 0;
  data_type scale_dt = data_type::f32, zp_dt = data_type::s32;
};

bool four_bit(data_type dt) { return dt == data_type::s4 || dt == data_type::u4; }

const std::vector<bench_case>& cases() {
  static const auto* list = new std::vector<bench_case>{
      {"f32_nchw_nhwc", {32, 64, 56, 56}, data_type::f32, data_type::f32, "nchw", "nhwc"},
      {"f32_nhwc_nchw", {32, 64, 56, 56}, data_type::f32, data_type::f32, "nhwc", "nchw"},
      {"f32_nchw_nChw16c", {32, 64, 56, 56}, data_type::f32, data_type::f32, "nchw", "nChw16c"},
      {"f32_nChw16c_nchw", {32, 64, 56, 56}, data_type::f32, data_type::f32, "nChw16c", "nchw"},
      {"f32_s8_nchw_nhwc_scale", {32, 64, 56, 56}, data_type::f32, data_type::s8, "nchw", "nhwc", 0.5f},
      {"f32_bf16_abcd", {32, 64, 56, 56}, data_type::f32, data_type::bf16, "abcd", "abcd"},
      // f16, whose conversions oneDNN 2.6.3 runs in its simple:any kernel.
      {"f32_f16_abcd", {32, 64, 56, 56}, data_type::f32, data_type::f16, "abcd", "abcd"},
      {"f16_f32_nchw_nhwc", {32, 64, 56, 56}, data_type::f16, data_type::f32, "nchw", "nhwc"},
      // Bit copies of 16- and 8-bit elements between nchw and nhwc (oneDNN 2.6.3: simple:any for
      // f16, jit:uni for s8).
      {"f16_nchw_nhwc", {32, 64, 56, 56}, data_type::f16, data_type::f16, "nchw", "nhwc"},
      {"f16_nhwc_nchw", {32, 64, 56, 56}, data_type::f16, data_type::f16, "nhwc", "nchw"},
      {"s8_nchw_nhwc", {32, 64, 56, 56}, data_type::s8, data_type::s8, "nchw", "nhwc"},
      {"s8_nhwc_nchw", {32, 64, 56, 56}, data_type::s8, data_type::s8, "nhwc", "nchw"},
      {"f32_oihw_OIhw16i16o", {256, 256, 3, 3}, data_type::f32, data_type::f32, "oihw", "OIhw16i16o"},
      {"f32_ab_ba_4096", {4096, 4096}, data_type::f32, data_type::f32, "ab", "ba"},
      {"f32_abcd_sum1", {32, 64, 56, 56}, data_type::f32, data_type::f32, "abcd", "abcd", 0, 1.f},
      {"f32_bf16_140x3851", {140, 3851}, data_type::f32, data_type::bf16, "ab", "ab"},
      // A mid-sized transpose, a plain copy in transposing clothes (C = 1) and a plain copy.
      {"f32_ab_ba_140x3851", {140, 3851}, data_type::f32, data_type::f32, "ab", "ba"},
      {"f32_nchw_nhwc_10x1x390x590", {10, 1, 390, 590}, data_type::f32, data_type::f32, "nchw", "nhwc"},
      {"f32_abcd_copy", {32, 64, 56, 56}, data_type::f32, data_type::f32, "abcd", "abcd"},
      {"f32_nchw_nChw16c_odd", {10, 1, 390, 590}, data_type::f32, data_type::f32, "nchw", "nChw16c"},
      {"f32_tiny_2x16x3x4", {2, 16, 3, 4}, data_type::f32, data_type::f32, "nchw", "nhwc"},
      {"f32_tiny_2x16x3x4_rt", {2, 16, 3, 4}, data_type::f32, data_type::f32, "nchw", "nhwc", 0, 0, 0, 0xF},
      {"f32_nchw_nhwc_rt", {32, 64, 56, 56}, data_type::f32, data_type::f32, "nchw", "nhwc", 0, 0, 0, 0xF},
      // int8 quantization with per-channel scales (activations along C, weights along O), whose
      // runs keep one scale each.
      {"f32_s8_nchw_scale_per_channel", {32, 64, 56, 56}, data_type::f32, data_type::s8, "nchw",
       "nchw", 0.5f, 0, 1 << 1},
      {"f32_s8_oihw_scale_per_oc", {256, 256, 3, 3}, data_type::f32, data_type::s8, "oihw", "oihw",
       0.5f, 0, 1 << 0},
      // 4-bit weight compression and decompression of a 4096x4096 matrix, groups of 32 and 128
      // rows. oneDNN 2.6.3 has no 4-bit type: its rows run the nearest equivalent on the same
      // matrix, s8 in place of the 4-bit type with one output scale per column (mask 2).
      {"f32_u4_4096_g32", {4096, 4096}, data_type::f32, data_type::u4, "ab", "ab", 0, 0, 0, 0, 32},
      {"f32_u4_4096_g128", {4096, 4096}, data_type::f32, data_type::u4, "ab", "ab", 0, 0, 0, 0, 128},
      {"u4_f32_4096_g32", {4096, 4096}, data_type::u4, data_type::f32, "ab", "ab", 0, 0, 0, 0, 32},
      {"u4_f32_4096_g128", {4096, 4096}, data_type::u4, data_type::f32, "ab", "ab", 0, 0, 0, 0, 128},
      {"bf16_s4_4096_g128", {4096, 4096}, data_type::bf16, data_type::s4, "ab", "ab", 0, 0, 0, 0,
       128},
      {"s4_bf16_4096_g128", {4096, 4096}, data_type::s4, data_type::bf16, "ab", "ab", 0, 0, 0, 0,
       128},
      // f16 scales and u8 zero points, widened to f32 / s32 at each execution.
      {"u4_f16_4096_g32_f16_scales", {4096, 4096}, data_type::u4, data_type::f16, "ab", "ab", 0, 0,
       0, 0, 32, data_type::f16, data_type::u8},
  };
  return *list;
}

constexpr int64_t kColdBytes = int64_t{256} << 20;

// Buffer sets of one case, shared by all its benchmarks: one for warm rows, grown to enough sets
// to rotate over kColdBytes when a cold row first runs (a warm-only run fills 1.5 KB to 25 MB,
// not 256 MiB). Set 0 is filled randomly and copied into the others: the same values in
// distinct memory, which is all a cold row needs, at memcpy speed instead of fill_random's.
struct buffers {
  memory_desc src, dst;
  std::vector<std::unique_ptr<bench::bench_buffer>> srcs, dsts;
  int64_t src_bytes, dst_bytes;
  int64_t cold_sets;
};

buffers& buffers_for(const bench_case& c, bool cold) {
  static std::map<std::string, std::unique_ptr<buffers>> all;
  auto& b = all[c.name];
  if (!b) {
    b = std::make_unique<buffers>();
    b->src = *make_memory_desc(c.dims, c.sdt, c.stag);
    b->dst = *make_memory_desc(c.dims, c.ddt, c.dtag);
    b->src_bytes = b->src.size_bytes();
    b->dst_bytes = b->dst.size_bytes();
    const int64_t set = std::max(b->src_bytes, b->dst_bytes) * 2;
    b->cold_sets = std::max<int64_t>(2, (kColdBytes + set - 1) / set + 1);
  }
  // memcpy copies max(src, dst) bytes: both buffers are that large.
  const int64_t bytes = std::max(b->dst_bytes, b->src_bytes);
  const int64_t want = cold ? b->cold_sets : 1;
  while (static_cast<int64_t>(b->srcs.size()) < want) {
    b->srcs.push_back(std::make_unique<bench::bench_buffer>(bytes));
    b->dsts.push_back(std::make_unique<bench::bench_buffer>(bytes));
    if (b->srcs.size() == 1 && four_bit(c.sdt)) {
      uint32_t x = 1;  // every byte is two valid codes
      for (int64_t i = 0; i < b->src_bytes; ++i) b->srcs[0]->data()[i] = (x = x * 1664525u + 1013904223u) >> 24;
    } else if (b->srcs.size() == 1) {
      (void)testing::fill_random(b->src, b->srcs[0]->data(), {.seed = 1});
    } else {
      std::memcpy(b->srcs.back()->data(), b->srcs[0]->data(), bytes);
    }
  }
  return *b;
}

std::vector<float> oscale_values(const bench_case& c) {
  int64_t n = 1;
  for (size_t d = 0; d < c.dims.size(); ++d) {
    if (c.oscale_mask & (1 << d)) n *= c.dims[d];
  }
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = c.oscale + 0.125f * static_cast<float>(i % 4);
  return v;
}

// The scales and zero points of a 4-bit case, as the attributes declare them.
struct weight_quant {
  memory_desc scale_md, zp_md;
  std::vector<char> scales, zps;
};

weight_quant& weight_quant_of(const bench_case& c) {
  static std::map<std::string, std::unique_ptr<weight_quant>> all;
  auto& w = all[c.name];
  if (!w) {
    w = std::make_unique<weight_quant>();
    const dim_t n = c.dims[0] / c.group * c.dims[1];
    w->scale_md = *memory_desc::with_strides({n}, c.scale_dt, {1});
    w->zp_md = *memory_desc::with_strides({n}, c.zp_dt, {1});
    w->scales.resize(w->scale_md.size_bytes());
    w->zps.resize(w->zp_md.size_bytes());
    (void)testing::fill_random(w->scale_md, w->scales.data(), {.seed = 2, .lo = 0.5, .hi = 2});
    (void)testing::fill_random(w->zp_md, w->zps.data(), {.seed = 3, .lo = 0, .hi = 15});
  }
  return *w;
}

primitive_attr attr_of(const bench_case& c) {
  primitive_attr a;
  if (c.group != 0) {
    const quant_param scale{.mask = 3, .dt = c.scale_dt, .groups = {c.group, 1}};
    const quant_param zp{.mask = 3, .dt = c.zp_dt, .groups = {c.group, 1}};
    if (four_bit(c.ddt)) {
      a.dst_scales = scale;
      a.dst_zero_points = zp;
    } else {
      a.src_scales = scale;
      a.src_zero_points = zp;
    }
  }
  if (c.oscale != 0) a.oscale = output_scales{.mask = c.oscale_mask, .values = oscale_values(c)};
  if (c.beta != 0) a.sum = sum_post_op{.beta = c.beta};
  return a;
}

void set_onednn_threads(int n) {
  using fn = void (*)(int);
  static fn set = reinterpret_cast<fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (set) set(n);
}

enum class impl { tessera, onednn, aten, memcpy };

// The ATen equivalent of a case, when there is one (no scales, fixed dims, plain layouts).
absl::Status aten_expresses(const bench_case& c) {
  if (c.oscale != 0 || c.runtime_mask != 0 || c.group != 0) {
    return absl::UnimplementedError("scales and run-time dims have no ATen equivalent");
  }
  return bench::aten_reorder_expresses(*make_memory_desc(c.dims, c.sdt, c.stag),
                                       *make_memory_desc(c.dims, c.ddt, c.dtag), c.beta);
}

void run(benchmark::State& state, const bench_case& c, impl which, int threads, bool cold) {
  buffers& b = buffers_for(c, cold);
  const int sets = cold ? static_cast<int>(b.cold_sets) : 1;
  scoped_num_threads tessera_threads(threads);
  set_onednn_threads(threads);
  bench::set_aten_threads(threads);
  const primitive_attr attr = attr_of(c);
  int64_t bytes = b.src_bytes + b.dst_bytes + (c.beta != 0 ? b.dst_bytes : 0);
  int k = 0;
  if (which == impl::tessera) {
    std::vector<dim_t> dims = c.dims;
    for (size_t d = 0; d < dims.size(); ++d) dims[d] = (c.runtime_mask >> d) & 1 ? kRuntimeDim : dims[d];
    absl::StatusOr<reorder> r = reorder::create(*make_memory_desc(dims, c.sdt, c.stag),
                                                *make_memory_desc(dims, c.ddt, c.dtag), attr);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    state.SetLabel(r->impl_name());
    exec_args quant;
    if (c.group != 0) {
      weight_quant& w = weight_quant_of(c);
      const bool dst_side = four_bit(c.ddt);
      quant.set(dst_side ? arg::dst_scales : arg::src_scales, {w.scale_md, w.scales.data()});
      quant.set(dst_side ? arg::dst_zero_points : arg::src_zero_points, {w.zp_md, w.zps.data()});
    }
    for (auto _ : state) {
      exec_args args = quant;
      args.set(arg_from, {b.src, b.srcs[k]->data()});
      args.set(arg_to, {b.dst, b.dsts[k]->data()});
      absl::Status s = r->execute(args);
      if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
      k = (k + 1) % sets;
    }
  } else if (which == impl::onednn) {
    auto& eng = testing::cpu_engine();
    dnnl::primitive_attr dattr;
    if (c.oscale != 0) dattr.set_output_scales(c.oscale_mask, oscale_values(c));
    if (c.group != 0) {
      bench_case per_column = c;
      per_column.oscale = 0.5f;
      per_column.oscale_mask = 1 << 1;
      dattr.set_output_scales(per_column.oscale_mask, oscale_values(per_column));
    }
    if (c.beta != 0) {
      dnnl::post_ops po;
      po.append_sum(c.beta);
      dattr.set_post_ops(po);
    }
    const auto s8_for_4bit = [&](const memory_desc& m, const char* tag) {
      return four_bit(m.dt()) ? *make_memory_desc(c.dims, data_type::s8, tag) : m;
    };
    auto smd = *testing::to_dnnl(s8_for_4bit(b.src, c.stag));
    auto dmd = *testing::to_dnnl(s8_for_4bit(b.dst, c.dtag));
    dnnl::reorder::primitive_desc pd;
    try {
      pd = dnnl::reorder::primitive_desc(eng, smd, eng, dmd, dattr);
    } catch (const dnnl::error& e) {  // s8 -> f16 with output scales, say
      state.SkipWithError((std::string("oneDNN declines: ") + e.what()).c_str());
      return;
    }
    dnnl::reorder prim(pd);
    state.SetLabel(pd.impl_info_str());
    std::vector<dnnl::memory> sm, dm;
    for (int i = 0; i < sets; ++i) {
      sm.emplace_back(smd, eng, b.srcs[i]->data());
      dm.emplace_back(dmd, eng, b.dsts[i]->data());
    }
    auto& strm = testing::cpu_stream();
    for (auto _ : state) {
      prim.execute(strm, {{DNNL_ARG_FROM, sm[k]}, {DNNL_ARG_TO, dm[k]}});
      strm.wait();
      k = (k + 1) % sets;
    }
  } else if (which == impl::aten) {
    std::vector<void*> srcs, dsts;
    for (int i = 0; i < sets; ++i) {
      srcs.push_back(b.srcs[i]->data());
      dsts.push_back(b.dsts[i]->data());
    }
    auto call = bench::make_aten_reorder(b.src, b.dst, c.beta, srcs, dsts);
    if (!call.ok()) {
      state.SkipWithError(std::string(call.status().message()).c_str());
      return;
    }
    state.SetLabel(bench::aten_label());
    for (auto _ : state) {
      (*call)->run(k);
      k = (k + 1) % sets;
    }
  } else {
    const int64_t n = std::max(b.src_bytes, b.dst_bytes);
    bytes = 2 * n;
    // Split like a 2-thread copy would: one memcpy per thread's half.
    for (auto _ : state) {
      parallel_for(n, n / threads + 1, [&](int64_t begin, int64_t end) {
        std::memcpy(b.dsts[k]->data() + begin, b.srcs[k]->data() + begin, end - begin);
      });
      k = (k + 1) % sets;
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}

int register_all() {
  for (const bench_case& c : cases()) {
    for (bool cold : {true, false}) {
      for (int threads : {1, 2}) {
        for (auto [which, name] : {std::pair{impl::tessera, "tessera"},
                                   std::pair{impl::onednn, "onednn"},
                                   std::pair{impl::aten, "aten"},
                                   std::pair{impl::memcpy, "memcpy"}}) {
          if (c.runtime_mask != 0 && which != impl::tessera) continue;
          if (which == impl::aten && !aten_expresses(c).ok()) continue;
          std::string full = std::string(c.name) + "/" + name + "/threads:" +
                             std::to_string(threads) + (cold ? "/cold" : "/warm");
          benchmark::RegisterBenchmark(full.c_str(), [&c, which = which, threads, cold](
                                                         benchmark::State& s) {
            run(s, c, which, threads, cold);
          })->UseRealTime()->Unit(benchmark::kMicrosecond);
        }
      }
    }
  }
  return 0;
}

const int registered = register_all();

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
