// oneDNN 2.6.3 softmax_v2 on Tessera descriptors: the oracle of the differential test and the peer
// of the benchmark. Test/benchmark only (testonly target): the library never links oneDNN.
//
//   auto peer = tessera::softmax_test::onednn_softmax::forward(softmax_alg::softmax, src, dst, 1);
//   peer->execute(src_ptr, nullptr, dst_ptr);
#ifndef TESSERA_PRIMITIVES_SOFTMAX_ONEDNN_SOFTMAX_H_
#define TESSERA_PRIMITIVES_SOFTMAX_ONEDNN_SOFTMAX_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/softmax/softmax.h"

namespace tessera::softmax_test {

class onednn_softmax {
 public:
  // oscale: oneDNN 2.x output scale (int8 destinations).
  static absl::StatusOr<onednn_softmax> forward(softmax_alg alg, const memory_desc& src,
                                                const memory_desc& dst, int axis,
                                                float oscale = 1.f);
  static absl::StatusOr<onednn_softmax> backward(softmax_alg alg, const memory_desc& diff_src,
                                                 const memory_desc& diff_dst,
                                                 const memory_desc& dst, int axis);
  // Forward: (src, -, dst). Backward: (dst, diff_dst, diff_src).
  void execute(const void* in0, const void* in1, void* out) const;
  // oneDNN's implementation name, e.g. "jit:avx512_core" or "ref:any".
  const std::string& impl_name() const;

  // Sets oneDNN's (OpenMP) thread count for later executions.
  static void set_num_threads(int n);

 private:
  struct state;
  std::shared_ptr<state> s_;
};

}  // namespace tessera::softmax_test

#endif  // TESSERA_PRIMITIVES_SOFTMAX_ONEDNN_SOFTMAX_H_
