// NumPy's scalar type hierarchy and the dtype questions model code asks of
// it, in jax.numpy and numpy (numpy_module.hpp): the abstract types
// (generic number inexact floating complexfloating integer signedinteger
// unsignedinteger; jnp's are NumPy's own), issubdtype, isdtype, result_type
// and promote_types, as JAX 0.11's jax/_src/dtypes.py answers them.
#include <array>
#include <optional>

#include "interp/library/numpy_module.hpp"
#include "interp/python/builtins.hpp"
#include "typecheck/python_repr.hpp"

namespace interp {

using typecheck::DType;

namespace {

// The abstract scalar types, each with its place under `generic`.
enum class Kind { generic, number, inexact, floating, complexfloating, integer, signedinteger, unsignedinteger };

struct KindEntry {
  Kind kind;
  const char* name;
  std::optional<Kind> parent;
};

constexpr std::array<KindEntry, 8> kinds{{
    {Kind::generic, "generic", std::nullopt},
    {Kind::number, "number", Kind::generic},
    {Kind::inexact, "inexact", Kind::number},
    {Kind::floating, "floating", Kind::inexact},
    {Kind::complexfloating, "complexfloating", Kind::inexact},
    {Kind::integer, "integer", Kind::number},
    {Kind::signedinteger, "signedinteger", Kind::integer},
    {Kind::unsignedinteger, "unsignedinteger", Kind::integer},
}};

const KindEntry& entry(Kind kind) { return kinds[static_cast<std::size_t>(kind)]; }

// The classes numpy.floating and the others are: built once, with NumPy's
// bases, shared by every interpreter (as the built-in types are).
const TypeRef& kind_type(Kind kind) {
  static const std::array<TypeRef, kinds.size()> types = [] {
    std::array<TypeRef, kinds.size()> made;
    for (const KindEntry& each : kinds)  // parents come first in `kinds`
      made[static_cast<std::size_t>(each.kind)] =
          make_type(each.name, each.parent ? made[static_cast<std::size_t>(*each.parent)] : nullptr);
    return made;
  }();
  return types[static_cast<std::size_t>(kind)];
}

// A scalar type as issubdtype sees one: a concrete dtype (Python's float
// and int are NumPy's float64 and int64, which no shardlang array has), or
// an abstract kind.
struct ScalarType {
  std::optional<DType> dtype;  // a concrete dtype of ours
  Kind kind;                   // its kind, or the abstract type itself
  bool abstract = false;
  bool python_wide = false;    // float64 / int64 (Python's float and int)
};

Kind kind_of(DType dtype) {
  if (typecheck::is_floating(dtype)) return Kind::floating;
  if (dtype == DType::uint32) return Kind::unsignedinteger;
  return dtype == DType::bool_ ? Kind::generic : Kind::signedinteger;
}

ScalarType scalar_type(Evaluator& evaluator, const Value& value) {
  if (auto* type = value.as<TypeObject>()) {
    for (const KindEntry& each : kinds)
      if (type == kind_type(each.kind).get()) return {std::nullopt, each.kind, true};
    if (type->name() == "float") return {std::nullopt, Kind::floating, false, true};
    if (type->name() == "int") return {std::nullopt, Kind::signedinteger, false, true};
  }
  // An array stands for its dtype (np.dtype reads a .dtype attribute).
  DType dtype = value.as<ArrayObject>() ? value.as<ArrayObject>()->aval.dtype : dtype_argument(evaluator, value);
  return {dtype, kind_of(dtype)};
}

bool issubdtype(const ScalarType& a, const ScalarType& b) {
  if (!b.abstract) return !a.abstract && a.dtype == b.dtype && a.python_wide == b.python_wide;
  for (std::optional<Kind> kind = a.kind; kind; kind = entry(*kind).parent)
    if (*kind == b.kind) return true;
  return false;
}

// isdtype's kind strings, as the array API names them.
std::optional<bool> in_named_kind(DType dtype, const std::string& kind) {
  const bool floating = typecheck::is_floating(dtype), unsigned_integer = dtype == DType::uint32;
  const bool signed_integer = typecheck::is_integer(dtype) && !unsigned_integer;
  if (kind == "bool") return dtype == DType::bool_;
  if (kind == "signed integer") return signed_integer;
  if (kind == "unsigned integer") return unsigned_integer;
  if (kind == "integral") return typecheck::is_integer(dtype);
  if (kind == "real floating") return floating;
  if (kind == "complex floating") return false;
  if (kind == "numeric") return floating || typecheck::is_integer(dtype);
  return std::nullopt;
}

bool isdtype(Evaluator& evaluator, DType dtype, const Value& kind) {
  if (auto* options = kind.as<TupleObject>()) {
    for (const Value& option : options->items)
      if (isdtype(evaluator, dtype, option)) return true;
    return false;
  }
  if (auto* name = string_of(kind)) {
    if (auto found = in_named_kind(dtype, *name)) return *found;
    if (!typecheck::parse_dtype(*name))
      raise(exc::ValueError(), "Unrecognized kind=" + typecheck::python_string_repr(*name) +
                                   " expected one of ['bool', 'signed integer', 'unsigned integer', 'integral', "
                                   "'real floating', 'complex floating', 'numeric'], or a compatible input for "
                                   "jnp.dtype()");
  }
  try {
    return dtype_argument(evaluator, kind) == dtype;
  } catch (PyError&) {
    raise(exc::TypeError(), "Expected kind to be a dtype, string, or tuple; got kind=" + evaluator.repr(kind));
  }
}

// An operand of result_type and promote_types: an array's dtype (weak or
// not), a Python scalar or Python's int and float types as weak types, a
// dtype as a strong one.
typecheck::ElementType result_operand(Evaluator& evaluator, const Value& value) {
  if (auto* array = value.as<ArrayObject>()) return {array->aval.dtype, array->aval.weak_type};
  if (value.is_bool()) return {DType::bool_, false};
  if (value.is_int()) return {DType::int32, true};
  if (value.is_float()) return {DType::float32, true};
  const DType dtype = dtype_argument(evaluator, value);
  auto* type = value.as<TypeObject>();
  return {dtype, type && (type->name() == "int" || type->name() == "float")};
}

}  // namespace

void install_dtype_functions(ModuleObject& module) {
  for (const KindEntry& each : kinds) module.add(each.name, Value(kind_type(each.kind)));
  module.add_function("issubdtype(arg1, arg2)", [](Evaluator& ev, Arguments& a) {
    return Value::boolean(issubdtype(scalar_type(ev, a[0]), scalar_type(ev, a[1])));
  });
  module.add_function("isdtype(dtype, kind)", [](Evaluator& ev, Arguments& a) {
    return Value::boolean(isdtype(ev, dtype_argument(ev, a[0]), a[1]));
  });
  module.add_function("result_type(*args)", [](Evaluator& ev, Arguments& a) {
    const auto& args = a[0].as<TupleObject>()->items;
    if (args.empty()) raise(exc::ValueError(), "at least one array or dtype is required");
    std::vector<typecheck::ElementType> operands;
    for (const Value& arg : args) operands.push_back(result_operand(ev, arg));
    return dtype_value(typecheck::result_type(operands).dtype);
  });
  module.add_function("promote_types(a, b)", [](Evaluator& ev, Arguments& a) {
    const typecheck::ElementType operands[] = {result_operand(ev, a[0]), result_operand(ev, a[1])};
    return dtype_value(typecheck::result_type(operands).dtype);
  });
}

}  // namespace interp
