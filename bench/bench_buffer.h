// Zeroed benchmark buffers that start on a 64-byte cache line, as oneDNN's own memory objects and
// most framework allocators do, plus TESSERA_BENCH_OFFSET bytes (default 0). malloc gives large
// blocks a 16-byte offset from the line; TESSERA_BENCH_OFFSET=16 measures that case. With
// TESSERA_BENCH_HUGE_PAGES=1 the buffers start on 2 MiB and are advised as huge pages
// (madvise(MADV_HUGEPAGE); THP in "madvise" or "always" mode), for callers whose allocator
// gives them: it shows how much of a transpose's time is TLB misses on 4 KiB pages. Tessera,
// oneDNN and memcpy of one run always share the same buffers.
//
//   tessera::bench::bench_buffer b(bytes);
//   float* x = reinterpret_cast<float*>(b.data());
#ifndef TESSERA_BENCH_BENCH_BUFFER_H_
#define TESSERA_BENCH_BENCH_BUFFER_H_

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include <sys/mman.h>

namespace tessera::bench {

// The offset from a line, read once: TESSERA_BENCH_OFFSET (bytes, 0..63).
inline std::size_t bench_buffer_offset() {
  static const std::size_t offset = [] {
    const char* v = std::getenv("TESSERA_BENCH_OFFSET");
    const long n = v ? std::strtol(v, nullptr, 10) : 0;
    return static_cast<std::size_t>(n >= 0 && n < 64 ? n : 0);
  }();
  return offset;
}

// TESSERA_BENCH_HUGE_PAGES=1, read once.
inline bool bench_buffer_huge_pages() {
  static const bool huge = [] {
    const char* v = std::getenv("TESSERA_BENCH_HUGE_PAGES");
    return v != nullptr && v[0] == '1';
  }();
  return huge;
}

class bench_buffer {
 public:
  explicit bench_buffer(std::size_t bytes)
      : base_(static_cast<unsigned char*>(
            std::aligned_alloc(alignment(), round_up(bytes + 64, alignment())))) {
    if (!base_) throw std::bad_alloc();
    // Advised before the first touch, so that the zeroing below faults in huge pages.
    if (bench_buffer_huge_pages()) {
      madvise(base_.get(), round_up(bytes + 64, alignment()), MADV_HUGEPAGE);
    }
    std::memset(base_.get(), 0, bytes + 64);
  }
  unsigned char* data() const { return base_.get() + bench_buffer_offset(); }

 private:
  static std::size_t alignment() { return bench_buffer_huge_pages() ? std::size_t{2} << 20 : 64; }
  static std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }
  struct free_deleter {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char, free_deleter> base_;
};

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_BENCH_BUFFER_H_
