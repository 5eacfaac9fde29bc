// Decoding a fuzzer's bytes into Tessera problems. One format, shared by the fuzz targets and by
// make_seed_corpus.py (which writes the same bytes from the demo batch), so seeds and mutations
// mean the same thing.
//
//   tessera::reliability::byte_reader in(data, size);
//   int rank = 1 + in.u8() % 4;                       // bytes past the end read as 0
//   absl::StatusOr<memory_desc> md = decode_desc(in, dims, data_type::f32);
//
// A descriptor is encoded as a mode byte (mod 3) then:
//   0  tag text:   length byte (mod 24), that many characters   -> make_memory_desc
//   1  strides:    per dim a sort key byte (larger key = outer) and a gap byte (mod 3: extra room
//                  after that dim)                              -> memory_desc::with_strides
//   2  blocking:   nblks byte (mod 4), per block a size byte (mod 33) and a dim byte (mod rank+1),
//                  then per dim a little-endian signed 16-bit stride -> memory_desc::with_blocking
// Invalid encodings are welcome: creation must reject them with a Status, never crash.
// runtime_pattern(md, dim_mask, stride_mask) turns a decoded descriptor into a pattern with
// run-time dims and strides (kRuntimeDim) that md fits.
#ifndef TESSERA_RELIABILITY_FUZZ_INPUT_H_
#define TESSERA_RELIABILITY_FUZZ_INPUT_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tessera/core/data_type.h"
#include "tessera/core/memory_desc.h"
#include "tessera/formats/make_memory_desc.h"

namespace tessera::reliability {

class byte_reader {
 public:
  byte_reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
  int16_t i16() {
    const uint16_t lo = u8(), hi = u8();
    return static_cast<int16_t>(lo | (hi << 8));
  }
  int64_t i64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(u8()) << (8 * i);
    return static_cast<int64_t>(v);
  }
  std::string text(size_t n) {
    std::string s;
    for (size_t i = 0; i < n && pos_ < size_; ++i) s.push_back(static_cast<char>(u8()));
    return s;
  }
  // Everything not read yet.
  std::string rest() { return text(size_ - pos_); }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Every type, including undef (index 0), so that creation's type checks are fuzzed too.
inline data_type decode_type(byte_reader& in) {
  constexpr data_type kTypes[] = {data_type::f32,     data_type::f64, data_type::bf16,
                                  data_type::f16,     data_type::f8_e5m2, data_type::f8_e4m3,
                                  data_type::s32,     data_type::s8,  data_type::u8,
                                  data_type::undef};
  return kTypes[in.u8() % 10];
}

// For the reorder, which also takes the low-precision types: bytes 0-199 as decode_type, 200-255
// s4, u4, f4_e2m1, f4_e3m0, e8m0 in turn.
inline data_type decode_reorder_type(byte_reader& in) {
  constexpr data_type kTypes[] = {data_type::f32,     data_type::f64, data_type::bf16,
                                  data_type::f16,     data_type::f8_e5m2, data_type::f8_e4m3,
                                  data_type::s32,     data_type::s8,  data_type::u8,
                                  data_type::undef};
  const uint8_t b = in.u8();
  return b < 200 ? kTypes[b % 10] : kLowPrecisionDataTypes[b % 5];
}

inline absl::StatusOr<memory_desc> decode_desc(byte_reader& in, const std::vector<dim_t>& dims,
                                               data_type dt) {
  const int rank = static_cast<int>(dims.size());
  switch (in.u8() % 3) {
    case 0: {
      const std::string tag = in.text(in.u8() % 24);
      return make_memory_desc(dims, dt, tag);
    }
    case 1: {
      std::vector<int> key(rank), gap(rank), order(rank);
      for (int d = 0; d < rank; ++d) {
        key[d] = in.u8();
        gap[d] = in.u8() % 3;
      }
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key[a] > key[b]; });
      std::vector<dim_t> strides(rank);
      dim_t s = 1;
      for (int i = rank - 1; i >= 0; --i) {
        const int d = order[i];
        strides[d] = s;
        // Saturating: huge dims must reach with_strides' own overflow check, not wrap here.
        const dim_t extent = std::max<dim_t>(dims[d], 1);
        const dim_t room = extent > INT64_MAX - gap[d] ? INT64_MAX : extent + gap[d];
        s = (room > 0 && s > INT64_MAX / room) ? INT64_MAX : s * room;
      }
      return memory_desc::with_strides(dims, dt, strides);
    }
    default: {
      blocking_desc b;
      b.inner_nblks = in.u8() % 4;
      for (int k = 0; k < b.inner_nblks; ++k) {
        b.inner_blks[k] = in.u8() % 33;
        b.inner_idxs[k] = in.u8() % (rank + 1);
      }
      for (int d = 0; d < rank; ++d) b.strides[d] = in.i16();
      return memory_desc::with_blocking(dims, dt, b);
    }
  }
}

// The pattern of `concrete` whose dims in dim_mask and strides in stride_mask (bit d: dim d) are
// kRuntimeDim; concrete.check_fits(pattern) holds.
inline absl::StatusOr<memory_desc> runtime_pattern(const memory_desc& concrete, int dim_mask,
                                                   int stride_mask) {
  std::vector<dim_t> dims(concrete.dims().begin(), concrete.dims().end());
  blocking_desc b = concrete.blocking();
  for (int d = 0; d < concrete.rank(); ++d) {
    if ((dim_mask >> d) & 1) dims[d] = kRuntimeDim;
    if ((stride_mask >> d) & 1) b.strides[d] = kRuntimeDim;
  }
  return memory_desc::with_blocking(dims, concrete.dt(), b);
}

// A finding: print what broke and abort so that libFuzzer saves the input.
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "FINDING: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}
#define TESSERA_FUZZ_CHECK(cond, msg)                                               \
  do {                                                                              \
    if (!(cond)) ::tessera::reliability::fail(std::string(#cond " -- ") + (msg));   \
  } while (0)

}  // namespace tessera::reliability

#endif  // TESSERA_RELIABILITY_FUZZ_INPUT_H_
