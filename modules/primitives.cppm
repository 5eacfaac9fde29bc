// Module tessera.primitives: memory, execution arguments, attributes, the runtime controls
// (threads, verbose, cache), reorder and softmax. Re-exports tessera.core.
module;
#include "tessera/primitives/common/arg.h"
#include "tessera/primitives/common/attr.h"
#include "tessera/primitives/common/memory.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/runtime/lru_cache.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/runtime/verbose.h"
#include "tessera/primitives/softmax/softmax.h"
export module tessera.primitives;
export import tessera.core;

export namespace tessera {
// Memory and arguments.
using ::tessera::arg;
using ::tessera::arg_from;
using ::tessera::arg_to;
using ::tessera::exec_args;
using ::tessera::memory;
using ::tessera::name_of;
// Attributes.
using ::tessera::output_scales;
using ::tessera::primitive_attr;
using ::tessera::quant_param;
using ::tessera::sum_post_op;
using ::tessera::to_string;
// Runtime.
using ::tessera::num_threads;
using ::tessera::parallel_for;
using ::tessera::primitive_cache_capacity;
using ::tessera::scoped_num_threads;
using ::tessera::set_num_threads;
using ::tessera::set_primitive_cache_capacity;
using ::tessera::set_thread_pool;
using ::tessera::operator&;
using ::tessera::operator|;
using ::tessera::parse_verbose_flags;
using ::tessera::scoped_verbose;
using ::tessera::set_verbose;
using ::tessera::verbose_flags;
using ::tessera::verbose_setting;
using ::tessera::thread_pool;
// Reorder.
using ::tessera::quant_values;
using ::tessera::reorder;
using ::tessera::reorder_options;
using ::tessera::reorder_typed;
// Softmax.
using ::tessera::softmax_alg;
using ::tessera::softmax_backward;
using ::tessera::softmax_forward;
using ::tessera::softmax_options;
}  // namespace tessera
