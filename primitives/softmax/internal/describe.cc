#include "tessera/primitives/softmax/internal/describe.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/md_string.h"

namespace tessera::softmax_internal {
namespace {

// oneDNN's names of the algorithms.
absl::string_view verbose_alg(softmax_alg alg) {
  switch (alg) {
    case softmax_alg::softmax:
      return "softmax_accurate";
    case softmax_alg::logsoftmax:
      return "softmax_log";
    case softmax_alg::softmax_inf_as_zero:
      return "softmax_accurate_inf_as_zero";
  }
  return "undef";
}

}  // namespace

verbose_record describe(const plan& pl, const std::string& impl) {
  const problem& p = pl.prob;
  const bool fwd = p.dir == direction::forward;
  std::string descs =
      fwd ? absl::StrCat(onednn_verbose_md_string("src", p.in0), " ",
                         onednn_verbose_md_string("dst", p.out))
          : absl::StrCat(onednn_verbose_md_string("src", p.out), " ",
                         onednn_verbose_md_string("dst", p.in0), " ",
                         onednn_verbose_md_string("diff_dst", p.in1));
  std::string aux = absl::StrCat("alg:", verbose_alg(p.alg), " axis:", p.axis);
  if (pl.geometry.split.parts > 0) absl::StrAppend(&aux, " axis_parts:", pl.geometry.split.parts);
  return verbose_record{"softmax",
                        impl,
                        fwd ? "forward_training" : "backward_data",
                        std::move(descs),
                        verbose_attr_string(p.attr),
                        std::move(aux),
                        dims_to_string(p.in0.dims())};
}

}  // namespace tessera::softmax_internal
