#include "tessera/python/views.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/core/data_type.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/md_string.h"
#include "tessera/formats/tag.h"
#include "tessera/python/numpy_types.h"

namespace tessera::python {
namespace {

tag_layout parse_or_throw(const std::string& tag, int rank) {
  tag_layout t = value_or_throw(parse_tag(tag, rank));
  if (t.is_any) {
    throw py::value_error(absl::StrCat("tag \"", tag, "\" (any) names no layout for an array"));
  }
  return t;
}

std::string shape_text(absl::Span<const int64_t> shape) {
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

std::vector<int64_t> shape_of(const py::array& a) {
  return std::vector<int64_t>(a.shape(), a.shape() + a.ndim());
}

// The array's strides in items, reordered to logical dims; false when a descriptor cannot hold
// them. Axes of size 1 take stride 1 (their stride is never used); an empty array is dense.
bool logical_strides(const py::array& a, absl::Span<const int> order, std::vector<dim_t>& dims,
                     std::vector<dim_t>& strides) {
  const int rank = static_cast<int>(a.ndim());
  const int64_t item = a.itemsize();
  dims.assign(rank, 0);
  strides.assign(rank, 1);
  bool empty = false;
  for (int k = 0; k < rank; ++k) {
    dims[order[k]] = a.shape(k);
    empty = empty || a.shape(k) == 0;
  }
  if (empty) return true;
  for (int k = 0; k < rank; ++k) {
    const int64_t bytes = a.strides(k);
    if (a.shape(k) == 1) continue;
    if (bytes <= 0 || bytes % item != 0) return false;
    strides[order[k]] = bytes / item;
  }
  return true;
}

// Whether the bytes `md` spans from the array's first element (oneDNN's size: the outermost dim
// counts its full stride, past the last element) lie in the buffer of the array that owns the
// memory. A view ending before its owner's end (x[:, :-1]) does; a view of the owner's tail may
// not, and its span could then reach a later allocation, which the primitives' overlap check would
// see as sharing memory with their output.
bool extent_within_owner(const py::array& a, const memory_desc& md) {
  if (a.size() == 0) return true;
  py::object owner = a;
  for (py::object base = owner.attr("base"); py::isinstance<py::array>(base);
       base = owner.attr("base")) {
    owner = base;
  }
  const py::tuple bounds = py::module_::import("numpy").attr("byte_bounds")(owner);
  const auto low = bounds[0].cast<uintptr_t>(), high = bounds[1].cast<uintptr_t>();
  const auto start = reinterpret_cast<uintptr_t>(a.data());
  return start >= low && start + static_cast<uintptr_t>(md.size_bytes()) <= high;
}

bool row_major_dense(const memory_desc& md) {
  if (!md.is_plain()) return false;
  dim_t expected = 1;
  for (int d = md.rank() - 1; d >= 0; --d) {
    if (md.dims()[d] != 1 && md.blocking().strides[d] != expected) return false;
    expected *= md.dims()[d];
  }
  return md.offset0() == 0;
}

}  // namespace

void throw_if_error(const absl::Status& status) {
  if (!status.ok()) throw py::value_error(std::string(status.message()));
}

std::vector<int> plain_order(const std::string& tag, int rank) {
  // A blocked tag is named as such even beside an array of another rank (its 1-D buffer).
  const absl::StatusOr<tag_layout> any_rank = parse_tag(tag);
  const tag_layout t = any_rank.ok() && any_rank->nblks != 0 ? *any_rank : parse_or_throw(tag, rank);
  if (t.nblks != 0) {
    throw py::value_error(absl::StrCat(
        "tag \"", tag, "\" is blocked: its array is a 1-D buffer of the padded size; give the "
        "logical dims (dims=...) or a MemoryDesc"));
  }
  return std::vector<int>(t.order.begin(), t.order.begin() + t.rank);
}

bool is_blocked_tag(const std::string& tag, int rank) {
  return parse_or_throw(tag, rank).nblks != 0;
}

tensor_view input_view(const py::array& array, data_type dt, absl::Span<const int> order) {
  std::vector<dim_t> dims, strides;
  if (logical_strides(array, order, dims, strides)) {
    absl::StatusOr<memory_desc> md = memory_desc::with_strides(dims, dt, strides);
    if (md.ok() && extent_within_owner(array, *md)) {
      return {*std::move(md), const_cast<void*>(array.data()), array};
    }
  }
  const py::array copy = py::module_::import("numpy").attr("array")(array, py::arg("order") = "C");
  logical_strides(copy, order, dims, strides);
  return {value_or_throw(memory_desc::with_strides(dims, dt, strides)),
          const_cast<void*>(copy.data()), copy};
}

py::array out_argument(py::handle out) {
  if (!py::isinstance<py::array>(out)) {
    throw py::value_error(absl::StrCat("out must be a numpy.ndarray, got ",
                                       py::str(py::type::of(out)).cast<std::string>()));
  }
  return py::reinterpret_borrow<py::array>(out);
}

tensor_view output_view(const py::array& out, data_type dt, absl::Span<const int> order,
                        absl::Span<const dim_t> dims, const char* what) {
  std::vector<int64_t> expected(order.size());
  for (size_t k = 0; k < order.size(); ++k) expected[k] = dims[order[k]];
  const py::dtype storage = storage_dtype(dt);
  if (shape_of(out) != expected || out.dtype().kind() != storage.kind() ||
      out.itemsize() != storage.itemsize()) {
    throw py::value_error(absl::StrCat(
        what, " has shape ", shape_text(shape_of(out)), " and dtype ",
        py::str(out.dtype()).cast<std::string>(), "; the result needs shape ",
        shape_text(expected), " and dtype ", py::str(storage).cast<std::string>()));
  }
  if (!out.writeable()) throw py::value_error(absl::StrCat(what, " is read-only"));
  std::vector<dim_t> logical, strides;
  if (!logical_strides(out, order, logical, strides)) {
    throw py::value_error(absl::StrCat(
        what, " has strides (in bytes) ",
        shape_text(std::vector<int64_t>(out.strides(), out.strides() + out.ndim())),
        " that cannot be written in place: each must be a positive multiple of the item size"));
  }
  return {value_or_throw(memory_desc::with_strides(logical, dt, strides)), const_cast<void*>(out.data()),
          out};
}

tensor_view new_output(data_type dt, absl::Span<const dim_t> dims, absl::Span<const int> order) {
  std::vector<py::ssize_t> shape(order.size());
  for (size_t k = 0; k < order.size(); ++k) shape[k] = dims[order[k]];
  py::array out(storage_dtype(dt), shape);
  return output_view(out, dt, order, dims, "the new array");
}

tensor_view buffer_view(const py::array& buffer, const memory_desc& md, bool writable,
                        const char* what) {
  const py::dtype storage = storage_dtype(md.dt());
  const int64_t items = md.size_bytes() / storage.itemsize();
  if (buffer.dtype().kind() != storage.kind() || buffer.itemsize() != storage.itemsize()) {
    throw py::value_error(absl::StrCat(what, " has dtype ",
                                       py::str(buffer.dtype()).cast<std::string>(),
                                       "; its descriptor ", verbose_md_string(md), " needs ",
                                       py::str(storage).cast<std::string>()));
  }
  if (buffer.size() != items || !(buffer.flags() & py::array::c_style)) {
    throw py::value_error(absl::StrCat(
        what, " has ", buffer.size(), " items",
        (buffer.flags() & py::array::c_style) ? "" : " and is not C-contiguous",
        "; its descriptor ", verbose_md_string(md), " ", dims_to_string(md.dims()),
        " needs a C-contiguous buffer of ", items, " items (padding included)"));
  }
  if (writable && !buffer.writeable()) throw py::value_error(absl::StrCat(what, " is read-only"));
  return {md, const_cast<void*>(buffer.data()), buffer};
}

tensor_view new_buffer(const memory_desc& md) {
  const py::dtype storage = storage_dtype(md.dt());
  std::vector<py::ssize_t> shape;
  if (row_major_dense(md)) {
    shape.assign(md.dims().begin(), md.dims().end());
  } else {
    shape.push_back(md.size_bytes() / storage.itemsize());
  }
  py::array out(storage, shape);
  return {md, const_cast<void*>(out.data()), out};
}

}  // namespace tessera::python
