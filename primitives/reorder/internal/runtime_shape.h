// Reorders created with run-time dims or strides (kRuntimeDim, oneDNN's DNNL_RUNTIME_DIM_VAL):
// the creation rules such a pattern must meet, and the per-shape plans it executes with.
//
// A pattern plan (plan::shapes set) has no kernel of its own. Each execution passes concrete
// descriptors with its buffers; they are checked against the pattern (check_fits_pattern), and
// the plan for that concrete (src, dst, ISA cap) is looked up in the pattern's shape_plans, built
// on the first call for that shape:
//
//   TESSERA_RETURN_IF_ERROR(check_runtime_create(src, dst, attr));       // at create
//   ...
//   TESSERA_ASSIGN_OR_RETURN(shape_plan sp, pattern.shapes->find_or_build(
//       concrete_src, concrete_dst, [&] { return build(concrete_src, concrete_dst, ...); }));
//   execute_plan(*sp.chosen, args);
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_RUNTIME_SHAPE_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_RUNTIME_SHAPE_H_

#include <memory>
#include <mutex>
#include <string>

#include "absl/container/node_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/attr.h"
#include "tessera/simd/isa.h"

namespace tessera::reorder_internal {

struct plan;

// The impl_name() of a reorder created with run-time values: its kernel is chosen per shape.
inline constexpr char kRuntimeImplName[] = "native:any:per_shape";

// Verbose text of a pattern: dims "*x16x*x*" and descriptor "src:f32::blocked:*x*x4x1:f0"
// (strides), run-time values as '*'.
std::string pattern_dims_text(absl::Span<const dim_t> dims);
std::string pattern_md_string(const char* arg, const memory_desc& md);

// Whether src or dst holds a run-time dim or stride.
bool has_runtime_values(const memory_desc& src, const memory_desc& dst);

// The rules a pattern meets on top of a fixed reorder's: a run-time dim is run-time in both
// descriptors; output scales (values fixed at creation) have no mask bit on a run-time dim.
absl::Status check_runtime_create(const memory_desc& src, const memory_desc& dst,
                                  const primitive_attr& attr);

// Checks the descriptor `which` ("src", "dst") given at execution against the pattern: concrete,
// and equal to it wherever the pattern is not run-time. The error names the first dim or stride
// that does not fit.
absl::Status check_fits_pattern(const char* which, const memory_desc& given,
                                const memory_desc& pattern);

// A looked-up plan: cached ones live as long as their shape_plans; `owned` keeps a plan built
// when the cache was full alive for the one execution.
struct shape_plan {
  const plan* chosen = nullptr;
  std::shared_ptr<const plan> owned;
};

// The plans of one pattern, one per concrete (src, dst, ISA cap). Thread-safe: concurrent
// executions on different shapes build their plans outside the lock; a repeated shape pays one
// lock and a comparison with the last shape looked up, or a hash lookup. At most kCapacity shapes
// are kept (plans are never evicted, so a looked-up pointer stays valid); later shapes build a
// plan per call.
class shape_plans {
 public:
  static constexpr int kCapacity = 256;
  using make_fn = absl::FunctionRef<absl::StatusOr<std::shared_ptr<const plan>>()>;

  // The plan for (src, dst) under the current simd::max_isa(), made by make() on a miss (errors
  // are returned, not cached).
  absl::StatusOr<shape_plan> find_or_build(const memory_desc& src, const memory_desc& dst,
                                           make_fn make);
  // Shapes cached so far.
  int size() const;

 private:
  struct key {
    memory_desc src, dst;
    simd::isa isa = simd::isa::sse4_2;
    friend bool operator==(const key&, const key&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const key& k) {
      return H::combine(std::move(h), k.src, k.dst, k.isa);
    }
  };
  mutable std::mutex mu_;
  absl::node_hash_map<key, std::shared_ptr<const plan>> plans_;  // nodes: stable keys
  const key* last_key_ = nullptr;  // the most recent hit or insertion (points into plans_)
  const plan* last_plan_ = nullptr;
};

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_RUNTIME_SHAPE_H_
