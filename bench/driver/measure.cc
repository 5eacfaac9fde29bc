#include "bench/driver/measure.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "tessera/primitives/runtime/threads.h"

namespace tessera::bench {
namespace {
using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}
}  // namespace

int64_t buffer_sets(int64_t set_bytes, const run_settings& s) {
  if (s.cold_cache != "all" || set_bytes <= 0) return 1;
  int64_t n = (kColdCacheBytes + set_bytes - 1) / set_bytes;
  return std::clamp<int64_t>(n, 2, kMaxColdSets);
}

timing measure(const std::function<void(int64_t set)>& fn, int64_t sets, const run_settings& s) {
  // Three measurements share a problem's budget: Tessera, oneDNN and memcpy.
  const double budget_ms = std::max<double>(1.0, static_cast<double>(s.max_ms_per_prb) / 3);
  int64_t set = 0;
  auto next = [&] { int64_t cur = set; set = (set + 1) % sets; return cur; };
  // Warm-up: one call, plus calls until ~10% of the budget or 1000 calls.
  auto t0 = clock_type::now();
  fn(next());
  double first_ms = ms_since(t0);
  for (int i = 0; i < 1000 && ms_since(t0) < budget_ms * 0.1; ++i) fn(next());
  // Calls per sample: enough for >= 50 us per sample, so clock overhead does not dominate.
  int64_t per_sample = std::max<int64_t>(1, static_cast<int64_t>(0.05 / std::max(first_ms, 1e-6)));
  per_sample = std::min<int64_t>(per_sample, 10000);
  std::vector<double> samples;
  auto start = clock_type::now();
  const int64_t fixed = s.fix_times_per_prb;
  while (true) {
    auto ts = clock_type::now();
    for (int64_t k = 0; k < per_sample; ++k) fn(next());
    samples.push_back(ms_since(ts) / static_cast<double>(per_sample));
    if (fixed > 0 ? static_cast<int64_t>(samples.size()) >= fixed
                  : (ms_since(start) >= budget_ms && samples.size() >= 5) || samples.size() >= 100000) {
      break;
    }
  }
  timing t;
  t.samples = static_cast<int64_t>(samples.size());
  double sum = 0;
  for (double v : samples) sum += v;
  t.avg_ms = sum / static_cast<double>(samples.size());
  t.min_ms = *std::min_element(samples.begin(), samples.end());
  t.max_ms = *std::max_element(samples.begin(), samples.end());
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  t.median_ms = samples[samples.size() / 2];
  return t;
}

double memcpy_ms(int64_t bytes, const run_settings& s) {
  if (bytes <= 0) return 0;
  int64_t sets = buffer_sets(2 * bytes, s);
  auto src = std::make_unique<char[]>(static_cast<size_t>(bytes * sets));
  auto dst = std::make_unique<char[]>(static_cast<size_t>(bytes * sets));
  std::memset(src.get(), 1, static_cast<size_t>(bytes * sets));
  std::memset(dst.get(), 0, static_cast<size_t>(bytes * sets));
  return measure([&](int64_t set) { parallel_copy(dst.get() + set * bytes, src.get() + set * bytes, bytes); },
                 sets, s)
      .median_ms;
}

void parallel_copy(void* dst, const void* src, int64_t bytes) {
  constexpr int64_t kBlock = 4096, kMinChunk = 16;  // 64 KiB per task at least
  const int64_t blocks = (bytes + kBlock - 1) / kBlock;
  if (blocks < 2 * kMinChunk) {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    return;
  }
  parallel_for(blocks, kMinChunk, [&](int64_t begin, int64_t end) {
    const int64_t from = begin * kBlock, to = std::min(bytes, end * kBlock);
    std::memcpy(static_cast<char*>(dst) + from, static_cast<const char*>(src) + from, static_cast<size_t>(to - from));
  });
}

}  // namespace tessera::bench
