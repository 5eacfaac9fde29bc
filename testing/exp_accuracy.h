// Accuracy of an f32 exp against double precision, for the tests of simd/math.h's exp and the
// softmax's own exps: ulp errors, sweeps of f32 bit patterns, and the worst errors over a sweep.
//
//   std::vector<float> xs = tessera::testing::f32_sweep(-87.f, -1e-30f, 73), y;
//   const auto e = tessera::testing::worst_exp_errors(&my_exp_kernel, xs, y);
//   EXPECT_LE(e.normal, 1.0) << "at " << e.at;
#ifndef TESSERA_TESTING_EXP_ACCURACY_H_
#define TESSERA_TESTING_EXP_ACCURACY_H_

#include <cstdint>
#include <vector>

namespace tessera::testing {

// |got - want| in units of the f32 ulp at want (the denormal ulp below FLT_MIN).
double ulp_error(float got, double want);

// Every `stride`-th f32 bit pattern from lo up to hi (both in the positive or both in the
// negative range).
std::vector<float> f32_sweep(float lo, float hi, uint32_t stride);

// The worst ulp errors of an exp: over normal results (and the input where), over denormal ones.
struct exp_errors {
  double normal = 0, denormal = 0;
  float at = 0;
};

// The worst errors of y[i] against exp(xs[i] - shift) in double precision.
exp_errors tally_exp_errors(const std::vector<float>& xs, const std::vector<float>& y,
                            double shift);

// exp (an array kernel) over xs into y (resized), and its worst errors against exp(xs[i]).
exp_errors worst_exp_errors(void (*exp)(const float*, float*, int64_t),
                            const std::vector<float>& xs, std::vector<float>& y);

}  // namespace tessera::testing

#endif  // TESSERA_TESTING_EXP_ACCURACY_H_
