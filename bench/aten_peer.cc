#include "bench/aten_peer.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/aten_kernels.h"

namespace tessera::bench {
namespace {

// Plain strided, fixed dims, no offset: what at::from_blob can wrap.
absl::Status check_wrappable(const memory_desc& md, const char* name) {
  if (md.has_runtime_dims_or_strides()) {
    return absl::UnimplementedError(absl::StrCat(name, ": run-time dims have no ATen tensor"));
  }
  if (!md.is_plain()) {
    return absl::UnimplementedError(absl::StrCat(name, ": a blocked layout has no ATen tensor"));
  }
  if (md.offset0() != 0) {
    return absl::UnimplementedError(absl::StrCat(name, ": offset0 is not wrapped"));
  }
  return absl::OkStatus();
}

bool is_half(data_type dt) { return dt == data_type::bf16 || dt == data_type::f16; }

// Pre: the type is one ATen has (the *_expresses checks).
aten_kernels::scalar scalar_of(data_type dt) {
  using aten_kernels::scalar;
  switch (dt) {
    case data_type::f64: return scalar::f64;
    case data_type::bf16: return scalar::bf16;
    case data_type::f16: return scalar::f16;
    case data_type::s32: return scalar::s32;
    case data_type::s8: return scalar::s8;
    case data_type::u8: return scalar::u8;
    default: return scalar::f32;
  }
}

aten_kernels::tensor_view view_of(const memory_desc& md, void* data) {
  aten_kernels::tensor_view v;
  v.sizes.assign(md.dims().begin(), md.dims().end());
  v.strides.assign(md.blocking().strides.begin(), md.blocking().strides.begin() + md.rank());
  v.type = scalar_of(md.dt());
  v.data = data;
  return v;
}

class bridged_call final : public aten_call {
 public:
  explicit bridged_call(std::unique_ptr<aten_kernels::call> call) : call_(std::move(call)) {}
  void run(int set) override { call_->run(set); }

 private:
  std::unique_ptr<aten_kernels::call> call_;
};

absl::StatusOr<std::unique_ptr<aten_call>> bridged(const std::string& error,
                                                   std::unique_ptr<aten_kernels::call> call) {
  if (!error.empty()) return absl::UnimplementedError(error);
  return std::make_unique<bridged_call>(std::move(call));
}

absl::Status unavailable() {
  return absl::UnavailableError("ATen is not installed (Debian's libtorch-dev)");
}

}  // namespace

bool aten_available() { return aten_kernels::available(); }

std::string aten_label() {
  return aten_available() ? absl::StrCat("aten ", aten_kernels::version())
                          : std::string(unavailable().message());
}

void set_aten_threads(int n) { aten_kernels::set_threads(n); }

absl::Status aten_reorder_expresses(const memory_desc& src, const memory_desc& dst, float beta) {
  if (!aten_available()) return unavailable();
  if (absl::Status s = check_wrappable(src, "src"); !s.ok()) return s;
  if (absl::Status s = check_wrappable(dst, "dst"); !s.ok()) return s;
  if (beta != 0.f && beta != 1.f) {
    return absl::UnimplementedError(absl::StrCat("sum beta ", beta, ": ATen adds with beta 1"));
  }
  const data_type from = src.dt(), to = dst.dt();
  if (from == to || (from == data_type::f32 && is_half(to)) ||
      (is_half(from) && to == data_type::f32)) {
    return absl::OkStatus();
  }
  return absl::UnimplementedError(absl::StrCat(
      name_of(from), " -> ", name_of(to),
      ": ATen's conversion is not oneDNN's (it truncates to integers, saturates nothing)"));
}

absl::Status aten_softmax_expresses(const memory_desc& md) {
  if (!aten_available()) return unavailable();
  if (absl::Status s = check_wrappable(md, "data"); !s.ok()) return s;
  if (md.dt() != data_type::f32 && md.dt() != data_type::bf16) {
    return absl::UnimplementedError(
        absl::StrCat(name_of(md.dt()), ": ATen's CPU softmax takes f32 and bf16"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<aten_call>> make_aten_reorder(const memory_desc& src,
                                                             const memory_desc& dst, float beta,
                                                             absl::Span<void* const> srcs,
                                                             absl::Span<void* const> dsts) {
  if (absl::Status s = aten_reorder_expresses(src, dst, beta); !s.ok()) return s;
  std::vector<aten_kernels::tensor_view> s, d;
  for (void* p : srcs) s.push_back(view_of(src, p));
  for (void* p : dsts) d.push_back(view_of(dst, p));
  std::unique_ptr<aten_kernels::call> call;
  const std::string error = aten_kernels::make_copy(s, d, beta == 1.f, &call);
  return bridged(error, std::move(call));
}

absl::StatusOr<std::unique_ptr<aten_call>> make_aten_softmax(const memory_desc& md,
                                                             softmax_alg alg, int axis,
                                                             bool backward, void* in0, void* in1,
                                                             void* out) {
  if (absl::Status s = aten_softmax_expresses(md); !s.ok()) return s;
  std::unique_ptr<aten_kernels::call> call;
  const std::string error = aten_kernels::make_softmax(
      view_of(md, in0), view_of(md, in1), view_of(md, out), alg == softmax_alg::logsoftmax, axis,
      backward, &call);
  return bridged(error, std::move(call));
}

}  // namespace tessera::bench
