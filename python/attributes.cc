#include "tessera/python/attributes.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/core/data_type.h"
#include "tessera/python/views.h"

namespace tessera::python {
namespace {

constexpr const char* kKeywords[] = {
    "src_scales",          "src_scales_mask",          "dst_scales",
    "dst_scales_mask",     "src_zero_points",          "src_zero_points_mask",
    "dst_zero_points",     "dst_zero_points_mask",     "output_scales",
    "output_scales_mask",  "sum_beta",                 "sum_zero_point",
};

void check_keywords(const py::kwargs& kwargs) {
  const std::set<std::string> known(std::begin(kKeywords), std::end(kKeywords));
  for (const auto& item : kwargs) {
    const std::string key = py::str(item.first).cast<std::string>();
    if (known.count(key) == 0) {
      throw py::value_error(absl::StrCat("unknown keyword argument '", key,
                                         "'; the attributes are ",
                                         absl::StrJoin(kKeywords, ", ")));
    }
  }
}

int mask_of(const py::kwargs& kwargs, const std::string& name) {
  const std::string key = name + "_mask";
  if (!kwargs.contains(key)) return 0;
  py::object m = kwargs[key.c_str()];
  if (!py::isinstance<py::int_>(m) || py::isinstance<py::bool_>(m)) {
    throw py::value_error(absl::StrCat(key, " must be an int (bit d: one value per index of dim d)"));
  }
  return m.cast<int>();
}

// The values as a contiguous 1-D array of `dt` (f32 or s32). Zero points must be integers: a
// float would be truncated silently.
py::array values_of(py::handle given, data_type dt, const std::string& name) {
  py::array a = py::array::ensure(given);
  if (!a) throw py::value_error(absl::StrCat(name, " must be a number or an array of numbers"));
  const char kind = a.dtype().kind();
  if (dt == data_type::s32 && kind != 'i' && kind != 'u') {
    throw py::value_error(absl::StrCat(name, " must be integers, got dtype ",
                                       py::str(a.dtype()).cast<std::string>()));
  }
  if (kind != 'f' && kind != 'i' && kind != 'u') {
    throw py::value_error(absl::StrCat(name, " must be numbers, got dtype ",
                                       py::str(a.dtype()).cast<std::string>()));
  }
  py::module_ np = py::module_::import("numpy");
  py::array values = np.attr("ascontiguousarray")(a.attr("reshape")(-1),
                                                  dt == data_type::f32 ? "float32" : "int32");
  if (dt == data_type::s32 && !np.attr("array_equal")(values, a.attr("reshape")(-1)).cast<bool>()) {
    throw py::value_error(absl::StrCat(name, " must fit in int32"));
  }
  return values;
}

void add_value(const py::kwargs& kwargs, const std::string& name, arg which, data_type dt,
               std::optional<quant_param>& param, attribute_args& out) {
  if (!kwargs.contains(name) || kwargs[name.c_str()].is_none()) return;
  param = quant_param{.mask = mask_of(kwargs, name)};
  py::array a = values_of(kwargs[name.c_str()], dt, name);
  memory_desc md = value_or_throw(memory_desc::with_strides({a.size()}, dt, {1}));
  out.values.push_back({which, md, a});
}

float float_of(const py::kwargs& kwargs, const char* key) {
  try {
    return kwargs[key].cast<float>();
  } catch (const py::cast_error&) {
    throw py::value_error(absl::StrCat(key, " must be a number"));
  }
}

int32_t int_of(const py::kwargs& kwargs, const char* key) {
  py::object v = kwargs[key];
  if (!py::isinstance<py::int_>(v)) throw py::value_error(absl::StrCat(key, " must be an int"));
  return v.cast<int32_t>();
}

// A mask or a sum zero point without the value it qualifies would be ignored: refuse it.
void check_companions(const py::kwargs& kwargs) {
  for (const char* name : {"src_scales", "dst_scales", "src_zero_points", "dst_zero_points",
                           "output_scales"}) {
    const std::string mask = absl::StrCat(name, "_mask");
    if (kwargs.contains(mask) && (!kwargs.contains(name) || kwargs[name].is_none())) {
      throw py::value_error(absl::StrCat(mask, " given without ", name));
    }
  }
  if (kwargs.contains("sum_zero_point") &&
      (!kwargs.contains("sum_beta") || kwargs["sum_beta"].is_none())) {
    throw py::value_error("sum_zero_point given without sum_beta");
  }
}

}  // namespace

void attribute_args::add_to(exec_args& args) const {
  for (const value& v : values) {
    args.set(v.which, memory{v.desc, const_cast<void*>(v.array.data())});
  }
}

attribute_args parse_attributes(const py::kwargs& kwargs) {
  check_keywords(kwargs);
  check_companions(kwargs);
  attribute_args out;
  primitive_attr& a = out.attr;
  add_value(kwargs, "src_scales", arg::src_scales, data_type::f32, a.src_scales, out);
  add_value(kwargs, "dst_scales", arg::dst_scales, data_type::f32, a.dst_scales, out);
  add_value(kwargs, "src_zero_points", arg::src_zero_points, data_type::s32, a.src_zero_points, out);
  add_value(kwargs, "dst_zero_points", arg::dst_zero_points, data_type::s32, a.dst_zero_points, out);
  if (kwargs.contains("output_scales") && !kwargs["output_scales"].is_none()) {
    py::array v = values_of(kwargs["output_scales"], data_type::f32, "output_scales");
    const float* p = static_cast<const float*>(v.data());
    a.oscale = output_scales{.mask = mask_of(kwargs, "output_scales"),
                             .values = std::vector<float>(p, p + v.size())};
  }
  if (kwargs.contains("sum_beta") && !kwargs["sum_beta"].is_none()) {
    a.sum = sum_post_op{.beta = float_of(kwargs, "sum_beta")};
    if (kwargs.contains("sum_zero_point")) a.sum->zero_point = int_of(kwargs, "sum_zero_point");
  }
  return out;
}

}  // namespace tessera::python
