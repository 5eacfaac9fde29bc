#include "tessera/testing/exp_accuracy.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace tessera::testing {

double ulp_error(float got, double want) {
  const double a = std::fabs(want);
  int e;
  std::frexp(a < std::numeric_limits<float>::min() ? std::numeric_limits<float>::min() : a, &e);
  const double ulp = std::ldexp(1.0, e - 24);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

std::vector<float> f32_sweep(float lo, float hi, uint32_t stride) {
  std::vector<float> v;
  for (double x = lo; x <= hi;) {
    v.push_back(static_cast<float>(x));
    const uint32_t b = std::bit_cast<uint32_t>(static_cast<float>(x));
    const float next = std::bit_cast<float>(x >= 0 ? b + stride : b - stride);
    if (!(next > x) || !std::isfinite(next)) break;
    x = next;
  }
  return v;
}

exp_errors tally_exp_errors(const std::vector<float>& xs, const std::vector<float>& y,
                            double shift) {
  exp_errors e;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = std::exp(static_cast<double>(xs[i]) - shift);
    const double err = ulp_error(y[i], want);
    if (want >= std::numeric_limits<float>::min()) {
      if (err > e.normal) e.normal = err, e.at = xs[i];
    } else {
      e.denormal = std::max(e.denormal, err);
    }
  }
  return e;
}

exp_errors worst_exp_errors(void (*exp)(const float*, float*, int64_t),
                            const std::vector<float>& xs, std::vector<float>& y) {
  y.resize(xs.size());
  exp(xs.data(), y.data(), static_cast<int64_t>(xs.size()));
  return tally_exp_errors(xs, y, 0.0);
}

}  // namespace tessera::testing
