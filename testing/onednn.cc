#include "tessera/testing/onednn.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tessera/core/status.h"

namespace tessera::testing {
namespace {

using dnnl_dt = dnnl::memory::data_type;

absl::Status from_error(const dnnl::error& e, absl::string_view what) {
  const std::string message = absl::StrCat(what, ": oneDNN: ", e.what());
  switch (e.status) {
    case dnnl_unimplemented: return absl::UnimplementedError(message);
    case dnnl_invalid_arguments: return absl::InvalidArgumentError(message);
    case dnnl_out_of_memory: return absl::ResourceExhaustedError(message);
    default: return absl::InternalError(message);
  }
}

absl::StatusOr<const memory*> required(const exec_args& args, arg a) {
  const memory* m = args.find(a);
  if (m == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("onednn_reorder: the argument ", name_of(a), " is missing"));
  }
  return m;
}

absl::StatusOr<dnnl::memory> wrap(const memory& m) {
  TESSERA_ASSIGN_OR_RETURN(dnnl::memory::desc d, to_dnnl(m.desc));
  return dnnl::memory(d, cpu_engine(), m.data);
}

dnnl::algorithm to_dnnl(binary_alg alg) {
  switch (alg) {
    case binary_alg::add: return dnnl::algorithm::binary_add;
    case binary_alg::sub: return dnnl::algorithm::binary_sub;
    case binary_alg::mul: return dnnl::algorithm::binary_mul;
    case binary_alg::div: return dnnl::algorithm::binary_div;
    case binary_alg::max: return dnnl::algorithm::binary_max;
    case binary_alg::min: return dnnl::algorithm::binary_min;
    case binary_alg::ge: return dnnl::algorithm::binary_ge;
    case binary_alg::gt: return dnnl::algorithm::binary_gt;
    case binary_alg::le: return dnnl::algorithm::binary_le;
    case binary_alg::lt: return dnnl::algorithm::binary_lt;
    case binary_alg::eq: return dnnl::algorithm::binary_eq;
    case binary_alg::ne: return dnnl::algorithm::binary_ne;
  }
  return dnnl::algorithm::undef;
}

dnnl::algorithm to_dnnl(eltwise_alg alg) {
  switch (alg) {
    case eltwise_alg::linear: return dnnl::algorithm::eltwise_linear;
    case eltwise_alg::relu: return dnnl::algorithm::eltwise_relu;
    case eltwise_alg::clip: return dnnl::algorithm::eltwise_clip;
    case eltwise_alg::abs: return dnnl::algorithm::eltwise_abs;
    case eltwise_alg::square: return dnnl::algorithm::eltwise_square;
    case eltwise_alg::sqrt: return dnnl::algorithm::eltwise_sqrt;
    case eltwise_alg::exp: return dnnl::algorithm::eltwise_exp;
    case eltwise_alg::tanh: return dnnl::algorithm::eltwise_tanh;
    case eltwise_alg::logistic: return dnnl::algorithm::eltwise_logistic;
  }
  return dnnl::algorithm::undef;
}

// A dense f32 descriptor of dims.
dnnl::memory::desc dense_f32(const dnnl::memory::dims& dims) {
  dnnl::memory::dims strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return {dims, dnnl_dt::f32, strides};
}

// m's values in a new dense f32 buffer: 2.6.3's binary takes no f16 operand, and its Arm build
// no bf16 one; every operand type the post-ops take (f16, bf16, s8, u8) converts to f32 exactly.
dnnl::memory exactly_in_f32(dnnl::memory m) {
  dnnl::memory f32(dense_f32(m.get_desc().dims()), cpu_engine());
  dnnl::reorder(m, f32).execute(cpu_stream(), m, f32);
  return f32;
}

// One post-op as a oneDNN primitive, in place on `acc` (f32).
void run_post_op(const post_op& op, const dnnl::memory& acc, const dnnl::memory* operand) {
  const dnnl::memory::desc& d = acc.get_desc();
  if (op.kind == post_op_kind::eltwise) {
    dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference,
                                     to_dnnl(op.eltwise_algorithm), d, op.alpha, op.beta);
    dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(desc, cpu_engine()))
        .execute(cpu_stream(), {{DNNL_ARG_SRC, acc}, {DNNL_ARG_DST, acc}});
  } else {
    dnnl::binary::desc desc(to_dnnl(op.binary_algorithm), d, operand->get_desc(), d);
    dnnl::binary(dnnl::binary::primitive_desc(desc, cpu_engine()))
        .execute(cpu_stream(), {{DNNL_ARG_SRC_0, acc}, {DNNL_ARG_SRC_1, *operand}, {DNNL_ARG_DST, acc}});
  }
}

}  // namespace

absl::StatusOr<dnnl_dt> to_dnnl(data_type dt) {
  switch (dt) {
    case data_type::f32: return dnnl_dt::f32;
    case data_type::bf16: return dnnl_dt::bf16;
    case data_type::f16: return dnnl_dt::f16;
    case data_type::s32: return dnnl_dt::s32;
    case data_type::s8: return dnnl_dt::s8;
    case data_type::u8: return dnnl_dt::u8;
    case data_type::undef: return dnnl_dt::undef;
    default:
      return absl::UnimplementedError(absl::StrCat(
          "to_dnnl: oneDNN 2.6.3 has no data type ", name_of(dt), " (it has f32, bf16, f16, s32, s8, u8)"));
  }
}

absl::StatusOr<data_type> from_dnnl(dnnl_dt dt) {
  switch (dt) {
    case dnnl_dt::f32: return data_type::f32;
    case dnnl_dt::bf16: return data_type::bf16;
    case dnnl_dt::f16: return data_type::f16;
    case dnnl_dt::s32: return data_type::s32;
    case dnnl_dt::s8: return data_type::s8;
    case dnnl_dt::u8: return data_type::u8;
    case dnnl_dt::undef: return data_type::undef;
    default:
      return absl::UnimplementedError(
          absl::StrCat("from_dnnl: oneDNN data type ", static_cast<int>(dt), " has no Tessera twin"));
  }
}

absl::StatusOr<dnnl::memory::desc> to_dnnl(const memory_desc& md) {
  dnnl_memory_desc_t c{};
  if (md.kind() == format_kind::undef) return dnnl::memory::desc(c);
  TESSERA_ASSIGN_OR_RETURN(dnnl_dt dt, to_dnnl(md.dt()));
  if (md.rank() > DNNL_MAX_NDIMS) {
    return absl::InvalidArgumentError(
        absl::StrCat("to_dnnl: rank ", md.rank(), " exceeds oneDNN's ", DNNL_MAX_NDIMS));
  }
  c.ndims = md.rank();
  c.data_type = static_cast<dnnl_data_type_t>(dt);
  for (int d = 0; d < md.rank(); ++d) c.dims[d] = md.dims()[d];
  if (md.kind() == format_kind::any) {
    c.format_kind = dnnl_format_kind_any;
    return dnnl::memory::desc(c);
  }
  c.format_kind = dnnl_blocked;
  c.offset0 = md.offset0();
  const blocking_desc& b = md.blocking();
  dnnl_blocking_desc_t& cb = c.format_desc.blocking;
  for (int d = 0; d < md.rank(); ++d) {
    c.padded_dims[d] = md.padded_dims()[d];
    c.padded_offsets[d] = md.padded_offsets()[d];
    cb.strides[d] = b.strides[d];
  }
  cb.inner_nblks = b.inner_nblks;
  for (int k = 0; k < b.inner_nblks; ++k) {
    cb.inner_blks[k] = b.inner_blks[k];
    cb.inner_idxs[k] = b.inner_idxs[k];
  }
  // The extra fields have the same meaning and flag values (memory_extra.h).
  c.extra.flags = md.extra().flags;
  c.extra.compensation_mask = md.extra().compensation_mask;
  c.extra.scale_adjust = md.extra().scale_adjust;
  c.extra.asymm_compensation_mask = md.extra().asymm_compensation_mask;
  return dnnl::memory::desc(c);
}

absl::StatusOr<memory_desc> from_dnnl(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& c = md.data;
  if (c.ndims == 0 || c.format_kind == dnnl_format_kind_undef) return memory_desc{};
  TESSERA_ASSIGN_OR_RETURN(data_type dt, from_dnnl(static_cast<dnnl_dt>(c.data_type)));
  const absl::Span<const dim_t> dims(c.dims, c.ndims);
  if (c.format_kind == dnnl_format_kind_any) return memory_desc::any(dims, dt);
  if (c.format_kind != dnnl_blocked) {
    return absl::UnimplementedError(absl::StrCat(
        "from_dnnl: format kind ", static_cast<int>(c.format_kind), " is not blocked or any"));
  }
  if (c.offset0 != 0) {
    return absl::UnimplementedError(absl::StrCat(
        "from_dnnl: offset0 ", c.offset0, " != 0 (memory_desc takes offset0 only from submemory)"));
  }
  blocking_desc b;
  const dnnl_blocking_desc_t& cb = c.format_desc.blocking;
  for (int d = 0; d < c.ndims; ++d) {
    if (c.padded_offsets[d] != 0) {
      return absl::UnimplementedError(
          absl::StrCat("from_dnnl: padded_offsets[", d, "] = ", c.padded_offsets[d], " != 0"));
    }
    b.strides[d] = cb.strides[d];
  }
  b.inner_nblks = cb.inner_nblks;
  for (int k = 0; k < cb.inner_nblks; ++k) {
    b.inner_blks[k] = cb.inner_blks[k];
    b.inner_idxs[k] = cb.inner_idxs[k];
  }
  TESSERA_ASSIGN_OR_RETURN(memory_desc out, memory_desc::with_blocking(dims, dt, b));
  for (int d = 0; d < c.ndims; ++d) {
    if (out.padded_dims()[d] != c.padded_dims[d]) {
      return absl::UnimplementedError(absl::StrCat(
          "from_dnnl: padded_dims[", d, "] = ", c.padded_dims[d], " is not dims[", d, "] = ",
          c.dims[d], " rounded up to its blocks (", out.padded_dims()[d], ")"));
    }
  }
  return out;
}

const dnnl::engine& cpu_engine() {
  static const auto* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::stream& cpu_stream() {
  thread_local dnnl::stream stream(cpu_engine());
  return stream;
}

absl::Status onednn_reorder(const exec_args& args, const primitive_attr& attr) {
  if (attr.src_scales || attr.dst_scales) {
    return absl::UnimplementedError(
        "onednn_reorder: oneDNN 2.6.3's reorder has output scales only; express src/dst scales "
        "as attr.oscale");
  }
  TESSERA_ASSIGN_OR_RETURN(const memory* src, required(args, arg::src));
  TESSERA_ASSIGN_OR_RETURN(const memory* dst, required(args, arg::dst));
  try {
    TESSERA_ASSIGN_OR_RETURN(dnnl::memory s, wrap(*src));
    TESSERA_ASSIGN_OR_RETURN(dnnl::memory d, wrap(*dst));
    dnnl::primitive_attr a;
    std::unordered_map<int, dnnl::memory> exec{{DNNL_ARG_FROM, s}, {DNNL_ARG_TO, d}};
    if (attr.oscale) a.set_output_scales(attr.oscale->mask, attr.oscale->values);
    struct zp_role {
      const std::optional<quant_param>& param;
      arg values;
      int dnnl_arg;
    };
    for (const zp_role& zp : {zp_role{attr.src_zero_points, arg::src_zero_points, DNNL_ARG_FROM},
                              zp_role{attr.dst_zero_points, arg::dst_zero_points, DNNL_ARG_TO}}) {
      if (!zp.param) continue;
      const memory* values = args.find(zp.values);
      if (values == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "onednn_reorder: the attribute has ", name_of(zp.values), " but the argument is missing"));
      }
      a.set_zero_points(zp.dnnl_arg, zp.param->mask, {DNNL_RUNTIME_S32_VAL});
      TESSERA_ASSIGN_OR_RETURN(dnnl::memory zm, wrap(*values));
      exec.emplace(DNNL_ARG_ATTR_ZERO_POINTS | zp.dnnl_arg, zm);
    }
    if (attr.sum) {
      dnnl::post_ops ops;
      ops.append_sum(attr.sum->beta, attr.sum->zero_point);
      a.set_post_ops(ops);
    }
    dnnl::reorder::primitive_desc pd(cpu_engine(), s.get_desc(), cpu_engine(), d.get_desc(), a);
    dnnl::reorder(pd).execute(cpu_stream(), exec);
    cpu_stream().wait();
  } catch (const dnnl::error& e) {
    return from_error(e, "onednn_reorder");
  }
  return absl::OkStatus();
}

absl::Status onednn_softmax_forward(const memory& src, const memory& dst, int axis, bool log) {
  try {
    TESSERA_ASSIGN_OR_RETURN(dnnl::memory s, wrap(src));
    TESSERA_ASSIGN_OR_RETURN(dnnl::memory d, wrap(dst));
    const auto alg = log ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate;
    dnnl::softmax_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg, s.get_desc(),
                                        d.get_desc(), axis);
    dnnl::softmax_v2_forward::primitive_desc pd(desc, cpu_engine());
    dnnl::softmax_v2_forward(pd).execute(cpu_stream(), {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}});
    cpu_stream().wait();
  } catch (const dnnl::error& e) {
    return from_error(e, "onednn_softmax_forward");
  }
  return absl::OkStatus();
}

absl::Status onednn_softmax_forward_with_post_ops(const memory& src, const memory& dst, int axis,
                                                  bool log, const post_ops_list& post_ops,
                                                  const std::vector<memory>& operands) {
  if (operands.size() != post_ops.size()) {
    return absl::InvalidArgumentError(absl::StrCat("onednn_softmax_forward_with_post_ops: ",
                                                   operands.size(), " operands for ",
                                                   post_ops.size(), " post-ops"));
  }
  try {
    TESSERA_ASSIGN_OR_RETURN(dnnl::memory s, wrap(src));
    TESSERA_ASSIGN_OR_RETURN(dnnl::memory d, wrap(dst));
    std::vector<dnnl::memory> ops;
    for (size_t i = 0; i < post_ops.size(); ++i) {
      if (post_ops[i].kind != post_op_kind::binary) continue;
      TESSERA_ASSIGN_OR_RETURN(dnnl::memory o, wrap(operands[i]));
      if (operands[i].desc.dt() != data_type::f32) o = exactly_in_f32(o);
      ops.push_back(o);
    }
    dnnl::memory acc(dense_f32(s.get_desc().dims()), cpu_engine());
    const auto alg = log ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate;
    dnnl::softmax_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg, s.get_desc(),
                                        acc.get_desc(), axis);
    dnnl::softmax_v2_forward(dnnl::softmax_v2_forward::primitive_desc(desc, cpu_engine()))
        .execute(cpu_stream(), {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, acc}});
    size_t next_operand = 0;
    for (size_t i = 0; i < post_ops.size(); ++i) {
      const post_op& op = post_ops[i];
      const bool binary = op.kind == post_op_kind::binary;
      try {
        run_post_op(op, acc, binary ? &ops[next_operand++] : nullptr);
      } catch (const dnnl::error& e) {
        return from_error(e, absl::StrCat("onednn_softmax_forward_with_post_ops: post-op ", i, " (",
                                          binary ? name_of(op.binary_algorithm)
                                                 : name_of(op.eltwise_algorithm),
                                          ")"));
      }
    }
    dnnl::reorder(acc, d).execute(cpu_stream(), acc, d);
    cpu_stream().wait();
  } catch (const dnnl::error& e) {
    return from_error(e, "onednn_softmax_forward_with_post_ops");
  }
  return absl::OkStatus();
}

absl::Status onednn_softmax_backward(const memory& dst, const memory& diff_dst,
                                     const memory& diff_src, int axis, bool log) {
  try {
    TESSERA_ASSIGN_OR_RETURN(dnnl::memory d, wrap(dst));
    TESSERA_ASSIGN_OR_RETURN(dnnl::memory dd, wrap(diff_dst));
    TESSERA_ASSIGN_OR_RETURN(dnnl::memory ds, wrap(diff_src));
    const auto alg = log ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate;
    // The backward primitive needs a forward one as a hint: the forward that produced dst.
    dnnl::softmax_v2_forward::desc fwd_desc(dnnl::prop_kind::forward_training, alg, d.get_desc(),
                                            d.get_desc(), axis);
    dnnl::softmax_v2_forward::primitive_desc fwd_pd(fwd_desc, cpu_engine());
    dnnl::softmax_v2_backward::desc desc(alg, ds.get_desc(), dd.get_desc(), d.get_desc(), axis);
    dnnl::softmax_v2_backward::primitive_desc pd(desc, cpu_engine(), fwd_pd);
    dnnl::softmax_v2_backward(pd).execute(
        cpu_stream(), {{DNNL_ARG_DST, d}, {DNNL_ARG_DIFF_DST, dd}, {DNNL_ARG_DIFF_SRC, ds}});
    cpu_stream().wait();
  } catch (const dnnl::error& e) {
    return from_error(e, "onednn_softmax_backward");
  }
  return absl::OkStatus();
}

}  // namespace tessera::testing
