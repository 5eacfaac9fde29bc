// The ATen calls of bench/aten_peer.h, behind an interface of plain C++17 types: PyTorch 1.13's
// headers do not compile as C++20 (clang-19: incomplete c10::IValue in std::vector), so
// aten_kernels.cc is the one C++17 file that includes them and sees nothing of Tessera.
#ifndef TESSERA_BENCH_ATEN_KERNELS_H_
#define TESSERA_BENCH_ATEN_KERNELS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::bench::aten_kernels {

enum class scalar { f32, f64, bf16, f16, s32, s8, u8 };

// A strided tensor over caller-owned memory.
struct tensor_view {
  std::vector<int64_t> sizes, strides;  // elements
  scalar type = scalar::f32;
  void* data = nullptr;
};

class call {
 public:
  virtual ~call() = default;
  virtual void run(int set) = 0;
};

// Empty string on success, else ATen's error: *out is set only on success. Each factory runs the
// call once, since ATen refuses some problems only when they run.
std::string make_copy(const std::vector<tensor_view>& srcs, const std::vector<tensor_view>& dsts,
                      bool add, std::unique_ptr<call>* out);
std::string make_softmax(const tensor_view& in0, const tensor_view& in1, const tensor_view& out,
                         bool log, int axis, bool backward, std::unique_ptr<call>* made);

bool available();
std::string version();
void set_threads(int n);

}  // namespace tessera::bench::aten_kernels

#endif  // TESSERA_BENCH_ATEN_KERNELS_H_
