// jax.ShapeDtypeStruct and jax.eval_shape (eval_shape.hpp).
#include "interp/transforms/eval_shape.hpp"

#include "interp/library/tree_module.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/trace.hpp"
#include "typecheck/python_repr.hpp"

namespace interp {

namespace {

class ShapeDtypeStructObject : public Object {
 public:
  ShapeDtypeStructObject(typecheck::Shape shape, typecheck::DType dtype, Value sharding, bool weak_type)
      : shape(std::move(shape)), dtype(dtype), sharding(std::move(sharding)), weak_type(weak_type) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("ShapeDtypeStruct");
    return type;
  }
  std::string repr(Evaluator& evaluator) const override {
    std::string out = "ShapeDtypeStruct(shape=" + typecheck::python_shape_repr(shape) +
                      ", dtype=" + std::string(typecheck::long_name(dtype));
    if (!sharding.is_none()) out += ", sharding=" + evaluator.repr(sharding);
    if (weak_type) out += ", weak_type=True";
    return out + ")";
  }
  std::optional<Value> get_attribute(Evaluator&, const std::string& name) override {
    if (name == "shape") {
      std::vector<Value> items;
      for (auto s : shape) items.push_back(Value::integer(s));
      return make_tuple(std::move(items));
    }
    if (name == "dtype") return Value(std::make_shared<DTypeObject>(dtype));
    if (name == "sharding") return sharding;
    if (name == "weak_type") return Value::boolean(weak_type);
    if (name == "ndim") return Value::integer(static_cast<std::int64_t>(shape.size()));
    if (name == "size") {
      std::int64_t size = 1;
      for (auto s : shape) size *= s;
      return Value::integer(size);
    }
    return std::nullopt;
  }
  std::vector<std::string> attribute_names() const override { return {"dtype", "ndim", "shape", "sharding", "size", "weak_type"}; }
  bool equals(const Value& other) const override {
    auto* o = other.as<ShapeDtypeStructObject>();
    return o && o->shape == shape && o->dtype == dtype && o->weak_type == weak_type &&
           o->sharding.is_none() == sharding.is_none();
  }
  std::optional<std::size_t> hash() const override { return shape.size() * 31 + static_cast<std::size_t>(dtype); }

  typecheck::Shape shape;
  typecheck::DType dtype;
  Value sharding;  // None or a NamedSharding
  bool weak_type;
};

}  // namespace

Value shape_dtype_struct_of(Evaluator& evaluator, ArrayObject& array) {
  Value sharding;
  if (array.committed && array.layout.mesh && array.layout.mesh->devices.size() > 1)
    if (auto value = array.get_attribute(evaluator, "sharding")) sharding = *value;
  return Value(std::make_shared<ShapeDtypeStructObject>(array.aval.shape, array.aval.dtype, sharding, array.aval.weak_type));
}

std::optional<ArrayRef> shape_dtype_struct_array(Evaluator& evaluator, const Value& value) {
  auto* s = value.as<ShapeDtypeStructObject>();
  if (!s) return std::nullopt;
  typecheck::ArrayType type;
  type.dtype = s->dtype;
  type.shape = s->shape;
  type.weak_type = s->weak_type;
  if (auto* named = s->sharding.as<NamedShardingObject>()) {
    type.sharding = checked(typecheck::make_sharding(named->mesh->abstract, named->spec, type.shape));
    return make_abstract_array(type, checked(make_layout(named->mesh, named->spec, type.shape)), true);
  }
  type.sharding = typecheck::Sharding::replicated(nullptr, type.ndim());
  return make_abstract_array(type, default_layout(evaluator, type.ndim()), false);
}

void install_eval_shape(Evaluator& evaluator) {
  auto jax = evaluator.module("jax");
  jax->add_function("ShapeDtypeStruct(shape, dtype, *, sharding=None, weak_type=False)", [](Evaluator& ev, Arguments& a) {
    typecheck::Shape shape;
    for (const auto& item : ev.to_vector(a[0])) {
      std::int64_t size = ev.index_of(item);
      if (size < 0) raise(exc::ValueError(), "ShapeDtypeStruct shape must be non-negative, got " + ev.repr(a[0]));
      shape.push_back(size);
    }
    if (!a[2].is_none() && !a[2].as<NamedShardingObject>())
      raise(exc::TypeError(), "ShapeDtypeStruct sharding must be a NamedSharding or None, got " + ev.repr(a[2]));
    return Value(std::make_shared<ShapeDtypeStructObject>(shape, dtype_argument(ev, a[1]), a[2], ev.truthy(a[3])));
  });
  jax->add_function("eval_shape(fun, *args, **kwargs)", [](Evaluator& ev, Arguments& a) {
    JitTrace trace;
    auto abstract_leaf = [&](const Value& leaf) -> Value {
      if (auto array = shape_dtype_struct_array(ev, leaf)) return Value(trace.add_input(**array));
      if (leaf.as<ArrayObject>() || leaf.is_number()) return Value(trace.add_input(*to_array(ev, leaf)));
      raise(exc::TypeError(), "Argument '" + ev.str(leaf) + "' of type " + ev.repr(Value(type_of(leaf))) +
                                  " is not a valid JAX type.");
    };
    CallArgs call{{}, {}};
    for (const auto& arg : a[1].as<TupleObject>()->items) call.positional.push_back(tree_map(ev, arg, abstract_leaf));
    if (auto* kwargs = a[2].as<DictObject>())
      for (const auto& entry : kwargs->table.entries())
        if (entry.live) call.keywords.emplace_back(ev.str(entry.key), tree_map(ev, entry.value, abstract_leaf));
    Value out;
    {
      TraceScope scope(ev, trace);
      out = ev.call(a[0], call);
    }
    return tree_map(ev, out, [&](const Value& leaf) -> Value {
      if (!is_array_like(leaf))
        raise(exc::TypeError(), "eval_shape: the function returned " + ev.repr(leaf) + " of type " +
                                    ev.repr(Value(type_of(leaf))) + ", which is not a valid JAX type");
      return shape_dtype_struct_of(ev, *to_array(ev, leaf));
    });
  });
}

}  // namespace interp
