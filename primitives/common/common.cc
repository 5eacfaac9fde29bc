#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/primitives/common/arg.h"
#include "tessera/primitives/common/attr.h"

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
    case arg::kCount: break;
  }
  return "unknown";
}

std::string to_string(const primitive_attr& attr) {
  std::vector<std::string> parts;
  auto quant = [](const char* what, const std::optional<quant_param>& src,
                  const std::optional<quant_param>& dst) -> std::string {
    std::vector<std::string> args;
    if (src) args.push_back(absl::StrCat("src:", src->mask));
    if (dst) args.push_back(absl::StrCat("dst:", dst->mask));
    return args.empty() ? "" : absl::StrCat(what, ":", absl::StrJoin(args, "+"));
  };
  if (auto s = quant("scales", attr.src_scales, attr.dst_scales); !s.empty()) parts.push_back(s);
  if (auto s = quant("zero_points", attr.src_zero_points, attr.dst_zero_points); !s.empty()) {
    parts.push_back(s);
  }
  if (attr.oscale) {
    parts.push_back(absl::StrCat("oscale:", attr.oscale->mask, ":[",
                                 absl::StrJoin(attr.oscale->values, ","), "]"));
  }
  if (attr.sum) {
    parts.push_back(absl::StrCat("post_ops:sum:", attr.sum->beta,
                                 attr.sum->zero_point ? absl::StrCat(":", attr.sum->zero_point) : ""));
  }
  return absl::StrJoin(parts, ";");
}

}  // namespace tessera
