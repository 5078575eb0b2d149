#include <gtest/gtest.h>

#include "parse_helpers.hpp"

namespace lang {
namespace {

using testing::dump_of;
using testing::sexpr_of;

TEST(ParserExpressions, Literals) {
  EXPECT_EQ(sexpr_of("(1, 0x1F, 1_000, 1.5, 1e-5, .5, 1., None, True, False, ...)"),
            "(tuple 1 31 1000 1.5 1e-05 0.5 1 None True False ...)");
  EXPECT_EQ(sexpr_of("'a' \"b\" '''c'''"), "'abc'");
  EXPECT_EQ(sexpr_of(R"('\n\t\\\'\x41\u00e9')"), "'\n\t\\'A\xc3\xa9'");
  EXPECT_EQ(sexpr_of(R"(r'\n\d')"), R"('\n\d')");
}

TEST(ParserExpressions, FStrings) {
  EXPECT_EQ(sexpr_of("f'a{b}c'"), "(f 'a' {b} 'c')");
  EXPECT_EQ(sexpr_of("f'{x!r} {y:>4} {z!s:.3f}'"), "(f {x!r} ' ' {y:>4} ' ' {z!s:.3f})");
  EXPECT_EQ(sexpr_of("f'{{literal}} {a + b[1]}'"), "(f '{literal} ' {(+ a ([] b 1))})");
  EXPECT_EQ(sexpr_of("f'{d[\"k\"]}' 'tail'"), "(f {([] d 'k')} 'tail')");
  EXPECT_EQ(sexpr_of("f'{x == y}'"), "(f {(compare x == y)})");
}

TEST(ParserExpressions, ArithmeticPrecedence) {
  EXPECT_EQ(sexpr_of("1 + 2 * 3 - 4"), "(- (+ 1 (* 2 3)) 4)");
  EXPECT_EQ(sexpr_of("a / b // c % d @ e"), "(@ (% (// (/ a b) c) d) e)");
  EXPECT_EQ(sexpr_of("a << b + c | d ^ e & f"), "(| (<< a (+ b c)) (^ d (& e f)))");
}

TEST(ParserExpressions, PowerIsRightAssociativeAndBindsTighterThanUnaryMinus) {
  EXPECT_EQ(sexpr_of("-2**2"), "(- (** 2 2))");
  EXPECT_EQ(sexpr_of("2**3**2"), "(** 2 (** 3 2))");
  EXPECT_EQ(sexpr_of("2**-1"), "(** 2 (- 1))");
  EXPECT_EQ(sexpr_of("~+-x"), "(~ (+ (- x)))");
}

TEST(ParserExpressions, ComparisonsAndBooleans) {
  EXPECT_EQ(sexpr_of("a < b <= c"), "(compare a < b <= c)");
  EXPECT_EQ(sexpr_of("a is not b"), "(compare a is not b)");
  EXPECT_EQ(sexpr_of("a not in b"), "(compare a not in b)");
  EXPECT_EQ(sexpr_of("a in b == c != d > e >= f is g"), "(compare a in b == c != d > e >= f is g)");
  EXPECT_EQ(sexpr_of("not a and b or c and not d"), "(or (and (not a) b) (and c (not d)))");
  EXPECT_EQ(sexpr_of("a and b and c"), "(and a b c)");
  EXPECT_EQ(sexpr_of("x if c else y if d else z"), "(if c x (if d y z))");
}

TEST(ParserExpressions, NamesAreNotCutAtKeywordPrefixes) {
  EXPECT_EQ(sexpr_of("index + format + iffy + notes + island + orange + isin"),
            "(+ (+ (+ (+ (+ (+ index format) iffy) notes) island) orange) isin)");
  EXPECT_EQ(sexpr_of("not_a"), "not_a");
}

TEST(ParserExpressions, Displays) {
  EXPECT_EQ(sexpr_of("(1,)"), "(tuple 1)");
  EXPECT_EQ(sexpr_of("()"), "(tuple)");
  EXPECT_EQ(sexpr_of("(1)"), "1");
  EXPECT_EQ(sexpr_of("[1, *a, 2,]"), "(list 1 *a 2)");
  EXPECT_EQ(sexpr_of("{}"), "(dict)");
  EXPECT_EQ(sexpr_of("{'a': 1, **d}"), "(dict 'a':1 **d)");
  EXPECT_EQ(sexpr_of("{1, 2}"), "(set 1 2)");
  EXPECT_EQ(sexpr_of("a, b"), "(tuple a b)");
}

TEST(ParserExpressions, Comprehensions) {
  EXPECT_EQ(sexpr_of("[x * 2 for x in xs if x if y]"), "(listcomp (* x 2) (for x xs (if x) (if y)))");
  EXPECT_EQ(sexpr_of("{k: v for k, v in items for z in k}"), "(dictcomp k:v (for (tuple k v) items) (for z k))");
  EXPECT_EQ(sexpr_of("{x for x in y}"), "(setcomp x (for x y))");
  EXPECT_EQ(sexpr_of("(x for x in y)"), "(genexp x (for x y))");
  EXPECT_EQ(sexpr_of("all(d1 % d2 == 0 for d1, d2 in zip(a, b))"),
            "(call all (genexp (compare (% d1 d2) == 0) (for (tuple d1 d2) (call zip a b))))");
}

TEST(ParserExpressions, CallsAttributesSubscripts) {
  EXPECT_EQ(sexpr_of("f(1, *it, k=2, **m)"), "(call f 1 *it k=2 **m)");
  EXPECT_EQ(sexpr_of("f()()"), "(call (call f))");
  EXPECT_EQ(sexpr_of("jax.numpy.sum(x).T"), "(. (call (. (. jax numpy) sum) x) T)");
  EXPECT_EQ(sexpr_of("x[:4]"), "([] x (slice _ 4 _))");
  EXPECT_EQ(sexpr_of("x[:, None]"), "([] x (tuple (slice _ _ _) None))");
  EXPECT_EQ(sexpr_of("x[..., 0]"), "([] x (tuple ... 0))");
  EXPECT_EQ(sexpr_of("a[::-1]"), "([] a (slice _ _ (- 1)))");
  EXPECT_EQ(sexpr_of("x[1:2, ::2]"), "([] x (tuple (slice 1 2 _) (slice _ _ 2)))");
  EXPECT_EQ(sexpr_of("x[i]"), "([] x i)");
  EXPECT_EQ(sexpr_of("x[i,]"), "([] x (tuple i))");
  EXPECT_EQ(sexpr_of("x.at[i].set(v)"), "(call (. ([] (. x at) i) set) v)");
}

TEST(ParserExpressions, AnnotationsAreExpressions) {
  EXPECT_EQ(sexpr_of("bf16[B@X, D@(X,Y)]"), "([] bf16 (tuple (@ B X) (@ D (tuple X Y))))");
}

TEST(ParserExpressions, Lambdas) {
  EXPECT_EQ(sexpr_of("lambda: 0"), "(lambda: 0)");
  EXPECT_EQ(sexpr_of("lambda x, y=1, *r, k, **kw: x + y"), "(lambda x y=1 *r k **kw: (+ x y))");
  EXPECT_EQ(sexpr_of("lambda x: lambda y: x if y else 0"), "(lambda x: (lambda y: (if y x 0)))");
}

TEST(ParserStatements, Assignments) {
  EXPECT_EQ(dump_of("a = b = c\n"),
            "Module\n  Assign 1:1\n    targets:\n      Name a 1:1\n      Name b 1:5\n    value:\n      Name c 1:9\n");
  EXPECT_EQ(dump_of("key, *keys = split(k)\n"),
            "Module\n  Assign 1:1\n    targets:\n      Tuple 1:1\n        Name key 1:1\n        Starred 1:6\n"
            "          Name keys 1:7\n    value:\n      Call 1:14\n        func:\n          Name split 1:14\n"
            "        args:\n          Name k 1:20\n");
  EXPECT_NE(dump_of("[a, (b, c)] = x\n").find("targets:\n      List 1:1\n        Name a 1:2\n        Tuple 1:5"),
            std::string::npos);
  EXPECT_EQ(dump_of("x.y[0] = 1\n").substr(0, 36), "Module\n  Assign 1:1\n    targets:\n   ");
}

TEST(ParserStatements, AugmentedAndAnnotatedAssignments) {
  for (const char* op : {"+=", "-=", "*=", "/=", "//=", "%=", "@=", "**="}) {
    std::string dump = dump_of(std::string("x ") + op + " 1\n");
    EXPECT_NE(dump.find(std::string("AugAssign ") + op), std::string::npos) << dump;
  }
  EXPECT_EQ(dump_of("x: f32[8@X] = y\n"),
            "Module\n  AnnAssign 1:1\n    target:\n      Name x 1:1\n    annotation:\n      Subscript 1:4\n"
            "        value:\n          Name f32 1:4\n        slice:\n          BinOp @ 1:8\n"
            "            Constant 8 1:8\n            Name X 1:10\n    value:\n      Name y 1:15\n");
  EXPECT_EQ(dump_of("x: int\n"), "Module\n  AnnAssign 1:1\n    target:\n      Name x 1:1\n    annotation:\n      Name int 1:4\n");
}

TEST(ParserStatements, FunctionDefinitions) {
  EXPECT_EQ(dump_of("@functools.partial(jax.jit, static_argnums=1)\n"
                    "def f(a, b: int = 1, *args, c, d=2, **kw) -> bf16[B@X]:\n"
                    "    return a\n"),
            "Module\n"
            "  FunctionDef f 2:1\n"
            "    decorators:\n"
            "      Call 1:2\n"
            "        func:\n"
            "          Attribute .partial 1:2\n"
            "            Name functools 1:2\n"
            "        args:\n"
            "          Attribute .jit 1:20\n"
            "            Name jax 1:20\n"
            "        keyword static_argnums 1:29\n"
            "          Constant 1 1:44\n"
            "    arg a 2:7\n"
            "    arg b 2:10\n"
            "      annotation:\n"
            "        Name int 2:13\n"
            "      default:\n"
            "        Constant 1 2:19\n"
            "    vararg args 2:23\n"
            "    kwonlyarg c 2:29\n"
            "    kwonlyarg d 2:32\n"
            "      default:\n"
            "        Constant 2 2:34\n"
            "    kwarg kw 2:39\n"
            "    returns:\n"
            "      Subscript 2:46\n"
            "        value:\n"
            "          Name bf16 2:46\n"
            "        slice:\n"
            "          BinOp @ 2:51\n"
            "            Name B 2:51\n"
            "            Name X 2:53\n"
            "    body:\n"
            "      Return 3:5\n"
            "        Name a 3:12\n");
  EXPECT_EQ(dump_of("def g(*, k): pass\n"), "Module\n  FunctionDef g 1:1\n    kwonlyarg k 1:10\n    body:\n      Pass 1:14\n");
}

TEST(ParserStatements, ClassDefinitions) {
  std::string dump = dump_of("@register\nclass A(Base, Mixin, metaclass=M):\n    x = 1\n    def f(self): pass\n");
  EXPECT_NE(dump.find("ClassDef A"), std::string::npos) << dump;
  EXPECT_NE(dump.find("decorators:\n      Name register"), std::string::npos) << dump;
  EXPECT_NE(dump.find("bases:\n      Name Base"), std::string::npos) << dump;
  EXPECT_NE(dump.find("keyword metaclass"), std::string::npos) << dump;
  EXPECT_NE(dump.find("FunctionDef f"), std::string::npos) << dump;
  EXPECT_NE(dump_of("class A: pass\n").find("ClassDef A 1:1"), std::string::npos);
  EXPECT_NE(dump_of("class A(): pass\n").find("ClassDef A 1:1"), std::string::npos);
}

TEST(ParserStatements, YieldExpressions) {
  std::string dump = dump_of("def g():\n    yield\n    x = yield 1, 2\n    y = yield from h()\n    print((yield))\n");
  EXPECT_NE(dump.find("Yield"), std::string::npos) << dump;
  EXPECT_NE(dump.find("YieldFrom"), std::string::npos) << dump;
  EXPECT_EQ(dump.find("error"), std::string::npos) << dump;
}

TEST(ParserStatements, IfElifElse) {
  EXPECT_EQ(dump_of("if a:\n    x\nelif b:\n    y\nelse:\n    z\n"),
            "Module\n  If 1:1\n    test:\n      Name a 1:4\n    body:\n      Expr 2:5\n        Name x 2:5\n"
            "    orelse:\n      If 3:1\n        test:\n          Name b 3:6\n        body:\n          Expr 4:5\n"
            "            Name y 4:5\n        orelse:\n          Expr 6:5\n            Name z 6:5\n");
}

TEST(ParserStatements, LoopsWithElse) {
  EXPECT_EQ(dump_of("for i, (a, b) in enumerate(x):\n    break\nelse:\n    continue\n"),
            "Module\n  For 1:1\n    target:\n      Tuple 1:5\n        Name i 1:5\n        Tuple 1:8\n"
            "          Name a 1:9\n          Name b 1:12\n    iter:\n      Call 1:18\n        func:\n"
            "          Name enumerate 1:18\n        args:\n          Name x 1:28\n    body:\n      Break 2:5\n"
            "    orelse:\n      Continue 4:5\n");
  EXPECT_EQ(dump_of("while x: x -= 1\nelse: pass\n"),
            "Module\n  While 1:1\n    test:\n      Name x 1:7\n    body:\n      AugAssign -= 1:10\n        target:\n"
            "          Name x 1:10\n        value:\n          Constant 1 1:15\n    orelse:\n      Pass 2:7\n");
}

TEST(ParserStatements, TryExceptElseFinally) {
  EXPECT_EQ(dump_of("try:\n  f()\nexcept ValueError as e:\n  pass\nexcept:\n  raise\nelse:\n  pass\nfinally:\n  g()\n"),
            "Module\n  Try 1:1\n    body:\n      Expr 2:3\n        Call 2:3\n          func:\n            Name f 2:3\n"
            "    ExceptHandler as e 3:1\n      type:\n        Name ValueError 3:8\n      body:\n        Pass 4:3\n"
            "    ExceptHandler 5:1\n      body:\n        Raise 6:3\n    orelse:\n      Pass 8:3\n"
            "    finalbody:\n      Expr 10:3\n        Call 10:3\n          func:\n            Name g 10:3\n");
}

TEST(ParserStatements, SimpleStatements) {
  EXPECT_EQ(dump_of("raise E from c\nassert x, 'm'\nglobal a, b\nnonlocal c\ndel a[0], b\npass; return\n"),
            "Module\n  Raise 1:1\n    exc:\n      Name E 1:7\n    cause:\n      Name c 1:14\n"
            "  Assert 2:1\n    test:\n      Name x 2:8\n    msg:\n      Constant 'm' 2:11\n"
            "  Global a b 3:1\n  Nonlocal c 4:1\n  Delete 5:1\n    Subscript 5:5\n      value:\n"
            "        Name a 5:5\n      slice:\n        Constant 0 5:7\n    Name b 5:11\n  Pass 6:1\n  Return 6:7\n");
}

TEST(ParserStatements, Imports) {
  EXPECT_EQ(dump_of("import jax.numpy as jnp, numpy\nfrom jax.sharding import (Mesh, PartitionSpec as P,)\n"),
            "Module\n  Import 1:1\n    alias jax.numpy as jnp 1:8\n    alias numpy 1:26\n"
            "  ImportFrom jax.sharding 2:1\n    alias Mesh 2:27\n    alias PartitionSpec as P 2:33\n");
}

TEST(ParserStatements, WithAndLineMagic) {
  EXPECT_EQ(dump_of("with jax.set_mesh(mesh) as m, b:\n  pass\n"),
            "Module\n  With 1:1\n    withitem:\n      context_expr:\n        Call 1:6\n          func:\n"
            "            Attribute .set_mesh 1:6\n              Name jax 1:6\n          args:\n"
            "            Name mesh 1:19\n      optional_vars:\n        Name m 1:28\n    withitem:\n"
            "      context_expr:\n        Name b 1:31\n    body:\n      Pass 2:3\n");
  EXPECT_EQ(dump_of("%timeit -n 5 -r 3 f(x)\n"),
            "Module\n  LineMagic %timeit -n 5 -r 3 1:1\n    Expr 1:19\n      Call 1:19\n        func:\n"
            "          Name f 1:19\n        args:\n          Name x 1:21\n");
  EXPECT_EQ(dump_of("%timeit y = -x\n"),
            "Module\n  LineMagic %timeit 1:1\n    Assign 1:9\n      targets:\n        Name y 1:9\n"
            "      value:\n        UnaryOp - 1:13\n          Name x 1:14\n");
}

TEST(ParserStatements, EmptyAndCommentOnlySources) {
  EXPECT_EQ(dump_of(""), "Module\n");
  EXPECT_EQ(dump_of("# only a comment\n\n"), "Module\n");
}

TEST(ParserStatements, CrlfLineEnds) {
  EXPECT_EQ(dump_of("if x:\r\n    y\r\n"), dump_of("if x:\n    y\n"));
}

}  // namespace
}  // namespace lang
