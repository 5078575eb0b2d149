// jax.typeof(x) and x.aval: the abstract value of an array (JAX's
// ShapedArray). It prints as the type does (`float32[8@X,2@Y]{V:i}`; its
// repr is `ShapedArray(float32[8@X,2@Y])`), and
// has the fields JAX programs read: shape, dtype, ndim, size, weak_type,
// sharding (what the array's .sharding is), vma (the Manual axes it varies
// over) and mat (its varying, unreduced and reduced axes).
#pragma once

#include "interp/ops/array.hpp"

namespace interp {

class ShapedArrayObject : public Object {
 public:
  explicit ShapedArrayObject(ArrayRef array) : array(std::move(array)) {}
  const TypeRef& type() const override;
  // ShapedArray(float32[8@X]), ShapedArray(float32[], weak_type=True)
  std::string repr(Evaluator&) const override {
    return "ShapedArray(" + array->aval.format({.weak_marker = false}) + (array->aval.weak_type ? ", weak_type=True)" : ")");
  }
  std::string str(Evaluator&) const override { return array->aval.str(); }
  std::optional<std::string> format(Evaluator&, std::string_view spec) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  std::vector<std::string> attribute_names() const override;
  bool equals(const Value& other) const override;
  std::optional<std::size_t> hash() const override;
  ArrayRef array;
};

// The abstract value of `array`.
Value shaped_array(const ArrayRef& array);

}  // namespace interp
