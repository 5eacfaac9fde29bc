#include "tessera/testing/compare.h"

#include <cmath>
#include <cstring>
#include <new>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "tessera/testing/index.h"
#include "tessera/testing/internal/element_codec.h"

namespace tessera::testing {
namespace {

using internal::element_bits;
using internal::read_element;

std::string dims_string(absl::Span<const dim_t> dims) { return absl::StrJoin(dims, "x"); }

// "1.5 (0x3fc0)"
std::string describe(data_type dt, const void* p) {
  return absl::StrFormat("%.9g (0x%0*x)", read_element(dt, p), bits_of(dt) / 4,
                         element_bits(dt, p));
}

::testing::AssertionResult check_pair(const memory& got, const memory& want, bool same_type) {
  for (const memory* m : {&got, &want}) {
    if (m->desc.kind() != format_kind::blocked) {
      return ::testing::AssertionFailure() << "a memory is not blocked (format_kind "
                                           << static_cast<int>(m->desc.kind()) << ")";
    }
    if (m->data == nullptr && m->desc.nelems() > 0) {
      return ::testing::AssertionFailure() << "a memory has null data";
    }
  }
  if (!std::equal(got.desc.dims().begin(), got.desc.dims().end(), want.desc.dims().begin(),
                  want.desc.dims().end())) {
    return ::testing::AssertionFailure() << "dims differ: got " << dims_string(got.desc.dims())
                                         << ", want " << dims_string(want.desc.dims());
  }
  if (same_type && got.desc.dt() != want.desc.dt()) {
    return ::testing::AssertionFailure() << "data types differ: got " << name_of(got.desc.dt())
                                         << ", want " << name_of(want.desc.dt());
  }
  return ::testing::AssertionSuccess();
}

// Walks both memories' logical elements; mismatch(g, w) says whether one differs.
template <class Mismatch>
::testing::AssertionResult compare_elements(const memory& got, const memory& want, int max_report,
                                            Mismatch&& mismatch) {
  const data_type gt = got.desc.dt(), wt = want.desc.dt();
  const int64_t gb = bits_of(gt) / 8, wb = bits_of(wt) / 8;
  const auto* gbase = static_cast<const uint8_t*>(got.data);
  const auto* wbase = static_cast<const uint8_t*>(want.data);
  int64_t bad = 0, total = 0;
  std::string report;
  for_each_index(got.desc.dims(), [&](absl::Span<const dim_t> idx) {
    ++total;
    const uint8_t* g = gbase + offset_of(got.desc, idx) * gb;
    const uint8_t* w = wbase + offset_of(want.desc, idx) * wb;
    if (!mismatch(g, w)) return;
    if (bad++ < max_report) {
      absl::StrAppend(&report, "\n  at ", index_string(idx), ": got ", describe(gt, g), ", want ",
                      describe(wt, w));
    }
  });
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << total << " elements differ (dims "
                                       << dims_string(got.desc.dims()) << ")" << report
                                       << (bad > max_report ? "\n  ..." : "");
}

}  // namespace

::testing::AssertionResult bit_exact(const memory& got, const memory& want, int max_report) {
  if (auto r = check_pair(got, want, /*same_type=*/true); !r) return r;
  const int64_t bytes = bits_of(got.desc.dt()) / 8;
  return compare_elements(got, want, max_report, [&](const uint8_t* g, const uint8_t* w) {
    return std::memcmp(g, w, bytes) != 0;
  });
}

::testing::AssertionResult near(const memory& got, const memory& want, const tolerance& tol,
                                int max_report) {
  if (auto r = check_pair(got, want, /*same_type=*/false); !r) return r;
  const data_type gt = got.desc.dt(), wt = want.desc.dt();
  if (tol.ulp > 0 && (gt != wt || !is_floating(gt))) {
    return ::testing::AssertionFailure()
           << "an ulp tolerance needs one floating data type on both sides, got "
           << name_of(gt) << " and " << name_of(wt);
  }
  return compare_elements(got, want, max_report, [&](const uint8_t* g, const uint8_t* w) {
    const double x = read_element(gt, g), y = read_element(wt, w);
    if (std::isnan(x) || std::isnan(y)) return !(std::isnan(x) && std::isnan(y));
    if (x == y) return false;
    if (std::isinf(x) || std::isinf(y)) return true;
    const double diff = std::fabs(x - y);
    if (diff <= tol.abs || diff <= tol.rel * std::fabs(y)) return false;
    if (tol.ulp > 0 && internal::ulp_distance(gt, g, w) <= tol.ulp) return false;
    return true;
  });
}

::testing::AssertionResult padding_is_zero(const memory& m, int max_report) {
  if (m.desc.kind() != format_kind::blocked) {
    return ::testing::AssertionFailure() << "the memory is not blocked";
  }
  const int64_t bytes = bits_of(m.desc.dt()) / 8;
  const auto* base = static_cast<const uint8_t*>(m.data);
  int64_t bad = 0;
  std::string report;
  for_each_index(m.desc.padded_dims(), [&](absl::Span<const dim_t> idx) {
    bool padding = false;
    for (int d = 0; d < m.desc.rank(); ++d) padding |= idx[d] >= m.desc.dims()[d];
    if (!padding) return;
    const uint8_t* p = base + offset_of(m.desc, idx) * bytes;
    for (int64_t i = 0; i < bytes; ++i) {
      if (p[i] != 0) {
        if (bad++ < max_report) {
          absl::StrAppend(&report, "\n  padding at ", index_string(idx), " is ",
                          describe(m.desc.dt(), p));
        }
        return;
      }
    }
  });
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " padding elements are not zero (dims "
                                       << dims_string(m.desc.dims()) << ", padded "
                                       << dims_string(m.desc.padded_dims()) << ")" << report
                                       << (bad > max_report ? "\n  ..." : "");
}

guarded_buffer::guarded_buffer(int64_t size, int64_t guard_bytes, uint8_t guard_value)
    : size_(size < 0 ? 0 : size), guard_(guard_bytes < 0 ? 0 : guard_bytes), value_(guard_value) {
  const auto total = static_cast<size_t>(size_ + 2 * guard_);
  base_ = static_cast<uint8_t*>(::operator new(total == 0 ? 1 : total, std::align_val_t{64}));
  std::memset(base_, value_, total);
}

guarded_buffer::~guarded_buffer() { ::operator delete(base_, std::align_val_t{64}); }

::testing::AssertionResult guarded_buffer::guards_intact() const {
  for (int64_t i = 0; i < guard_; ++i) {
    if (base_[i] != value_) {
      return ::testing::AssertionFailure()
             << "byte " << (i - guard_) << " before the buffer changed to 0x" << std::hex
             << int{base_[i]} << " (guard 0x" << int{value_} << ")";
    }
    const uint8_t after = base_[guard_ + size_ + i];
    if (after != value_) {
      return ::testing::AssertionFailure()
             << "byte " << i << " after the end of the " << std::dec << size_
             << "-byte buffer changed to 0x" << std::hex << int{after} << " (guard 0x"
             << int{value_} << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace tessera::testing
