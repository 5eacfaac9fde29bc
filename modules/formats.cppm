// Module tessera.formats: format tags at compile and run time, layouts, the layout algebra,
// memory_desc construction and string forms. Re-exports tessera.core.
module;
#include "tessera/formats/algebra.h"
#include "tessera/formats/fixed_string.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/formats/md_string.h"
#include "tessera/formats/tag.h"
export module tessera.formats;
export import tessera.core;

export namespace tessera {
// Tags.
using ::tessera::fixed_string;
using ::tessera::parse_tag;
using ::tessera::tag;
using ::tessera::tag_error;
using ::tessera::tag_layout;
using ::tessera::tag_parse_result;
using ::tessera::to_string;
using ::tessera::try_parse_tag;
// Layouts.
using ::tessera::Layout;
using ::tessera::layout;
using ::tessera::layout_error;
using ::tessera::layout_result;
using ::tessera::make_layout;
using ::tessera::static_layout;
using ::tessera::StaticLayout;
using ::tessera::try_make_layout;
using ::tessera::dims_to_string;
// Algebra.
using ::tessera::block;
using ::tessera::block_tag;
using ::tessera::coalesce;
using ::tessera::joint_coalesce;
using ::tessera::joint_loop;
using ::tessera::layout_node;
using ::tessera::loop_nest;
using ::tessera::node_list;
using ::tessera::nodes_of;
using ::tessera::permute;
using ::tessera::permute_tag;
using ::tessera::strided_dims;
// Memory descriptors from tags, and their string forms.
using ::tessera::benchdnn_args;
using ::tessera::make_memory_desc;
using ::tessera::parse_benchdnn_args;
using ::tessera::parse_dims;
using ::tessera::parse_verbose_md;
using ::tessera::tag_of;
using ::tessera::to_blocking;
using ::tessera::verbose_md_string;
}  // namespace tessera
