#include "bench/driver/session.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <vector>

#include "bench/driver/measure.h"
#include "bench/driver/onednn_runner.h"
#include "gtest/gtest.h"
#include "tessera/primitives/runtime/threads.h"

namespace tessera::bench {
namespace {

TEST(Header, NamesVersionsMachineIsaThreadsAndCache) {
  run_settings s;
  s.cold_cache = "all";
  s.performance = true;
  const run_header h = collect_header(s);
  EXPECT_EQ(h.tessera_version, "0.1.0");
  EXPECT_FALSE(h.onednn_version.empty());
  EXPECT_FALSE(h.cpu.empty());
  EXPECT_FALSE(h.isa.empty());
  EXPECT_EQ(h.tessera_threads, num_threads());
  EXPECT_EQ(h.memcpy_threads, num_threads());
  const std::string line = header_line(h);
  for (const std::string& part : std::vector<std::string>{
           "tessera_bench: Tessera 0.1.0 | oneDNN " + h.onednn_version + " (peer)", " | cpu: " + h.cpu,
           " | isa: " + h.isa, " | threads: ", " | cold-cache: all", " | mode: CP"}) {
    EXPECT_NE(line.find(part), std::string::npos) << part << " in " << line;
  }
  std::vector<std::string> keys;
  for (const auto& [k, v] : header_fields(h)) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"tessera", "onednn", "cpu", "cpu_id", "isa", "threads",
                                            "onednn_threads", "memcpy_threads", "cold_cache", "mode"}));
}

TEST(Threads, OneDnnFollowsTesserasCount) {
  EXPECT_EQ(apply_threads(1), 1);
  EXPECT_EQ(num_threads(), 1);
  EXPECT_EQ(onednn_threads(), 1);
  EXPECT_EQ(apply_threads(3), 3);
  EXPECT_EQ(onednn_threads(), 3);
  const run_header h = collect_header(run_settings{});
  EXPECT_EQ(h.tessera_threads, 3);
  EXPECT_EQ(h.onednn_threads, 3);
  EXPECT_NE(header_line(h).find("threads: 3 (Tessera, oneDNN and memcpy)"), std::string::npos);
}

// A pool that records how many threads it was asked to split work over.
class counting_pool : public thread_pool {
 public:
  explicit counting_pool(int n) : n_(n) {}
  int num_threads() const override { return n_; }
  void parallel_for(int64_t n, int64_t chunk, absl::FunctionRef<void(int64_t, int64_t)> fn) override {
    ++calls;
    for (int64_t b = 0; b < n; b += chunk) {
      ++tasks;
      fn(b, std::min(n, b + chunk));
    }
  }
  std::atomic<int> calls{0}, tasks{0};

 private:
  int n_;
};

TEST(Threads, MemcpyReferenceRunsOnTesserasPool) {
  auto pool = std::make_shared<counting_pool>(2);
  set_thread_pool(pool);
  const int64_t bytes = (int64_t{4} << 20) + 123;  // not a whole number of blocks
  std::vector<char> src(bytes), dst(bytes, 0);
  for (int64_t i = 0; i < bytes; ++i) src[i] = static_cast<char>(i * 7);
  parallel_copy(dst.data(), src.data(), bytes);
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), bytes), 0);
  EXPECT_EQ(pool->calls.load(), 1);
  EXPECT_GT(pool->tasks.load(), 1);
  // Small copies stay on the calling thread.
  std::vector<char> a(1000, 1), b(1000, 0);
  parallel_copy(b.data(), a.data(), 1000);
  EXPECT_EQ(a, b);
  EXPECT_EQ(pool->calls.load(), 1);
  set_thread_pool(nullptr);
}

}  // namespace
}  // namespace tessera::bench
