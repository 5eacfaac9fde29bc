// --attr-post-ops for the softmax: benchdnn's eltwise and binary entries as a post_ops_list, and
// the binary operands' values.
//
//   post_ops_list ops;
//   std::string skip;
//   if (!parse_post_ops("add:f32:per_oc+linear:0.5:2", {2, 16, 3}, &ops, &skip)) ...;  // SKIPPED
//   std::vector<std::vector<char>> operands = make_post_op_operands(ops);  // one per post-op
#ifndef TESSERA_BENCH_DRIVER_POST_OPS_KNOB_H_
#define TESSERA_BENCH_DRIVER_POST_OPS_KNOB_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/primitives/common/post_ops.h"

namespace tessera::bench {

// ELTWISE[:ALPHA[:BETA]] and BINARY:DT[:MASK_INPUT[:TAG]] entries joined by '+'. A binary
// operand's dims are `dims` with the dims outside its mask set to 1 (MASK_INPUT: a policy,
// common by default, or an integer mask), in TAG's layout (abx by default; `any` is abx). False
// with the reason in `skip` ("--attr-post-ops=...: ...") for what Tessera does not run: sum, an
// eltwise scale, an algorithm it lacks, an operand type or policy it lacks.
bool parse_post_ops(const std::string& text, const std::vector<int64_t>& dims,
                    post_ops_list* out, std::string* skip);

// A buffer per post-op (empty for eltwise ones) holding its binary operand: values in {1, 2, 4}
// (1..4 for integer operands): at least 1, so that neither cancels nor shrinks the softmax's
// result (an int8 dst would otherwise round more outputs to zero than benchdnn's zero-trust rule
// allows), and powers of two, so that the reference's products are exact.
std::vector<std::vector<char>> make_post_op_operands(const post_ops_list& ops);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_POST_OPS_KNOB_H_
