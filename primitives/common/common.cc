#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/primitives/common/arg.h"
#include "tessera/primitives/common/attr.h"
#include "tessera/primitives/common/quant_args.h"

namespace tessera {

absl::string_view name_of(arg a) {
  switch (a) {
    case arg::src: return "src";
    case arg::dst: return "dst";
    case arg::diff_src: return "diff_src";
    case arg::diff_dst: return "diff_dst";
    case arg::src_scales: return "src_scales";
    case arg::dst_scales: return "dst_scales";
    case arg::src_zero_points: return "src_zero_points";
    case arg::dst_zero_points: return "dst_zero_points";
    case arg::attr_rounding_seed: return "attr_rounding_seed";
    case arg::kCount: break;
  }
  return "unknown";
}

std::string name_of(post_op_src1 a) { return absl::StrCat("post_op_src1(", a.index, ")"); }

std::string to_string(const primitive_attr& attr) {
  std::vector<std::string> parts;
  auto quant = [](const char* what, arg src_arg, const std::optional<quant_param>& src,
                  arg dst_arg, const std::optional<quant_param>& dst) -> std::string {
    auto one = [](const char* name, arg a, const quant_param& q) {
      std::string text = absl::StrCat(name, ":", q.mask);
      if (q.dt != data_type::undef || !q.groups.empty()) {
        absl::StrAppend(&text, ":", name_of(quant_value_type(a, q)));
      }
      if (!q.groups.empty()) absl::StrAppend(&text, ":", absl::StrJoin(q.groups, "x"));
      return text;
    };
    std::vector<std::string> args;
    if (src) args.push_back(one("src", src_arg, *src));
    if (dst) args.push_back(one("dst", dst_arg, *dst));
    return args.empty() ? "" : absl::StrCat(what, ":", absl::StrJoin(args, "+"));
  };
  if (auto s = quant("scales", arg::src_scales, attr.src_scales, arg::dst_scales,
                         attr.dst_scales); !s.empty()) parts.push_back(s);
  if (auto s = quant("zero_points", arg::src_zero_points, attr.src_zero_points,
                         arg::dst_zero_points, attr.dst_zero_points); !s.empty()) {
    parts.push_back(s);
  }
  if (attr.oscale) {
    parts.push_back(absl::StrCat("oscale:", attr.oscale->mask, ":[",
                                 absl::StrJoin(attr.oscale->values, ","), "]"));
  }
  std::vector<std::string> post_ops;
  if (attr.sum) {
    post_ops.push_back(absl::StrCat("sum:", attr.sum->beta,
                                    attr.sum->zero_point ? absl::StrCat(":", attr.sum->zero_point) : ""));
  }
  if (!attr.post_ops.empty()) post_ops.push_back(to_string(attr.post_ops));
  if (!post_ops.empty()) parts.push_back(absl::StrCat("post_ops:", absl::StrJoin(post_ops, "+")));
  if (attr.acc_mode != accumulation_mode::strict) {
    parts.push_back(absl::StrCat("acc_mode:", name_of(attr.acc_mode)));
  }
  if (attr.dst_rounding == rounding_mode::stochastic) parts.push_back("rounding_mode:dst:stochastic");
  return absl::StrJoin(parts, ";");
}

}  // namespace tessera
