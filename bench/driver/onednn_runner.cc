#include "bench/driver/onednn_runner.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/driver/measure.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "tessera/formats/layout.h"

namespace tessera::bench {
namespace {

absl::StatusOr<dnnl::memory::data_type> to_dnnl(data_type dt) {
  switch (dt) {
    case data_type::f32: return dnnl::memory::data_type::f32;
    case data_type::bf16: return dnnl::memory::data_type::bf16;
    case data_type::f16: return dnnl::memory::data_type::f16;
    case data_type::s32: return dnnl::memory::data_type::s32;
    case data_type::s8: return dnnl::memory::data_type::s8;
    case data_type::u8: return dnnl::memory::data_type::u8;
    default:
      return absl::UnimplementedError(
          absl::StrCat("oneDNN 2.6.3 has no ", std::string(name_of(dt)), " data type"));
  }
}

// A oneDNN blocked descriptor with exactly the strides and inner blocks of Tessera's layout.
absl::StatusOr<dnnl::memory::desc> to_dnnl_desc(const std::string& tag, const std::vector<int64_t>& dims,
                                                data_type dt) {
  if (dims.size() > DNNL_MAX_NDIMS) {
    return absl::UnimplementedError(absl::StrCat("oneDNN 2.6.3 supports at most ", DNNL_MAX_NDIMS, " dims"));
  }
  auto l = make_layout(tag, dims);
  if (!l.ok()) return l.status();
  auto ddt = to_dnnl(dt);
  if (!ddt.ok()) return ddt.status();
  dnnl_memory_desc_t c;
  std::memset(&c, 0, sizeof(c));
  c.ndims = static_cast<int>(dims.size());
  c.data_type = static_cast<dnnl_data_type_t>(*ddt);
  c.format_kind = dnnl_blocked;
  for (int d = 0; d < c.ndims; ++d) {
    c.dims[d] = dims[d];
    c.padded_dims[d] = l->padded_dims()[d];
    c.format_desc.blocking.strides[d] = l->stride(d);
  }
  const tag_layout& t = l->tag();
  c.format_desc.blocking.inner_nblks = t.nblks;
  for (int k = 0; k < t.nblks; ++k) {
    c.format_desc.blocking.inner_blks[k] = t.blk_sizes[k];
    c.format_desc.blocking.inner_idxs[k] = t.blk_dims[k];
  }
  return dnnl::memory::desc(c);
}

// Deterministic data in a range every type holds (the values do not matter for timing; they
// only must not be NaN or denormal, which would slow some paths down).
void fill(void* p, size_t bytes, data_type dt) {
  std::memset(p, 0, bytes);
  size_t n = bytes / static_cast<size_t>(bits_of(dt) / 8);
  for (size_t i = 0; i < n; ++i) {
    int v = static_cast<int>((i * 37) % 17) - 8;
    switch (dt) {
      case data_type::f32: static_cast<float*>(p)[i] = static_cast<float>(v) * 0.25f; break;
      case data_type::bf16: case data_type::f16: {
        // Small integers: 0x3f80-style patterns for bf16 would need conversion; +-1.0 suffices.
        uint16_t one = dt == data_type::bf16 ? 0x3f80 : 0x3c00;
        static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v < 0 ? one | 0x8000 : one);
        break;
      }
      case data_type::s32: static_cast<int32_t*>(p)[i] = v; break;
      case data_type::s8: static_cast<int8_t*>(p)[i] = static_cast<int8_t>(v); break;
      case data_type::u8: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v + 8); break;
      default: break;
    }
  }
}

std::string impl_of(const dnnl::primitive_desc_base& pd) {
  const char* s = nullptr;
  dnnl_primitive_desc_query(pd.get(), dnnl_query_impl_info_str, 0, &s);
  return s ? s : "?";
}

struct buffers {
  std::vector<std::unique_ptr<char[]>> owned;
  char* make(size_t bytes) {
    owned.push_back(std::make_unique<char[]>(bytes == 0 ? 1 : bytes));
    return owned.back().get();
  }
};

// Copies io input k into every set of `base` (sets of `bytes`), or fills with the driver's values.
void load_input(char* base, size_t bytes, int64_t sets, data_type dt, const onednn_inputs* io, size_t k) {
  for (int64_t set = 0; set < sets; ++set) {
    char* p = base + set * bytes;
    if (io != nullptr && k < io->inputs.size()) {
      std::memset(p, 0, bytes);
      std::memcpy(p, io->inputs[k].first, std::min(bytes, static_cast<size_t>(io->inputs[k].second)));
    } else {
      fill(p, bytes, dt);
    }
  }
}

void set_times(const timing& t, onednn_result* out) {
  out->median_ms = t.median_ms;
  out->min_ms = t.min_ms;
  out->avg_ms = t.avg_ms;
}

}  // namespace

std::string onednn_version() {
  const dnnl_version_t* v = dnnl_version();
  return absl::StrCat(v->major, ".", v->minor, ".", v->patch);
}

int onednn_threads() {
  using get_fn = int (*)();
  auto get = reinterpret_cast<get_fn>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
  return get == nullptr ? 0 : get();
}

absl::Status set_onednn_threads(int n) {
  using set_fn = void (*)(int);
  auto set = reinterpret_cast<set_fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (set == nullptr) return absl::UnavailableError("oneDNN's OpenMP runtime is not loaded (no omp_set_num_threads)");
  set(n);
  return absl::OkStatus();
}

absl::StatusOr<onednn_result> run_onednn(driver_kind driver, const resolved& r, const run_settings& s,
                                         const onednn_inputs* io) {
  try {
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream strm(eng);
    onednn_result out;
    buffers mem;
    if (driver == driver_kind::reorder) {
      const resolved_reorder& o = r.reorder;
      if (!o.src_strides.empty() || !o.dst_strides.empty()) {
        return absl::UnimplementedError("--strides is not mapped to oneDNN by the driver");
      }
      if (o.attr.dst_scales || o.attr.src_zero_points || o.attr.dst_zero_points) {
        return absl::UnimplementedError(
            "oneDNN 2.6.3 has no dst scales; zero points are not mapped by the driver");
      }
      if (o.attr.src_scales && (!o.attr.src_scales->groups.empty() ||
                                o.attr.src_scales->dt != data_type::undef)) {
        return absl::UnimplementedError("oneDNN 2.6.3 has no grouped or non-f32 scales");
      }
      auto smd = to_dnnl_desc(o.stag, r.dims, o.sdt);
      if (!smd.ok()) return smd.status();
      auto dmd = to_dnnl_desc(o.dtag, r.dims, o.ddt);
      if (!dmd.ok()) return dmd.status();
      dnnl::primitive_attr attr;
      if (o.attr.src_scales) attr.set_output_scales(o.attr.src_scales->mask, o.values.src_scales);
      if (o.attr.oscale) attr.set_output_scales(o.attr.oscale->mask, o.attr.oscale->values);
      if (o.attr.sum) {
        dnnl::post_ops po;
        po.append_sum(o.attr.sum->beta);
        attr.set_post_ops(po);
      }
      const size_t sb = smd->get_size(), db = dmd->get_size();
      const int64_t sets = buffer_sets(static_cast<int64_t>(sb + db), s);
      char* src = mem.make(sb * sets);
      char* dst = mem.make(db * sets);
      load_input(src, sb, sets, o.sdt, io, 0);
      std::memset(dst, 0, db * sets);
      if (io != nullptr && io->dst_init.first != nullptr) {
        for (int64_t k = 0; k < sets; ++k) {
          std::memcpy(dst + k * db, io->dst_init.first, std::min(db, static_cast<size_t>(io->dst_init.second)));
        }
      }
      dnnl::reorder::primitive_desc pd(eng, *smd, eng, *dmd, attr);
      dnnl::reorder prim(pd);
      std::vector<dnnl::memory> sm, dm;
      for (int64_t k = 0; k < sets; ++k) {
        sm.emplace_back(*smd, eng, src + k * sb);
        dm.emplace_back(*dmd, eng, dst + k * db);
      }
      out.impl = impl_of(pd);
      out.bytes_moved = static_cast<int64_t>(sb + db) + (o.attr.sum ? static_cast<int64_t>(db) : 0);
      auto run = [&](int64_t k) {
        prim.execute(strm, sm[k], dm[k]);
        strm.wait();
      };
      if (io != nullptr) {
        run(0);
        out.output.assign(dst, dst + db);
        // Later sets start from the same destination as set 0 did (the sum reads it).
        if (io->dst_init.first != nullptr) {
          std::memcpy(dst, io->dst_init.first, std::min(db, static_cast<size_t>(io->dst_init.second)));
        }
      }
      if (s.performance) set_times(measure(run, sets, s), &out);
      return out;
    }
    const resolved_softmax& o = r.softmax;
    if (o.sdt != o.ddt) {
      return absl::UnimplementedError("oneDNN 2.6.3's softmax needs equal src and dst types");
    }
    // oneDNN 2.6.3 has no accumulation mode; Tessera's softmax gives the same bits in every one.
    primitive_attr mapped = o.attr;
    mapped.acc_mode = accumulation_mode::strict;
    if (!mapped.empty()) return absl::UnimplementedError("softmax attributes are not mapped to oneDNN");
    auto smd = to_dnnl_desc(o.stag, r.dims, o.sdt);
    if (!smd.ok()) return smd.status();
    dnnl::memory::desc dmd = *smd;
    if (o.dtag != "any") {
      auto d = to_dnnl_desc(o.dtag, r.dims, o.ddt);
      if (!d.ok()) return d.status();
      dmd = *d;
    }
    if (dmd != *smd) return absl::UnimplementedError("oneDNN 2.6.3's softmax needs equal src and dst layouts");
    if (o.alg == "softmax_inf_as_zero") return absl::UnimplementedError("oneDNN 2.6.3 has no inf_as_zero softmax");
    if (o.axis < 0 || o.axis >= static_cast<int>(r.dims.size())) return absl::InvalidArgumentError("axis out of range");
    const size_t b = smd->get_size();
    const bool fwd = o.dir == softmax_dir::forward;
    const int nbuf = fwd ? (o.inplace ? 1 : 2) : (o.inplace ? 2 : 3);
    const int64_t sets = buffer_sets(static_cast<int64_t>(b) * nbuf, s);
    std::vector<char*> bufs;
    for (int i = 0; i < 3; ++i) {
      bufs.push_back(mem.make(b * sets));
      load_input(bufs.back(), b, sets, o.sdt, io, static_cast<size_t>(i));
    }
    auto mems = [&](int i) {
      std::vector<dnnl::memory> v;
      for (int64_t k = 0; k < sets; ++k) v.emplace_back(*smd, eng, bufs[i] + k * b);
      return v;
    };
    std::vector<dnnl::memory> m0 = mems(0), m1 = mems(1), m2 = mems(2);
    const bool log = o.alg == "logsoftmax";
    out.bytes_moved = static_cast<int64_t>(b) * (fwd ? 2 : 3);
    dnnl::primitive prim;
    std::function<void(int64_t)> run;
    if (log) {
      dnnl::logsoftmax_forward::primitive_desc fpd(
          {dnnl::prop_kind::forward_training, *smd, o.axis}, eng);
      if (fwd) {
        prim = dnnl::logsoftmax_forward(fpd);
        out.impl = impl_of(fpd);
      } else {
        dnnl::logsoftmax_backward::primitive_desc bpd({*smd, *smd, o.axis}, eng, fpd);
        prim = dnnl::logsoftmax_backward(bpd);
        out.impl = impl_of(bpd);
      }
    } else {
      dnnl::softmax_forward::primitive_desc fpd({dnnl::prop_kind::forward_training, *smd, o.axis}, eng);
      if (fwd) {
        prim = dnnl::softmax_forward(fpd);
        out.impl = impl_of(fpd);
      } else {
        dnnl::softmax_backward::primitive_desc bpd({*smd, *smd, o.axis}, eng, fpd);
        prim = dnnl::softmax_backward(bpd);
        out.impl = impl_of(bpd);
      }
    }
    if (fwd) {
      run = [&](int64_t k) {
        prim.execute(strm, {{DNNL_ARG_SRC, m0[k]}, {DNNL_ARG_DST, o.inplace ? m0[k] : m1[k]}});
        strm.wait();
      };
    } else {
      run = [&](int64_t k) {
        prim.execute(strm, {{DNNL_ARG_DST, m0[k]}, {DNNL_ARG_DIFF_DST, m1[k]},
                            {DNNL_ARG_DIFF_SRC, o.inplace ? m1[k] : m2[k]}});
        strm.wait();
      };
    }
    if (io != nullptr) {
      run(0);
      const char* result = fwd ? bufs[o.inplace ? 0 : 1] : bufs[o.inplace ? 1 : 2];
      out.output.assign(result, result + b);
    }
    if (s.performance) set_times(measure(run, sets, s), &out);
    return out;
  } catch (const dnnl::error& e) {
    return absl::UnimplementedError(absl::StrCat("oneDNN 2.6.3 refused the problem: ", e.what()));
  }
}

}  // namespace tessera::bench
