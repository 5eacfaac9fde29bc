// The creation cache of a primitive's plans: re-creating an identical primitive returns the plan
// built the first time. One lru_cache per primitive kind (runtime/lru_cache.h: it follows
// TESSERA_PRIMITIVE_CACHE_CAPACITY and set_primitive_cache_capacity), keyed by the primitive's
// problem (its descriptors and attributes: a type with == and AbslHashValue), the ISA cap and
// the kernel filter. Each creation through it prints its create:cache_miss or create:cache_hit
// line when ONEDNN_VERBOSE's creation lines are on.
//
//   plan_cache<reorder_problem, plan>& cache() {
//     static plan_cache<reorder_problem, plan> c;
//     return c;
//   }
//   absl::StatusOr<std::shared_ptr<const plan>> p = cache().get_or_create(
//       {problem, simd::max_isa()},
//       [&] { return build(problem); },                     // on a miss; errors are not cached
//       [](const plan& p) { return describe(p); });         // the verbose line's fields
#ifndef TESSERA_PRIMITIVES_COMMON_PLAN_CACHE_H_
#define TESSERA_PRIMITIVES_COMMON_PLAN_CACHE_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "tessera/primitives/runtime/lru_cache.h"
#include "tessera/primitives/runtime/verbose.h"
#include "tessera/simd/isa.h"

namespace tessera {

template <class Problem>
struct plan_key {
  Problem problem;
  simd::isa isa = simd::isa::sse4_2;  // the cap at creation: a plan holds one ISA's kernels
  std::string impl_filter;            // "" unless the creation restricted the kernels

  friend bool operator==(const plan_key&, const plan_key&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const plan_key& k) {
    return H::combine(std::move(h), k.problem, k.isa, k.impl_filter);
  }
};

template <class Problem, class Plan>
class plan_cache {
 public:
  using key = plan_key<Problem>;
  using plan_ptr = std::shared_ptr<const Plan>;

  plan_cache() = default;
  plan_cache(const plan_cache&) = delete;
  plan_cache& operator=(const plan_cache&) = delete;

  // The cached plan for k, else make()'s (make: () -> absl::StatusOr<plan_ptr>, called without
  // the cache's lock). On success prints the creation line, with the time since the call and
  // describe(plan) (a verbose_record) as its fields; an error prints nothing and is not cached.
  template <class Make, class Describe>
  absl::StatusOr<plan_ptr> get_or_create(const key& k, Make&& make, Describe&& describe) {
    verbose_create trace;
    bool hit = false;
    absl::StatusOr<plan_ptr> p = cache_.get_or_create(k, std::forward<Make>(make), &hit);
    if (p.ok()) trace.commit(hit, [&] { return describe(**p); });
    return p;
  }

  lru_cache<key, Plan>& entries() { return cache_; }

 private:
  lru_cache<key, Plan> cache_;
};

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_COMMON_PLAN_CACHE_H_
