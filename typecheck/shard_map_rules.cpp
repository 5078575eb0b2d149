#include "typecheck/shard_map_rules.hpp"

#include <algorithm>

#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shape_arithmetic.hpp"

namespace typecheck {

namespace {

std::string_view prefix_of(SpecSide side) { return side == SpecSide::in ? "in" : "out"; }

AxisSet all_axis_names(const AbstractMesh& mesh) {
  AxisSet names;
  for (const MeshAxis& axis : mesh.axes()) names.insert(axis.name);
  return names;
}

bool full_manual(const ShardMapSignature& signature) {
  return signature.mesh && signature.manual_axes == all_axis_names(*signature.mesh);
}

bool all_manual_axes_explicit(const ShardMapSignature& signature) {
  for (const std::string& axis : signature.manual_axes) {
    const MeshAxis* found = signature.mesh ? signature.mesh->find(axis) : nullptr;
    if (!found || found->type != AxisType::Explicit) return false;
  }
  return true;
}

// _spec_to_vma: every axis the partitions name.
AxisSet spec_axes(const PartitionSpec& spec) {
  AxisSet axes;
  for (const SpecEntry& entry : spec.partitions()) axes.insert(entry.begin(), entry.end());
  return axes;
}

// Long dtypes, no weak marker: ShapedArray.str_short().
std::string long_str(const ArrayType& type) { return type.format({.short_dtypes = false, .weak_marker = false}); }

// (2, 4): tuple(mesh.shape.values()).
std::string mesh_shape_repr(const AbstractMesh& mesh) {
  Shape sizes;
  for (const MeshAxis& axis : mesh.axes()) sizes.push_back(axis.size);
  return python_shape_repr(sizes);
}

// "args[0]" of "args[0]['a']": the positional argument a leaf belongs to.
std::string argument_key(const std::string& path) {
  const std::size_t close = path.find(']');
  return close == std::string::npos ? path : path.substr(0, close + 1);
}

std::string bound_parameter(const ShardMapSignature& signature, const ShardMapArgument& argument) {
  if (argument.parameter.empty()) return "";
  return ", where args" + argument_key(argument.path) + " is bound to " + signature.function_name +
         "'s parameter '" + argument.parameter + "',";
}

// One message, or "* "-bullets when several, joined by blank lines.
std::string join_failures(const std::vector<std::string>& messages) {
  if (messages.size() == 1) return messages[0];
  std::string out;
  for (const std::string& message : messages) out += (out.empty() ? "* " : "\n\n* ") + message;
  return out;
}

std::int64_t product_of_sizes(const AbstractMesh& mesh, const SpecEntry& axes) {
  std::int64_t size = 1;
  for (const std::string& axis : axes)
    if (const MeshAxis* found = mesh.find(axis)) size *= found->size;
  return size;
}

AxisSet without(const AxisSet& axes, const AxisSet& removed) {
  AxisSet out;
  for (const std::string& axis : axes)
    if (!removed.contains(axis)) out.insert(axis);
  return out;
}

}  // namespace

Checked<MeshRef> shard_map_mesh(const MeshRef& context_mesh, const MeshRef& given) {
  const bool context_empty = !context_mesh || context_mesh->axes().empty();
  if (!given) {
    if (context_empty)
      return Error{ErrorClass::ValueError,
                   "The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to enter into a mesh context"};
    return context_mesh;
  }
  if (!context_empty && !same_mesh(context_mesh, given))
    return Error{ErrorClass::ValueError, "The context mesh " + context_mesh->repr() +
                                             " should match the mesh passed to shard_map " + given->repr()};
  if (given->axes().empty())
    return Error{ErrorClass::ValueError, "shard_map requires a non-empty mesh. Got " + given->repr()};
  return given;
}

Checked<AxisSet> shard_map_axis_names(const AbstractMesh& mesh, const AxisSet& axis_names) {
  const AxisSet mesh_names = all_axis_names(mesh);
  if (axis_names.empty()) return mesh_names;
  if (!std::includes(mesh_names.begin(), mesh_names.end(), axis_names.begin(), axis_names.end())) {
    // Python's frozenset order for names outside the mesh is its own; ours
    // is mesh order, then by name.
    const MeshRef ref = AbstractMesh::make(mesh.axes()).value();
    return Error{ErrorClass::ValueError, "jax.shard_map requires axis_names=" + frozenset_repr(axis_names, ref) +
                                             " to be a subset of mesh.axis_names=" + frozenset_repr(mesh_names, ref)};
  }
  return axis_names;
}

MeshRef body_mesh(const ShardMapSignature& signature) {
  if (!signature.mesh) return signature.mesh;
  return signature.mesh->with_axis_types({signature.manual_axes.begin(), signature.manual_axes.end()},
                                         AxisType::Manual);
}

std::optional<Error> check_specs_manual(SpecSide side, const ShardMapSignature& signature,
                                        std::span<const SpecLeaf> specs) {
  const std::string prefix(prefix_of(side));
  std::vector<std::string> lines;
  for (const SpecLeaf& leaf : specs)
    for (const std::string& axis : leaf.spec.partition_axes())
      if (!signature.manual_axes.contains(axis))
        lines.push_back("  " + prefix + "_specs" + leaf.path + " refers to " + python_string_repr(axis));
  if (!lines.empty()) {
    std::string joined;
    for (const std::string& line : lines) joined += (joined.empty() ? "" : "\n\n") + line;
    return Error{ErrorClass::ValueError, "shard_map " + prefix +
                                             "_specs argument must refer to an axis marked as manual (" +
                                             frozenset_repr(signature.manual_axes, signature.mesh) + "), but:\n\n" +
                                             joined + "\n\nCheck the " + prefix + "_specs values passed to shard_map."};
  }
  // _check_unreduced
  for (const SpecLeaf& leaf : specs) {
    const PartitionSpec& spec = leaf.spec;
    if (spec.unreduced().empty() && spec.reduced().empty()) continue;
    if (!full_manual(signature))
      return Error{ErrorClass::NotImplementedError,
                   "unreduced/reduced can only be passed to " + prefix +
                       "_specs when shard_map is in full manual mode. Got mesh axis names " +
                       signature.mesh->axis_names_repr() +
                       ", manual_axes: " + frozenset_repr(signature.manual_axes, signature.mesh) +
                       ", specs: " + spec.repr() + ". Please file a bug at https://github.com/jax-ml/jax/issues."};
    for (auto [label, axes] : {std::pair{"unreduced", &spec.unreduced()}, std::pair{"reduced", &spec.reduced()}})
      for (const std::string& axis : *axes) {
        const MeshAxis* found = signature.mesh->find(axis);
        if (!found || found->type != AxisType::Explicit)
          return Error{ErrorClass::ValueError,
                       std::string(label) + " in " + prefix + "_specs " + spec.repr() +
                           " can only be used when the mesh passed to shard_map contains axis names all of type "
                           "`Explicit`. Got mesh " +
                           signature.mesh->repr()};
      }
  }
  return std::nullopt;
}

std::optional<Error> check_in_specs_inferable(const ShardMapSignature& signature) {
  if (all_manual_axes_explicit(signature)) return std::nullopt;
  std::string types;
  for (const std::string& axis : in_mesh_order(signature.manual_axes, signature.mesh)) {
    const MeshAxis* found = signature.mesh ? signature.mesh->find(axis) : nullptr;
    types += (types.empty() ? "AxisType." : ", AxisType.") +
             std::string(axis_type_name(found ? found->type : AxisType::Auto));
  }
  return Error{ErrorClass::TypeError,
               "shard_map in_specs argument must be a pytree of `jax.sharding.PartitionSpec` instances, but it was "
               "`None` when axis_names=" +
                   frozenset_repr(signature.manual_axes, signature.mesh) + " are of type " + types};
}

Checked<std::vector<PartitionSpec>> infer_in_specs(const ShardMapSignature& signature,
                                                   std::span<const ArrayType> arguments) {
  std::vector<PartitionSpec> specs;
  for (const ArrayType& argument : arguments) {
    const PartitionSpec spec = argument.sharding.spec();
    std::vector<SpecEntry> entries;
    for (const SpecEntry& entry : spec.partitions()) {
      // Non-manual axes become None; trailing ones are dropped, one before a
      // kept manual axis cannot be expressed.
      std::vector<const std::string*> kept;
      for (const std::string& axis : entry)
        kept.push_back(signature.manual_axes.contains(axis) ? &axis : nullptr);
      while (!kept.empty() && !kept.back()) kept.pop_back();
      if (std::find(kept.begin(), kept.end(), nullptr) != kept.end())
        return Error{ErrorClass::ValueError, "Invalid spec: " + spec.repr()};
      SpecEntry manual;
      for (const std::string* axis : kept) manual.push_back(*axis);
      entries.push_back(std::move(manual));
    }
    PartitionSpec inferred = PartitionSpec::from_entries(std::move(entries), spec.unreduced(), spec.reduced());
    const SpecLeaf leaf{"", inferred};
    if (std::optional<Error> error = check_specs_manual(SpecSide::in, signature, std::span(&leaf, 1))) return *error;
    specs.push_back(std::move(inferred));
  }
  return specs;
}

std::optional<Error> check_in_specs_vs_args(const ShardMapSignature& signature,
                                            std::span<const ShardMapArgument> arguments) {
  const std::string& name = signature.function_name;
  std::vector<std::string> rank_failures;
  bool scalar_failure = false;
  for (const ShardMapArgument& argument : arguments) {
    const std::size_t length = argument.spec.partitions().size();
    const std::size_t rank = argument.type.ndim();
    if (length <= rank) continue;
    scalar_failure = scalar_failure || rank == 0;
    rank_failures.push_back("in_specs" + argument.spec_path + " is " + argument.spec.repr() + " which has length " +
                            std::to_string(length) + ", but the passed args" + argument.path +
                            bound_parameter(signature, argument) + " has shape " + long_str(argument.type) +
                            ", which has rank " + std::to_string(rank) + " (and " + std::to_string(rank) + " < " +
                            std::to_string(length) + ")");
  }
  if (!rank_failures.empty()) {
    std::string message = "shard_map applied to the function '" + name +
                          "' was given an in_specs entry which is too long to be compatible with the corresponding "
                          "input value from the function:\n\n" +
                          join_failures(rank_failures) +
                          "\n\nEntries in in_specs must be of length no greater than the number of axes in the "
                          "corresponding input value.\n\nEither revise the spec to be shorter, or modify '" +
                          name + "' so that its inputs have sufficient rank.";
    if (scalar_failure)
      message += "\n\nFor scalar values (rank 0), consider using an in_specs entry of `P()`, where `P = "
                 "jax.sharding.PartitionSpec`.";
    return Error{ErrorClass::ValueError, message};
  }

  const AbstractMesh& mesh = *signature.mesh;
  std::vector<std::string> divisibility_failures;
  for (const ShardMapArgument& argument : arguments) {
    const std::vector<SpecEntry>& entries = argument.spec.partitions();
    for (std::size_t dim = 0; dim < entries.size(); ++dim) {
      if (entries[dim].empty()) continue;
      const std::int64_t parts = product_of_sizes(mesh, entries[dim]);
      const std::int64_t size = argument.type.shape[dim];
      if (size % parts == 0) continue;
      const bool several = entries[dim].size() > 1;
      divisibility_failures.push_back(
          "the passed args" + argument.path + " of shape " + long_str(argument.type) +
          bound_parameter(signature, argument) + " corresponds to in_specs" + argument.spec_path + " of value " +
          argument.spec.repr() + ", which maps array axis " + std::to_string(dim) + " (of size " +
          std::to_string(size) + ") to mesh " +
          (several ? "axes " + axes_tuple_repr(entries[dim]) : "axis " + python_string_repr(entries[dim][0])) +
          " (of " + (several ? "total " : "") + "size " + std::to_string(parts) + "), but " + std::to_string(parts) +
          " does not evenly divide " + std::to_string(size));
    }
  }
  if (!divisibility_failures.empty())
    return Error{ErrorClass::ValueError,
                 "shard_map applied to the function '" + name +
                     "' was given argument arrays with axis sizes that are not evenly divisible by the "
                     "corresponding mesh axis sizes:\n\nThe mesh given has shape " +
                     mesh_shape_repr(mesh) + " with corresponding axis names " + mesh.axis_names_repr() + ".\n\n" +
                     join_failures(divisibility_failures) +
                     "\n\nArray arguments' axis sizes must be evenly divisible by the mesh axis or axes indicated by "
                     "the corresponding elements of the argument's in_specs entry. Consider checking that in_specs "
                     "are correct, and if so consider changing the mesh axis sizes or else padding the input and "
                     "adapting '" +
                     name + "' appropriately."};

  // Explicit mode, full manual: in_specs assert the arguments' shardings.
  if (!full_manual(signature) || !all_manual_axes_explicit(signature)) return std::nullopt;
  for (const ShardMapArgument& argument : arguments) {
    std::vector<SpecEntry> padded = argument.spec.partitions();
    padded.resize(argument.type.ndim());
    const PartitionSpec expected =
        PartitionSpec::from_entries(std::move(padded), argument.spec.unreduced(), argument.spec.reduced());
    const PartitionSpec actual = argument.type.sharding.spec();
    if (actual == expected) continue;
    return Error{ErrorClass::ValueError,
                 "in_specs passed to shard_map: " + expected.repr() + " does not match the specs of the input: " +
                     actual.repr() + " for arg: " + argument.type.str() +
                     ". `in_specs` is an optional argument so you can omit specifying it and shard_map will infer "
                     "the in_specs from the arguments. If you want to reshard your inputs, you can use "
                     "`jax.reshard` on the arguments and then pass those args to shard_map."};
  }
  return std::nullopt;
}

Checked<ArrayType> body_argument_type(const ShardMapSignature& signature, const PartitionSpec& spec,
                                      const ArrayType& outer) {
  for (auto [label, given, present] :
       {std::tuple{"unreduced", &spec.unreduced(), &outer.sharding.unreduced},
        std::tuple{"reduced", &spec.reduced(), &outer.sharding.reduced}})
    if (*given != *present)
      return Error{ErrorClass::ValueError, std::string("in_specs containing ") + label + " " + spec.repr() +
                                               " passed to shard_map should be equal to the " + label +
                                               " present on the in_aval " + outer.short_str()};

  Shape local = outer.shape;
  for (std::size_t dim = 0; dim < spec.partitions().size() && dim < local.size(); ++dim)
    local[dim] /= product_of_sizes(*signature.mesh, spec.partitions()[dim]);

  ManualAxisType manual;
  manual.varying = outer.manual.varying;
  if (signature.check_vma) {
    const AxisSet named = spec_axes(spec);
    manual.varying.insert(named.begin(), named.end());
    manual.unreduced = outer.sharding.unreduced;
    manual.reduced = outer.sharding.reduced;
  }
  // The manual axes leave the spec (modify_spec_for_auto_manual).
  const PartitionSpec body_spec =
      PartitionSpec::from_entries(outer.sharding.dims, without(outer.sharding.unreduced, signature.manual_axes),
                                  without(outer.sharding.reduced, signature.manual_axes));
  return make_array_type(outer.element_type(), std::move(local), body_mesh(signature), body_spec, std::move(manual));
}

ArrayType with_implicit_pvary(const ShardMapSignature& signature, const PartitionSpec& spec, const ArrayType& body) {
  ArrayType out = body;
  if (!signature.check_vma) return out;
  const AxisSet named = spec_axes(spec);
  out.manual.varying.insert(named.begin(), named.end());
  return out;
}

std::optional<Error> check_out_ranks(const ShardMapSignature& signature, std::span<const ShardMapOutput> outputs) {
  const std::string& name = signature.function_name;
  std::vector<std::string> failures;
  bool scalar_failure = false;
  for (const ShardMapOutput& output : outputs) {
    const std::size_t length = output.spec.partitions().size();
    const std::size_t rank = output.type.ndim();
    if (length == 0 || length <= rank) continue;
    scalar_failure = scalar_failure || rank == 0;
    failures.push_back("out_specs" + output.spec_path + " is " + output.spec.repr() + " which has length " +
                       std::to_string(length) + ", but " + name + "(*args)" + output.path + " has shape " +
                       long_str(output.type) + ", which has rank " + std::to_string(rank) + " (and " +
                       std::to_string(rank) + " < " + std::to_string(length) + ")");
  }
  if (failures.empty()) return std::nullopt;
  std::string message = "shard_map applied to the function '" + name +
                        "' was given an out_specs entry which is too long to be compatible with the corresponding "
                        "output value from the function:\n\n" +
                        join_failures(failures) +
                        "\n\nEntries in out_specs must be of length no greater than the number of axes in the "
                        "corresponding output value.\n\nEither revise the spec to be shorter, or modify '" +
                        name + "' so that its outputs have sufficient rank.";
  if (scalar_failure)
    message +=
        "\n\nFor scalar values (rank 0), consider using an out_specs entry of `P()`, where `P = "
        "jax.sharding.PartitionSpec`. In particular, for rank 0 outputs which are not constant over the mesh, add "
        "at least one (singleton) axis to them so that they can be concatenated using out_specs.";
  return Error{ErrorClass::ValueError, message};
}

std::optional<ReplicationError> check_out_replication(const ShardMapSignature& signature,
                                                      std::span<const ShardMapOutput> outputs) {
  if (!signature.check_vma || !signature.mesh) return std::nullopt;
  const AbstractMesh& mesh = *signature.mesh;
  auto comma_joined = [&](const AxisSet& axes) {
    std::string out;
    for (const std::string& axis : in_mesh_order(axes, signature.mesh)) out += (out.empty() ? "" : ",") + axis;
    return out;
  };

  ReplicationError result;
  std::vector<std::string> messages;
  for (std::size_t index = 0; index < outputs.size(); ++index) {
    const ShardMapOutput& output = outputs[index];
    AxisSet mentioned = spec_axes(output.spec);
    mentioned.insert(output.spec.unreduced().begin(), output.spec.unreduced().end());
    mentioned.insert(output.spec.reduced().begin(), output.spec.reduced().end());
    AxisList unmentioned;
    for (const MeshAxis& axis : mesh.axes())
      if (!mentioned.contains(axis.name)) unmentioned.push_back(axis.name);

    const ManualAxisType& manual = output.type.manual;
    ReplicationFailure failure{index, {}};
    for (const std::string& axis : unmentioned) {
      const bool manual_outside = mesh.find(axis)->type == AxisType::Manual;
      if (!manual_outside && (manual.varying.contains(axis) || manual.unreduced.contains(axis) ||
                              manual.reduced.contains(axis)))
        failure.offending.push_back(axis);
    }
    if (failure.offending.empty()) continue;

    const std::string head = "out_specs" + output.spec_path + " is " + output.spec.repr() + " which implies that the ";
    if (unmentioned.size() > 1) {
      AxisSet varying_unmentioned;
      for (const std::string& axis : unmentioned)
        if (manual.varying.contains(axis)) varying_unmentioned.insert(axis);
      messages.push_back(head + "corresponding output value is only varying across mesh axes {" +
                         comma_joined(spec_axes(output.spec)) + "} and not {" + comma_joined(varying_unmentioned) +
                         "}, but it was inferred to be possibly varying over {" + comma_joined(manual.varying) + "}");
    } else {
      messages.push_back(head + "corresponding output value is replicated across mesh axis '" + unmentioned[0] +
                         "', but could not infer replication over any axes");
    }
    result.failures.push_back(std::move(failure));
  }
  if (result.failures.empty()) return std::nullopt;
  result.error = Error{ErrorClass::ValueError,
                       "shard_map applied to the function '" + signature.function_name +
                           "' was given out_specs which require replication which can't be statically inferred "
                           "given the mesh:\n\nThe mesh given has shape " +
                           mesh_shape_repr(mesh) + " with corresponding axis names " + mesh.axis_names_repr() +
                           ".\n\n" + join_failures(messages) +
                           "\n\nCheck if these output values are meant to be replicated over those mesh axes. If "
                           "not, consider revising the corresponding out_specs entries. If so, consider disabling "
                           "the check by passing the check_vma=False argument to `jax.shard_map`."};
  return result;
}

std::string replication_fix_hint(const ReplicationFailure& failure) {
  const std::string axes = failure.offending.size() == 1 ? python_string_repr(failure.offending[0])
                                                         : axes_tuple_repr(failure.offending);
  const std::string named = failure.offending.size() == 1 ? "names " + axes : "names the axes " + axes;
  return "reduce the value with jax.lax.psum(..., " + axes + ") (or pmean/pmax/pmin) before returning it, or give "
         "it an out_specs entry that " + named;
}

Checked<Shape> shard_map_global_shape(const AbstractMesh& mesh, const PartitionSpec& spec, Shape block) {
  for (std::size_t dim = 0; dim < spec.partitions().size() && dim < block.size(); ++dim) {
    Checked<std::int64_t> size = scaled_dimension(block[dim], product_of_sizes(mesh, spec.partitions()[dim]));
    if (!size) return size.error();
    block[dim] = size.value();
  }
  return block;
}

Checked<ArrayType> shard_map_output_type(const ShardMapSignature& signature, const PartitionSpec& spec,
                                         const ArrayType& body, const MeshRef& context_mesh) {
  if (signature.check_vma)
    for (auto [label, given, present] : {std::tuple{"unreduced", &spec.unreduced(), &body.manual.unreduced},
                                         std::tuple{"reduced", &spec.reduced(), &body.manual.reduced}})
      if (*given != *present)
        return Error{ErrorClass::ValueError, std::string("out_specs passed to shard_map should be equal to the ") +
                                                 label + " present on the out_aval. Got out_specs=" + spec.repr() +
                                                 " and out_aval=" + body.short_str()};

  Checked<Shape> global = shard_map_global_shape(*signature.mesh, spec, body.shape);
  if (!global) return global.error();

  // Per dimension: the out_spec's axes, then the Explicit axes still in the body's spec.
  std::vector<SpecEntry> entries(body.ndim());
  for (std::size_t dim = 0; dim < entries.size(); ++dim) {
    if (dim < spec.partitions().size()) entries[dim] = spec.partitions()[dim];
    if (dim < body.sharding.dims.size())
      entries[dim].insert(entries[dim].end(), body.sharding.dims[dim].begin(), body.sharding.dims[dim].end());
  }
  const MeshRef mesh = context_mesh && !context_mesh->axes().empty() ? context_mesh : signature.mesh;
  ManualAxisType manual;
  for (const std::string& axis : body.manual.varying) {
    const MeshAxis* found = mesh->find(axis);
    if (found && found->type == AxisType::Manual) manual.varying.insert(axis);
  }
  return make_array_type(body.element_type(), std::move(global).value(), mesh,
                         PartitionSpec::from_entries(std::move(entries), spec.unreduced(), spec.reduced()),
                         std::move(manual));
}

}  // namespace typecheck
