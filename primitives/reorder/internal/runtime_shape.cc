#include "tessera/primitives/reorder/internal/runtime_shape.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/primitives/reorder/internal/plan.h"

namespace tessera::reorder_internal {

std::string pattern_dims_text(absl::Span<const dim_t> dims) {
  return absl::StrJoin(dims, "x", [](std::string* out, dim_t v) {
    absl::StrAppend(out, v == kRuntimeDim ? "*" : absl::StrCat(v));
  });
}

std::string pattern_md_string(const char* arg, const memory_desc& md) {
  return absl::StrCat(arg, ":", name_of(md.dt()), "::blocked:",
                      pattern_dims_text(absl::MakeConstSpan(md.blocking().strides.data(), md.rank())),
                      ":f0");
}

bool has_runtime_values(const memory_desc& src, const memory_desc& dst) {
  return src.has_runtime_dims_or_strides() || dst.has_runtime_dims_or_strides();
}

absl::Status check_runtime_create(const memory_desc& src, const memory_desc& dst,
                                  const primitive_attr& attr) {
  if (src.rank() != dst.rank()) return absl::OkStatus();  // the dims-mismatch rule names it
  for (int d = 0; d < src.rank(); ++d) {
    const bool s = src.dims()[d] == kRuntimeDim, t = dst.dims()[d] == kRuntimeDim;
    if (s != t) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dims[", d, "] is ", s ? "run-time" : absl::StrCat(src.dims()[d]), " in src but ",
          t ? "run-time" : absl::StrCat(dst.dims()[d]),
          " in dst: a run-time dim must be run-time in both descriptors"));
    }
  }
  if (attr.oscale) {
    for (int d = 0; d < dst.rank() && d < 31; ++d) {
      if ((attr.oscale->mask & (1 << d)) && dst.dims()[d] == kRuntimeDim) {
        return absl::UnimplementedError(absl::StrCat(
            "output scales mask ", attr.oscale->mask, " covers run-time dim ", d,
            ": their values are fixed at creation, so masked dims must be known then (give "
            "src_scales / dst_scales at execution instead)"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status check_fits_pattern(const char* which, const memory_desc& given,
                                const memory_desc& pattern) {
  if (given.has_runtime_dims_or_strides()) {
    return absl::InvalidArgumentError(absl::StrCat(
        which, " memory_desc at execution has run-time dims or strides: execution needs the "
        "concrete values (the reorder was created with run-time ones)"));
  }
  if (absl::Status s = given.check_fits(pattern); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(which, " ", s.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<shape_plan> shape_plans::find_or_build(const memory_desc& src,
                                                      const memory_desc& dst, make_fn make) {
  const simd::isa isa = simd::max_isa();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (last_key_ != nullptr && last_key_->isa == isa && last_key_->src == src &&
        last_key_->dst == dst) {
      return shape_plan{last_plan_, nullptr};
    }
    if (auto it = plans_.find(key{src, dst, isa}); it != plans_.end()) {
      last_key_ = &it->first;
      last_plan_ = it->second.get();
      return shape_plan{last_plan_, nullptr};
    }
  }
  absl::StatusOr<std::shared_ptr<const plan>> built = make();  // without the lock
  if (!built.ok()) return built.status();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(key{src, dst, isa});
  if (it == plans_.end()) {
    if (static_cast<int>(plans_.size()) >= kCapacity) return shape_plan{built->get(), *built};
    it = plans_.emplace(key{src, dst, isa}, *std::move(built)).first;
  }
  last_key_ = &it->first;
  last_plan_ = it->second.get();
  return shape_plan{last_plan_, nullptr};
}

int shape_plans::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(plans_.size());
}

}  // namespace tessera::reorder_internal
