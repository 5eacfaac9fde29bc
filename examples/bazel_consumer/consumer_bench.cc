// The consumer's own benchmark on Tessera: nchw -> nhwc f32 reorder, bytes/s.
//   bazel run -c opt //:consumer_bench
#include <vector>

#include "benchmark/benchmark.h"
#include <tessera/formats/make_memory_desc.h>
#include <tessera/primitives/reorder/reorder.h>

static void BM_NchwToNhwc(benchmark::State& state) {
  const int64_t n = 8, c = 64, h = 28, w = 28;
  auto src_md = tessera::make_memory_desc({n, c, h, w}, tessera::data_type::f32, "nchw");
  auto dst_md = tessera::make_memory_desc({n, c, h, w}, tessera::data_type::f32, "nhwc");
  auto r = tessera::reorder::create(*src_md, *dst_md);
  if (!r.ok()) {
    state.SkipWithError(std::string(r.status().message()).c_str());
    return;
  }
  std::vector<float> src(n * c * h * w, 1.f), dst(src.size());
  tessera::exec_args args{{tessera::arg_from, {*src_md, src.data()}},
                          {tessera::arg_to, {*dst_md, dst.data()}}};
  for (auto _ : state) {
    benchmark::DoNotOptimize(r->execute(args));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * int64_t(src.size()) * 8);
  state.SetLabel(r->impl_name());
}
BENCHMARK(BM_NchwToNhwc);
