// Execution arguments: which buffer plays which role, like oneDNN's DNNL_ARG_* keys.
//
//   tessera::exec_args args;
//   args.set(tessera::arg::from, src_mem);
//   args.set(tessera::arg::to, dst_mem);
//   args.set(tessera::arg::src_scales, scales_mem);   // scales given at execution (oneDNN 3.x style)
//   TESSERA_RETURN_IF_ERROR(reorder->execute(args));
#ifndef TESSERA_PRIMITIVES_COMMON_ARG_H_
#define TESSERA_PRIMITIVES_COMMON_ARG_H_

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "tessera/primitives/common/memory.h"

namespace tessera {

enum class arg : uint8_t {
  src,
  dst,
  diff_src,
  diff_dst,
  src_scales,        // f32, one value (mask 0) or one per index of the masked dims
  dst_scales,
  src_zero_points,   // s32, same shapes as scales
  dst_zero_points,
  attr_rounding_seed,  // s32, one value: the seed of stochastic rounding (rounding_mode)
  kCount,
};
// oneDNN's reorder names for the same roles.
inline constexpr arg arg_from = arg::src;
inline constexpr arg arg_to = arg::dst;

absl::string_view name_of(arg a);

// The second operand of the binary post-op at position `index` of the post-ops list (oneDNN's
// DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1).
struct post_op_src1 {
  int index = 0;
};
// "post_op_src1(2)".
std::string name_of(post_op_src1 a);

class exec_args {
 public:
  // One entry of the list constructor: a memory object, or a descriptor and a buffer as in
  // {tessera::arg_from, {src_md, src_ptr}}. It refers to them until the exec_args is built, so
  // that each descriptor is copied once, into the exec_args (not first into a temporary memory:
  // the copy of a descriptor is ~560 bytes, and two per argument are a noticeable share of a small
  // reorder's call).
  struct binding {
    binding(const memory& m) : desc(m.desc), data(m.data) {}  // NOLINT: implicit on purpose
    binding(const memory_desc& d, void* p) : desc(d), data(p) {}
    const memory_desc& desc;
    void* data;
  };

  exec_args() = default;
  exec_args(std::initializer_list<std::pair<arg, binding>> list) {
    for (const auto& [a, b] : list) slots_[static_cast<int>(a)].emplace(b.desc, b.data);
  }
  exec_args& set(arg a, const memory& m) {
    slots_[static_cast<int>(a)] = m;
    return *this;
  }
  // nullptr when the argument was not given.
  const memory* find(arg a) const {
    const auto& s = slots_[static_cast<int>(a)];
    return s.has_value() ? &*s : nullptr;
  }

  // Binary post-op operands, apart from the fixed slots: a primitive without binary post-ops
  // pays nothing for them.
  exec_args& set(post_op_src1 a, const memory& m) {
    for (auto& [index, mem] : post_op_src1_) {
      if (index == a.index) {
        mem = m;
        return *this;
      }
    }
    post_op_src1_.emplace_back(a.index, m);
    return *this;
  }
  // nullptr when the operand was not given.
  const memory* find(post_op_src1 a) const {
    for (const auto& [index, mem] : post_op_src1_) {
      if (index == a.index) return &mem;
    }
    return nullptr;
  }
  // The positions of the operands given, in the order they were set.
  std::vector<int> post_op_src1_indices() const {
    std::vector<int> out;
    for (const auto& entry : post_op_src1_) out.push_back(entry.first);
    return out;
  }

 private:
  std::array<std::optional<memory>, static_cast<int>(arg::kCount)> slots_{};
  std::vector<std::pair<int, memory>> post_op_src1_;
};

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_COMMON_ARG_H_
