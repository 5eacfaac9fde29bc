#include "bench/aten_kernels.h"

#include <utility>

#if TESSERA_HAVE_ATEN
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/api/include/torch/version.h>
#endif

namespace tessera::bench::aten_kernels {

#if TESSERA_HAVE_ATEN
namespace {

c10::ScalarType scalar_type_of(scalar t) {
  switch (t) {
    case scalar::f32: return c10::kFloat;
    case scalar::f64: return c10::kDouble;
    case scalar::bf16: return c10::kBFloat16;
    case scalar::f16: return c10::kHalf;
    case scalar::s32: return c10::kInt;
    case scalar::s8: return c10::kChar;
    case scalar::u8: return c10::kByte;
  }
  return c10::kByte;
}

at::Tensor wrap(const tensor_view& v) {
  return at::from_blob(v.data, v.sizes, v.strides,
                       at::TensorOptions().dtype(scalar_type_of(v.type)));
}

class copy_call final : public call {
 public:
  copy_call(std::vector<at::Tensor> srcs, std::vector<at::Tensor> dsts, bool add)
      : srcs_(std::move(srcs)), dsts_(std::move(dsts)), add_(add) {}
  void run(int set) override {
    if (add_) {
      dsts_[set].add_(srcs_[set]);
    } else {
      dsts_[set].copy_(srcs_[set]);
    }
  }

 private:
  std::vector<at::Tensor> srcs_, dsts_;
  bool add_;
};

class softmax_call final : public call {
 public:
  softmax_call(at::Tensor in0, at::Tensor in1, at::Tensor out, bool log, int axis, bool backward)
      : in0_(std::move(in0)), in1_(std::move(in1)), out_(std::move(out)), log_(log), axis_(axis),
        backward_(backward) {}
  void run(int) override {
    if (backward_) {
      // in0 = the forward's dst, in1 = diff_dst, out = diff_src.
      const auto type = in0_.scalar_type();
      if (log_) {
        at::_log_softmax_backward_data_out(out_, in1_, in0_, axis_, type);
      } else {
        at::_softmax_backward_data_out(out_, in1_, in0_, axis_, type);
      }
    } else if (log_) {
      at::_log_softmax_out(out_, in0_, axis_, /*half_to_float=*/false);
    } else {
      at::_softmax_out(out_, in0_, axis_, /*half_to_float=*/false);
    }
  }

 private:
  at::Tensor in0_, in1_, out_;
  bool log_;
  int axis_;
  bool backward_;
};

std::string checked(std::unique_ptr<call> c, std::unique_ptr<call>* out) {
  try {
    c->run(0);
  } catch (const c10::Error& e) {
    return std::string("ATen: ") + e.what_without_backtrace();
  }
  *out = std::move(c);
  return {};
}

}  // namespace

std::string make_copy(const std::vector<tensor_view>& srcs, const std::vector<tensor_view>& dsts,
                      bool add, std::unique_ptr<call>* out) {
  if (srcs.empty() || srcs.size() != dsts.size()) return "as many src as dst buffers, at least one";
  std::vector<at::Tensor> s, d;
  for (size_t i = 0; i < srcs.size(); ++i) {
    s.push_back(wrap(srcs[i]));
    d.push_back(wrap(dsts[i]));
  }
  return checked(std::make_unique<copy_call>(std::move(s), std::move(d), add), out);
}

std::string make_softmax(const tensor_view& in0, const tensor_view& in1, const tensor_view& out,
                         bool log, int axis, bool backward, std::unique_ptr<call>* made) {
  return checked(
      std::make_unique<softmax_call>(wrap(in0), wrap(in1), wrap(out), log, axis, backward), made);
}

bool available() { return true; }
std::string version() { return TORCH_VERSION; }
void set_threads(int n) { at::set_num_threads(n); }

#else  // !TESSERA_HAVE_ATEN

std::string make_copy(const std::vector<tensor_view>&, const std::vector<tensor_view>&, bool,
                      std::unique_ptr<call>*) {
  return "ATen is not installed";
}
std::string make_softmax(const tensor_view&, const tensor_view&, const tensor_view&, bool, int,
                         bool, std::unique_ptr<call>*) {
  return "ATen is not installed";
}
bool available() { return false; }
std::string version() { return {}; }
void set_threads(int) {}

#endif  // TESSERA_HAVE_ATEN

}  // namespace tessera::bench::aten_kernels
