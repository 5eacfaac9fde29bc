// Vector conversions (per ISA, through the dispatcher) against a plain scalar loop calling the
// reference conversion. 4096 elements: source and destination stay in L1/L2, so this measures
// the conversion, not memory. Items/s are elements converted per second.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "tessera/core/convert.h"
#include "tessera/simd/convert_array.h"
#include "tessera/simd/isa.h"

namespace tessera::simd {
namespace {

constexpr int64_t kN = 4096;

template <class T>
std::vector<T> inputs() {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-200.f, 200.f);
  std::vector<T> v(kN);
  for (auto& x : v) x = from_f32<T>(dist(rng));
  return v;
}

template <class Src, class Dst>
void BM_Scalar(benchmark::State& state) {
  const std::vector<Src> src = inputs<Src>();
  std::vector<Dst> dst(kN);
  for (auto _ : state) {
    for (int64_t i = 0; i < kN; ++i) dst[i] = from_f32<Dst>(to_f32(src[i]));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kN);
}

template <class Src, class Dst>
void BM_Vector(benchmark::State& state) {
  const isa target = static_cast<isa>(state.range(0));
  if (target > detected_isa()) {
    state.SkipWithError("ISA not available on this CPU");
    return;
  }
  const auto k = convert_table<Src, Dst>().select(target);
  state.SetLabel(k.impl_name());
  const std::vector<Src> src = inputs<Src>();
  std::vector<Dst> dst(kN);
  for (auto _ : state) {
    k.fn(src.data(), dst.data(), kN);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kN);
}

void isa_args(benchmark::internal::Benchmark* b) {
  for (isa i : kAllIsas) b->Arg(index_of(i));
}

#define TESSERA_BENCH_PAIR_(Src, Dst)                        \
  BENCHMARK_TEMPLATE(BM_Scalar, Src, Dst);                   \
  BENCHMARK_TEMPLATE(BM_Vector, Src, Dst)->Apply(isa_args)
TESSERA_BENCH_PAIR_(float, bf16);
TESSERA_BENCH_PAIR_(bf16, float);
TESSERA_BENCH_PAIR_(float, f16);
TESSERA_BENCH_PAIR_(f16, float);
TESSERA_BENCH_PAIR_(float, f8_e5m2);
TESSERA_BENCH_PAIR_(f8_e5m2, float);
TESSERA_BENCH_PAIR_(float, f8_e4m3);
TESSERA_BENCH_PAIR_(f8_e4m3, float);
TESSERA_BENCH_PAIR_(float, int32_t);
TESSERA_BENCH_PAIR_(int32_t, float);
TESSERA_BENCH_PAIR_(float, int8_t);
TESSERA_BENCH_PAIR_(int8_t, float);
TESSERA_BENCH_PAIR_(float, uint8_t);
TESSERA_BENCH_PAIR_(uint8_t, float);
#undef TESSERA_BENCH_PAIR_

}  // namespace
}  // namespace tessera::simd
