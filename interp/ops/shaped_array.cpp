// jax.typeof's abstract value (shaped_array.hpp).
#include "interp/ops/shaped_array.hpp"

#include "interp/python/builtins.hpp"
#include "interp/python/objects.hpp"
#include "typecheck/python_repr.hpp"

namespace interp {

namespace {

Value axis_set(const typecheck::AxisSet& axes) {
  auto set = make_set();
  for (const auto& axis : axes) set->table.insert(make_str(axis), Value());
  return Value(set);
}

// aval.mat: the ManualAxisType, with its three sets of axes.
class ManualAxisTypeObject : public Object {
 public:
  explicit ManualAxisTypeObject(typecheck::ManualAxisType mat) : mat(std::move(mat)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("ManualAxisType");
    return type;
  }
  // As JAX prints it, stray parenthesis included; a set's axes in name order.
  std::string repr(Evaluator&) const override {
    auto frozen = [](const typecheck::AxisSet& set) {
      if (set.empty()) return std::string("frozenset()");
      std::string out;
      for (const auto& axis : set) out += (out.empty() ? "" : ", ") + typecheck::python_string_repr(axis);
      return "frozenset({" + out + "})";
    };
    return "ManualAxisType(varying=" + frozen(mat.varying) + ", unreduced=" + frozen(mat.unreduced) +
           ", reduced=" + frozen(mat.reduced) + "), unreduced_kind=" +
           (mat.unreduced.empty() ? "None" : "UnreducedKind.sum");
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "varying") return axis_set(mat.varying);
    if (name == "unreduced") return axis_set(mat.unreduced);
    if (name == "reduced") return axis_set(mat.reduced);
    return Object::get_attribute(evaluator, name);
  }
  std::vector<std::string> attribute_names() const override { return {"reduced", "unreduced", "varying"}; }
  typecheck::ManualAxisType mat;
};

}  // namespace

const TypeRef& ShapedArrayObject::type() const {
  static const TypeRef type = make_type("ShapedArray");
  return type;
}

std::optional<std::string> ShapedArrayObject::format(Evaluator&, std::string_view spec) const {
  if (!spec.empty()) return std::nullopt;
  return array->aval.str();
}

std::optional<Value> ShapedArrayObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  const typecheck::ArrayType& aval = array->aval;
  if (name == "shape" || name == "dtype" || name == "ndim" || name == "size") return array->get_attribute(evaluator, name);
  // The type's sharding: a NamedSharding on the abstract mesh, Explicit axes only.
  if (name == "sharding")
    return Value(std::make_shared<AbstractNamedShardingObject>(aval.sharding.mesh, aval.sharding.spec()));
  if (name == "weak_type") return Value::boolean(aval.weak_type);
  if (name == "vma") return axis_set(aval.manual.varying);
  if (name == "mat" || name == "manual_axis_type") return Value(std::make_shared<ManualAxisTypeObject>(aval.manual));
  if (name == "str_short")
    return Value(native("str_short(short_dtypes=False)", [aval](Evaluator& ev, Arguments& a) {
      return make_str(aval.format({.short_dtypes = ev.truthy(a[0]), .weak_marker = true}));
    }));
  return Object::get_attribute(evaluator, name);
}

std::vector<std::string> ShapedArrayObject::attribute_names() const {
  return {"dtype", "manual_axis_type", "mat", "ndim", "shape", "sharding", "size", "str_short", "vma", "weak_type"};
}

bool ShapedArrayObject::equals(const Value& other) const {
  auto* shaped = other.as<ShapedArrayObject>();
  return shaped && shaped->array->aval == array->aval;
}

std::optional<std::size_t> ShapedArrayObject::hash() const {
  std::size_t h = static_cast<std::size_t>(array->aval.dtype);
  for (auto d : array->aval.shape) h = h * 31 + static_cast<std::size_t>(d);
  return h;
}

Value shaped_array(const ArrayRef& array) { return Value(std::make_shared<ShapedArrayObject>(array)); }

}  // namespace interp
