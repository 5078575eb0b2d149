// Annotations as types (sharding.md): a parameter, return or variable
// annotation that is an array type, `bf16[B@X, D]`, is checked against the
// value at calls, returns and annotated assignments, in run and check mode.
//
// The annotation is kept unevaluated (FunctionObject, ast::AnnAssign). Here it
// becomes a pattern: a dtype and one entry per dimension, each a size or a
// shape variable (bound at its first use in the call, then fixed), and the
// mesh axes that shard it (none: unsharded). Annotations of another form
// (`int`, `jax.Array`) are not checked.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "interp/python/value.hpp"
#include "lang/ast.hpp"
#include "typecheck/array_type.hpp"

namespace interp {

struct DimPattern {
  std::optional<std::int64_t> size;  // a literal size
  std::string variable;              // else a shape variable
  typecheck::SpecEntry axes;         // the axes after `@`; empty: unsharded
};

struct ArrayPattern {
  typecheck::DType dtype = typecheck::DType::float32;
  std::vector<DimPattern> dims;
  std::string text;  // as written, normalized: "bf16[B@X,D]"
};

// Shape variables bound so far in one call (or one module).
using ShapeBindings = std::map<std::string, std::int64_t>;

// The pattern of an annotation, or nullopt when it is not an array type.
std::optional<ArrayPattern> array_pattern(const lang::ast::Expr& annotation);

// Checks `value` against `pattern`, binding new shape variables. nullopt when
// it matches; else the reason ("dimension 1 is 16, but D is 8").
std::optional<std::string> match_pattern(const ArrayPattern& pattern, const Value& value, ShapeBindings& bindings);

// Checks an array `value` against `annotation` (if it is an array type) and raises
// TypeError naming `what` ("argument 'x' of f()") with the expected and
// actual types side by side.
void check_annotation(const lang::ast::Expr* annotation, const Value& value, ShapeBindings& bindings,
                      const std::string& what);

}  // namespace interp
