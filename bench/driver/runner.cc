#include "bench/driver/runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/driver/low_precision_buffers.h"
#include "bench/driver/measure.h"
#include "bench/driver/onednn_runner.h"
#include "bench/driver/post_ops_knob.h"
#include "tessera/core/convert.h"
#include "tessera/core/low_precision.h"
#include "tessera/core/memory_desc.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/common/quant_args.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/testing/fill.h"
#include "tessera/testing/index.h"
#include "tessera/testing/reorder/reference.h"
#include "tessera/testing/softmax/softmax_reference.h"

namespace tessera::bench {
namespace {

// A zeroed, 64-byte aligned buffer of `sets` copies of `bytes` (the cold-cache rotation).
class buffer_set {
 public:
  buffer_set(int64_t bytes, int64_t sets)
      : bytes_(bytes), stride_((std::max<int64_t>(bytes, 1) + 63) / 64 * 64), sets_(sets) {
    data_.reset(static_cast<char*>(std::aligned_alloc(64, static_cast<size_t>(stride_ * sets_))));
    std::memset(data_.get(), 0, static_cast<size_t>(stride_ * sets_));
  }
  char* at(int64_t set) { return data_.get() + set * stride_; }
  int64_t bytes() const { return bytes_; }
  int64_t sets() const { return sets_; }
  // Copies set 0 into every other set.
  void replicate() {
    for (int64_t k = 1; k < sets_; ++k) std::memcpy(at(k), at(0), static_cast<size_t>(bytes_));
  }

 private:
  struct free_deleter {
    void operator()(char* p) const { std::free(p); }
  };
  int64_t bytes_, stride_, sets_;
  std::unique_ptr<char, free_deleter> data_;
};

int64_t element_bytes(data_type dt) { return bits_of(dt) / 8; }

// benchdnn's memory check: a problem whose buffers (inputs, outputs, the reference's copies and,
// when timing, the cold-cache sets) need more than half of the machine's RAM is SKIPPED rather
// than left to fail allocation. Sizes in doubles: they may exceed int64 for absurd dims.
std::string memory_check(const run_settings& s, double bytes) {
  if (!s.mem_check) return "";
  const double ram = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  if (ram <= 0 || bytes <= ram / 2) return "";
  return absl::StrFormat("needs %.1f GiB of buffers, more than half of this machine's %.1f GiB of RAM",
                         bytes / (1 << 30), ram / (1 << 30));
}

double set_bytes_if_timed(double per_set, const run_settings& s) {
  if (!s.performance) return 0;
  return per_set * static_cast<double>(buffer_sets(static_cast<int64_t>(std::min(per_set, 9e18)), s));
}

// UNIMPLEMENTED when the library says it has no implementation for the combination, SKIPPED
// when --impl/--skip-impl left none (benchdnn's rule; OutOfRange from create_with_choice), else
// INVALID_ARGUMENTS with the Status text.
outcome creation_failure(const absl::Status& s) {
  outcome o;
  if (s.code() == absl::StatusCode::kOutOfRange) {
    o.st = status::skipped;
    o.reason = std::string(s.message());
    return o;
  }
  o.st = (s.code() == absl::StatusCode::kUnimplemented || s.code() == absl::StatusCode::kNotFound)
             ? status::unimplemented
             : status::invalid_arguments;
  o.reason = std::string(s.message());
  return o;
}

// Runs create() twice when timing (benchdnn's %ctime%): the first call builds the primitive
// (unless an earlier problem cached it), the second finds it in the primitive cache.
template <class F>
auto timed_create(const run_settings& s, F create, double* miss_ms, double* hit_ms) {
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  auto p = create();
  *miss_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  if (s.performance && p.ok()) {
    t0 = clock::now();
    auto again = create();
    *hit_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  }
  return p;
}

// --mode=I stops after creation; --check-ref-impl fails a problem that runs a ref:* kernel.
std::optional<outcome> after_creation(const run_settings& s, const std::string& impl) {
  outcome o;
  o.impl = impl;
  if (s.check_ref_impl && absl::StartsWith(impl, "ref")) {
    o.st = status::failed;
    o.reason = "--check-ref-impl=true: the reference implementation was chosen";
    return o;
  }
  if (s.init_only) {
    o.st = status::initialized;
    return o;
  }
  return std::nullopt;
}

outcome skipped(std::string reason) {
  outcome o;
  o.st = status::skipped;
  o.reason = std::move(reason);
  return o;
}

// --impl / --skip-impl: comma lists of substrings of impl names.
struct impl_choice {
  std::vector<std::string> want, skip;
  bool any() const { return !want.empty() || !skip.empty(); }
  bool allows(const std::string& name) const {
    for (const auto& s : skip) {
      if (absl::StrContains(name, s)) return false;
    }
    if (want.empty()) return true;
    for (const auto& w : want) {
      if (absl::StrContains(name, w)) return true;
    }
    return false;
  }
};

impl_choice choice_of(const resolved& r) {
  impl_choice c;
  for (absl::string_view v : absl::StrSplit(r.impl, ',', absl::SkipEmpty())) c.want.emplace_back(v);
  for (absl::string_view v : absl::StrSplit(r.skip_impl, ',', absl::SkipEmpty())) c.skip.emplace_back(v);
  return c;
}

// Creates with the first kernel (in the library's order) that --impl/--skip-impl allow and that
// accepts the problem, each forced through the primitive's impl filter.
template <class P>
absl::StatusOr<P> create_with_choice(const impl_choice& c, const std::vector<std::string>& names,
                                     const std::function<absl::StatusOr<P>(const std::string&)>& create) {
  if (!c.any()) return create("");
  std::vector<std::string> refusals;
  // The --impl texts themselves first (they may name kernels more precisely than our list), then
  // the list; the name actually chosen must pass both lists.
  std::vector<std::string> filters = c.want;
  filters.insert(filters.end(), names.begin(), names.end());
  for (const std::string& name : filters) {
    if (!c.allows(name) && !absl::c_linear_search(c.want, name)) continue;
    absl::StatusOr<P> p = create(name);
    if (p.ok() && !c.allows(p->impl_name())) continue;
    if (p.ok()) return p;
    if (p.status().code() == absl::StatusCode::kInvalidArgument) return p.status();
    refusals.push_back(std::string(p.status().message()));
  }
  return absl::OutOfRangeError(absl::StrCat(
      "no implementation allowed by --impl/--skip-impl accepts the problem",
      refusals.empty() ? "" : ": ", absl::StrJoin(refusals, " | ")));
}

absl::StatusOr<memory_desc> desc_of(const std::vector<int64_t>& dims, data_type dt, const std::string& tag,
                                    const std::vector<int64_t>& strides) {
  if (!strides.empty()) return memory_desc::with_strides(dims, dt, strides);
  return make_memory_desc(dims, dt, tag);
}

// The dims a reorder is created with under --runtime-dim-mask: the masked ones run-time (strides
// from a tag follow; --strides stay as given, as benchdnn passes them).
std::vector<int64_t> creation_dims(const std::vector<int64_t>& dims, int64_t mask) {
  std::vector<int64_t> out = dims;
  for (size_t d = 0; d < dims.size() && d < 63; ++d) {
    if (mask & (int64_t{1} << d)) out[d] = kRuntimeDim;
  }
  return out;
}

// Overlays the conversion probes of sdt -> ddt (saturation bounds, ties, Inf, NaN, denormals)
// on a random tensor: one full run of the probe values in every fourth block of that length,
// keyed on the logical index like the fills, so every layout sees them at the same places.
absl::Status overlay_probes(const memory_desc& md, char* data, data_type ddt) {
  const int64_t n = static_cast<int64_t>(testing::probe_values(md.dt(), ddt).size());
  if (n == 0 || md.nelems() == 0) return absl::OkStatus();
  std::vector<char> probe(static_cast<size_t>(md.size_bytes()));
  if (absl::Status s = testing::fill_probe(md, probe.data(), ddt); !s.ok()) return s;
  const int64_t es = element_bytes(md.dt());
  testing::for_each_index(md.dims(), [&](absl::Span<const dim_t> idx) {
    if ((testing::linear_index(md.dims(), idx) / n) % 4 != 0) return;
    const int64_t off = testing::offset_of(md, idx) * es;
    std::memcpy(data + off, probe.data() + off, static_cast<size_t>(es));
  });
  return absl::OkStatus();
}

// The first logical element whose bytes differ between two buffers of md, or (when only bytes
// outside the logical elements differ) the first such byte.
std::string first_difference(const memory_desc& md, const char* got, const char* want, const char* got_name,
                             const char* want_name) {
  if (is_low_precision(md.dt())) return first_code_difference(md, got, want, got_name, want_name);
  const int64_t es = element_bytes(md.dt());
  int64_t differing = 0;
  std::vector<dim_t> first;
  testing::for_each_index(md.dims(), [&](absl::Span<const dim_t> idx) {
    const int64_t off = testing::offset_of(md, idx) * es;
    if (std::memcmp(got + off, want + off, static_cast<size_t>(es)) == 0) return;
    if (differing++ == 0) first.assign(idx.begin(), idx.end());
  });
  if (differing == 0) {
    for (int64_t b = 0; b < md.size_bytes(); ++b) {
      if (got[b] != want[b]) {
        return absl::StrFormat("byte %d outside the logical elements (padding or gap) differs: %s 0x%02x, %s 0x%02x",
                               b, got_name, static_cast<uint8_t>(got[b]), want_name, static_cast<uint8_t>(want[b]));
      }
    }
    return "";
  }
  const std::vector<double> g = testing::read_logical(md, got), w = testing::read_logical(md, want);
  const int64_t li = testing::linear_index(md.dims(), first);
  auto bits = [&](const char* p) {
    uint64_t v = 0;
    std::memcpy(&v, p + testing::offset_of(md, first) * es, static_cast<size_t>(es));
    return v;
  };
  return absl::StrFormat("%d of %d elements differ; first at %s: %s %.9g (0x%x), %s %.9g (0x%x)", differing,
                         md.nelems(), testing::index_string(first), got_name, g[li], bits(got), want_name, w[li],
                         bits(want));
}

// Tessera's timing, GB/s and fraction of a same-run memcpy of the same bytes (read ibytes,
// written obytes per call).
perf_figures time_tessera(const std::function<void(int64_t)>& run, int64_t sets, int64_t ibytes, int64_t obytes,
                          const run_settings& s) {
  perf_figures p;
  p.threads = num_threads();
  p.ibytes = ibytes;
  p.obytes = obytes;
  p.buffer_sets = sets;
  const int64_t bytes_moved = ibytes + obytes;
  const timing t = measure(run, sets, s);
  p.median_ms = t.median_ms;
  p.min_ms = t.min_ms;
  p.avg_ms = t.avg_ms;
  p.max_ms = t.max_ms;
  p.gbps = p.median_ms > 0 ? static_cast<double>(bytes_moved) / (p.median_ms * 1e6) : 0;
  // memcpy of half the bytes reads and writes them: the same traffic.
  const double copy_ms = memcpy_ms(bytes_moved / 2, s);
  p.copy_frac = p.median_ms > 0 ? copy_ms / p.median_ms : 0;
  return p;
}

void add_onednn(const parsed_problem& pp, const resolved& r, const onednn_inputs& io,
                const std::function<void(const std::vector<char>&, outcome&)>& check, outcome& o) {
  auto d = run_onednn(pp.prb.driver, r, pp.settings, &io);
  if (!d.ok()) {
    o.note = absl::StrCat("oneDNN not run: ", d.status().message());
    return;
  }
  o.onednn_impl = d->impl;
  if (pp.settings.performance) {
    o.onednn_ms = d->median_ms;
    o.onednn_min_ms = d->min_ms;
    o.onednn_avg_ms = d->avg_ms;
  }
  check(d->output, o);
}

// ---------------------------------------------------------------------------------------------
// Reorder.

// The type a zero-point attribute's values are given in at execution.
data_type zero_point_type_of(const std::optional<quant_param>& q) {
  return q ? quant_value_type(arg::src_zero_points, *q) : data_type::s32;
}
data_type scale_type_of(const std::optional<quant_param>& q) {
  return q ? quant_value_type(arg::src_scales, *q) : data_type::f32;
}

// Scales as the bytes of type dt (f32, f16, bf16 or e8m0; the generated values, powers of two,
// are exact in each).
std::vector<char> scales_as(data_type dt, const std::vector<float>& values) {
  std::vector<char> bytes(std::max<size_t>(values.size() * (bits_of(dt) / 8), 1));
  for (size_t i = 0; i < values.size(); ++i) {
    if (dt == data_type::e8m0) {
      store_code(dt, bytes.data(), static_cast<int64_t>(i), low_precision_from_f32(dt, values[i]));
    } else if (dt == data_type::f16) {
      const f16 v = from_f32<f16>(values[i]);
      std::memcpy(bytes.data() + 2 * i, &v, 2);
    } else if (dt == data_type::bf16) {
      const bf16 v = from_f32<bf16>(values[i]);
      std::memcpy(bytes.data() + 2 * i, &v, 2);
    } else {
      std::memcpy(bytes.data() + 4 * i, &values[i], 4);
    }
  }
  return bytes;
}

// Zero points as the bytes of type dt (s32, s8, u8, or s4 / u4 two per byte; the resolver keeps
// values in range).
std::vector<char> zero_points_as(data_type dt, const std::vector<int32_t>& values) {
  std::vector<char> bytes(std::max<size_t>((values.size() * bits_of(dt) + 7) / 8, 1));
  for (size_t i = 0; i < values.size(); ++i) {
    if (bits_of(dt) == 4) {
      store_code(dt, bytes.data(), static_cast<int64_t>(i), static_cast<uint8_t>(values[i] & 0xF));
    } else if (dt == data_type::s32) {
      std::memcpy(bytes.data() + 4 * i, &values[i], 4);
    } else {
      bytes[i] = static_cast<char>(static_cast<uint8_t>(values[i]));
    }
  }
  return bytes;
}

// Random src (with the conversion probes overlaid) and dst. Low-precision buffers get random
// codes; a float src for an integer dst spans past the dst's range, so saturation is exercised.
absl::Status fill_reorder_inputs(const memory_desc& src_md, const memory_desc& dst_md, char* src,
                                 char* dst_init) {
  const data_type sdt = src_md.dt(), ddt = dst_md.dt();
  testing::fill_options fo{.seed = 11};
  if (!is_integral(sdt) && is_integral(ddt)) {
    fo.lo = bits_of(ddt) == 4 ? -20 : -300;
    fo.hi = -*fo.lo;
  }
  if (is_low_precision(sdt)) {
    fill_codes(src_md, src, 11);
  } else {
    if (absl::Status st = testing::fill_random(src_md, src, fo); !st.ok()) return st;
    if (!is_low_precision(ddt)) {
      if (absl::Status st = overlay_probes(src_md, src, ddt); !st.ok()) return st;
    }
  }
  if (is_low_precision(ddt)) {
    fill_codes(dst_md, dst_init, 23);
    return absl::OkStatus();
  }
  return testing::fill_random(dst_md, dst_init, {.seed = 23, .padding_byte = 0});
}

outcome run_reorder(const parsed_problem& pp, const resolved& r) {
  const resolved_reorder& q = r.reorder;
  const run_settings& s = pp.settings;
  auto src_md = desc_of(r.dims, q.sdt, q.stag, q.src_strides);
  if (!src_md.ok()) return creation_failure(absl::InvalidArgumentError(src_md.status().message()));
  auto dst_md = desc_of(r.dims, q.ddt, q.dtag, q.dst_strides);
  if (!dst_md.ok()) return creation_failure(absl::InvalidArgumentError(dst_md.status().message()));
  // The descriptors of creation: src_md and dst_md, or their patterns under --runtime-dim-mask.
  const std::vector<int64_t> pattern_dims = creation_dims(r.dims, q.runtime_dim_mask);
  auto src_pattern = desc_of(pattern_dims, q.sdt, q.stag, q.src_strides);
  if (!src_pattern.ok()) return creation_failure(absl::InvalidArgumentError(src_pattern.status().message()));
  auto dst_pattern = desc_of(pattern_dims, q.ddt, q.dtag, q.dst_strides);
  if (!dst_pattern.ok()) return creation_failure(absl::InvalidArgumentError(dst_pattern.status().message()));
  if (q.dst_extra.flags != extra_flags::none) {  // --oflag: the runtime mask is 0 (resolve)
    dst_md = dst_md->with_extra(q.dst_extra);
    if (!dst_md.ok()) return creation_failure(absl::InvalidArgumentError(dst_md.status().message()));
    dst_pattern = dst_md;
  }

  double ctime_miss = 0, ctime_hit = 0;
  auto prim = timed_create(s, [&] {
    return create_with_choice<reorder>(choice_of(r), reorder_kernel_names(), [&](const std::string& filter) {
      return filter.empty() ? reorder::create(*src_pattern, *dst_pattern, q.attr)
                            : reorder::create(*src_pattern, *dst_pattern, q.attr, reorder_options{.impl_filter = filter});
    });
  }, &ctime_miss, &ctime_hit);
  if (!prim.ok()) return creation_failure(prim.status());
  if (auto stop = after_creation(s, prim->impl_name())) return *stop;

  const int64_t sb = src_md->size_bytes(), db = dst_md->size_bytes();
  if (std::string why = memory_check(s, 3.0 * sb + 4.0 * db + 16.0 * static_cast<double>(dst_md->nelems()) +
                                     set_bytes_if_timed(static_cast<double>(sb) + db, s));
      !why.empty()) {
    return skipped(why);
  }
  outcome o;
  o.impl = prim->impl_name();

  // Inputs: random values over the types' ranges with the conversion probes overlaid; the
  // destination starts random too, so that a sum post-op has something to add to.
  std::vector<char> src(static_cast<size_t>(std::max<int64_t>(sb, 1))), dst_init(static_cast<size_t>(std::max<int64_t>(db, 1)));
  if (absl::Status st = fill_reorder_inputs(*src_md, *dst_md, src.data(), dst_init.data()); !st.ok()) {
    return creation_failure(absl::InvalidArgumentError(absl::StrCat("fill: ", st.message())));
  }

  // Attribute values as memories.
  std::vector<char> src_scales = scales_as(scale_type_of(q.attr.src_scales), q.values.src_scales);
  std::vector<char> dst_scales = scales_as(scale_type_of(q.attr.dst_scales), q.values.dst_scales);
  std::vector<char> src_zps = zero_points_as(zero_point_type_of(q.attr.src_zero_points), q.values.src_zero_points);
  std::vector<char> dst_zps = zero_points_as(zero_point_type_of(q.attr.dst_zero_points), q.values.dst_zero_points);
  exec_args quant;
  auto add_values = [&](arg a, bool present, void* data, int64_t n, data_type dt) {
    if (!present) return;
    quant.set(a, memory{*memory_desc::with_strides({n}, dt, {1}), data});
  };
  add_values(arg::src_scales, q.attr.src_scales.has_value(), src_scales.data(),
             static_cast<int64_t>(q.values.src_scales.size()), scale_type_of(q.attr.src_scales));
  add_values(arg::dst_scales, q.attr.dst_scales.has_value(), dst_scales.data(),
             static_cast<int64_t>(q.values.dst_scales.size()), scale_type_of(q.attr.dst_scales));
  add_values(arg::src_zero_points, q.attr.src_zero_points.has_value(), src_zps.data(),
             static_cast<int64_t>(q.values.src_zero_points.size()), zero_point_type_of(q.attr.src_zero_points));
  add_values(arg::dst_zero_points, q.attr.dst_zero_points.has_value(), dst_zps.data(),
             static_cast<int64_t>(q.values.dst_zero_points.size()), zero_point_type_of(q.attr.dst_zero_points));
  int32_t seed = static_cast<int32_t>(q.values.rounding_seed);
  add_values(arg::attr_rounding_seed, q.attr.dst_rounding == rounding_mode::stochastic, &seed, 1,
             data_type::s32);
  auto args_for = [&](char* from, char* to) {
    exec_args a = quant;
    a.set(arg_from, memory{*src_md, from});
    a.set(arg_to, memory{*dst_md, to});
    return a;
  };

  const int64_t sets = s.performance ? buffer_sets(sb + db, s) : 1;
  buffer_set srcs(sb, sets), dsts(db, sets);
  std::memcpy(srcs.at(0), src.data(), static_cast<size_t>(sb));
  std::memcpy(dsts.at(0), dst_init.data(), static_cast<size_t>(db));
  srcs.replicate();
  dsts.replicate();

  if (absl::Status st = prim->execute(args_for(srcs.at(0), dsts.at(0))); !st.ok()) {
    o.st = st.code() == absl::StatusCode::kInvalidArgument ? status::invalid_arguments : status::failed;
    o.reason = absl::StrCat("execute: ", st.message());
    return o;
  }
  const std::vector<char> got(dsts.at(0), dsts.at(0) + db);

  o.st = status::executed;
  if (s.correctness) {
    std::vector<char> want = dst_init;
    absl::Status st = testing::reference_reorder(memory{*src_md, src.data()}, memory{*dst_md, want.data()}, q.attr, quant);
    if (!st.ok()) {
      o.st = status::failed;
      o.reason = absl::StrCat("the scalar reference refused a problem Tessera ran: ", st.message());
      return o;
    }
    std::string diff = first_difference(*dst_md, got.data(), want.data(), "got", "want");
    o.st = diff.empty() ? status::passed : status::failed;
    o.reason = diff;
  }

  if (s.performance) {
    // Later sets start from the initial destination (a sum reads it).
    std::memcpy(dsts.at(0), dst_init.data(), static_cast<size_t>(db));
    std::vector<exec_args> per_set;
    for (int64_t k = 0; k < sets; ++k) per_set.push_back(args_for(srcs.at(k), dsts.at(k)));
    o.perf = time_tessera([&](int64_t k) { (void)prim->execute(per_set[k]); }, sets, sb + (q.attr.sum ? db : 0),
                          db, s);
    o.perf->ctime_miss_ms = ctime_miss;
    o.perf->ctime_hit_ms = ctime_hit;
  }

  if (s.compare_onednn) {
    onednn_inputs io;
    io.inputs = {{src.data(), sb}};
    io.dst_init = {dst_init.data(), db};
    add_onednn(pp, r, io, [&](const std::vector<char>& theirs, outcome& out) {
      if (static_cast<int64_t>(theirs.size()) != db) {
        out.onednn_agrees = false;
        out.note = absl::StrCat("oneDNN 2.6.3's destination has ", theirs.size(), " bytes, Tessera's ", db);
        return;
      }
      std::string diff = first_difference(*dst_md, theirs.data(), got.data(), "oneDNN", "Tessera");
      out.onednn_agrees = diff.empty();
      if (!diff.empty()) out.note = absl::StrCat("oneDNN 2.6.3 differs from Tessera (bit-exact check): ", diff);
    }, o);
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// Softmax.

absl::StatusOr<softmax_alg> alg_of(const std::string& name) {
  if (name == "softmax") return softmax_alg::softmax;
  if (name == "logsoftmax") return softmax_alg::logsoftmax;
  if (name == "softmax_inf_as_zero") return softmax_alg::softmax_inf_as_zero;
  return absl::InvalidArgumentError(absl::StrCat("unknown softmax algorithm '", name, "'"));
}

// benchdnn's forward fill (driver_softmax.md): each row has one dominant element, at position
// axis - 1 - (row % axis); odd rows test a negative maximum (-1), even rows one past exp's
// overflow (88, or the int8 type's top) so that a missing max subtraction shows. The others sit
// 8 to 16 below it: outputs are dominated by one element, as int8 destinations need, yet the rest
// stay non-zero in f32.
absl::Status fill_softmax_source(const memory_desc& md, void* data, int axis) {
  const int64_t n = md.nelems();
  int64_t inner = 1;
  for (int d = axis + 1; d < md.rank(); ++d) inner *= md.dims()[d];
  const int64_t axis_size = md.dims()[axis];
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t li = 0; li < n; ++li) {
    const int64_t j = (li / inner) % axis_size;
    const int64_t row = li / (inner * axis_size) * inner + li % inner;
    const bool positive = row % 2 == 0 || md.dt() == data_type::u8;
    double top = -1;
    if (positive) top = md.dt() == data_type::s8 ? 127 : md.dt() == data_type::u8 ? 255 : 88;
    uint64_t h = static_cast<uint64_t>(li) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    const double below = 8 + static_cast<double>(h % 33) / 4;  // [8, 16] in quarter steps
    values[static_cast<size_t>(li)] = j == axis_size - 1 - row % axis_size ? top : top - below;
  }
  testing::write_logical(md, data, values);
  return absl::OkStatus();
}

outcome run_softmax(const parsed_problem& pp, const resolved& r) {
  const resolved_softmax& q = r.softmax;
  const run_settings& s = pp.settings;
  const bool fwd = q.dir == softmax_dir::forward;
  auto alg = alg_of(q.alg);
  if (!alg.ok()) return creation_failure(alg.status());
  if (q.axis < 0 || q.axis >= static_cast<int>(r.dims.size())) {
    return creation_failure(absl::InvalidArgumentError(
        absl::StrCat("--axis=", q.axis, " is not a dim of the ", r.dims.size(), "-d problem")));
  }
  // Forward: src (sdt, stag) -> dst (ddt, dtag). Backward (benchdnn): dst and diff_dst are
  // (ddt, dtag), diff_src is (sdt, stag); dtag "any" means the other side's layout.
  const std::string src_tag = q.stag == "any" && q.dtag != "any" ? q.dtag : q.stag;
  auto src_md = make_memory_desc(r.dims, q.sdt, src_tag);
  if (!src_md.ok()) return creation_failure(absl::InvalidArgumentError(src_md.status().message()));
  auto dst_md = q.dtag == "any" ? memory_desc::any(r.dims, q.ddt) : make_memory_desc(r.dims, q.ddt, q.dtag);
  if (!dst_md.ok()) return creation_failure(absl::InvalidArgumentError(dst_md.status().message()));
  if (!fwd && q.dtag == "any") dst_md = make_memory_desc(r.dims, q.ddt, src_tag);
  if (!dst_md.ok()) return creation_failure(absl::InvalidArgumentError(dst_md.status().message()));

  std::vector<std::string> names = softmax_kernel_names();
  const impl_choice choice = choice_of(r);
  std::optional<softmax_forward> f;
  std::optional<softmax_backward> b;
  double ctime_miss = 0, ctime_hit = 0;
  if (fwd) {
    auto p = timed_create(s, [&] {
      return create_with_choice<softmax_forward>(choice, names, [&](const std::string& filter) {
        return softmax_forward::create(*alg, *src_md, *dst_md, q.axis, q.attr, {.impl_filter = filter});
      });
    }, &ctime_miss, &ctime_hit);
    if (!p.ok()) return creation_failure(p.status());
    f = *std::move(p);
  } else {
    auto p = timed_create(s, [&] {
      return create_with_choice<softmax_backward>(choice, names, [&](const std::string& filter) {
        return softmax_backward::create(*alg, *src_md, *dst_md, *dst_md, q.axis, q.attr, {.impl_filter = filter});
      });
    }, &ctime_miss, &ctime_hit);
    if (!p.ok()) return creation_failure(p.status());
    b = *std::move(p);
  }
  if (auto stop = after_creation(s, fwd ? f->impl_name() : b->impl_name())) return *stop;
  // in: the tensor read (src / dst), in2: diff_dst (backward), out: dst / diff_src.
  const memory_desc in_md = fwd ? *src_md : b->dst_desc();
  const memory_desc out_md = fwd ? f->dst_desc() : b->diff_src_desc();
  if (q.inplace && !(fwd ? in_md == out_md : b->diff_dst_desc() == out_md)) {
    return skipped("--inplace=true: in-place needs equal input and output types and layouts");
  }
  {
    const double io_bytes = static_cast<double>(in_md.size_bytes()) + out_md.size_bytes() +
                            (fwd ? 0.0 : b->diff_dst_desc().size_bytes());
    if (std::string why = memory_check(s, 2 * io_bytes + 32.0 * static_cast<double>(out_md.nelems()) +
                                       set_bytes_if_timed(io_bytes, s));
        !why.empty()) {
      return skipped(why);
    }
  }
  outcome o;
  o.impl = fwd ? f->impl_name() : b->impl_name();

  const int64_t in_b = in_md.size_bytes(), out_b = out_md.size_bytes();
  std::vector<char> in(static_cast<size_t>(std::max<int64_t>(in_b, 1))), in2;
  // benchdnn's ranges (driver_softmax.md): forward sources spread over [-16, 16] (full range for
  // int8) so rows have negative and positive maxima; backward dst and diff_dst are both negative,
  // so the sum and the subtraction have the same sign and the output cannot hide cancellation.
  testing::fill_options fo{.seed = 5, .padding_byte = 0};
  if (!fwd) {
    fo.lo = -1;
    fo.hi = -1.0 / 128;
  }
  absl::Status filled = fwd ? fill_softmax_source(in_md, in.data(), q.axis) : testing::fill_random(in_md, in.data(), fo);
  if (absl::Status st = filled; !st.ok()) {
    return creation_failure(absl::InvalidArgumentError(absl::StrCat("fill: ", st.message())));
  }
  if (!fwd) {
    in2.resize(static_cast<size_t>(std::max<int64_t>(b->diff_dst_desc().size_bytes(), 1)));
    if (absl::Status st = testing::fill_random(b->diff_dst_desc(), in2.data(), {.seed = 6, .padding_byte = 0, .lo = -1, .hi = -1.0 / 128});
        !st.ok()) {
      return creation_failure(absl::InvalidArgumentError(absl::StrCat("fill: ", st.message())));
    }
  }

  float src_scale = 1.f, dst_scale = 1.f;
  if (!q.values.src_scales.empty()) src_scale = q.values.src_scales[0];
  if (!q.values.dst_scales.empty()) dst_scale = q.values.dst_scales[0];
  double out_scale = static_cast<double>(src_scale) / dst_scale;
  if (q.attr.oscale && !q.attr.oscale->values.empty()) out_scale *= q.attr.oscale->values[0];

  // Buffers: set k holds in (and in2) and out; in place, out is the in (fwd) / in2 (bwd) buffer.
  const int64_t in2_b = static_cast<int64_t>(in2.size());
  const int64_t set_bytes = in_b + (fwd ? 0 : in2_b) + (q.inplace ? 0 : out_b);
  const int64_t sets = s.performance ? buffer_sets(set_bytes, s) : 1;
  buffer_set ins(in_b, sets), ins2(fwd ? 0 : in2_b, sets), outs(q.inplace ? 0 : out_b, sets);
  auto reload = [&](int64_t k) {
    std::memcpy(ins.at(k), in.data(), static_cast<size_t>(in_b));
    if (!fwd) std::memcpy(ins2.at(k), in2.data(), static_cast<size_t>(in2_b));
  };
  for (int64_t k = 0; k < sets; ++k) reload(k);
  auto out_of = [&](int64_t k) -> char* { return q.inplace ? (fwd ? ins.at(k) : ins2.at(k)) : outs.at(k); };
  float scale_values[2] = {src_scale, dst_scale};
  const std::vector<std::vector<char>> operands = make_post_op_operands(q.attr.post_ops);
  auto args_for = [&](int64_t k) {
    exec_args a;
    if (fwd) {
      a.set(arg::src, memory{in_md, ins.at(k)});
      a.set(arg::dst, memory{out_md, out_of(k)});
    } else {
      a.set(arg::dst, memory{in_md, ins.at(k)});
      a.set(arg::diff_dst, memory{b->diff_dst_desc(), ins2.at(k)});
      a.set(arg::diff_src, memory{out_md, out_of(k)});
    }
    if (q.attr.src_scales) a.set(arg::src_scales, memory{*memory_desc::with_strides({1}, data_type::f32, {1}), &scale_values[0]});
    if (q.attr.dst_scales) a.set(arg::dst_scales, memory{*memory_desc::with_strides({1}, data_type::f32, {1}), &scale_values[1]});
    for (size_t i = 0; i < operands.size(); ++i) {
      if (!operands[i].empty()) {
        a.set(post_op_src1{static_cast<int>(i)},
              memory{q.attr.post_ops[i].src1, const_cast<char*>(operands[i].data())});
      }
    }
    return a;
  };
  auto execute = [&](int64_t k) { return fwd ? f->execute(args_for(k)) : b->execute(args_for(k)); };

  // The reference reads the pristine inputs (in place overwrites them).
  std::vector<double> want;
  if (s.correctness || s.compare_onednn) {
    if (!fwd) {
      want = testing::softmax_backward_reference(*alg, in_md, in.data(), b->diff_dst_desc(), in2.data(), q.axis);
    } else if (q.attr.post_ops.empty()) {
      want = testing::softmax_forward_reference(*alg, in_md, in.data(), q.axis, out_scale);
    } else {
      testing::softmax_reference_attr ref{.src_scale = out_scale * dst_scale, .dst_scale = dst_scale,
                                          .post_ops = q.attr.post_ops};
      for (const auto& op : operands) ref.post_op_src1.push_back(op.empty() ? nullptr : op.data());
      want = testing::softmax_forward_reference(*alg, in_md, in.data(), q.axis, ref);
    }
  }
  const testing::softmax_compare_setup cmp{
      .backward = !fwd, .alg = *alg, .dt = out_md.dt(), .axis_size = r.dims[q.axis]};

  if (absl::Status st = execute(0); !st.ok()) {
    o.st = st.code() == absl::StatusCode::kInvalidArgument ? status::invalid_arguments : status::failed;
    o.reason = absl::StrCat("execute: ", st.message());
    return o;
  }
  o.st = status::executed;
  if (s.correctness) {
    testing::softmax_compare_result v = testing::benchdnn_softmax_compare(cmp, want, testing::read_logical(out_md, out_of(0)));
    o.st = v.ok ? status::passed : status::failed;
    if (!v.ok) o.reason = v.message;
  }
  if (s.performance) {
    o.perf = time_tessera([&](int64_t k) { (void)execute(k); }, sets, in_b + (fwd ? 0 : in2_b), out_b, s);
    o.perf->ctime_miss_ms = ctime_miss;
    o.perf->ctime_hit_ms = ctime_hit;
  }
  if (s.compare_onednn) {
    onednn_inputs io;
    io.inputs = {{in.data(), in_b}};
    if (!fwd) io.inputs.push_back({in2.data(), in2_b});
    add_onednn(pp, r, io, [&](const std::vector<char>& theirs, outcome& out) {
      if (static_cast<int64_t>(theirs.size()) < out_b) {
        out.onednn_agrees = false;
        out.note = absl::StrCat("oneDNN 2.6.3's output has ", theirs.size(), " bytes, Tessera's ", out_b);
        return;
      }
      testing::softmax_compare_result v = testing::benchdnn_softmax_compare(cmp, want, testing::read_logical(out_md, theirs.data()));
      out.onednn_agrees = v.ok;
      if (!v.ok) out.note = absl::StrCat("oneDNN 2.6.3 fails benchdnn's rule against the f64 reference: ", v.message);
    }, o);
  }
  return o;
}

}  // namespace

outcome run_problem(const parsed_problem& pp, const resolved& r) {
  try {
    return pp.prb.driver == driver_kind::reorder ? run_reorder(pp, r) : run_softmax(pp, r);
  } catch (const std::bad_alloc&) {
    // The memory check above is an estimate; never let one problem end the batch.
    return skipped("out of memory allocating the problem's buffers");
  }
}

}  // namespace tessera::bench
