// Helpers shared by the rule tests: meshes, parsing printed types, and the
// one-string outcome of a rule ("f32[8@X]" or "ShardingTypeError: ...").
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "typecheck/type_parser.hpp"

namespace typecheck::testing {

inline MeshRef mesh_of(std::vector<MeshAxis> axes) { return AbstractMesh::make(std::move(axes)).value(); }
// The reference's usual mesh: X of 4, Y of 2, both Explicit.
inline MeshRef xy_mesh() { return mesh_of({{"X", 4, AxisType::Explicit}, {"Y", 2, AxisType::Explicit}}); }
inline MeshRef auto_mesh() { return mesh_of({{"x", 4, AxisType::Auto}, {"y", 2, AxisType::Auto}}); }

inline ArrayType parse(std::string_view text, const MeshRef& mesh) {
  Checked<ArrayType> type = parse_array_type(text, mesh);
  EXPECT_TRUE(type.ok()) << text << ": " << type.error().str();
  return type ? type.value() : ArrayType{};
}

inline std::vector<ArrayType> parse_all(std::vector<std::string_view> texts, const MeshRef& mesh) {
  std::vector<ArrayType> types;
  for (std::string_view text : texts) types.push_back(parse(text, mesh));
  return types;
}

inline PartitionSpec spec_of(std::vector<SpecEntry> entries, AxisSet unreduced = {}) {
  return PartitionSpec::from_entries(std::move(entries), std::move(unreduced));
}

inline const ElementType f32{DType::float32, false};
inline const ElementType i32{DType::int32, false};
inline const ElementType bf16{DType::bfloat16, false};

inline std::string outcome(const Checked<ArrayType>& result) {
  return result ? result.value().short_str() : result.error().str();
}

inline std::string outcome(const Checked<std::vector<ArrayType>>& result) {
  if (!result) return result.error().str();
  std::string out;
  for (const ArrayType& type : result.value()) out += (out.empty() ? "" : ", ") + type.short_str();
  return out;
}

}  // namespace typecheck::testing
