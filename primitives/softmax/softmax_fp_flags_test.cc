// Floating-point flags: a forward softmax raises neither the underflow nor the denormal flag
// (simd/fp_flags.h; MXCSR's UE and DE on x86) where no result needs a denormal, on every ISA's kernels: rows ending in a
// partial vector, and rows with masked elements (-Inf, or far below the max) whose exps are 0.
//
// Why it matters: Intel cores handle an underflowing result in microcode, slowly. Lanes past a
// row's end that go through the exp as -Inf (or 0 with a max above 88) underflow there although
// their exps are thrown away (rows of 442 x 15 then take several times as long as rows of
// 442 x 16), and so do masked elements taken as max - 110. The flags are the observable trace of
// that; the timing itself is the benchmarks'.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/primitives/softmax/softmax_test_util.h"
#include "tessera/simd/fp_flags.h"
#include "tessera/testing/softmax/softmax_reference.h"

namespace tessera {
namespace {

using softmax_test::blocked;
using softmax_test::buffer;
using softmax_test::plain;

struct flags_case {
  memory_desc src;
  int axis;
};

// Layouts whose rows end in a partial vector on every width (4, 8, 16 floats), for each kernel
// that takes them: short dense rows (f32 pairs and fours; bf16 and f16 rows in registers,
// forward_short_rows), long dense rows, a blocked axis, a strided axis with fewer lanes than a
// vector, and the interleaved groups (lanes dividing a vector;
// 2001 x 2 for sse4_2's 4 lanes: on avx512bw the select after that exp is likely folded into a
// zero-masked vscalefps, whose masked lanes raise no flags, and avx2's lanes' exp builds its
// power of two in integer arithmetic).
std::vector<flags_case> cases(data_type dt) {
  return {
      {plain({442, 15}, dt), 1},     {plain({442, 19}, dt), 1},      {plain({442, 33}, dt), 1},
      {plain({64, 7}, dt), 1},       {plain({6, 1005}, dt), 1},      {plain({2, 20003}, dt), 1},
      {blocked({4, 21, 5}, dt, 1, 16), 1}, {plain({9, 21, 7}, dt), 1}, {plain({2001, 8}, dt), 0},
      {plain({3001, 4}, dt), 0},     {plain({2001, 2}, dt), 0},      {plain({6000, 24}, dt), 0},
  };
}

// Values in [92.125, 100], multiples of 1/8: every exp(x - max) lies in [e^-8, 1], and with a
// max above 88 a lane filled with 0 would underflow as well as one filled with -Inf.
std::vector<double> values_near_100(dim_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (dim_t i = 0; i < n; ++i) {
    v[static_cast<size_t>(i)] = 100.0 - static_cast<double>((i * 37) % 63) / 8;
  }
  return v;
}

// A third of values_near_100's elements (hashed by position) replaced by `masked`, as attention
// scores under a mask are.
std::vector<double> masked_values(dim_t n, double masked) {
  std::vector<double> v = values_near_100(n);
  for (dim_t i = 0; i < n; ++i) {
    if ((static_cast<uint32_t>(i) * 2654435761u >> 7) % 3 == 0) v[static_cast<size_t>(i)] = masked;
  }
  return v;
}

// A floor on the runs of expect_no_underflow: 96 per ISA the CPU has (cases x types x algs), so
// above 100 on x86-64 (two or three ISAs), and above 90 on aarch64 (neon64 only).
#if defined(__aarch64__)
constexpr int kMinRuns = 90;
#else
constexpr int kMinRuns = 100;
#endif

// Runs every vector kernel on every case, f32 / bf16 / f16 src to f32 / bf16 dst, softmax and
// logsoftmax, with src's logical values values(n); expects neither flag raised. Returns the runs.
int expect_no_underflow(const std::function<std::vector<double>(dim_t)>& values,
                        const std::string& what) {
  // One thread: the flags are the calling thread's.
  scoped_num_threads one(1);
  int runs = 0;
  for (data_type sdt : {data_type::f32, data_type::bf16, data_type::f16}) {
    for (data_type ddt : {data_type::f32, data_type::bf16}) {
      for (const flags_case& c : cases(sdt)) {
        auto src_buf = buffer(c.src);
        testing::write_logical(c.src, src_buf.data(), values(c.src.nelems()));
        const memory_desc dst_req = *memory_desc::any(c.src.dims(), ddt);
        for (softmax_alg alg : {softmax_alg::softmax, softmax_alg::logsoftmax}) {
          for (const std::string& filter : softmax_test::kernel_filters()) {
            if (filter == "ref") continue;
            auto fwd = softmax_forward::create(alg, c.src, dst_req, c.axis, {}, {filter});
            if (!fwd.ok()) {
              EXPECT_EQ(fwd.status().code(), absl::StatusCode::kNotFound) << fwd.status();
              continue;
            }
            auto dst_buf = buffer(fwd->dst_desc());
            const exec_args args{{arg::src, {c.src, src_buf.data()}},
                                 {arg::dst, {fwd->dst_desc(), dst_buf.data()}}};
            simd::clear_fp_flags();
            const absl::Status status = fwd->execute(args);
            const simd::fp_flags raised = simd::read_fp_flags();
            EXPECT_TRUE(status.ok()) << status;
            ++runs;
            EXPECT_FALSE(raised.underflow || raised.denormal_operand) << what << ": " << fwd->impl_name() << " " << name_of(alg)
                                  << " " << name_of(sdt) << "->" << name_of(ddt) << " dims "
                                  << ::testing::PrintToString(c.src.dims()) << " axis " << c.axis
                                  << (raised.underflow ? ": underflow" : "")
                                  << (raised.denormal_operand ? ": denormal operand" : "");
          }
        }
      }
    }
  }
  return runs;
}

TEST(SoftmaxFpFlags, RowsWithNormalExpsRaiseNoUnderflowOrDenormal) {
  EXPECT_GT(expect_no_underflow(values_near_100, "values near 100"), kMinRuns);
}

// exp(x - max) is 0 for each masked element, and none is computed: exp_diff selects 0 for x
// below max - 110, and the rows' other exps (exp_minus_f32, the lanes' exps) are not chosen for
// ranges reaching below it.
TEST(SoftmaxFpFlags, MaskedElementsRaiseNoUnderflowOrDenormal) {
  for (double masked : {-HUGE_VAL, -1e30, -200.0}) {
    const std::string what = "masked " + std::to_string(masked);
    EXPECT_GT(expect_no_underflow([&](dim_t n) { return masked_values(n, masked); }, what), kMinRuns);
  }
}

}  // namespace
}  // namespace tessera
