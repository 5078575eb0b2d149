// The abstract syntax tree of a shardlang script: the Python subset of
// language.md. Node and field names follow Python's own `ast` module so that a
// reader who knows Python knows this tree.
//
// Ownership: a Module owns its whole tree (children by unique_ptr) and the
// SourceFile its spans point into. Function values created by the evaluator
// keep the Module alive through its shared_ptr, so a REPL entry's functions
// outlive the entry.
//
// Every node carries a Span (original source offsets). The grammar fills it;
// typecheck/ and interp/ report errors on nodes, never on text positions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "lang/source.hpp"

namespace lang::ast {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using ExprList = std::vector<ExprPtr>;
using Body = std::vector<StmtPtr>;

// An identifier with where it was written (import aliases, parameters,
// global/nonlocal names, keyword-argument names).
struct Identifier {
  std::string name;
  Span span;
};

// ---------------------------------------------------------------- operators

// ORDER BinaryOperator: binary_operator_symbol() in ast.cpp lists the same.
// (bitor_/bitand_: `bitor` and `bitand` are C++ alternative tokens for | and &.)
enum class BinaryOperator { add, sub, mult, matmult, div, floordiv, mod, pow, lshift, rshift, bitor_, bitxor, bitand_ };
enum class UnaryOperator { invert, not_, uadd, usub };
enum class BooleanOperator { and_, or_ };
// ORDER CompareOperator: compare_operator_symbol() in ast.cpp lists the same.
enum class CompareOperator { eq, not_eq_, lt, lt_e, gt, gt_e, is, is_not, in, not_in };

const char* binary_operator_symbol(BinaryOperator op);   // "+", "@", "//", ...
const char* unary_operator_symbol(UnaryOperator op);     // "~", "not", "+", "-"
const char* compare_operator_symbol(CompareOperator op); // "==", "is not", "not in", ...

// ---------------------------------------------------------------- expressions

struct NoneLiteral {};
struct EllipsisLiteral {};

// 1, 0x10, 1_000, 1.5, 1e-5, 'text', True, None, ... (adjacent string
// literals are already concatenated by the parser).
struct Constant {
  std::variant<NoneLiteral, bool, std::int64_t, double, std::string, EllipsisLiteral> value;
};

struct Name {
  std::string id;
  // Where the name lives, written once by the interpreter's name resolution
  // (interp/python/scope.cpp) so that a use needs no lookup; opaque here,
  // 0 until resolved.
  mutable std::uint8_t resolved_kind = 0;
  mutable std::uint32_t resolved_index = 0;
};

// One `{value!conversion:format_spec}` field of an f-string. A spec with
// fields of its own (`{x:{width}.{digits}f}`) is a JoinedStr evaluated first.
// `{x=}` is parsed as the literal text "x=" before the field, with conversion
// 'r' when neither a conversion nor a spec is given (as CPython does).
struct FormattedValue {
  ExprPtr value;
  char conversion = 0;        // 0, 'r', 's' or 'a'
  std::string format_spec;    // text after ':', e.g. ">4" or ".3f"; may be empty
  ExprPtr format_spec_expr;   // the spec when it has nested fields; null otherwise
};

// f'a{b!r:>4}c': literal text and fields in order.
struct JoinedStr {
  std::vector<std::variant<std::string, FormattedValue>> parts;
};

struct Tuple { ExprList elts; };
struct List { ExprList elts; };
struct Set { ExprList elts; };

// {k: v, **other}: a null key marks a `**mapping` entry.
struct Dict {
  ExprList keys;
  ExprList values;
};

// `for target in iter if cond1 if cond2` inside a comprehension.
struct Comprehension {
  ExprPtr target;
  ExprPtr iter;
  ExprList ifs;
};

struct ListComp { ExprPtr elt; std::vector<Comprehension> generators; };
struct SetComp { ExprPtr elt; std::vector<Comprehension> generators; };
struct DictComp { ExprPtr key; ExprPtr value; std::vector<Comprehension> generators; };
struct GeneratorExp { ExprPtr elt; std::vector<Comprehension> generators; };

struct BinOp { BinaryOperator op; ExprPtr left; ExprPtr right; };
struct UnaryOp { UnaryOperator op; ExprPtr operand; };
// `a and b and c` is one BoolOp with three values.
struct BoolOp { BooleanOperator op; ExprList values; };
// `a < b <= c`: left=a, ops={lt, lt_e}, comparators={b, c}.
struct Compare { ExprPtr left; std::vector<CompareOperator> ops; ExprList comparators; };

struct IfExp { ExprPtr test; ExprPtr body; ExprPtr orelse; };

// A `*iterable` in a call's arguments, a list/tuple display, or an assignment target.
struct Starred { ExprPtr value; };

// `name=value`, or `**value` when name is empty.
struct Keyword {
  std::optional<Identifier> name;
  ExprPtr value;
  Span span;
};

struct Call {
  ExprPtr func;
  ExprList args;  // may contain Starred
  std::vector<Keyword> keywords;
};

struct Attribute {
  ExprPtr value;
  std::string attr;
  Span attr_span;
  // The position of this site's entry in the interpreter's cache of what
  // the last lookup found (interp/python/scope.hpp); opaque here.
  mutable std::uint32_t site = 0;
};

// x[i], x[a:b], x[:, None], x[..., 0]: `slice` is a Slice, a Tuple of
// indices/Slices, or any expression.
struct Subscript { ExprPtr value; ExprPtr slice; };

// lower:upper:step inside a subscript; missing parts are null.
struct Slice { ExprPtr lower; ExprPtr upper; ExprPtr step; };

struct Parameter {
  Identifier name;
  ExprPtr annotation;  // may be null
  ExprPtr default_;    // may be null
};

// def f(a, b=1, *args, c, d=2, **kwargs) / lambda a, *r: ...
struct Parameters {
  std::vector<Parameter> positional;      // may have defaults
  std::optional<Parameter> varargs;       // *args (no default)
  std::vector<Parameter> keyword_only;    // after * or *args
  std::optional<Parameter> kwargs;        // **kwargs (no default)
};

struct Lambda {
  Parameters params;
  ExprPtr body;
};

// `yield value` (value may be null) and `yield from iterable`.
struct Yield { ExprPtr value; };
struct YieldFrom { ExprPtr value; };

struct Expr {
  Span span;
  std::variant<Constant, Name, JoinedStr, Tuple, List, Set, Dict, ListComp, SetComp, DictComp,
               GeneratorExp, BinOp, UnaryOp, BoolOp, Compare, IfExp, Starred, Call, Attribute,
               Subscript, Slice, Lambda, Yield, YieldFrom>
      node;
};

// ---------------------------------------------------------------- statements

struct ExprStmt { ExprPtr value; };

// a = b = value: targets={a, b}. Targets are Name, Attribute, Subscript,
// Tuple/List (nested, with at most one Starred each).
struct Assign { ExprList targets; ExprPtr value; };
struct AugAssign { ExprPtr target; BinaryOperator op; ExprPtr value; };
// x: f32[8@X] = value (value may be null).
struct AnnAssign { ExprPtr target; ExprPtr annotation; ExprPtr value; };

struct FunctionDef {
  Identifier name;
  Parameters params;
  Body body;
  ExprList decorators;  // outermost first, as written
  ExprPtr returns;      // may be null
};

// class Name(Base1, Base2, metaclass=M): body
struct ClassDef {
  Identifier name;
  ExprList bases;                 // may contain Starred
  std::vector<Keyword> keywords;
  Body body;
  ExprList decorators;  // outermost first, as written
};

struct Return { ExprPtr value; };  // value may be null
struct If { ExprPtr test; Body body; Body orelse; };  // elif is a nested If in orelse
struct For { ExprPtr target; ExprPtr iter; Body body; Body orelse; };
struct While { ExprPtr test; Body body; Body orelse; };
struct Break {};
struct Continue {};
struct Pass {};

struct ExceptHandler {
  ExprPtr type;                    // may be null (bare except)
  std::optional<Identifier> name;  // `as e`
  Body body;
  Span span;
};

struct Try {
  Body body;
  std::vector<ExceptHandler> handlers;
  Body orelse;
  Body finalbody;
};

struct Raise { ExprPtr exc; ExprPtr cause; };  // both may be null
struct Assert { ExprPtr test; ExprPtr msg; };  // msg may be null

// `import a.b.c as d`: module="a.b.c", asname="d".
struct Alias {
  std::string name;  // dotted for Import, plain for ImportFrom
  Span span;
  std::optional<Identifier> asname;
};
struct Import { std::vector<Alias> names; };
// `from ..a.b import c`: level=2 (the leading dots), module="a.b" (empty in `from . import c`).
struct ImportFrom {
  std::string module;
  Span module_span;
  std::vector<Alias> names;
  int level = 0;
};

struct Global { std::vector<Identifier> names; };
struct Nonlocal { std::vector<Identifier> names; };
struct Delete { ExprList targets; };

// with a as b, c: ... (used by `with jax.set_mesh(mesh):`).
struct WithItem { ExprPtr context_expr; ExprPtr optional_vars; };
struct With { std::vector<WithItem> items; Body body; };

// An IPython line magic at statement start: `%timeit -n 5 -r 3 f(x)`.
// `options` holds the flags as written ({"-n", "5", "-r", "3"}); `statement`
// is the parsed rest of the line.
struct LineMagic {
  Identifier name;  // "timeit"
  std::vector<std::string> options;
  StmtPtr statement;
};

struct Stmt {
  Span span;
  std::variant<ExprStmt, Assign, AugAssign, AnnAssign, FunctionDef, ClassDef, Return, If, For, While,
               Break, Continue, Pass, Try, Raise, Assert, Import, ImportFrom, Global, Nonlocal,
               Delete, With, LineMagic>
      node;
};

// A parsed file or REPL entry.
struct Module {
  std::shared_ptr<const SourceFile> source;
  Body body;
};

// Helpers to build nodes tersely: make_expr(span, ast::Name{"x"}).
template <class Node>
ExprPtr make_expr(Span span, Node node) {
  return std::make_unique<Expr>(Expr{span, std::move(node)});
}
template <class Node>
StmtPtr make_stmt(Span span, Node node) {
  return std::make_unique<Stmt>(Stmt{span, std::move(node)});
}

// A readable, stable dump of a tree (for tests and `--dump-ast`): one node
// per line, indented, with its line:column.
std::string dump(const Module& module);

}  // namespace lang::ast
