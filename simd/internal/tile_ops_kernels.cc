// Compiled once per ISA (tessera_isa_kernels): TESSERA_SIMD_ARCH is the xsimd architecture.
#include "tessera/simd/internal/tile_ops_kernels.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "tessera/simd/lines.h"
#include "tessera/simd/narrow.h"
#include "tessera/simd/nibbles.h"
#include "tessera/simd/per_isa.h"
#include "tessera/simd/tail.h"
#include "tessera/simd/transpose.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd::internal {
namespace TESSERA_ISA_NS {

constexpr int kRounds = 64;

// The byte and word tiles take their SSE form on every x86 ISA. neon64 has NEON forms of the
// register transposes only: its byte and word tiles and narrowing stores are the portable forms,
// which these checks then compare with themselves (the reorder tests compare them with the
// scalar reference).
static_assert(is_x86<TESSERA_SIMD_ARCH> || is_neon64<TESSERA_SIMD_ARCH>);

struct random_bits {
  uint32_t state;
  uint32_t next() {
    state = state * 1664525u + 1013904223u;
    return state ^ (state >> 15);
  }
  // Every 32-bit pattern half the time, small values around the 8- and 16-bit ranges otherwise.
  int32_t int_lane() {
    const uint32_t r = next();
    return r % 2 ? static_cast<int32_t>(next()) : static_cast<int32_t>(next() % 70000) - 35000;
  }
  float float_lane() {
    return static_cast<float>(static_cast<int32_t>(next() % 200001) - 100000) / 64.f;
  }
};

int differing_bytes(const void* a, const void* b, size_t n) {
  int d = 0;
  for (size_t i = 0; i < n; ++i)
    d += static_cast<const unsigned char*>(a)[i] != static_cast<const unsigned char*>(b)[i];
  return d;
}

template <class Arch>
using fb = xsimd::batch<float, Arch>;
template <class Arch>
using ib = xsimd::batch<int32_t, Arch>;
template <class Arch>
constexpr int kLanes = static_cast<int>(fb<Arch>::size);

template <class Arch>
fb<Arch> random_floats(random_bits& rng) {
  alignas(64) float v[kLanes<Arch>];
  for (float& x : v) x = rng.float_lane();
  return fb<Arch>::load_aligned(v);
}
template <class Arch>
ib<Arch> random_ints(random_bits& rng) {
  alignas(64) int32_t v[kLanes<Arch>];
  for (int32_t& x : v) x = rng.int_lane();
  return ib<Arch>::load_aligned(v);
}
template <class Arch, class T>
int differing_lanes(xsimd::batch<T, Arch> a, xsimd::batch<T, Arch> b) {
  alignas(64) T x[xsimd::batch<T, Arch>::size], y[xsimd::batch<T, Arch>::size];
  a.store_aligned(x);
  b.store_aligned(y);
  return differing_bytes(x, y, sizeof(x));
}

template <class Arch>
int check_register_transposes(tile_op op, random_bits& rng) {
  constexpr int n = kLanes<Arch>;
  fb<Arch> a[n], b[n];
  for (int i = 0; i < n; ++i) a[i] = b[i] = random_floats<Arch>(rng);
  if (op == tile_op::transpose_square) {
    transpose_square(a);
    portable::transpose_square(b);
  } else {
    transpose_4x4_blocks(a);
    portable::transpose_4x4_blocks(b);
  }
  int d = 0;
  for (int i = 0; i < (op == tile_op::transpose_square ? n : 4); ++i)
    d += differing_lanes(a[i], b[i]);
  return d;
}

template <class Arch>
int check_load_halves(random_bits& rng) {
  float lo[16], hi[16];
  for (int i = 0; i < 16; ++i) lo[i] = rng.float_lane(), hi[i] = rng.float_lane();
  return differing_lanes(load_halves<Arch>(lo, hi), portable::load_halves<Arch>(lo, hi));
}

template <class Arch>
int check_byte_tiles(tile_op op, random_bits& rng) {
  constexpr int64_t kLd = 40;  // elements between src rows
  std::vector<uint16_t> src(16 * kLd);
  for (auto& x : src) x = static_cast<uint16_t>(rng.next());
  uint16_t got[16][24] = {}, want[16][24] = {};
  if (op == tile_op::transpose_16x16_u8) {
    const auto* s = reinterpret_cast<const uint8_t*>(src.data());
    transpose_16x16_u8<Arch>(s, 2 * kLd, [&](int i) { return reinterpret_cast<uint8_t*>(got[i]); });
    portable::transpose_tile<Arch, 16>(s, 2 * kLd,
                                 [&](int i) { return reinterpret_cast<uint8_t*>(want[i]); });
  } else {
    transpose_8x8_u16<Arch>(src.data(), kLd, [&](int i) { return got[i]; });
    portable::transpose_tile<Arch, 8>(src.data(), kLd, [&](int i) { return want[i]; });
  }
  return differing_bytes(got, want, sizeof(got));
}

// store_narrowed into a 64-byte aligned buffer (so that the streamed forms may run), the bytes
// after the stored ones checked untouched too.
template <class Arch, class D, bool kStream>
int check_store_narrowed(random_bits& rng, bool in_range) {
  ib<Arch> v = random_ints<Arch>(rng);
  if (in_range) {
    const int32_t lo = std::is_same_v<D, int8_t> ? -128 : 0;
    const int32_t hi = std::is_same_v<D, int8_t> ? 127 : sizeof(D) == 1 ? 255 : 65535;
    v = xsimd::min(xsimd::max(v, ib<Arch>(lo)), ib<Arch>(hi));
  }
  alignas(64) D got[2 * kLanes<Arch>], want[2 * kLanes<Arch>];
  std::memset(got, 0x5A, sizeof(got));
  std::memset(want, 0x5A, sizeof(want));
  store_narrowed<kStream>(got, v);
  if constexpr (kStream) store_fence();
  portable::store_narrowed(want, v);
  return differing_bytes(got, want, sizeof(got));
}

// store_nibbles of lanes anywhere in [-8, 15] (only the low nibble counts), the bytes after the
// stored ones checked untouched; and each byte against the packing rule itself.
template <class Arch>
int check_store_nibbles(random_bits& rng) {
  alignas(64) int32_t lanes[kLanes<Arch>];
  for (int32_t& x : lanes) x = static_cast<int32_t>(rng.next() % 24) - 8;
  const ib<Arch> v = ib<Arch>::load_aligned(lanes);
  uint8_t got[kLanes<Arch>], want[kLanes<Arch>], rule[kLanes<Arch>];
  std::memset(got, 0x5A, sizeof(got));
  std::memset(want, 0x5A, sizeof(want));
  std::memset(rule, 0x5A, sizeof(rule));
  store_nibbles(got, v);
  portable::store_nibbles(want, v);
  for (int k = 0; k < kLanes<Arch> / 2; ++k) {
    rule[k] = static_cast<uint8_t>((lanes[2 * k] & 0xF) | ((lanes[2 * k + 1] & 0xF) << 4));
  }
  return differing_bytes(got, want, sizeof(got)) + differing_bytes(got, rule, sizeof(got));
}

// load_nibbles from random bytes, against the portable version and against each element decoded
// by hand (low nibble first; s4 sign-extended).
template <class Arch, bool kSigned>
int check_load_nibbles(random_bits& rng) {
  uint8_t bytes[kLanes<Arch> / 2];
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.next());
  alignas(64) int32_t decoded[kLanes<Arch>];
  for (int i = 0; i < kLanes<Arch>; ++i) {
    const int32_t code = i % 2 ? bytes[i / 2] >> 4 : bytes[i / 2] & 0xF;
    decoded[i] = kSigned && code > 7 ? code - 16 : code;
  }
  const ib<Arch> got = load_nibbles<kSigned, Arch>(bytes);
  return differing_lanes(got, portable::load_nibbles<kSigned, Arch>(bytes)) +
         differing_lanes(got, ib<Arch>::load_aligned(decoded));
}

template <class Arch>
int check_narrowing(tile_op op, random_bits& rng) {
  switch (op) {
    case tile_op::store_narrowed_s8:
      return check_store_narrowed<Arch, int8_t, false>(rng, true);
    case tile_op::store_narrowed_u8:
      return check_store_narrowed<Arch, uint8_t, false>(rng, true);
    case tile_op::store_narrowed_u16:
      return check_store_narrowed<Arch, uint16_t, false>(rng, false);
    case tile_op::stream_narrowed_s8:
      return check_store_narrowed<Arch, int8_t, true>(rng, true);
    case tile_op::stream_narrowed_u16:
      return check_store_narrowed<Arch, uint16_t, true>(rng, false);
    case tile_op::pack_low_words: {
      const ib<Arch> lo = random_ints<Arch>(rng), hi = random_ints<Arch>(rng);
      return differing_lanes(pack_low_words(lo, hi), portable::pack_low_words(lo, hi));
    }
    default: {
      ib<Arch> rows[4];
      for (auto& r : rows) r = random_ints<Arch>(rng);
      if (op == tile_op::pack_rows4_s8) {
        return differing_lanes(pack_rows4_transposed<int8_t>(rows),
                               portable::pack_rows4_transposed<int8_t>(rows));
      }
      return differing_lanes(pack_rows4_transposed<uint8_t>(rows),
                             portable::pack_rows4_transposed<uint8_t>(rows));
    }
  }
}

// The line-shaped stores write exactly v's lanes (a plain unaligned store's bytes).
template <class Arch>
int check_line_stores(tile_op op, random_bits& rng) {
  const fb<Arch> v = random_floats<Arch>(rng);
  alignas(64) float got[3 * kLanes<Arch>], want[3 * kLanes<Arch>];
  std::memset(got, 0x5A, sizeof(got));
  std::memset(want, 0x5A, sizeof(want));
  const int at = op == tile_op::store_halves
                     ? static_cast<int>(rng.next() % kLanes<Arch>)
                     : 4 * static_cast<int>(rng.next() % (kLanes<Arch> / 4 + 1));
  if (op == tile_op::store_halves) {
    store_halves(got + at, v);
  } else if (op == tile_op::store_quarters) {
    store_quarters(got + at, v);
  } else {
    stream_quarters(got + at, v);
    store_fence();
  }
  v.store_unaligned(want + at);
  return differing_bytes(got, want, sizeof(got));
}

template <class Arch>
int check_loads(tile_op op, random_bits& rng) {
  float src[2 * 16];
  for (float& x : src) x = rng.float_lane();
  alignas(64) float want[kLanes<Arch>];
  if (op == tile_op::load_scalar) {
    const int at = static_cast<int>(rng.next() % 16);
    for (int i = 0; i < kLanes<Arch>; ++i) want[i] = i == 0 ? src[at] : 0.f;
    return differing_lanes(load_scalar<Arch>(src + at), fb<Arch>::load_aligned(want));
  }
  const int split = static_cast<int>(rng.next() % (kLanes<Arch> + 1));
  for (int i = 0; i < kLanes<Arch>; ++i) want[i] = i < split ? src[16 + i] : src[i];
  return differing_lanes(load_joined<Arch>(src + 16, src, split), fb<Arch>::load_aligned(want));
}

template <class Arch>
int check_stream_line_copy(random_bits& rng) {
  alignas(64) unsigned char from[64], got[128], want[128];
  for (auto& x : from) x = static_cast<unsigned char>(rng.next());
  std::memset(got, 0x5A, sizeof(got));
  std::memset(want, 0x5A, sizeof(want));
  const int at = 16 * static_cast<int>(rng.next() % 5);
  stream_line_copy<Arch>(got + at, from);
  store_fence();
  std::memcpy(want + at, from, 64);
  return differing_bytes(got, want, sizeof(got));
}

// A run of 64-byte rows pushed through line_writer at every dword offset from a line, streamed
// or not, against the rows copied plainly; the bytes around the run stay untouched.
template <class Arch>
int check_line_writer(random_bits& rng) {
  constexpr int kRows = 5, kParts = 64 / static_cast<int>(sizeof(ib<Arch>));
  ib<Arch> rows[kRows][kParts];
  for (auto& row : rows) {
    for (auto& part : row) part = random_ints<Arch>(rng);
  }
  int d = 0;
  for (int off = 0; off < 64; off += 4) {
    alignas(64) unsigned char got[64 * (kRows + 2)], want[64 * (kRows + 2)];
    std::memset(got, 0x5A, sizeof(got));
    std::memset(want, 0x5A, sizeof(want));
    line_writer<Arch> w(got + 64 + off, off % 8 == 0);
    for (auto& row : rows) w.push(row);
    w.finish();
    store_fence();
    for (int r = 0; r < kRows; ++r) {
      for (int k = 0; k < kParts; ++k) {
        rows[r][k].store_unaligned(reinterpret_cast<int32_t*>(want + 64 + off + 64 * r) +
                                   k * ib<Arch>::size);
      }
    }
    d += differing_bytes(got, want, sizeof(got));
  }
  return d;
}

template <class Arch>
int one_round(tile_op op, random_bits& rng) {
  switch (op) {
    case tile_op::transpose_square:
    case tile_op::transpose_4x4_blocks:
      return check_register_transposes<Arch>(op, rng);
    case tile_op::load_halves:
      return check_load_halves<Arch>(rng);
    case tile_op::transpose_16x16_u8:
    case tile_op::transpose_8x8_u16:
      return check_byte_tiles<Arch>(op, rng);
    case tile_op::store_halves:
    case tile_op::store_quarters:
    case tile_op::stream_quarters:
      return check_line_stores<Arch>(op, rng);
    case tile_op::load_scalar:
    case tile_op::load_joined:
      return check_loads<Arch>(op, rng);
    case tile_op::stream_line_copy:
      return check_stream_line_copy<Arch>(rng);
    case tile_op::line_writer:
      return check_line_writer<Arch>(rng);
    case tile_op::store_nibbles:
      return check_store_nibbles<Arch>(rng);
    case tile_op::load_nibbles_s4:
      return check_load_nibbles<Arch, true>(rng);
    case tile_op::load_nibbles_u4:
      return check_load_nibbles<Arch, false>(rng);
    case tile_op::count:
      return -1;
    default:
      return check_narrowing<Arch>(op, rng);
  }
}

}  // namespace TESSERA_ISA_NS

template <class Arch>
int tile_op_mismatches(tile_op op, uint32_t seed) {
  TESSERA_ISA_NS::random_bits rng{seed};
  int d = 0;
  for (int round = 0; round < TESSERA_ISA_NS::kRounds; ++round) {
    d += TESSERA_ISA_NS::one_round<Arch>(op, rng);
  }
  return d;
}

template int tile_op_mismatches<TESSERA_SIMD_ARCH>(tile_op, uint32_t);

}  // namespace tessera::simd::internal
