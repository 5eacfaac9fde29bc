// The cost of each way to run Tessera's threads beside an application: a small reorder and a
// small softmax called back to back, or with an idle gap between calls, and the CPU time the
// process burns while idle. Run with -c opt on an otherwise quiet machine:
//   bazel run -c opt //bench/runtime:embedding_bench -- --benchmark_min_time=0.5
// Names: embedding/<choice>/<back_to_back|gap_1ms>. Time is per reorder + softmax pair (manual
// timing around the two calls only). Counters: idle_cpu_us, process CPU time (getrusage, all
// threads) spent during one gap; busy_cpu_us, process CPU time spent during one pair.
// Choices (docs/usage.md "Embedding Tessera"): the built-in pool sleeping at once (the
// default) or polling 5 ms, oneTBB's pool, an application's own pool given per call, and
// sequential. All but sequential run on 2 threads.
#include <sys/resource.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/softmax/softmax.h"

namespace tessera {
namespace {

constexpr int kThreads = 2;

// An application's own pool, as a simple one is usually written: workers that sleep on a
// condition variable between calls and take chunks from a shared counter.
class application_pool final : public thread_pool {
 public:
  explicit application_pool(int n) : n_(n) {
    for (int i = 1; i < n; ++i) workers_.emplace_back([this] { work(); });
  }
  ~application_pool() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
  }
  int num_threads() const override { return n_; }

  void parallel_for(int64_t n, int64_t chunk,
                    absl::FunctionRef<void(int64_t, int64_t)> fn) override {
    std::unique_lock<std::mutex> call_lock(call_mu_);  // one call at a time on the workers
    std::unique_lock<std::mutex> lock(mu_);
    fn_ = &fn;
    n_items_ = n;
    chunk_ = chunk;
    next_ = 0;
    const int64_t chunks = (n + chunk - 1) / chunk;
    left_ = chunks;
    ++generation_;
    lock.unlock();
    wake_.notify_all();
    run_chunks();
    lock.lock();
    done_.wait(lock, [&] { return left_ == 0; });
    fn_ = nullptr;
  }

 private:
  void work() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      lock.unlock();
      run_chunks();
      lock.lock();
    }
  }

  // Claims chunks of the current call until none is left.
  void run_chunks() {
    while (true) {
      std::unique_lock<std::mutex> lock(mu_);
      if (fn_ == nullptr || next_ >= n_items_) return;
      const int64_t begin = next_;
      next_ += chunk_;
      const int64_t end = next_ < n_items_ ? next_ : n_items_;
      const auto* fn = fn_;
      lock.unlock();
      (*fn)(begin, end);
      lock.lock();
      if (--left_ == 0) done_.notify_all();
    }
  }

  const int n_;
  std::mutex call_mu_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  bool stop_ = false;                                            // guarded by mu_
  uint64_t generation_ = 0;                                      // guarded by mu_
  const absl::FunctionRef<void(int64_t, int64_t)>* fn_ = nullptr;  // guarded by mu_
  int64_t n_items_ = 0, chunk_ = 1, next_ = 0, left_ = 0;        // guarded by mu_
  std::vector<std::thread> workers_;
};

enum class choice { builtin_sleep, builtin_spin_5ms, onetbb, own_pool_per_call, sequential };

const char* name_of(choice c) {
  switch (c) {
    case choice::builtin_sleep: return "builtin_sleep";
    case choice::builtin_spin_5ms: return "builtin_spin_5ms";
    case choice::onetbb: return "onetbb";
    case choice::own_pool_per_call: return "own_pool_per_call";
    case choice::sequential: return "sequential";
  }
  return "?";
}

void check(const absl::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "embedding_bench: %s\n", std::string(s.message()).c_str());
    std::exit(1);
  }
}

memory_desc md(std::vector<dim_t> dims, data_type dt, const char* tag) {
  auto m = make_memory_desc(dims, dt, tag);
  check(m.status());
  return *m;
}

// Process CPU time (user + system, every thread) in microseconds.
double process_cpu_us() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + u.ru_utime.tv_usec + u.ru_stime.tv_usec;
}

// A reorder nchw -> nhwc of 1x64x28x28 f32 (196 KiB) and a softmax over 64 x 1000 f32 (250 KiB):
// each large enough for Tessera to split over 2 threads, small enough that starting the threads
// is a visible part of the call.
struct workload {
  memory_desc nchw = md({1, 64, 28, 28}, data_type::f32, "nchw");
  memory_desc nhwc = md({1, 64, 28, 28}, data_type::f32, "nhwc");
  memory_desc rows = md({64, 1000}, data_type::f32, "ab");
  std::vector<float> a = std::vector<float>(64 * 28 * 28, 0.5f);
  std::vector<float> b = std::vector<float>(64 * 28 * 28);
  std::vector<float> x = std::vector<float>(64 * 1000, 0.25f);
  std::vector<float> y = std::vector<float>(64 * 1000);
  absl::StatusOr<reorder> r = reorder::create(nchw, nhwc);
  absl::StatusOr<softmax_forward> s = softmax_forward::create(softmax_alg::softmax, rows, rows, 1);

  void run(thread_pool* per_call) {
    exec_args ra{{arg_from, {nchw, a.data()}}, {arg_to, {nhwc, b.data()}}};
    exec_args sa{{arg::src, {rows, x.data()}}, {arg::dst, {rows, y.data()}}};
    if (per_call != nullptr) {
      check(r->execute(ra, *per_call));
      check(s->execute(sa, *per_call));
    } else {
      check(r->execute(ra));
      check(s->execute(sa));
    }
  }
};

// Sets the process-wide threads for a choice; returns the per-call pool if the choice has one.
std::unique_ptr<thread_pool> set_up(choice c) {
  set_thread_pool(nullptr);
  check(set_num_threads(c == choice::sequential ? 1 : kThreads));
  check(set_thread_spin_micros(c == choice::builtin_spin_5ms ? 5000 : 0));
  if (c == choice::onetbb) set_thread_pool(make_onetbb_thread_pool(kThreads));
  if (c == choice::own_pool_per_call) return std::make_unique<application_pool>(kThreads);
  return nullptr;
}

void tear_down() {
  set_thread_pool(nullptr);
  check(set_thread_spin_micros(0));
  check(set_num_threads(kThreads));
}

void bm_embedding(benchmark::State& state, choice c, bool gap) {
  workload w;
  check(w.r.status());
  check(w.s.status());
  std::unique_ptr<thread_pool> per_call = set_up(c);
  w.run(per_call.get());  // warm: pools started, caches filled
  double idle_cpu = 0, busy_cpu = 0;
  for (auto _ : state) {
    if (gap) {
      const double before = process_cpu_us();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      idle_cpu += process_cpu_us() - before;
    }
    const double cpu_start = process_cpu_us();
    const auto start = std::chrono::steady_clock::now();
    w.run(per_call.get());
    const auto end = std::chrono::steady_clock::now();
    busy_cpu += process_cpu_us() - cpu_start;
    state.SetIterationTime(std::chrono::duration<double>(end - start).count());
  }
  benchmark::DoNotOptimize(w.b.data());
  benchmark::DoNotOptimize(w.y.data());
  per_call.reset();
  tear_down();
  using benchmark::Counter;
  if (gap) state.counters["idle_cpu_us"] = Counter(idle_cpu, Counter::kAvgIterations);
  state.counters["busy_cpu_us"] = Counter(busy_cpu, Counter::kAvgIterations);
}

void register_all() {
  for (choice c : {choice::builtin_sleep, choice::builtin_spin_5ms, choice::onetbb,
                   choice::own_pool_per_call, choice::sequential}) {
    for (bool gap : {false, true}) {
      const std::string name = std::string("embedding/") + name_of(c) +
                               (gap ? "/gap_1ms" : "/back_to_back");
      benchmark::RegisterBenchmark(name.c_str(), bm_embedding, c, gap)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  tessera::register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
