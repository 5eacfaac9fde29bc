// libFuzzer target: memory_desc creation from arbitrary dims, strides, blockings and tags, then
// submemory / permute_axes / reshape of the result.
// Input: rank byte (mod 6), per dim a size class byte (odd: a raw int64 follows; even: the byte's
// upper bits are the dim, 0..127), the type, a descriptor (fuzz_input.h), then an operation byte
// and its operands.
// Invariants, whenever creation succeeds and the padded tensor is small (<= 4096 elements): every
// index within the padded dims has an offset in [0, size_bytes / element size), equal to
// testing/index.h's independent formula, and distinct indices have distinct offsets.
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/core/memory_desc.h"
#include "tessera/reliability/fuzz_input.h"
#include "tessera/testing/index.h"

namespace {

using tessera::dim_t;
using tessera::memory_desc;
using tessera::reliability::byte_reader;

void check_layout(const memory_desc& md, const char* how) {
  if (md.kind() != tessera::format_kind::blocked) return;
  if (md.has_runtime_dims_or_strides()) {  // a pattern: no size until execution
    TESSERA_FUZZ_CHECK(md.size_bytes() == tessera::kRuntimeDim,
                       absl::StrCat(how, ": a run-time pattern with a size"));
    return;
  }
  const int64_t bytes = md.size_bytes();
  TESSERA_FUZZ_CHECK(bytes >= 0, absl::StrCat(how, ": negative size"));
  const int64_t elem_bytes = tessera::bits_of(md.dt()) / 8;
  if (elem_bytes == 0) return;
  int64_t count = 1;
  for (dim_t d : md.padded_dims()) {
    if (d == 0 || d > 4096) return;  // empty, or too many indices to walk (and no overflow below)
    count *= d;
    if (count > 4096) return;
  }
  const int64_t limit = bytes / elem_bytes;
  std::unordered_map<dim_t, std::string> seen;
  tessera::testing::for_each_index(md.padded_dims(), [&](absl::Span<const dim_t> idx) {
    const dim_t off = md.offset(idx);
    const std::string where = absl::StrCat(how, " dims ", absl::StrJoin(md.dims(), "x"),
                                           " index ", tessera::testing::index_string(idx));
    TESSERA_FUZZ_CHECK(off >= 0 && off < limit,
                       absl::StrCat(where, ": offset ", off, " outside [0, ", limit, ")"));
    TESSERA_FUZZ_CHECK(off == tessera::testing::offset_of(md, idx),
                       absl::StrCat(where, ": offset ", off, " != reference ",
                                    tessera::testing::offset_of(md, idx)));
    auto [it, fresh] = seen.emplace(off, tessera::testing::index_string(idx));
    TESSERA_FUZZ_CHECK(fresh, absl::StrCat(where, ": offset ", off, " also used by ", it->second));
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  byte_reader in(data, size);
  const int rank = in.u8() % 6;
  std::vector<dim_t> dims(rank);
  for (auto& d : dims) {
    const uint8_t b = in.u8();
    d = (b & 1) ? in.i64() : b >> 1;
  }
  const tessera::data_type dt = tessera::reliability::decode_type(in);
  auto md = tessera::reliability::decode_desc(in, dims, dt);
  if (!md.ok()) {
    TESSERA_FUZZ_CHECK(!md.status().message().empty(), "error without a message");
    return 0;
  }
  check_layout(*md, "created");
  const int r = md->rank();
  switch (in.u8() % 4) {
    case 0: {
      std::vector<dim_t> sub(r), off(r);
      for (int d = 0; d < r; ++d) {
        sub[d] = in.u8() % 40;
        off[d] = in.u8() % 40;
      }
      auto s = md->submemory(sub, off);
      if (s.ok()) check_layout(*s, "submemory");
      break;
    }
    case 1: {
      std::vector<int> perm(r);
      for (auto& p : perm) p = in.u8() % (r + 1);
      auto p = md->permute_axes(perm);
      if (p.ok()) check_layout(*p, "permute_axes");
      break;
    }
    case 2: {
      std::vector<dim_t> nd(in.u8() % 7);
      for (auto& d : nd) d = in.u8() % 64;
      auto s = md->reshape(nd);
      if (s.ok()) {
        TESSERA_FUZZ_CHECK(s->nelems() == md->nelems(), "reshape changed the element count");
        check_layout(*s, "reshape");
      }
      break;
    }
    default:
      break;
  }
  return 0;
}
