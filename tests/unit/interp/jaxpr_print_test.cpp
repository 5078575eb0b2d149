// The jaxpr printer (transforms/jaxpr_print.cpp) and the pretty printer it
// lays text out with (transforms/pretty_printer.hpp), against JAX 0.11's
// text for the same documents and jaxprs.
#include <gtest/gtest.h>

#include <string>

#include "interp/transforms/jaxpr.hpp"
#include "interp/transforms/pretty_printer.hpp"

namespace interp {
namespace {

// A group prints flat when it fits in what is left of the line, else its
// breaks are newlines at the nesting's indent (pretty_printer_test.py's cases).
TEST(PrettyPrinter, GroupsBreakOnlyWhenTheyDoNotFit) {
  pp::Doc doc = pp::group(pp::nest(2, pp::concat({pp::text("abc"), pp::brk(), pp::text("def")})));
  EXPECT_EQ(pp::format(doc, 80), "abc def");
  EXPECT_EQ(pp::format(doc, 5), "abc\n  def");
  // A break outside any group breaks.
  EXPECT_EQ(pp::format(pp::concat({pp::text("a"), pp::brk(), pp::text("b")})), "a\nb");
  // Only the group itself must fit, not the text after it.
  pp::Doc inner = pp::concat({pp::group(pp::concat({pp::text("xx"), pp::brk(), pp::text("yy")})), pp::text("zzzzzz")});
  EXPECT_EQ(pp::format(inner, 6), "xx yyzzzzzz");
  EXPECT_EQ(pp::format(pp::join(pp::text(", "), {pp::text("a"), pp::text("b"), pp::text("c")})), "a, b, c");
}

typecheck::ArrayType f32(typecheck::Shape shape) {
  typecheck::ArrayType type;
  type.dtype = typecheck::DType::float32;
  type.shape = shape;
  type.sharding = typecheck::Sharding::replicated(nullptr, shape.size());
  return type;
}

// Names follow the printing order; a result nothing reads is `_`; the
// primitive prints under JAX's name with JAX's params.
TEST(JaxprPrint, NamesPrimitivesAndParamsAsJaxPrintsThem) {
  Jaxpr program;
  int x = program.add_variable(f32({8, 4})), w = program.add_variable(f32({4, 2}));
  program.inputs = {x, w};
  int unused = program.add_variable(f32({8, 4}));
  program.equations.push_back({&primitive("sin"), {x}, {}, unused});
  int product = program.add_variable(f32({8, 2}));
  program.equations.push_back({&primitive("dot_general"), {x, w}, {}, product});
  int total = program.add_variable(f32({2}));
  Params axes;
  axes.set("axes", std::vector<std::int64_t>{0}).set("keepdims", false);
  program.equations.push_back({&primitive("reduce_sum"), {product}, axes, total});
  int doubled = program.add_variable(f32({2}));
  program.equations.push_back({&primitive("multiply"), {total, total}, {}, doubled});
  program.outputs = {doubled};
  EXPECT_EQ(program.str(),
            "{ lambda ; a:f32[8,4] b:f32[4,2]. let\n"
            "    _:f32[8,4] = sin a\n"
            "    c:f32[8,2] = dot_general[\n"
            "      dimension_numbers=(([1], [0]), ([], []))\n"
            "      preferred_element_type=float32\n"
            "    ] a b\n"
            "    d:f32[2] = reduce_sum[axes=(0,) out_sharding=None] c\n"
            "    e:f32[2] = mul d d\n"
            "  in (e,) }");
}

// A short jaxpr fits on one line, as JAX prints it.
TEST(JaxprPrint, AShortJaxprIsOneLine) {
  Jaxpr program;
  int x = program.add_variable(f32({3}));
  program.inputs = {x};
  int y = program.add_variable(f32({3}));
  program.equations.push_back({&primitive("cos"), {x}, {}, y});
  program.outputs = {y, x};
  EXPECT_EQ(program.str(), "{ lambda ; a:f32[3]. let b:f32[3] = cos a in (b, a) }");
}

// A literal's value as core.Literal.pretty_print writes it.
TEST(JaxprPrint, LiteralValues) {
  EXPECT_EQ(literal_text(2, typecheck::DType::int32, true), "2");
  EXPECT_EQ(literal_text(2, typecheck::DType::float32, true), "2.0");
  // A weak float is the Python float it was written as; a float32 array's
  // value is that float32 as a Python float (np.float32(0.1).item()).
  EXPECT_EQ(literal_text(static_cast<double>(0.1f), typecheck::DType::float32, true), "0.1");
  EXPECT_EQ(literal_text(static_cast<double>(0.1f), typecheck::DType::float32, false), "0.10000000149011612");
  EXPECT_EQ(literal_text(1, typecheck::DType::bool_, false), "True");
  EXPECT_EQ(literal_text(-1e-5, typecheck::DType::float32, true), "-1e-05");
}

}  // namespace
}  // namespace interp
