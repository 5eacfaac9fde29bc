// Test helper: runs one reorder through a forced implementation and through the scalar reference
// on identical buffers and compares every byte of the destination (padding included).
//
//   reorder_case c{.src = md("nchw", f32), .dst = md("nChw16c", bf16)};
//   case_result r = run_case(c, "xsimd:avx2:transpose");
//   if (r.accepted) EXPECT_EQ(r.mismatch, "");
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_TEST_CASE_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_TEST_CASE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/attr.h"

namespace tessera::reorder_test {

enum class fill_kind { random, probe };

struct reorder_case {
  memory_desc src, dst;
  primitive_attr attr;
  fill_kind fill = fill_kind::random;
  uint64_t seed = 1;
  // Where dst starts past a 64-byte boundary (bytes): malloc's 16 by default; kernels that align
  // their stores on cache lines are checked at other distances too.
  int dst_misalign = 16;
  // Where src starts past a 64-byte boundary (bytes); -1: where the allocator put it.
  int src_misalign = -1;
};

struct case_result {
  bool accepted = false;        // the forced implementation accepted the problem
  std::string impl;             // what ran
  std::string mismatch;         // empty when bit-identical to the reference
};

// filter as in reorder_options::impl_filter.
case_result run_case(const reorder_case& c, const std::string& filter);

// "src f32:... dst ...; attr ..." for failure messages.
std::string describe(const reorder_case& c);

// Every implementation name this machine can force (reorder_kernel_names with the ISA cap lifted
// to the CPU's): copy, convert and transpose per CPU ISA, strided, ref.
std::vector<std::string> all_impl_filters();

}  // namespace tessera::reorder_test

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_TEST_CASE_H_
