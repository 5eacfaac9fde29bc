// The C API's primitives: reorder and softmax creation, execution with {kind, data, md}
// arguments, and the queries.
#include <array>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "tessera/c/internal/api_support.h"
#include "tessera/c/tessera.h"
#include "tessera/primitives/common/memory.h"
#include "tessera/primitives/common/quant_args.h"

namespace {

using tessera_c::fail;
using tessera_c::require;

constexpr int kArgCount = static_cast<int>(tessera::arg::kCount);

const char* kind_name(const tessera_primitive& p) {
  switch (p.impl.index()) {
    case 0: return "a reorder";
    case 1: return "a softmax forward";
    default: return "a softmax backward";
  }
}

const char* tensor_args_text(const tessera_primitive& p) {
  return p.impl.index() == 2 ? "TESSERA_ARG_DIFF_SRC, TESSERA_ARG_DIFF_DST, TESSERA_ARG_DST"
                             : "TESSERA_ARG_SRC, TESSERA_ARG_DST";
}

// The descriptor the primitive was created with for tensor argument `a`, or nullptr when it
// takes no such argument.
const tessera::memory_desc* tensor_desc(const tessera_primitive& p, tessera::arg a) {
  using tessera::arg;
  return std::visit(
      [a](const auto& prim) -> const tessera::memory_desc* {
        using P = std::decay_t<decltype(prim)>;
        if constexpr (std::is_same_v<P, tessera::softmax_backward>) {
          if (a == arg::diff_src) return &prim.diff_src_desc();
          if (a == arg::diff_dst) return &prim.diff_dst_desc();
          if (a == arg::dst) return &prim.dst_desc();
        } else {
          if (a == arg::src) return &prim.src_desc();
          if (a == arg::dst) return &prim.dst_desc();
        }
        return nullptr;
      },
      p.impl);
}

// How many values a scale or zero-point argument holds when the caller gives no descriptor: what
// the reorder's attribute mask asks for over its dims; one otherwise (a softmax's scales are
// common, and an argument the attributes do not declare is rejected by the primitive anyway).
int64_t quant_count(const tessera_primitive& p, tessera::arg a) {
  const auto* r = std::get_if<tessera::reorder>(&p.impl);
  if (r == nullptr || !tessera::attr_declares(r->attr(), a)) return 1;
  return tessera::quant_value_count(tessera::quant_attr_of(r->attr(), a)->mask,
                                    r->dst_desc().dims());
}

// The descriptor an argument given without one has (tessera.h: tessera_exec_arg).
absl::StatusOr<tessera::memory_desc> implied_desc(const tessera_primitive& p, tessera::arg a) {
  if (tessera::is_quant_arg(a)) {
    const bool is_scale = a == tessera::arg::src_scales || a == tessera::arg::dst_scales;
    return tessera::memory_desc::with_strides(
        {quant_count(p, a)}, is_scale ? tessera::data_type::f32 : tessera::data_type::s32, {1});
  }
  const tessera::memory_desc* md = tensor_desc(p, a);
  return md != nullptr ? *md : tessera::memory_desc{};
}

tessera_status collect_args(const tessera_primitive& p, int nargs, const tessera_exec_arg* args,
                            tessera::exec_args& out) {
  constexpr const char* kFn = "tessera_primitive_execute";
  if (nargs < 0) {
    return fail(TESSERA_INVALID_ARGUMENT, absl::StrCat(kFn, ": nargs ", nargs, " is negative"));
  }
  if (nargs > 0) {
    if (auto s = require(args, kFn, "args")) return s;
  }
  std::array<int, kArgCount> seen_at;
  seen_at.fill(-1);
  for (int i = 0; i < nargs; ++i) {
    const int kind = tessera_c::raw_enum(args[i].kind);
    const std::optional<tessera::arg> a = tessera_c::to_arg(kind);
    if (!a) {
      return fail(TESSERA_INVALID_ARGUMENT,
                  absl::StrCat(kFn, ": args[", i, "].kind is ", kind,
                               ", not a tessera_arg (0 .. ", kArgCount - 1, ")"));
    }
    int& first = seen_at[static_cast<int>(*a)];
    if (first >= 0) {
      return fail(TESSERA_INVALID_ARGUMENT,
                  absl::StrCat(kFn, ": args[", i, "] repeats ", tessera_c::arg_name(*a),
                               " (given first as args[", first, "])"));
    }
    first = i;
    absl::StatusOr<tessera::memory_desc> md =
        args[i].md != nullptr ? absl::StatusOr<tessera::memory_desc>(args[i].md->desc)
                              : implied_desc(p, *a);
    if (!md.ok()) return tessera_c::from_status(md.status());
    out.set(*a, tessera::memory{*std::move(md), args[i].data});
  }
  return TESSERA_SUCCESS;
}

template <class Primitive>
tessera_status store(absl::StatusOr<Primitive> made, tessera_primitive_t* out) {
  if (!made.ok()) return tessera_c::from_status(made.status());
  *out = new tessera_primitive{*std::move(made)};
  return TESSERA_SUCCESS;
}

// Checks the out pointer (and empties it) and the descriptors every create takes.
tessera_status check_create(const char* function, tessera_primitive_t* out,
                            std::initializer_list<std::pair<const void*, const char*>> descs) {
  if (auto s = require(out, function, "primitive")) return s;
  *out = nullptr;
  for (const auto& [md, name] : descs) {
    if (auto s = require(md, function, name)) return s;
  }
  return TESSERA_SUCCESS;
}

tessera_status check_alg(const char* function, int alg, tessera::softmax_alg& out) {
  const std::optional<tessera::softmax_alg> a = tessera_c::to_softmax_alg(alg);
  if (!a) {
    return fail(TESSERA_INVALID_ARGUMENT,
                absl::StrCat(function, ": alg ", alg,
                             " is not a tessera_softmax_alg (TESSERA_SOFTMAX, TESSERA_LOGSOFTMAX, "
                             "TESSERA_SOFTMAX_INF_AS_ZERO)"));
  }
  out = *a;
  return TESSERA_SUCCESS;
}

const tessera_primitive_attr kNoAttr{};

}  // namespace

extern "C" {

tessera_status tessera_reorder_create(tessera_primitive_t* primitive,
                                      const_tessera_memory_desc_t src,
                                      const_tessera_memory_desc_t dst,
                                      const_tessera_primitive_attr_t attr) {
  return tessera_c::guarded([&]() -> tessera_status {
    if (auto s = check_create("tessera_reorder_create", primitive, {{src, "src"}, {dst, "dst"}})) {
      return s;
    }
    const tessera_primitive_attr& a = attr != nullptr ? *attr : kNoAttr;
    if (a.impl_filter.empty()) {
      return store(tessera::reorder::create(src->desc, dst->desc, a.attr), primitive);
    }
    return store(tessera::reorder::create(src->desc, dst->desc, a.attr,
                                          tessera::reorder_options{.impl_filter = a.impl_filter}),
                 primitive);
  });
}

tessera_status tessera_softmax_forward_create(tessera_primitive_t* primitive,
                                              tessera_softmax_alg alg,
                                              const_tessera_memory_desc_t src,
                                              const_tessera_memory_desc_t dst, int axis,
                                              const_tessera_primitive_attr_t attr) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_softmax_forward_create";
    if (auto s = check_create(kFn, primitive, {{src, "src"}, {dst, "dst"}})) return s;
    tessera::softmax_alg a;
    if (auto s = check_alg(kFn, tessera_c::raw_enum(alg), a)) return s;
    const tessera_primitive_attr& at = attr != nullptr ? *attr : kNoAttr;
    return store(tessera::softmax_forward::create(
                     a, src->desc, dst->desc, axis, at.attr,
                     tessera::softmax_options{.impl_filter = at.impl_filter}),
                 primitive);
  });
}

tessera_status tessera_softmax_backward_create(tessera_primitive_t* primitive,
                                               tessera_softmax_alg alg,
                                               const_tessera_memory_desc_t diff_src,
                                               const_tessera_memory_desc_t diff_dst,
                                               const_tessera_memory_desc_t dst, int axis,
                                               const_tessera_primitive_attr_t attr) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_softmax_backward_create";
    if (auto s = check_create(kFn, primitive,
                              {{diff_src, "diff_src"}, {diff_dst, "diff_dst"}, {dst, "dst"}})) {
      return s;
    }
    tessera::softmax_alg a;
    if (auto s = check_alg(kFn, tessera_c::raw_enum(alg), a)) return s;
    const tessera_primitive_attr& at = attr != nullptr ? *attr : kNoAttr;
    return store(tessera::softmax_backward::create(
                     a, diff_src->desc, diff_dst->desc, dst->desc, axis, at.attr,
                     tessera::softmax_options{.impl_filter = at.impl_filter}),
                 primitive);
  });
}

void tessera_primitive_destroy(tessera_primitive_t primitive) { delete primitive; }

tessera_status tessera_primitive_execute(const_tessera_primitive_t primitive, int nargs,
                                         const tessera_exec_arg* args) {
  return tessera_c::guarded([&]() -> tessera_status {
    if (auto s = require(primitive, "tessera_primitive_execute", "primitive")) return s;
    tessera::exec_args exec;
    if (auto s = collect_args(*primitive, nargs, args, exec)) return s;
    return tessera_c::from_status(
        std::visit([&](const auto& prim) { return prim.execute(exec); }, primitive->impl));
  });
}

tessera_status tessera_primitive_get_impl_name(const_tessera_primitive_t primitive,
                                               const char** name) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_primitive_get_impl_name";
    if (auto s = require(primitive, kFn, "primitive")) return s;
    if (auto s = require(name, kFn, "name")) return s;
    *name = std::visit([](const auto& prim) { return prim.impl_name().c_str(); }, primitive->impl);
    return TESSERA_SUCCESS;
  });
}

tessera_status tessera_primitive_get_desc(const_tessera_primitive_t primitive, tessera_arg which,
                                          tessera_memory_desc_t* md) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_primitive_get_desc";
    if (auto s = require(md, kFn, "md")) return s;
    *md = nullptr;
    if (auto s = require(primitive, kFn, "primitive")) return s;
    const int raw_which = tessera_c::raw_enum(which);
    const std::optional<tessera::arg> a = tessera_c::to_arg(raw_which);
    const tessera::memory_desc* found = a ? tensor_desc(*primitive, *a) : nullptr;
    if (found == nullptr) {
      const std::string given =
          a ? tessera_c::arg_name(*a) : absl::StrCat(raw_which);
      return fail(TESSERA_INVALID_ARGUMENT,
                  absl::StrCat(kFn, ": ", kind_name(*primitive), " has no tensor argument ", given,
                               " (it has ", tensor_args_text(*primitive), ")"));
    }
    *md = new tessera_memory_desc{*found};
    return TESSERA_SUCCESS;
  });
}

}  // extern "C"
