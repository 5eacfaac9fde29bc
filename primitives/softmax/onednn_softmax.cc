#include "tessera/primitives/softmax/onednn_softmax.h"

#include <dlfcn.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace tessera::softmax_test {

struct onednn_softmax::state {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::primitive prim;
  dnnl::memory::desc in0, in1, out;
  bool backward = false;
  std::string impl;
};

namespace {

absl::StatusOr<dnnl_data_type_t> dnnl_type(data_type dt) {
  switch (dt) {
    case data_type::f32: return dnnl_f32;
    case data_type::bf16: return dnnl_bf16;
    case data_type::f16: return dnnl_f16;
    case data_type::s8: return dnnl_s8;
    case data_type::u8: return dnnl_u8;
    default:
      return absl::UnimplementedError(absl::StrCat("oneDNN 2.6 softmax has no ", name_of(dt)));
  }
}

// The same blocked layout, field by field (Tessera's memory_desc mirrors oneDNN's).
absl::StatusOr<dnnl::memory::desc> to_dnnl(const memory_desc& md) {
  auto dt = dnnl_type(md.dt());
  if (!dt.ok()) return dt.status();
  dnnl_memory_desc_t d;
  std::memset(&d, 0, sizeof d);
  d.ndims = md.rank();
  d.data_type = *dt;
  d.format_kind = dnnl_blocked;
  d.offset0 = md.offset0();
  for (int i = 0; i < md.rank(); ++i) {
    d.dims[i] = md.dims()[i];
    d.padded_dims[i] = md.padded_dims()[i];
    d.padded_offsets[i] = md.padded_offsets()[i];
    d.format_desc.blocking.strides[i] = md.blocking().strides[i];
  }
  d.format_desc.blocking.inner_nblks = md.blocking().inner_nblks;
  for (int k = 0; k < md.blocking().inner_nblks; ++k) {
    d.format_desc.blocking.inner_blks[k] = md.blocking().inner_blks[k];
    d.format_desc.blocking.inner_idxs[k] = md.blocking().inner_idxs[k];
  }
  return dnnl::memory::desc(d);
}

dnnl::algorithm dnnl_alg(softmax_alg alg) {
  return alg == softmax_alg::logsoftmax ? dnnl::algorithm::softmax_log
                                        : dnnl::algorithm::softmax_accurate;
}

}  // namespace

absl::StatusOr<onednn_softmax> onednn_softmax::forward(softmax_alg alg, const memory_desc& src,
                                                       const memory_desc& dst, int axis,
                                                       float oscale) {
  if (alg == softmax_alg::softmax_inf_as_zero) {
    return absl::UnimplementedError("oneDNN 2.6 has no softmax_inf_as_zero");
  }
  onednn_softmax r;
  r.s_ = std::make_shared<state>();
  auto in = to_dnnl(src);
  auto out = to_dnnl(dst);
  if (!in.ok()) return in.status();
  if (!out.ok()) return out.status();
  try {
    dnnl::softmax_v2_forward::desc d(dnnl::prop_kind::forward_inference, dnnl_alg(alg), *in, *out,
                                     axis);
    dnnl::primitive_attr attr;
    if (oscale != 1.f) attr.set_output_scales(0, {oscale});
    dnnl::softmax_v2_forward::primitive_desc pd(d, attr, r.s_->engine);
    r.s_->prim = dnnl::softmax_v2_forward(pd);
    r.s_->impl = pd.impl_info_str();
  } catch (const dnnl::error& e) {
    return absl::UnimplementedError(absl::StrCat("oneDNN: ", e.what()));
  }
  r.s_->in0 = *in;
  r.s_->out = *out;
  return r;
}

absl::StatusOr<onednn_softmax> onednn_softmax::backward(softmax_alg alg,
                                                        const memory_desc& diff_src,
                                                        const memory_desc& diff_dst,
                                                        const memory_desc& dst, int axis) {
  onednn_softmax r;
  r.s_ = std::make_shared<state>();
  auto dx = to_dnnl(diff_src);
  auto dy = to_dnnl(diff_dst);
  auto y = to_dnnl(dst);
  if (!dx.ok()) return dx.status();
  if (!dy.ok()) return dy.status();
  if (!y.ok()) return y.status();
  try {
    dnnl::softmax_v2_forward::desc fd(dnnl::prop_kind::forward_training, dnnl_alg(alg), *y, *y,
                                      axis);
    dnnl::softmax_v2_forward::primitive_desc fpd(fd, r.s_->engine);
    dnnl::softmax_v2_backward::desc d(dnnl_alg(alg), *dx, *dy, *y, axis);
    dnnl::softmax_v2_backward::primitive_desc pd(d, r.s_->engine, fpd);
    r.s_->prim = dnnl::softmax_v2_backward(pd);
    r.s_->impl = pd.impl_info_str();
  } catch (const dnnl::error& e) {
    return absl::UnimplementedError(absl::StrCat("oneDNN: ", e.what()));
  }
  r.s_->backward = true;
  r.s_->in0 = *y;
  r.s_->in1 = *dy;
  r.s_->out = *dx;
  return r;
}

void onednn_softmax::execute(const void* in0, const void* in1, void* out) const {
  dnnl::stream stream(s_->engine);
  dnnl::memory a(s_->in0, s_->engine, const_cast<void*>(in0));
  dnnl::memory c(s_->out, s_->engine, out);
  if (s_->backward) {
    dnnl::memory b(s_->in1, s_->engine, const_cast<void*>(in1));
    s_->prim.execute(stream, {{DNNL_ARG_DST, a}, {DNNL_ARG_DIFF_DST, b}, {DNNL_ARG_DIFF_SRC, c}});
  } else {
    s_->prim.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_DST, c}});
  }
  stream.wait();
}

const std::string& onednn_softmax::impl_name() const { return s_->impl; }

void onednn_softmax::set_num_threads(int n) {
  // libdnnl brings libgomp; resolve at run time so nothing links OpenMP directly.
  using fn = void (*)(int);
  if (auto f = reinterpret_cast<fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) f(n);
}

}  // namespace tessera::softmax_test
