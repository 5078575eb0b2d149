// Arrays across the public embedding API: host buffers in (replicated,
// sharded, strided), a sharded computation, results read back; arrays
// through get/set and host functions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "shardlang/shardlang.hpp"

namespace {

struct Session {
  std::string output;
  shardlang::Interpreter interpreter;

  Session() : interpreter(options(output)) {}
  static shardlang::Options options(std::string& sink) {
    shardlang::Options o;
    o.output = [&sink](std::string_view text) { sink += text; };
    return o;
  }
  void run(std::string_view source) {
    shardlang::Result result = interpreter.run(source, "test.shl");
    for (const auto& d : result.diagnostics()) ADD_FAILURE() << d.render();
  }
  void set_mesh() { run("import jax\nimport jax.numpy as jnp\njax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y')))\n"); }
  shardlang::Array array(const std::string& name) {
    std::optional<shardlang::Value> value = interpreter.get(name);
    EXPECT_TRUE(value && value->kind() == shardlang::Value::Kind::array) << name;
    return value ? value->as_array() : shardlang::Array();
  }
};

std::vector<float> iota(std::size_t n, float scale = 1.0f) {
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(i) * scale;
  return values;
}

std::vector<float> read_floats(const shardlang::Array& array) {
  std::vector<float> out(static_cast<std::size_t>(array.size()));
  EXPECT_TRUE(array.read(out.data(), out.size() * sizeof(float)));
  return out;
}

TEST(EmbeddedArrays, ShardedComputationReadsBackAsOnTheHost) {
  Session s;
  s.set_mesh();
  // x: 16 x 8 f32 sharded over both axes; w: 8 x 4 replicated.
  std::vector<float> x = iota(16 * 8, 0.01f), w = iota(8 * 4, 0.1f);
  shardlang::ArrayResult made = s.interpreter.make_array({shardlang::DType::float32, {16, 8}, x.data(), {}},
                                                         shardlang::PartitionSpec{{"X"}, {"Y"}});
  ASSERT_TRUE(made.result.ok());
  EXPECT_EQ(made.array.type(), "float32[16@X,8@Y]");
  EXPECT_EQ(made.array.spec(), (shardlang::PartitionSpec{{"X"}, {"Y"}}));
  EXPECT_TRUE(made.array.bytes().empty());  // sharded: no one buffer holds it
  s.interpreter.set("x", shardlang::Value::array(made.array));
  shardlang::ArrayResult weights = s.interpreter.make_array({shardlang::DType::float32, {8, 4}, w.data(), {}});
  ASSERT_TRUE(weights.result.ok());
  s.interpreter.set("w", shardlang::Value::array(weights.array));
  s.run("y = jnp.dot(jnp.sin(x), w, out_sharding=jax.P('X', None))\nprint(jax.typeof(y))\n");
  EXPECT_EQ(s.output, "float32[16@X,4]\n");

  shardlang::Array y = s.array("y");
  ASSERT_EQ(y.shape(), (std::vector<std::int64_t>{16, 4}));
  EXPECT_EQ(y.dtype(), shardlang::DType::float32);
  std::vector<float> got = read_floats(y);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 4; ++j) {
      double expected = 0;
      for (int k = 0; k < 8; ++k) expected += std::sin(double(x[i * 8 + k])) * w[k * 4 + j];
      EXPECT_NEAR(got[i * 4 + j], expected, 1e-4) << i << "," << j;
    }
}

TEST(EmbeddedArrays, ReadBackOfAShardedArrayEqualsItsInput) {
  Session s;
  s.set_mesh();
  std::vector<float> x = iota(8 * 6);
  for (const auto& spec : {shardlang::PartitionSpec{{"X"}}, shardlang::PartitionSpec{{}, {"Y"}},
                           shardlang::PartitionSpec{{"X", "Y"}}, shardlang::PartitionSpec{{"Y"}, {}}}) {
    shardlang::ArrayResult made = s.interpreter.make_array({shardlang::DType::float32, {8, 6}, x.data(), {}}, spec);
    ASSERT_TRUE(made.result.ok());
    EXPECT_EQ(read_floats(made.array), x);
  }
}

TEST(EmbeddedArrays, ReplicatedArrayIsReadInPlace) {
  Session s;
  std::vector<std::int32_t> values{1, 2, 3, 4, 5, 6};
  shardlang::ArrayResult made = s.interpreter.make_array({shardlang::DType::int32, {2, 3}, values.data(), {}});
  ASSERT_TRUE(made.result.ok());
  EXPECT_EQ(made.array.type(), "int32[2,3]");
  std::span<const std::byte> bytes = made.array.bytes();
  ASSERT_EQ(bytes.size(), values.size() * sizeof(std::int32_t));
  EXPECT_EQ(std::memcmp(bytes.data(), values.data(), bytes.size()), 0);
  // get() shares the interpreter's buffer: the same bytes, not a copy.
  s.interpreter.set("a", shardlang::Value::array(made.array));
  s.run("b = a\n");
  EXPECT_EQ(s.array("b").bytes().data(), bytes.data());
}

TEST(EmbeddedArrays, StridedHostBufferIsCopiedByItsStrides) {
  Session s;
  s.set_mesh();
  // The transpose of a row-major 6 x 8 buffer, as NumPy's a.T shows it.
  std::vector<float> base = iota(6 * 8);
  shardlang::HostArray transposed{shardlang::DType::float32, {8, 6}, base.data(), {4, 8 * 4}};
  shardlang::ArrayResult made = s.interpreter.make_array(transposed, shardlang::PartitionSpec{{"X"}, {"Y"}});
  ASSERT_TRUE(made.result.ok());
  std::vector<float> got = read_floats(made.array);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_EQ(got[i * 6 + j], base[j * 8 + i]);
}

TEST(EmbeddedArrays, EveryDTypeRoundTrips) {
  Session s;
  std::vector<std::uint8_t> bools{1, 0, 1};
  std::vector<std::int8_t> int8s{-3, 0, 7};
  std::vector<std::uint32_t> uint32s{0, 4000000000u, 7};
  std::vector<std::uint16_t> halves{0x3c00, 0xc000, 0};      // f16: 1, -2, 0
  std::vector<std::uint16_t> bfloats{0x3f80, 0xc000, 0x4049};  // bf16: 1, -2, 3.140625
  struct Case {
    shardlang::DType dtype;
    const void* data;
    const char* sum;
  } cases[] = {{shardlang::DType::bool_, bools.data(), "2.0"},
               {shardlang::DType::int8, int8s.data(), "4.0"},
               {shardlang::DType::uint32, uint32s.data(), "4000000007"},
               {shardlang::DType::float16, halves.data(), "-1.0"},
               {shardlang::DType::bfloat16, bfloats.data(), "2.140625"}};
  for (const Case& c : cases) {
    shardlang::ArrayResult made = s.interpreter.make_array({c.dtype, {3}, c.data, {}});
    ASSERT_TRUE(made.result.ok()) << shardlang::dtype_name(c.dtype);
    EXPECT_EQ(made.array.dtype(), c.dtype);
    std::span<const std::byte> bytes = made.array.bytes();
    ASSERT_EQ(bytes.size(), 3 * shardlang::dtype_size(c.dtype));
    EXPECT_EQ(std::memcmp(bytes.data(), c.data, bytes.size()), 0) << shardlang::dtype_name(c.dtype);
    s.interpreter.set("a", shardlang::Value::array(made.array));
    s.output.clear();
    s.run("print(a.dtype, a.astype('float32').sum() if a.dtype != 'uint32' else int(a.sum()))\n");
    EXPECT_EQ(s.output, std::string(shardlang::dtype_name(c.dtype)) + " " + c.sum + "\n");
  }
}

TEST(EmbeddedArrays, HostFunctionsTakeAndReturnArrays) {
  Session s;
  s.interpreter.def("host_double", [&s](const shardlang::Args& args) -> shardlang::HostResult {
    const shardlang::Array& in = args.positional.at(0).as_array();
    if (!in || in.dtype() != shardlang::DType::float32) return shardlang::HostResult::error("TypeError", "want f32");
    std::vector<float> values(static_cast<std::size_t>(in.size()));
    in.read(values.data(), in.byte_size());
    for (float& v : values) v *= 2;
    shardlang::ArrayResult out = s.interpreter.make_array({shardlang::DType::float32, in.shape(), values.data(), {}});
    if (!out.result) return shardlang::HostResult::error("ValueError", out.result.diagnostics()[0].message);
    return shardlang::Value::array(out.array);
  });
  s.run("import jax.numpy as jnp\ny = host_double(jnp.arange(4.0)) + 1\nprint(y)\n");
  EXPECT_EQ(s.output, "[1. 3. 5. 7.]\n");
}

TEST(EmbeddedArrays, ArraysOfAnotherInterpreterComeOverByTheHost) {
  Session a, b;
  std::vector<float> values = iota(4);
  shardlang::ArrayResult made = a.interpreter.make_array({shardlang::DType::float32, {4}, values.data(), {}});
  ASSERT_TRUE(made.result.ok());
  b.interpreter.set("x", shardlang::Value::array(made.array));
  b.run("print(x * 2)\n");
  EXPECT_EQ(b.output, "[0. 2. 4. 6.]\n");
  EXPECT_NE(b.array("x").bytes().data(), made.array.bytes().data());
}

TEST(EmbeddedArrays, PlacementErrorsAreDiagnostics) {
  Session s;
  std::vector<float> values = iota(6);
  shardlang::ArrayResult no_mesh =
      s.interpreter.make_array({shardlang::DType::float32, {6}, values.data(), {}}, shardlang::PartitionSpec{{"X"}});
  ASSERT_FALSE(no_mesh.result.ok());
  EXPECT_FALSE(no_mesh.array);
  EXPECT_EQ(no_mesh.result.diagnostics().at(0).code, "sharding/no-mesh");
  s.set_mesh();
  shardlang::ArrayResult indivisible =
      s.interpreter.make_array({shardlang::DType::float32, {6}, values.data(), {}}, shardlang::PartitionSpec{{"X"}});
  ASSERT_FALSE(indivisible.result.ok());
  EXPECT_EQ(indivisible.result.diagnostics().at(0).code, "sharding/indivisible");
  shardlang::ArrayResult unknown =
      s.interpreter.make_array({shardlang::DType::float32, {6}, values.data(), {}}, shardlang::PartitionSpec{{"Z"}});
  ASSERT_FALSE(unknown.result.ok());
  EXPECT_EQ(unknown.result.diagnostics().at(0).code, "sharding/unknown-axis");
}

TEST(EmbeddedArrays, DTypeNames) {
  EXPECT_EQ(shardlang::dtype_name(shardlang::DType::bfloat16), "bfloat16");
  EXPECT_EQ(shardlang::dtype_size(shardlang::DType::bool_), 1u);
  EXPECT_EQ(shardlang::parse_dtype("f32"), shardlang::DType::float32);
  EXPECT_EQ(shardlang::parse_dtype("int8"), shardlang::DType::int8);
  EXPECT_FALSE(shardlang::parse_dtype("float64"));
}

}  // namespace
