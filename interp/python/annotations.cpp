// Annotations as types (annotations.hpp).
#include "interp/python/annotations.hpp"

#include "interp/ops/array.hpp"
#include "interp/python/exceptions.hpp"

namespace interp {

namespace ast = lang::ast;

namespace {

const std::string* name_of(const ast::Expr& expr) {
  const auto* name = std::get_if<ast::Name>(&expr.node);
  return name ? &name->id : nullptr;
}

// `X` or `(X, Y)` after an `@`.
std::optional<typecheck::SpecEntry> axes_of(const ast::Expr& expr) {
  if (const std::string* name = name_of(expr)) return typecheck::SpecEntry{*name};
  const auto* tuple = std::get_if<ast::Tuple>(&expr.node);
  if (!tuple || tuple->elts.empty()) return std::nullopt;
  typecheck::SpecEntry axes;
  for (const auto& element : tuple->elts) {
    const std::string* name = name_of(*element);
    if (!name) return std::nullopt;
    axes.push_back(*name);
  }
  return axes;
}

// `8`, `B`, `8@X`, `B@(X, Y)`.
std::optional<DimPattern> dim_of(const ast::Expr& expr) {
  DimPattern dim;
  const ast::Expr* size = &expr;
  if (const auto* sharded = std::get_if<ast::BinOp>(&expr.node)) {
    if (sharded->op != ast::BinaryOperator::matmult) return std::nullopt;
    auto axes = axes_of(*sharded->right);
    if (!axes) return std::nullopt;
    dim.axes = std::move(*axes);
    size = sharded->left.get();
  }
  if (const auto* constant = std::get_if<ast::Constant>(&size->node)) {
    const auto* literal = std::get_if<std::int64_t>(&constant->value);
    if (!literal) return std::nullopt;
    dim.size = *literal;
  } else if (const std::string* variable = name_of(*size)) {
    dim.variable = *variable;
  } else {
    return std::nullopt;
  }
  return dim;
}

std::string dim_text(const DimPattern& dim) {
  std::string out = dim.size ? std::to_string(*dim.size) : dim.variable;
  if (dim.axes.size() == 1) out += "@" + dim.axes[0];
  if (dim.axes.size() > 1) {
    out += "@(";
    for (std::size_t i = 0; i < dim.axes.size(); ++i) out += (i ? "," : "") + dim.axes[i];
    out += ")";
  }
  return out;
}

std::string axes_text(const typecheck::SpecEntry& axes) {
  if (axes.size() == 1) return axes[0];
  std::string out = "(";
  for (std::size_t i = 0; i < axes.size(); ++i) out += (i ? ", " : "") + axes[i];
  return out + ")";
}

}  // namespace

std::optional<ArrayPattern> array_pattern(const ast::Expr& annotation) {
  const auto* subscript = std::get_if<ast::Subscript>(&annotation.node);
  if (!subscript) return std::nullopt;
  const std::string* dtype_name = name_of(*subscript->value);
  if (!dtype_name) return std::nullopt;
  auto dtype = typecheck::parse_dtype(*dtype_name);
  if (!dtype) return std::nullopt;
  ArrayPattern pattern;
  pattern.dtype = *dtype;
  std::vector<const ast::Expr*> elements;
  if (const auto* tuple = std::get_if<ast::Tuple>(&subscript->slice->node)) {
    for (const auto& element : tuple->elts) elements.push_back(element.get());
  } else {
    elements.push_back(subscript->slice.get());
  }
  pattern.text = *dtype_name + "[";
  for (std::size_t i = 0; i < elements.size(); ++i) {
    auto dim = dim_of(*elements[i]);
    if (!dim) return std::nullopt;
    pattern.text += (i ? "," : "") + dim_text(*dim);
    pattern.dims.push_back(std::move(*dim));
  }
  pattern.text += "]";
  return pattern;
}

std::optional<std::string> match_pattern(const ArrayPattern& pattern, const Value& value, ShapeBindings& bindings) {
  const auto* array = value.as<ArrayObject>();
  if (!array) return "it is not an array";
  const typecheck::ArrayType& type = array->aval;
  if (type.dtype != pattern.dtype)
    return "the dtype is " + std::string(typecheck::long_name(type.dtype)) + ", not " +
           std::string(typecheck::long_name(pattern.dtype));
  if (type.ndim() != pattern.dims.size())
    return "the rank is " + std::to_string(type.ndim()) + ", not " + std::to_string(pattern.dims.size());
  // Check every dimension before binding, so a mismatch binds nothing.
  ShapeBindings bound = bindings;
  for (std::size_t i = 0; i < pattern.dims.size(); ++i) {
    const DimPattern& dim = pattern.dims[i];
    std::int64_t size = type.shape[i];
    std::string where = "dimension " + std::to_string(i);
    if (dim.size && *dim.size != size)
      return where + " is " + std::to_string(size) + ", not " + std::to_string(*dim.size);
    if (!dim.size) {
      auto [found, inserted] = bound.emplace(dim.variable, size);
      if (!inserted && found->second != size)
        return where + " is " + std::to_string(size) + ", but " + dim.variable + " is " + std::to_string(found->second);
    }
    const typecheck::SpecEntry none;
    const typecheck::SpecEntry& actual = i < type.sharding.dims.size() ? type.sharding.dims[i] : none;
    if (actual != dim.axes) {
      if (actual.empty()) return where + " is not sharded, the annotation shards it over " + axes_text(dim.axes);
      if (dim.axes.empty()) return where + " is sharded over " + axes_text(actual) + ", the annotation leaves it unsharded";
      return where + " is sharded over " + axes_text(actual) + ", not " + axes_text(dim.axes);
    }
  }
  bindings = std::move(bound);
  return std::nullopt;
}

void check_annotation(const ast::Expr* annotation, const Value& value, ShapeBindings& bindings,
                      const std::string& what) {
  // Only arrays are checked: the host language does not check annotations,
  // and a Python scalar passed for an array is converted by the operations.
  if (!annotation || !value.as<ArrayObject>()) return;
  auto pattern = array_pattern(*annotation);
  if (!pattern) return;
  auto reason = match_pattern(*pattern, value, bindings);
  if (!reason) return;
  raise(exc::TypeError(), what + " does not match its annotation: expected " + pattern->text + ", got " +
                              value.as<ArrayObject>()->aval.short_str() +
                              " (" + *reason + ")");
}

}  // namespace interp
