// shard_map typing: reference §4.1-§4.9, messages from jax/_src/shard_map.py.
#include "typecheck/shard_map_rules.hpp"

#include "rule_test_support.hpp"

namespace typecheck {
namespace {

using namespace typecheck::testing;

// c08's mesh: x of 2, y of 4, Explicit.
MeshRef c08_mesh() { return mesh_of({{"x", 2, AxisType::Explicit}, {"y", 4, AxisType::Explicit}}); }

ShardMapSignature signature_on(MeshRef mesh, AxisSet manual = {}, std::string name = "f") {
  if (manual.empty())
    for (const MeshAxis& axis : mesh->axes()) manual.insert(axis.name);
  return {std::move(name), std::move(mesh), std::move(manual), true};
}

PartitionSpec xy_flat() { return spec_of({{"x", "y"}}); }

TEST(ShardMapMesh, ContextAndGiven) {
  const MeshRef mesh = c08_mesh();
  EXPECT_EQ(shard_map_mesh(mesh, nullptr).value(), mesh);
  EXPECT_EQ(shard_map_mesh(nullptr, nullptr).error().str(),
            "ValueError: The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to enter into a mesh context");
  const MeshRef other = mesh_of({{"x", 8, AxisType::Explicit}});
  EXPECT_EQ(shard_map_mesh(mesh, other).error().str(),
            "ValueError: The context mesh AbstractMesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit)) should "
            "match the mesh passed to shard_map AbstractMesh('x': 8, axis_types=(Explicit,))");
  EXPECT_EQ(shard_map_mesh(nullptr, other).value(), other);
}

TEST(ShardMapAxisNames, DefaultIsEveryAxisAndSubsetIsChecked) {
  const MeshRef mesh = c08_mesh();
  EXPECT_EQ(shard_map_axis_names(*mesh, {}).value(), (AxisSet{"x", "y"}));
  EXPECT_EQ(shard_map_axis_names(*mesh, {"y"}).value(), (AxisSet{"y"}));
  EXPECT_EQ(shard_map_axis_names(*mesh, {"z"}).error().str(),
            "ValueError: jax.shard_map requires axis_names=frozenset({'z'}) to be a subset of "
            "mesh.axis_names=frozenset({'x', 'y'})");
}

TEST(ShardMapSpecs, OnlyManualAxes) {
  const ShardMapSignature signature = signature_on(c08_mesh(), {"x"});
  const SpecLeaf specs[] = {{"[0]", spec_of({{"x"}, {"y"}})}, {"[1]", spec_of({{"y", "x"}})}};
  EXPECT_EQ(check_specs_manual(SpecSide::in, signature, specs)->str(),
            "ValueError: shard_map in_specs argument must refer to an axis marked as manual (frozenset({'x'})), "
            "but:\n\n  in_specs[0] refers to 'y'\n\n  in_specs[1] refers to 'y'\n\nCheck the in_specs values passed "
            "to shard_map.");
  const SpecLeaf bare[] = {{"", spec_of({{"y"}})}};
  EXPECT_EQ(check_specs_manual(SpecSide::out, signature, bare)->message,
            "shard_map out_specs argument must refer to an axis marked as manual (frozenset({'x'})), but:\n\n"
            "  out_specs refers to 'y'\n\nCheck the out_specs values passed to shard_map.");
  const SpecLeaf good[] = {{"", spec_of({{"x"}})}};
  EXPECT_FALSE(check_specs_manual(SpecSide::in, signature, good));
}

TEST(ShardMapSpecs, UnreducedNeedsFullManualAndExplicit) {
  const SpecLeaf unreduced[] = {{"", spec_of({{}}, {"x"})}};
  EXPECT_EQ(check_specs_manual(SpecSide::out, signature_on(c08_mesh(), {"x"}), unreduced)->str(),
            "NotImplementedError: unreduced/reduced can only be passed to out_specs when shard_map is in full "
            "manual mode. Got mesh axis names ('x', 'y'), manual_axes: frozenset({'x'}), specs: P(None, "
            "unreduced={'x'}). Please file a bug at https://github.com/jax-ml/jax/issues.");
  const MeshRef auto_xy = mesh_of({{"x", 2, AxisType::Auto}, {"y", 4, AxisType::Auto}});
  EXPECT_EQ(check_specs_manual(SpecSide::in, signature_on(auto_xy), unreduced)->str(),
            "ValueError: unreduced in in_specs P(None, unreduced={'x'}) can only be used when the mesh passed to "
            "shard_map contains axis names all of type `Explicit`. Got mesh AbstractMesh('x': 2, 'y': 4, "
            "axis_types=(Auto, Auto))");
  EXPECT_FALSE(check_specs_manual(SpecSide::in, signature_on(c08_mesh()), unreduced));
}

TEST(ShardMapSpecs, InferOnlyOnExplicitAxes) {
  const MeshRef auto_xy = mesh_of({{"x", 2, AxisType::Auto}, {"y", 4, AxisType::Auto}});
  EXPECT_EQ(check_in_specs_inferable(signature_on(auto_xy))->str(),
            "TypeError: shard_map in_specs argument must be a pytree of `jax.sharding.PartitionSpec` instances, but "
            "it was `None` when axis_names=frozenset({'x', 'y'}) are of type AxisType.Auto, AxisType.Auto");
  const MeshRef mesh = c08_mesh();
  EXPECT_FALSE(check_in_specs_inferable(signature_on(mesh)));
  // Partial manual over x: y leaves the inferred spec.
  const std::vector<ArrayType> args = parse_all({"f32[8@x,4@y]", "f32[16@(x,y)]", "f32[16@(y,x)]"}, mesh);
  const ShardMapSignature partial = signature_on(mesh, {"x"});
  Checked<std::vector<PartitionSpec>> inferred = infer_in_specs(partial, std::span(args).first(2));
  ASSERT_TRUE(inferred.ok());
  EXPECT_EQ(inferred.value()[0].repr(), "P('x', None)");
  EXPECT_EQ(inferred.value()[1].repr(), "P('x',)");
  EXPECT_EQ(infer_in_specs(partial, std::span(args).subspan(2)).error().str(),
            "ValueError: Invalid spec: P(('y', 'x'),)");
  EXPECT_EQ(infer_in_specs(signature_on(mesh), args).value()[2].repr(), "P(('y', 'x'),)");
}

TEST(ShardMapArguments, RankError) {
  const MeshRef mesh = c08_mesh();
  const ShardMapSignature signature = signature_on(mesh, {}, "g");
  const ShardMapArgument args[] = {{"[0]", "x", "[0]", spec_of({{"x"}, {"y"}}), parse("f32[8]", mesh)}};
  EXPECT_EQ(check_in_specs_vs_args(signature, args)->str(),
            "ValueError: shard_map applied to the function 'g' was given an in_specs entry which is too long to be "
            "compatible with the corresponding input value from the function:\n\n"
            "in_specs[0] is P('x', 'y') which has length 2, but the passed args[0], where args[0] is bound to g's "
            "parameter 'x', has shape float32[8], which has rank 1 (and 1 < 2)\n\n"
            "Entries in in_specs must be of length no greater than the number of axes in the corresponding input "
            "value.\n\nEither revise the spec to be shorter, or modify 'g' so that its inputs have sufficient rank.");
  const ShardMapArgument scalars[] = {{"[0]", "", "[0]", spec_of({{"x"}}), parse("f32[]", mesh)},
                                      {"[1]", "", "[1]", spec_of({{"y"}}), parse("i32[]", mesh)}};
  EXPECT_EQ(check_in_specs_vs_args(signature, scalars)->message,
            "shard_map applied to the function 'g' was given an in_specs entry which is too long to be compatible "
            "with the corresponding input value from the function:\n\n"
            "* in_specs[0] is P('x',) which has length 1, but the passed args[0] has shape float32[], which has "
            "rank 0 (and 0 < 1)\n\n"
            "* in_specs[1] is P('y',) which has length 1, but the passed args[1] has shape int32[], which has rank "
            "0 (and 0 < 1)\n\n"
            "Entries in in_specs must be of length no greater than the number of axes in the corresponding input "
            "value.\n\nEither revise the spec to be shorter, or modify 'g' so that its inputs have sufficient rank."
            "\n\nFor scalar values (rank 0), consider using an in_specs entry of `P()`, where `P = "
            "jax.sharding.PartitionSpec`.");
}

TEST(ShardMapArguments, DivisibilityError) {
  const MeshRef mesh = mesh_of({{"x", 2, AxisType::Auto}, {"y", 4, AxisType::Auto}});
  const ShardMapSignature signature = signature_on(mesh, {}, "<lambda>");
  const ShardMapArgument args[] = {{"[0]", "a", "", spec_of({{"x"}, {"x", "y"}}), parse("f32[3,6]", mesh)}};
  EXPECT_EQ(check_in_specs_vs_args(signature, args)->str(),
            "ValueError: shard_map applied to the function '<lambda>' was given argument arrays with axis sizes "
            "that are not evenly divisible by the corresponding mesh axis sizes:\n\n"
            "The mesh given has shape (2, 4) with corresponding axis names ('x', 'y').\n\n"
            "* the passed args[0] of shape float32[3,6], where args[0] is bound to <lambda>'s parameter 'a', "
            "corresponds to in_specs of value P('x', ('x', 'y')), which maps array axis 0 (of size 3) to mesh axis "
            "'x' (of size 2), but 2 does not evenly divide 3\n\n"
            "* the passed args[0] of shape float32[3,6], where args[0] is bound to <lambda>'s parameter 'a', "
            "corresponds to in_specs of value P('x', ('x', 'y')), which maps array axis 1 (of size 6) to mesh axes "
            "('x', 'y') (of total size 8), but 8 does not evenly divide 6\n\n"
            "Array arguments' axis sizes must be evenly divisible by the mesh axis or axes indicated by the "
            "corresponding elements of the argument's in_specs entry. Consider checking that in_specs are correct, "
            "and if so consider changing the mesh axis sizes or else padding the input and adapting '<lambda>' "
            "appropriately.");
}

TEST(ShardMapArguments, ExplicitFullManualSpecsMustMatch) {
  const MeshRef mesh = xy_mesh();
  const ShardMapArgument args[] = {{"[0]", "x", "[0]", spec_of({{"Y"}}), parse("f32[8@X]", mesh)}};
  EXPECT_EQ(check_in_specs_vs_args(signature_on(mesh), args)->str(),
            "ValueError: in_specs passed to shard_map: P('Y',) does not match the specs of the input: P('X',) for "
            "arg: float32[8@X]. `in_specs` is an optional argument so you can omit specifying it and shard_map will "
            "infer the in_specs from the arguments. If you want to reshard your inputs, you can use `jax.reshard` on "
            "the arguments and then pass those args to shard_map.");
  const ShardMapArgument matching[] = {{"[0]", "x", "[0]", spec_of({{"X"}}), parse("f32[8@X,2]", mesh)}};
  EXPECT_FALSE(check_in_specs_vs_args(signature_on(mesh), matching));
  // Partial manual: no assertion (the reference's step 5 is full-manual only).
  const ShardMapArgument partial[] = {{"[0]", "x", "[0]", spec_of({{"X"}}), parse("f32[8,2@Y]", mesh)}};
  EXPECT_FALSE(check_in_specs_vs_args(signature_on(mesh, {"X"}), partial));
}

TEST(ShardMapBody, LocalShapesAndVaryingAxes) {
  const MeshRef mesh = c08_mesh();
  const ShardMapSignature signature = signature_on(mesh);
  const ArrayType x = parse("i32[512@(x,y)]", mesh);
  Checked<ArrayType> local = body_argument_type(signature, xy_flat(), x);
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local.value().str(), "int32[64]{V:(x,y)}");
  EXPECT_EQ(local.value().sharding.mesh->repr(), "AbstractMesh('x': 2, 'y': 4, axis_types=(Manual, Manual))");
  EXPECT_EQ(outcome(body_argument_type(signature, PartitionSpec(), parse("f32[6]", mesh))), "f32[6]");

  const MeshRef ij = mesh_of({{"i", 4, AxisType::Auto}, {"j", 2, AxisType::Auto}});
  EXPECT_EQ(outcome(body_argument_type(signature_on(ij), spec_of({{"i"}, {"j"}}), parse("f32[8,4]", ij))),
            "f32[2,2]{V:(i,j)}");
  ShardMapSignature unchecked = signature_on(ij);
  unchecked.check_vma = false;
  EXPECT_EQ(outcome(body_argument_type(unchecked, spec_of({{"i"}, {"j"}}), parse("f32[8,4]", ij))), "f32[2,2]");
}

TEST(ShardMapBody, PartialManualKeepsExplicitAxes) {
  // test_manual_mode_mix_repeat: body float32[4,4@y]{V:x}, outer float32[8@x,4@y].
  const MeshRef mesh = mesh_of({{"x", 2, AxisType::Explicit}, {"y", 2, AxisType::Explicit}});
  const ShardMapSignature signature = signature_on(mesh, {"x"});
  Checked<ArrayType> body = body_argument_type(signature, spec_of({{"x"}}), parse("f32[8@x,8@y]", mesh));
  EXPECT_EQ(outcome(body), "f32[4,8@y]{V:x}");
  const ArrayType result = parse("f32[4,4@y]{V:x}", body.value().sharding.mesh);
  EXPECT_EQ(outcome(shard_map_output_type(signature, spec_of({{"x"}}), result, mesh)), "f32[8@x,4@y]");
}

TEST(ShardMapBody, UnreducedMustMatchTheArgument) {
  const MeshRef mesh = xy_mesh();
  const ShardMapSignature signature = signature_on(mesh);
  EXPECT_EQ(body_argument_type(signature, spec_of({{}}, {"X"}), parse("f32[8]", mesh)).error().str(),
            "ValueError: in_specs containing unreduced P(None, unreduced={'X'}) passed to shard_map should be equal "
            "to the unreduced present on the in_aval f32[8]");
  EXPECT_EQ(outcome(body_argument_type(signature, spec_of({{}}, {"X"}), parse("f32[8]{U:X}", mesh))),
            "f32[8]{U:X}");
}

TEST(ShardMapOutputs, ImplicitPvaryAndGlobalType) {
  const MeshRef mesh = c08_mesh();
  const ShardMapSignature signature = signature_on(mesh);
  const MeshRef inner = body_mesh(signature);
  // where_am_i: an invariant value returned with out_specs P(('x','y')) is tiled.
  const ArrayType invariant = parse("i32[1]", inner);
  const ArrayType pvaried = with_implicit_pvary(signature, xy_flat(), invariant);
  EXPECT_EQ(pvaried.str(), "int32[1]{V:(x,y)}");
  EXPECT_EQ(outcome(shard_map_output_type(signature, xy_flat(), pvaried, mesh)), "i32[8@(x,y)]");
  // slice_and_average: pmean's invariant result with P().
  EXPECT_EQ(outcome(shard_map_output_type(signature, PartitionSpec(), parse("f32[4]", inner), mesh)), "f32[4]");
  // An empty context mesh takes the shard_map's.
  EXPECT_EQ(outcome(shard_map_output_type(signature, spec_of({{"y"}}), parse("f32[2]{V:y}", inner), nullptr)),
            "f32[8@y]");
}

TEST(ShardMapOutputs, UnreducedMustMatchTheOutput) {
  const MeshRef mesh = xy_mesh();
  const ShardMapSignature signature = signature_on(mesh);
  const MeshRef inner = body_mesh(signature);
  EXPECT_EQ(shard_map_output_type(signature, spec_of({{}}, {"X"}), parse("f32[8]", inner), mesh).error().str(),
            "ValueError: out_specs passed to shard_map should be equal to the unreduced present on the out_aval. "
            "Got out_specs=P(None, unreduced={'X'}) and out_aval=f32[8]");
  EXPECT_EQ(outcome(shard_map_output_type(signature, spec_of({{}}, {"X"}), parse("f32[8]{U:X}", inner), mesh)),
            "f32[8]{U:X}");
}

TEST(ShardMapOutputs, RankError) {
  const MeshRef mesh = c08_mesh();
  const MeshRef inner = body_mesh(signature_on(mesh));
  const ShardMapOutput outputs[] = {{"", "", spec_of({{"x"}}), parse("f32[]{V:x}", inner)}};
  EXPECT_EQ(check_out_ranks(signature_on(mesh), outputs)->str(),
            "ValueError: shard_map applied to the function 'f' was given an out_specs entry which is too long to be "
            "compatible with the corresponding output value from the function:\n\n"
            "out_specs is P('x',) which has length 1, but f(*args) has shape float32[]{V:x}, which has rank 0 (and 0 "
            "< 1)\n\nEntries in out_specs must be of length no greater than the number of axes in the corresponding "
            "output value.\n\nEither revise the spec to be shorter, or modify 'f' so that its outputs have "
            "sufficient rank.\n\nFor scalar values (rank 0), consider using an out_specs entry of `P()`, where `P = "
            "jax.sharding.PartitionSpec`. In particular, for rank 0 outputs which are not constant over the mesh, "
            "add at least one (singleton) axis to them so that they can be concatenated using out_specs.");
  const ShardMapOutput fine[] = {{"", "", PartitionSpec(), parse("f32[]{V:x}", inner)}};
  EXPECT_FALSE(check_out_ranks(signature_on(mesh), fine));
}

TEST(ShardMapOutputs, ReplicationCheckSeveralAxes) {
  // c08's not_reduced: x[:4] varies over x and y, out_specs=P().
  const MeshRef mesh = c08_mesh();
  const ShardMapSignature signature = signature_on(mesh, {}, "not_reduced");
  const ShardMapOutput outputs[] = {{"", "", PartitionSpec(), parse("i32[4]{V:(x,y)}", body_mesh(signature))}};
  std::optional<ReplicationError> error = check_out_replication(signature, outputs);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->error.str(),
            "ValueError: shard_map applied to the function 'not_reduced' was given out_specs which require "
            "replication which can't be statically inferred given the mesh:\n\n"
            "The mesh given has shape (2, 4) with corresponding axis names ('x', 'y').\n\n"
            "out_specs is P() which implies that the corresponding output value is only varying across mesh axes {} "
            "and not {x,y}, but it was inferred to be possibly varying over {x,y}\n\n"
            "Check if these output values are meant to be replicated over those mesh axes. If not, consider revising "
            "the corresponding out_specs entries. If so, consider disabling the check by passing the check_vma=False "
            "argument to `jax.shard_map`.");
  ASSERT_EQ(error->failures.size(), 1u);
  EXPECT_EQ(error->failures[0].offending, (AxisList{"x", "y"}));
  EXPECT_EQ(replication_fix_hint(error->failures[0]),
            "reduce the value with jax.lax.psum(..., ('x', 'y')) (or pmean/pmax/pmin) before returning it, or give it "
            "an out_specs entry that names the axes ('x', 'y')");
}

TEST(ShardMapOutputs, ReplicationCheckOneAxisAndBullets) {
  const MeshRef mesh = mesh_of({{"x", 2, AxisType::Explicit}, {"y", 2, AxisType::Explicit},
                                {"z", 2, AxisType::Explicit}});
  const ShardMapSignature signature = signature_on(mesh);
  const MeshRef inner = body_mesh(signature);
  const ShardMapOutput outputs[] = {
      {"[0]", "[0]", spec_of({{"x"}, {"y"}}), parse("f32[2,2]{V:(x,y,z)}", inner)},
      {"[1]", "[1]", spec_of({{"x"}, {"y"}}), parse("f32[2,2]{V:(x,y)}", inner)},
      {"[2]", "[2]", spec_of({{"x"}}), parse("f32[2]{V:(x,y,z)}", inner)}};
  std::optional<ReplicationError> error = check_out_replication(signature, outputs);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->error.message,
            "shard_map applied to the function 'f' was given out_specs which require replication which can't be "
            "statically inferred given the mesh:\n\n"
            "The mesh given has shape (2, 2, 2) with corresponding axis names ('x', 'y', 'z').\n\n"
            "* out_specs[0] is P('x', 'y') which implies that the corresponding output value is replicated across "
            "mesh axis 'z', but could not infer replication over any axes\n\n"
            "* out_specs[2] is P('x',) which implies that the corresponding output value is only varying across "
            "mesh axes {x} and not {y,z}, but it was inferred to be possibly varying over {x,y,z}\n\n"
            "Check if these output values are meant to be replicated over those mesh axes. If not, consider revising "
            "the corresponding out_specs entries. If so, consider disabling the check by passing the check_vma=False "
            "argument to `jax.shard_map`.");
  ASSERT_EQ(error->failures.size(), 2u);
  EXPECT_EQ(error->failures[0].output, 0u);
  EXPECT_EQ(error->failures[1].output, 2u);
  EXPECT_EQ(replication_fix_hint(error->failures[0]),
            "reduce the value with jax.lax.psum(..., 'z') (or pmean/pmax/pmin) before returning it, or give it an "
            "out_specs entry that names 'z'");

  ShardMapSignature unchecked = signature;
  unchecked.check_vma = false;
  EXPECT_FALSE(check_out_replication(unchecked, outputs));
}

TEST(ShardMapOutputs, AxesManualOutsideAreNotChecked) {
  // A nested shard_map over y inside one over x: x is already Manual.
  const MeshRef outer = mesh_of({{"x", 2, AxisType::Manual}, {"y", 2, AxisType::Explicit}});
  const ShardMapSignature signature = signature_on(outer, {"y"});
  const MeshRef inner = body_mesh(signature);
  const ShardMapOutput outputs[] = {{"", "", spec_of({{"y"}}), parse("f32[2]{V:(x,y)}", inner)}};
  EXPECT_FALSE(check_out_replication(signature, outputs));
  EXPECT_EQ(shard_map_output_type(signature, spec_of({{"y"}}), outputs[0].type, outer).value().str(),
            "float32[4@y]{V:x}");
}

}  // namespace
}  // namespace typecheck
