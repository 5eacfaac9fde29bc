#include "bench/driver/post_ops_knob.h"

#include <array>
#include <cmath>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tessera/core/convert.h"
#include "tessera/formats/make_memory_desc.h"

namespace tessera::bench {
namespace {

bool eltwise_of(const std::string& name, eltwise_alg* alg) {
  static const std::pair<const char*, eltwise_alg> kNames[] = {
      {"linear", eltwise_alg::linear}, {"relu", eltwise_alg::relu},
      {"clip", eltwise_alg::clip},     {"abs", eltwise_alg::abs},
      {"square", eltwise_alg::square}, {"sqrt", eltwise_alg::sqrt},
      {"exp", eltwise_alg::exp},       {"tanh", eltwise_alg::tanh},
      {"logistic", eltwise_alg::logistic}};
  for (const auto& [n, a] : kNames) {
    if (name == n) {
      *alg = a;
      return true;
    }
  }
  return false;
}

bool binary_of(const std::string& name, binary_alg* alg) {
  static const std::pair<const char*, binary_alg> kNames[] = {
      {"add", binary_alg::add}, {"sub", binary_alg::sub}, {"mul", binary_alg::mul},
      {"div", binary_alg::div}, {"max", binary_alg::max}, {"min", binary_alg::min},
      {"ge", binary_alg::ge},   {"gt", binary_alg::gt},   {"le", binary_alg::le},
      {"lt", binary_alg::lt},   {"eq", binary_alg::eq},   {"ne", binary_alg::ne}};
  for (const auto& [n, a] : kNames) {
    if (name == n) {
      *alg = a;
      return true;
    }
  }
  return false;
}

// MASK_INPUT -> mask over `rank` dims, or -1.
int binary_mask(const std::string& text, int rank) {
  static const std::pair<const char*, int> kPolicies[] = {
      {"common", 0},      {"per_dim_0", 1},  {"per_oc", 2},      {"per_dim_1", 2},
      {"per_dim_01", 3},  {"per_dim_2", 4},  {"per_dim_3", 8},   {"per_dim_23", 12},
      {"per_dim_03", 9},  {"per_dim_023", 13}};
  for (const auto& [n, m] : kPolicies) {
    if (text == n) return m;
  }
  if (text == "per_tensor") return (1 << rank) - 1;
  int mask = -1;
  if (absl::SimpleAtoi(text, &mask) && mask >= 0) return mask;
  return -1;
}

bool parse_float(const std::string& text, float* out) {
  double v = 0;
  if (!absl::SimpleAtod(text, &v) || !std::isfinite(v)) return false;
  *out = static_cast<float>(v);
  return true;
}

// One ELTWISE entry; false with the reason in `why`.
bool parse_eltwise(const std::vector<std::string>& f, post_op* op, std::string* why) {
  eltwise_alg alg;
  if (!eltwise_of(f[0], &alg)) {
    *why = absl::StrCat("eltwise '", f[0], "' is not supported (linear, relu, clip, abs, square, ",
                        "sqrt, exp, tanh, logistic)");
    return false;
  }
  if (f.size() > 3) {
    *why = "an eltwise scale is oneDNN 2.x's; oneDNN 3.x and Tessera have none";
    return false;
  }
  float alpha = 0.f, beta = 0.f;
  if ((f.size() > 1 && !parse_float(f[1], &alpha)) || (f.size() > 2 && !parse_float(f[2], &beta))) {
    *why = "alpha and beta must be finite numbers";
    return false;
  }
  *op = post_op::eltwise(alg, alpha, beta);
  return true;
}

// One BINARY entry; false with the reason in `why`.
bool parse_binary(const std::vector<std::string>& f, const std::vector<int64_t>& dims,
                  post_op* op, std::string* why) {
  binary_alg alg;
  binary_of(f[0], &alg);
  if (f.size() < 2) {
    *why = absl::StrCat("binary '", f[0], "' needs an operand data type (", f[0], ":DT)");
    return false;
  }
  auto dt = parse_data_type(f[1]);
  if (!dt.ok() || !(*dt == data_type::f32 || *dt == data_type::bf16 || *dt == data_type::f16 ||
                    *dt == data_type::s8 || *dt == data_type::u8)) {
    *why = absl::StrCat("binary operand type '", f[1], "' is not supported (f32, bf16, f16, s8, u8)");
    return false;
  }
  const int rank = static_cast<int>(dims.size());
  const int mask = binary_mask(f.size() > 2 ? f[2] : "common", rank);
  if (mask < 0 || mask >= (1 << rank)) {
    *why = absl::StrCat("binary mask '", f[2], "' is not supported for a ", rank, "-d problem");
    return false;
  }
  std::vector<dim_t> src1_dims(dims.begin(), dims.end());
  for (int d = 0; d < rank; ++d) {
    if (!(mask & (1 << d))) src1_dims[d] = 1;
  }
  const std::string tag = f.size() > 3 && f[3] != "any" ? f[3] : "abx";
  auto md = make_memory_desc(src1_dims, *dt, tag);
  if (!md.ok()) {
    *why = absl::StrCat("binary operand tag '", tag, "': ", md.status().message());
    return false;
  }
  *op = post_op::binary(alg, *md);
  return true;
}

}  // namespace

bool parse_post_ops(const std::string& text, const std::vector<int64_t>& dims,
                    post_ops_list* out, std::string* skip) {
  out->clear();
  if (text.empty()) return true;
  for (absl::string_view entry : absl::StrSplit(text, '+')) {
    const std::vector<std::string> f = absl::StrSplit(entry, ':');
    std::string why;
    post_op op;
    binary_alg unused;
    bool ok;
    if (f[0] == "sum") {
      // oneDNN's softmax rejects sum (dst is written, never read); the text driver_errors_test
      // checks.
      why = "softmax takes no sum post-op (oneDNN's softmax rejects it)";
      ok = false;
    } else if (binary_of(f[0], &unused)) {
      ok = parse_binary(f, dims, &op, &why);
    } else {
      ok = parse_eltwise(f, &op, &why);
    }
    if (!ok) {
      *skip = absl::StrCat("--attr-post-ops=", text, ": ", why);
      return false;
    }
    out->push_back(op);
  }
  return true;
}

std::vector<std::vector<char>> make_post_op_operands(const post_ops_list& ops) {
  std::vector<std::vector<char>> buffers(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind != post_op_kind::binary) continue;
    const memory_desc& md = ops[i].src1;
    buffers[i].assign(static_cast<size_t>(std::max<int64_t>(md.size_bytes(), 1)), 0);
    const bool integral = md.dt() == data_type::s8 || md.dt() == data_type::u8;
    const int rank = md.rank();
    std::array<dim_t, kMaxRank> idx{};
    for (int64_t pos = 0; pos < md.nelems(); ++pos) {
      int64_t rest = pos;
      for (int d = rank - 1; d >= 0; --d) {
        idx[d] = rest % md.dims()[d];
        rest /= md.dims()[d];
      }
      const float v = integral ? static_cast<float>(pos % 4 + 1)
                               : std::ldexp(1.f, static_cast<int>(pos % 3));
      const dim_t off = md.offset({idx.data(), static_cast<size_t>(rank)});
      visit_data_type(md.dt(), [&](auto tag) {
        using T = decltype(tag);
        const T value = from_f64<T>(v);
        std::memcpy(buffers[i].data() + off * static_cast<dim_t>(sizeof(T)), &value, sizeof value);
      });
    }
  }
  return buffers;
}

}  // namespace tessera::bench
