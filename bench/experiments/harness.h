// What the standalone harnesses share: a kernel runs over [begin, end) of its problem's outer
// extent; run_split runs it on one thread, or on two halves (T2=1 in the environment);
// time_orders times every order (those named on the command line, or all) `calls` times per
// round over `rounds` interleaved rounds, the buffer set rotating per call, checks each order
// once, and prints the minimum and the median.
#ifndef TESSERA_BENCH_EXPERIMENTS_HARNESS_H_
#define TESSERA_BENCH_EXPERIMENTS_HARNESS_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace harness {

using kernel = void (*)(const float* src, float* dst, int64_t begin, int64_t end);

struct order {
  const char* name;
  kernel run;
  bool checked;  // false: not a full result (memcpy, a read pattern alone)
};

inline bool two_threads() { return std::getenv("T2") != nullptr; }

inline void run_split(kernel f, const float* src, float* dst, int64_t extent) {
  if (!two_threads()) {
    f(src, dst, 0, extent);
    return;
  }
  std::thread other([&] { f(src, dst, extent / 2, extent); });
  f(src, dst, 0, extent / 2);
  other.join();
}

// check(set) returns whether the dst of buffer set `set` holds the right result.
inline void time_orders(const std::vector<order>& orders, int argc, char** argv, int sets,
                        int rounds, int calls, int64_t extent, const std::vector<float*>& src,
                        const std::vector<float*>& dst, const std::function<bool(int)>& check,
                        double units_per_second, const char* unit) {
  std::vector<std::string> wanted(argv + 1, argv + argc);
  std::vector<std::vector<double>> times(orders.size());
  int set = 0;
  for (int r = 0; r < rounds; ++r) {
    for (size_t j = 0; j < orders.size(); ++j) {
      if (!wanted.empty() &&
          std::find(wanted.begin(), wanted.end(), orders[j].name) == wanted.end()) {
        continue;
      }
      for (int call = 0; call < calls; ++call) {
        const auto t0 = std::chrono::steady_clock::now();
        run_split(orders[j].run, src[set], dst[set], extent);
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
        times[j].push_back(took.count() * units_per_second);
        if (orders[j].checked && r == 0 && call == 0 && !check(set)) {
          std::printf("%s WRONG\n", orders[j].name);
        }
        set = (set + 1) % sets;
      }
    }
  }
  for (size_t j = 0; j < orders.size(); ++j) {
    std::vector<double> t = times[j];
    if (t.empty()) continue;
    std::sort(t.begin(), t.end());
    std::printf("%-12s min %8.2f  med %8.2f %s\n", orders[j].name, t[0], t[t.size() / 2], unit);
  }
}

}  // namespace harness

#endif  // TESSERA_BENCH_EXPERIMENTS_HARNESS_H_
