// From a parsed problem (knob text) to what Tessera needs: element types, tags, attributes and
// the attribute values; or the reason the problem is not run (SKIPPED, naming the knob).
//
//   absl::StatusOr<resolved> r = resolve(parsed.prb);
//   if (!r.ok()) ...                       // INVALID_ARGUMENTS: a descriptor that did not parse
//   else if (!r->skip_reason.empty()) ...  // SKIPPED (reason)
//   else run(r->reorder or r->softmax);
//
// Values the user does not give (per-dim scales and zero points) are generated as in benchdnn:
// scales are powers of two (so they do not hide rounding differences behind inexact products)
// and zero points small integers of both signs.
#ifndef TESSERA_BENCH_DRIVER_RESOLVE_H_
#define TESSERA_BENCH_DRIVER_RESOLVE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/driver/problem.h"
#include "tessera/core/data_type.h"
#include "tessera/core/memory_extra.h"
#include "tessera/primitives/common/attr.h"

namespace tessera::bench {

// Attribute values passed at execution, one per index of the masked dims (row-major), or one.
struct attr_values {
  std::vector<float> src_scales, dst_scales;
  std::vector<int32_t> src_zero_points, dst_zero_points;
  uint32_t rounding_seed = 0xffffffffu;  // stochastic rounding's (attr-rounding-mode)
};

struct resolved_reorder {
  data_type sdt = data_type::f32, ddt = data_type::f32;
  std::string stag, dtag;                       // empty when strides are given instead
  std::vector<int64_t> src_strides, dst_strides;  // from --strides (empty: use the tag)
  // --runtime-dim-mask: bit d set makes dim d run-time (kRuntimeDim) in the descriptors the
  // reorder is created with; it executes on the concrete ones. Bits beyond the rank are ignored.
  int64_t runtime_dim_mask = 0;
  // --oflag: the dst descriptor's extra fields (s8s8_comp:M, zp_comp:M). No scale adjustment:
  // benchdnn asks for oneDNN's 0.5 only on CPUs without VNNI.
  memory_extra dst_extra;
  primitive_attr attr;
  attr_values values;
};

enum class softmax_dir { forward, backward };

struct resolved_softmax {
  softmax_dir dir = softmax_dir::forward;
  std::string alg = "softmax";  // "softmax", "logsoftmax", "softmax_inf_as_zero"
  data_type sdt = data_type::f32, ddt = data_type::f32;
  std::string stag, dtag;       // dtag may be "any"
  int axis = 1;
  bool inplace = false;
  primitive_attr attr;
  attr_values values;
};

struct resolved {
  std::string skip_reason;  // non-empty: SKIPPED
  std::vector<int64_t> dims;
  resolved_reorder reorder;
  resolved_softmax softmax;
  std::string impl;       // --impl (comma list of substrings; empty: any)
  std::string skip_impl;  // --skip-impl
};

// Whether every knob value is valid input in benchdnn's language (a oneDNN data type, a dir or
// alg softmax may have, a number where one is due, a tag the grammar accepts, ...), whether or
// not Tessera supports it. An error names the knob and value: the driver stops before running
// anything. Valid values Tessera does not support (s4, wei scales) pass
// here; resolve() makes their problems SKIPPED with the reason.
absl::Status validate_problem(const problem& p);

// An error: validate_problem's.
absl::StatusOr<resolved> resolve(const problem& p);

// Number of values a per-dim mask asks for (product of the masked dims), or an error naming the
// mask when it names a dim the problem does not have or the count overflows.
absl::StatusOr<int64_t> mask_count(int mask, const std::vector<int64_t>& dims);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_RESOLVE_H_
