// Comparisons of tensors over their logical elements, whatever their layouts, as gtest
// assertions that explain the first mismatches (logical index, got, want).
//
//   EXPECT_TRUE(tessera::testing::bit_exact(dst, want));
//   EXPECT_TRUE(tessera::testing::near(dst, want, {.abs = 1e-6, .ulp = 4}));
//   EXPECT_TRUE(tessera::testing::padding_is_zero(dst));
//
//   tessera::testing::guarded_buffer buf(md.size_bytes());   // guard bytes on both sides
//   run_primitive(buf.data());
//   EXPECT_TRUE(buf.guards_intact());
#ifndef TESSERA_TESTING_COMPARE_H_
#define TESSERA_TESTING_COMPARE_H_

#include <cstdint>

#include "gtest/gtest.h"
#include "tessera/primitives/common/memory.h"

namespace tessera::testing {

// Every logical element of got has the same bits as want's (same dims and data type; any
// layouts). NaNs must match bit for bit too. Reports up to max_report mismatches and the count.
::testing::AssertionResult bit_exact(const memory& got, const memory& want, int max_report = 8);

// An element passes when got == want (Inf equal to the same Inf; NaN against NaN), or
// |got - want| <= abs, or |got - want| <= rel * |want|, or (same floating data type) they are at
// most ulp units in the last place apart. All zero: exact equality of values.
struct tolerance {
  double abs = 0;
  double rel = 0;
  int64_t ulp = 0;
};

// Values compared as doubles: the data types may differ (then ulp is not allowed).
::testing::AssertionResult near(const memory& got, const memory& want, const tolerance& tol,
                                int max_report = 8);

// Every padding element (index in [dims, padded_dims) in some dim) of a blocked m is all zero
// bytes.
::testing::AssertionResult padding_is_zero(const memory& m, int max_report = 8);

// A buffer with guard bytes on both sides, to catch writes outside [data, data + size).
// data() is 64-byte aligned when guard_bytes is a multiple of 64.
class guarded_buffer {
 public:
  explicit guarded_buffer(int64_t size, int64_t guard_bytes = 64, uint8_t guard_value = 0xA5);
  ~guarded_buffer();
  guarded_buffer(const guarded_buffer&) = delete;
  guarded_buffer& operator=(const guarded_buffer&) = delete;

  void* data() { return base_ + guard_; }
  const void* data() const { return base_ + guard_; }
  int64_t size() const { return size_; }
  // The guards still hold guard_value; names the first changed byte otherwise.
  ::testing::AssertionResult guards_intact() const;

 private:
  int64_t size_;
  int64_t guard_;
  uint8_t value_;
  uint8_t* base_;
};

}  // namespace tessera::testing

#endif  // TESSERA_TESTING_COMPARE_H_
