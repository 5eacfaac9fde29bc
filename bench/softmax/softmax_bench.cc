// Softmax: Tessera vs oneDNN 2.6.3 vs ATen vs memcpy of the same bytes, 1 and 2 threads, hot and cold
// cache, on the problems listed in problems(). Run with -c opt:
//   bazel run -c opt //bench/softmax:softmax_bench -- --benchmark_filter=...
// Names: <problem>/<impl>/threads:<n>/<hot|cold>. Times are per execution (manual timing around
// the call only); cold runs first read a 64 MB buffer so no operand is in any cache. impl "aten"
// (PyTorch's kernels, where libtorch-dev is installed) runs the problems ATen expresses: plain
// layouts, f32 and bf16 (bench/aten_peer.h).
//
// impl "exp" (forward f32 problems whose axis is dense) is a floor, not a softmax: the cheapest
// exp the library has on this machine's ISA (exp_floor), applied once to every element from src
// to dst, rows over the same threads. Every forward softmax or logsoftmax computes each exp at
// least once, so oneDNN's time over this one bounds the "vs oneDNN" any Tessera kernel built on
// that exp can reach.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "bench/aten_peer.h"
#include "bench/bench_buffer.h"
#include "benchmark/benchmark.h"
#include "tessera/primitives/runtime/threads.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/primitives/softmax/internal/exp_kernels.h"
#include "tessera/simd/arch.h"
#include "tessera/simd/isa.h"
#include "tessera/testing/onednn.h"
#include "xsimd/xsimd.hpp"

namespace tessera {
namespace {

struct problem {
  std::string name;
  bool backward;
  softmax_alg alg;
  std::vector<dim_t> dims;
  data_type dt;
  int axis;
  std::vector<int> order;  // plain layout, dims outermost first; empty: blocked16 on dim 1
  bool blocked16 = false;
  // Forward f32 rows of an attention score matrix under a causal mask: in row r (of the rows
  // along dims[0]) the elements past r are -Inf, half the tensor.
  bool causal = false;
  // Forward only: dst's type (undef: dt) and the scales (0: no such attribute).
  data_type dst_dt = data_type::undef;
  float src_scale = 0;
  float dst_scale = 0;
};

data_type dst_type(const problem& p) { return p.dst_dt == data_type::undef ? p.dt : p.dst_dt; }

memory_desc make_md(const problem& p, data_type dt) {
  const int rank = static_cast<int>(p.dims.size());
  if (p.blocked16) {
    blocking_desc b;
    b.inner_nblks = 1;
    b.inner_blks[0] = 16;
    b.inner_idxs[0] = 1;
    dim_t s = 16;
    for (int d = rank - 1; d >= 0; --d) {
      b.strides[d] = s;
      s *= d == 1 ? (p.dims[d] + 15) / 16 : p.dims[d];
    }
    return *memory_desc::with_blocking(p.dims, dt, b);
  }
  std::vector<int> order = p.order;
  if (order.empty()) {
    for (int d = 0; d < rank; ++d) order.push_back(d);
  }
  std::vector<dim_t> strides(rank);
  dim_t s = 1;
  for (int i = rank - 1; i >= 0; --i) {
    strides[order[i]] = s;
    s *= p.dims[order[i]];
  }
  return *memory_desc::with_strides(p.dims, dt, strides);
}
memory_desc make_md(const problem& p) { return make_md(p, p.dt); }

std::vector<problem> problems() {
  using A = softmax_alg;
  const auto f32 = data_type::f32;
  std::vector<problem> v;
  for (A alg : {A::softmax, A::logsoftmax}) {
    const std::string a = alg == A::softmax ? "softmax" : "logsoftmax";
    v.push_back({a + "_fwd_f32_1024x1000", false, alg, {1024, 1000}, f32, 1, {}});
    v.push_back({a + "_fwd_f32_64x30522", false, alg, {64, 30522}, f32, 1, {}});
    v.push_back({a + "_fwd_f32_8192x128", false, alg, {8192, 128}, f32, 1, {}});
  }
  v.push_back({"softmax_fwd_f32_nchw_32x1000x7x7_axis1", false, A::softmax, {32, 1000, 7, 7}, f32, 1, {}});
  v.push_back({"softmax_fwd_f32_nChw16c_32x1000x7x7_axis1", false, A::softmax, {32, 1000, 7, 7}, f32, 1, {}, true});
  // The same problem with the axis dense (nhwc): our own dense time to compare with.
  v.push_back({"softmax_fwd_f32_nhwc_32x1000x7x7_axis1", false, A::softmax, {32, 1000, 7, 7}, f32, 1, {0, 2, 3, 1}});
  v.push_back({"softmax_fwd_f32_30000x8_axis0", false, A::softmax, {30000, 8}, f32, 0, {}});
  v.push_back({"softmax_fwd_f32_30000x8_axis0_ba", false, A::softmax, {30000, 8}, f32, 0, {1, 0}});
  v.push_back({"softmax_bwd_f32_1024x1000", true, A::softmax, {1024, 1000}, f32, 1, {}});
  v.push_back({"logsoftmax_bwd_f32_1024x1000", true, A::logsoftmax, {1024, 1000}, f32, 1, {}});
  // Backward along a strided axis, and the same problem with the axis dense.
  v.push_back({"softmax_bwd_f32_nchw_32x1000x7x7_axis1", true, A::softmax, {32, 1000, 7, 7}, f32, 1, {}});
  v.push_back({"softmax_bwd_f32_nhwc_32x1000x7x7_axis1", true, A::softmax, {32, 1000, 7, 7}, f32, 1, {0, 2, 3, 1}});
  v.push_back({"softmax_fwd_bf16_1024x1000", false, A::softmax, {1024, 1000}, data_type::bf16, 1, {}});
  v.push_back({"softmax_fwd_f32_causal_1024x1024", false, A::softmax, {1024, 1024}, f32, 1, {}, false, true});
  // int8 (benchdnn's f32 -> u8 with a dst scale; s8 -> s8 with both) and f64, against the f32
  // rows above.
  v.push_back({"softmax_fwd_f32_u8_1024x1000", false, A::softmax, {1024, 1000}, f32, 1, {},
               false, false, data_type::u8, 0, 1.f / 255});
  v.push_back({"softmax_fwd_s8_s8_1024x1000", false, A::softmax, {1024, 1000}, data_type::s8, 1,
               {}, false, false, data_type::s8, 0.25f, 1.f / 127});
  v.push_back({"softmax_fwd_f64_1024x1000", false, A::softmax, {1024, 1000}, data_type::f64, 1, {}});
  return v;
}

// oneDNN as a benchmark peer. testing/onednn's softmax functions create the primitive on every
// call, which would be timed with it; this keeps one primitive per benchmark and reuses the
// bridge's descriptor translation, engine and stream.
struct onednn_peer {
  dnnl::primitive prim;
  dnnl::memory in0, in1, out;
  bool backward = false;
  std::string impl;

  static absl::StatusOr<onednn_peer> make(const problem& p, const memory_desc& md,
                                          const memory_desc& dst_md, void* in0, void* in1,
                                          void* out) {
    auto d = testing::to_dnnl(md);
    if (!d.ok()) return d.status();
    auto dd = testing::to_dnnl(dst_md);
    if (!dd.ok()) return dd.status();
    onednn_peer r;
    const auto& engine = testing::cpu_engine();
    const auto alg = p.alg == softmax_alg::logsoftmax ? dnnl::algorithm::softmax_log
                                                      : dnnl::algorithm::softmax_accurate;
    try {
      r.in0 = dnnl::memory(*d, engine, in0);
      r.in1 = dnnl::memory(*d, engine, in1);
      r.out = dnnl::memory(*dd, engine, out);
      r.backward = p.backward;
      const auto kind = p.backward ? dnnl::prop_kind::forward_training
                                   : dnnl::prop_kind::forward_inference;
      // oneDNN 2.x's int8 softmax: one output scale, src_scale / dst_scale.
      dnnl::primitive_attr attr;
      if (p.src_scale != 0 || p.dst_scale != 0) {
        const float s = (p.src_scale != 0 ? p.src_scale : 1.f) / (p.dst_scale != 0 ? p.dst_scale : 1.f);
        attr.set_output_scales(0, {s});
      }
      dnnl::softmax_v2_forward::primitive_desc fpd({kind, alg, *d, *dd, p.axis}, attr, engine);
      if (p.backward) {
        dnnl::softmax_v2_backward::primitive_desc pd({alg, *d, *d, *d, p.axis}, engine, fpd);
        r.prim = dnnl::softmax_v2_backward(pd);
        r.impl = pd.impl_info_str();
      } else {
        r.prim = dnnl::softmax_v2_forward(fpd);
        r.impl = fpd.impl_info_str();
      }
    } catch (const dnnl::error& e) {
      return absl::UnimplementedError(std::string("oneDNN: ") + e.what());
    }
    return r;
  }
  void execute() {
    if (backward) {
      prim.execute(testing::cpu_stream(),
                   {{DNNL_ARG_DST, in0}, {DNNL_ARG_DIFF_DST, in1}, {DNNL_ARG_DIFF_SRC, out}});
    } else {
      prim.execute(testing::cpu_stream(), {{DNNL_ARG_SRC, in0}, {DNNL_ARG_DST, out}});
    }
    testing::cpu_stream().wait();
  }
  static void set_num_threads(int n) {
    // libdnnl brings libgomp; resolved at run time so nothing links OpenMP directly.
    using fn = void (*)(int);
    if (auto f = reinterpret_cast<fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) f(n);
  }
};

// The "exp" impl: exp(x - max) of every element of rows of `len` contiguous f32, by the exp the
// softmax kernels take on max_isa() where a row's range allows it (avx512bw exp_minus_f32, avx2
// exp_minus_nearby_f32), else exp_nonpositive_f32 of x - max (computed before timing, into
// `shifted`; sse4_2's, or neon64's on aarch64). Rows' ranges are found before timing too: only
// the exps are timed.
class exp_floor {
 public:
  exp_floor(const float* src, float* dst, dim_t rows, dim_t len)
      : src_(src), dst_(dst), rows_(rows), len_(len), max_(rows), min_(rows) {
    for (dim_t r = 0; r < rows; ++r) {
      const auto [lo, hi] = std::minmax_element(src + r * len, src + (r + 1) * len);
      max_[r] = *hi;
      min_[r] = *lo;
    }
    shifted_.resize(static_cast<size_t>(rows * len));
    for (dim_t i = 0; i < rows * len; ++i) shifted_[i] = src[i] - max_[i / len];
  }

  // The function the rows take (the first row's choice; the bench's rows share one range).
  std::string name() const {
    double shift, to_c;
    switch (simd::max_isa()) {
#if defined(__x86_64__)
      case simd::isa::avx512bw:
        return softmax_internal::exp_minus_kernel<xsimd::avx512bw>(src_, dst_, 0, max_[0], min_[0])
                   ? "avx512bw:exp_minus_f32"
                   : "avx512bw:exp_nonpositive_f32";
      case simd::isa::avx2:
        return softmax_internal::exp_minus_nearby_kernel<xsimd::avx2>(src_, dst_, 0, max_[0],
                                                                    min_[0], &shift, &to_c)
                   ? "avx2:exp_minus_nearby_f32"
                   : "avx2:exp_nonpositive_f32";
#endif
      default:
        return std::string(simd::name_of(simd::isa_of<floor_arch>)) + ":exp_nonpositive_f32";
    }
  }

  void run() const {
    const simd::isa target = simd::max_isa();
    parallel_for(rows_, 1, [&](int64_t begin, int64_t end) {
      for (dim_t r = begin; r < end; ++r) row(target, r);
    });
  }

 private:
  void row(simd::isa target, dim_t r) const {
    const float* x = src_ + r * len_;
    float* y = dst_ + r * len_;
    double shift, to_c;
    bool done = false;
#if defined(__x86_64__)
    if (target == simd::isa::avx512bw) {
      done = softmax_internal::exp_minus_kernel<xsimd::avx512bw>(x, y, len_, max_[r], min_[r]);
    } else if (target == simd::isa::avx2) {
      done = softmax_internal::exp_minus_nearby_kernel<xsimd::avx2>(x, y, len_, max_[r], min_[r],
                                                                  &shift, &to_c);
    }
#endif
    if (done) return;
    const float* d = shifted_.data() + r * len_;
    switch (target) {
#if defined(__x86_64__)
      case simd::isa::avx512bw:
        softmax_internal::exp_nonpositive_kernel<xsimd::avx512bw>(d, y, len_);
        break;
      case simd::isa::avx2:
        softmax_internal::exp_nonpositive_kernel<xsimd::avx2>(d, y, len_);
        break;
#endif
      default:
        softmax_internal::exp_nonpositive_kernel<floor_arch>(d, y, len_);
    }
  }

  // The architecture's floor ISA: the one every CPU of the build's architecture has.
#if defined(__aarch64__)
  using floor_arch = xsimd::neon64;
#else
  using floor_arch = xsimd::sse4_2;
#endif

  const float* src_;
  float* dst_;
  dim_t rows_, len_;
  std::vector<float> max_, min_, shifted_;
};

// Whether the "exp" impl applies: a forward f32 problem whose axis is dense (stride 1), so that
// its rows are contiguous runs of dims[axis] elements.
bool has_exp_floor(const problem& p, const memory_desc& md) {
  return !p.backward && p.dt == data_type::f32 && !p.blocked16 && !p.causal &&
         md.is_dense() && md.blocking().strides[p.axis] == 1;
}

// Reads, never writes, a 64 MB buffer (one load per line). It evicts the operands, writing the
// dirty ones back here rather than inside the timed call, and leaves only clean lines behind,
// which the call can evict for free. Overwriting the buffer instead left 64 MB of dirty lines
// whose write-back competed with the call: at 2 threads it slowed every implementation, memcpy
// included (the softmax bwd memcpy row markedly slower).
void flush_caches() {
  static const std::vector<uint64_t> junk = [] {
    std::vector<uint64_t> v((64 << 20) / sizeof(uint64_t));
    for (size_t i = 0; i < v.size(); ++i) v[i] = i;
    return v;
  }();
  uint64_t sum = 0;
  for (size_t i = 0; i < junk.size(); i += 64 / sizeof(uint64_t)) sum += junk[i];
  benchmark::DoNotOptimize(sum);
}

struct buffers {
  explicit buffers(size_t bytes) : in0(bytes), in1(bytes), out(bytes) {}
  bench::bench_buffer in0, in1, out;
};

void fill(const bench::bench_buffer& buffer, size_t bytes, const memory_desc& md) {
  unsigned char* b = buffer.data();
  std::vector<float> vals(bytes / 4);
  for (size_t i = 0; i < vals.size(); ++i) vals[i] = static_cast<float>((i * 7919) % 1000) * 0.01f - 5.f;
  if (md.dt() == data_type::f32) {
    std::memcpy(b, vals.data(), vals.size() * 4);
  } else if (md.dt() == data_type::f64) {
    for (size_t i = 0; i < bytes / 8; ++i) {
      const double v = vals[i];
      std::memcpy(b + 8 * i, &v, 8);
    }
  } else if (md.dt() == data_type::s8 || md.dt() == data_type::u8) {
    // Quantized logits: 21 levels, a range the f32 rows' exps also see.
    for (size_t i = 0; i < bytes; ++i) b[i] = static_cast<unsigned char>((i * 7919) % 21 + (md.dt() == data_type::s8 ? 246 : 0));
  } else {
    for (size_t i = 0; i + 1 < bytes; i += 2) b[i + 1] = 0x3f, b[i] = static_cast<unsigned char>(i);
  }
}

void run_bench(benchmark::State& state, const problem& p, const std::string& impl, int threads,
               bool cold) {
  const memory_desc md = make_md(p);
  const memory_desc dst_md = make_md(p, dst_type(p));
  const memory_desc scale_md = *memory_desc::with_strides({1}, data_type::f32, {1});
  const size_t bytes = static_cast<size_t>(md.size_bytes());
  buffers buf(std::max(bytes, static_cast<size_t>(dst_md.size_bytes())));
  fill(buf.in0, bytes, md);
  fill(buf.in1, bytes, md);
  if (p.backward && p.alg == softmax_alg::softmax) {
    // dst of a softmax: positive and small.
    float* y = reinterpret_cast<float*>(buf.in0.data());
    for (size_t i = 0; i < bytes / 4; ++i) y[i] = 1e-3f;
  }
  if (p.backward && p.alg == softmax_alg::logsoftmax) {
    // dst of a logsoftmax: at most 0 (the fill's [-5, 5) moved to [-10, 0)).
    float* y = reinterpret_cast<float*>(buf.in0.data());
    for (size_t i = 0; i < bytes / 4; ++i) y[i] -= 5.f;
  }
  if (p.causal) {
    float* x = reinterpret_cast<float*>(buf.in0.data());
    const dim_t len = p.dims[1];
    for (dim_t r = 0; r < p.dims[0]; ++r) {
      std::fill(x + r * len + std::min(r + 1, len), x + (r + 1) * len,
                -std::numeric_limits<float>::infinity());
    }
  }
  scoped_num_threads scope(threads);
  onednn_peer::set_num_threads(threads);
  bench::set_aten_threads(threads);

  std::function<void()> call;
  std::unique_ptr<softmax_forward> fwd;
  std::unique_ptr<softmax_backward> bwd;
  std::unique_ptr<onednn_peer> peer;
  std::unique_ptr<exp_floor> floor;
  std::unique_ptr<bench::aten_call> aten;
  if (impl == "exp") {
    const dim_t len = p.dims[p.axis];
    floor = std::make_unique<exp_floor>(reinterpret_cast<const float*>(buf.in0.data()),
                                        reinterpret_cast<float*>(buf.out.data()),
                                        md.nelems() / len, len);
    state.SetLabel(floor->name());
    call = [&] { floor->run(); };
  } else if (impl == "tessera") {
    if (p.backward) {
      bwd = std::make_unique<softmax_backward>(*softmax_backward::create(p.alg, md, md, md, p.axis));
      state.SetLabel(bwd->impl_name());
      call = [&] {
        (void)bwd->execute({{arg::dst, {md, buf.in0.data()}},
                            {arg::diff_dst, {md, buf.in1.data()}},
                            {arg::diff_src, {md, buf.out.data()}}});
      };
    } else {
      primitive_attr attr;
      if (p.src_scale != 0) attr.src_scales = quant_param{0};
      if (p.dst_scale != 0) attr.dst_scales = quant_param{0};
      fwd = std::make_unique<softmax_forward>(
          *softmax_forward::create(p.alg, md, dst_md, p.axis, attr));
      state.SetLabel(fwd->impl_name());
      call = [&, src_scale = p.src_scale, dst_scale = p.dst_scale]() mutable {
        exec_args args{{arg::src, {md, buf.in0.data()}}, {arg::dst, {dst_md, buf.out.data()}}};
        if (p.src_scale != 0) args.set(arg::src_scales, {scale_md, &src_scale});
        if (p.dst_scale != 0) args.set(arg::dst_scales, {scale_md, &dst_scale});
        (void)fwd->execute(args);
      };
    }
  } else if (impl == "onednn") {
    auto made =
        onednn_peer::make(p, md, dst_md, buf.in0.data(), buf.in1.data(), buf.out.data());
    if (!made.ok()) {
      state.SkipWithError(std::string(made.status().message()).c_str());
      return;
    }
    peer = std::make_unique<onednn_peer>(*std::move(made));
    state.SetLabel(peer->impl);
    call = [&] { peer->execute(); };
  } else if (impl == "aten") {
    auto made = bench::make_aten_softmax(md, p.alg, p.axis, p.backward, buf.in0.data(),
                                         buf.in1.data(), buf.out.data());
    if (!made.ok()) {
      state.SkipWithError(std::string(made.status().message()).c_str());
      return;
    }
    aten = *std::move(made);
    state.SetLabel(bench::aten_label());
    call = [&] { aten->run(0); };
  } else {
    // memcpy of one tensor, split over the same threads.
    call = [&] {
      parallel_for(static_cast<int64_t>(bytes), 1 << 16, [&](int64_t b, int64_t e) {
        std::memcpy(buf.out.data() + b, buf.in0.data() + b, static_cast<size_t>(e - b));
      });
    };
  }
  call();  // warm-up (first-touch, JIT)
  for (auto _ : state) {
    if (cold) flush_caches();
    const auto t0 = std::chrono::steady_clock::now();
    call();
    const auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  // Bytes a perfect kernel must move: inputs read once, output written once.
  const int64_t moved = static_cast<int64_t>(bytes) * (p.backward ? 2 : 1) + dst_md.size_bytes();
  state.SetBytesProcessed(state.iterations() * moved);
}

const bool registered = [] {
  for (const problem& p : problems()) {
    for (const char* impl : {"tessera", "onednn", "aten", "memcpy", "exp"}) {
      if (impl == std::string("exp") && !has_exp_floor(p, make_md(p))) continue;
      if (impl == std::string("aten") && !bench::aten_softmax_expresses(make_md(p)).ok()) continue;
      for (int threads : {1, 2}) {
        for (bool cold : {false, true}) {
          const std::string name = p.name + "/" + impl + "/threads:" + std::to_string(threads) +
                                   (cold ? "/cold" : "/hot");
          benchmark::RegisterBenchmark(name.c_str(), [p, impl = std::string(impl), threads,
                                                      cold](benchmark::State& s) {
            run_bench(s, p, impl, threads, cold);
          })->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.1);
        }
      }
    }
  }
  return true;
}();

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
