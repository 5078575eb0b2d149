#include "typecheck/sharding_rule.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"

namespace typecheck {

std::string factor_name(int index) {
  constexpr int letters = 'z' - 'i' + 1;  // i..z, then f18, f19, ...
  if (index >= 0 && index < letters) return std::string(1, static_cast<char>('i' + index));
  return "f" + std::to_string(index);
}

std::string FactorRule::str() const {
  auto dims_text = [&](const std::vector<int>& dims) {
    std::string out = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) out += (i > 0 ? "," : "") + factor_names[dims[i]];
    return out + "]";
  };
  std::string out = "(";
  for (std::size_t i = 0; i < operands.size(); ++i) out += (i > 0 ? "," : "") + dims_text(operands[i]);
  out += ") -> (" + dims_text(result) + ")";
  for (auto [kind, label] : {std::pair{FactorKind::batch, " batch={"}, std::pair{FactorKind::reduction, " reduction={"}}) {
    std::string names;
    for (std::size_t f = 0; f < factor_kinds.size(); ++f)
      if (factor_kinds[f] == kind) names += (names.empty() ? "" : ", ") + factor_names[f];
    if (!names.empty()) out += label + names + "}";
  }
  return out;
}

FactorRule elementwise_factor_rule(std::span<const std::size_t> operand_ranks) {
  FactorRule rule;
  const std::size_t rank = operand_ranks.empty() ? 0 : *std::max_element(operand_ranks.begin(), operand_ranks.end());
  for (std::size_t dim = 0; dim < rank; ++dim) {
    rule.factor_names.push_back(factor_name(static_cast<int>(dim)));
    rule.factor_kinds.push_back(FactorKind::pass_through);
    rule.result.push_back(static_cast<int>(dim));
  }
  for (std::size_t operand_rank : operand_ranks) {
    std::vector<int> dims;
    // A lower-rank operand lines up with the trailing dimensions (numpy).
    for (std::size_t dim = 0; dim < operand_rank; ++dim) dims.push_back(static_cast<int>(rank - operand_rank + dim));
    rule.operands.push_back(std::move(dims));
  }
  return rule;
}

DotDimensionNumbers matmul_dimension_numbers() { return {{1}, {0}, {}, {}}; }

namespace {

// Each dimension in [0, rank) and named at most once by batch + contracting.
bool valid_dimensions(const std::vector<int>& batch, const std::vector<int>& contracting, std::size_t rank) {
  std::set<int> seen;
  for (const std::vector<int>* dims : {&batch, &contracting})
    for (int dim : *dims)
      if (dim < 0 || static_cast<std::size_t>(dim) >= rank || !seen.insert(dim).second) return false;
  return true;
}

}  // namespace

Checked<FactorRule> dot_general_factor_rule(std::size_t lhs_rank, std::size_t rhs_rank,
                                            const DotDimensionNumbers& numbers) {
  if (numbers.lhs_batch.size() != numbers.rhs_batch.size())
    return Error{ErrorClass::TypeError, "dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, got "
                                        "lhs_batch " +
                                            ints_tuple_repr(numbers.lhs_batch) + " and rhs_batch " +
                                            ints_tuple_repr(numbers.rhs_batch) + "."};
  if (numbers.lhs_contracting.size() != numbers.rhs_contracting.size())
    return Error{ErrorClass::TypeError,
                 "dot_general requires equal numbers of lhs_contracting and rhs_contracting dimensions, got "
                 "lhs_contracting " +
                     ints_tuple_repr(numbers.lhs_contracting) + " and rhs_contracting " +
                     ints_tuple_repr(numbers.rhs_contracting) + "."};
  for (auto [side, batch, contracting, rank] :
       {std::tuple{"lhs", &numbers.lhs_batch, &numbers.lhs_contracting, lhs_rank},
        std::tuple{"rhs", &numbers.rhs_batch, &numbers.rhs_contracting, rhs_rank}})
    if (!valid_dimensions(*batch, *contracting, rank))
      return Error{ErrorClass::TypeError,
                   std::string("dot_general requires ") + side +
                       " dimension numbers to be distinct, nonnegative and less than the number of axes of the " +
                       side + " value, got " + side + "_batch of " + ints_tuple_repr(*batch) + " and " + side +
                       "_contracting of " + ints_tuple_repr(*contracting) + " for " + side + " of rank " +
                       std::to_string(rank)};

  FactorRule rule;
  rule.operands = {std::vector<int>(lhs_rank, -1), std::vector<int>(rhs_rank, -1)};
  auto add_factor = [&](FactorKind kind) {
    rule.factor_names.push_back(factor_name(static_cast<int>(rule.factor_kinds.size())));
    rule.factor_kinds.push_back(kind);
    return static_cast<int>(rule.factor_kinds.size()) - 1;
  };
  for (std::size_t b = 0; b < numbers.lhs_batch.size(); ++b) {
    const int factor = add_factor(FactorKind::batch);
    rule.operands[0][numbers.lhs_batch[b]] = factor;
    rule.operands[1][numbers.rhs_batch[b]] = factor;
    rule.result.push_back(factor);
  }
  // Free dimensions: those neither batch nor contracting, lhs first.
  for (std::size_t operand = 0; operand < 2; ++operand) {
    const std::vector<int>& contracting = operand == 0 ? numbers.lhs_contracting : numbers.rhs_contracting;
    std::vector<int>& dims = rule.operands[operand];
    for (std::size_t dim = 0; dim < dims.size(); ++dim) {
      const bool is_contracting =
          std::find(contracting.begin(), contracting.end(), static_cast<int>(dim)) != contracting.end();
      if (dims[dim] != -1 || is_contracting) continue;
      dims[dim] = add_factor(FactorKind::pass_through);
      rule.result.push_back(dims[dim]);
    }
  }
  for (std::size_t c = 0; c < numbers.lhs_contracting.size(); ++c) {
    const int factor = add_factor(FactorKind::reduction);
    rule.operands[0][numbers.lhs_contracting[c]] = factor;
    rule.operands[1][numbers.rhs_contracting[c]] = factor;
  }
  return rule;
}

std::variant<std::vector<SpecEntry>, FactorConflict> propagate_factors(const FactorRule& rule,
                                                                       std::span<const ArrayType> operands) {
  std::vector<SpecEntry> factor_entries(rule.factor_kinds.size());
  for (int factor = 0; factor < static_cast<int>(rule.factor_kinds.size()); ++factor) {
    // The entries and sizes of every operand dimension mapped to this factor.
    std::vector<const SpecEntry*> entries;
    std::vector<std::int64_t> sizes;
    for (std::size_t k = 0; k < rule.operands.size() && k < operands.size(); ++k)
      for (std::size_t dim = 0; dim < rule.operands[k].size(); ++dim)
        if (rule.operands[k][dim] == factor && dim < operands[k].sharding.dims.size()) {
          entries.push_back(&operands[k].sharding.dims[dim]);
          sizes.push_back(operands[k].shape[dim]);
        }
    if (entries.empty()) continue;
    const FactorKind kind = rule.factor_kinds[factor];
    const bool all_equal =
        std::all_of(entries.begin(), entries.end(), [&](const SpecEntry* entry) { return *entry == *entries[0]; });
    switch (kind) {
      case FactorKind::batch:
        if (!all_equal) return FactorConflict{factor, kind};
        factor_entries[factor] = *entries[0];
        break;
      case FactorKind::reduction:
        if (std::count_if(entries.begin(), entries.end(), [](const SpecEntry* entry) { return !entry->empty(); }) > 1)
          return FactorConflict{factor, kind};
        break;
      case FactorKind::pass_through: {
        if (all_equal) {
          factor_entries[factor] = *entries[0];
          break;
        }
        // Drop trivial entries (size 1 and replicated); if the rest agree,
        // that is the answer; else None is compatible with anything and two
        // different sharded entries conflict.
        std::vector<const SpecEntry*> non_trivial;
        for (std::size_t i = 0; i < entries.size(); ++i)
          if (!(sizes[i] == 1 && entries[i]->empty())) non_trivial.push_back(entries[i]);
        if (non_trivial.empty()) break;
        if (std::all_of(non_trivial.begin(), non_trivial.end(),
                        [&](const SpecEntry* entry) { return *entry == *non_trivial[0]; })) {
          factor_entries[factor] = *non_trivial[0];
          break;
        }
        const SpecEntry* chosen = nullptr;
        for (const SpecEntry* entry : entries) {
          if (entry->empty()) continue;
          if (!chosen) chosen = entry;
          else if (*entry != *chosen) return FactorConflict{factor, kind};
        }
        if (chosen) factor_entries[factor] = *chosen;
        break;
      }
    }
  }
  return factor_entries;
}

namespace {

std::string set_of_ints_repr(const std::set<std::size_t>& values) {
  std::string out = "{";
  for (std::size_t value : values) out += (out.size() > 1 ? ", " : "") + std::to_string(value);
  return out + "}";
}

}  // namespace

namespace {

// getu/getr: the operand's unreduced (reduced) axes, Explicit or Manual.
AxisSet unreduced_of(const ArrayType& type) {
  AxisSet axes = type.sharding.unreduced;
  axes.insert(type.manual.unreduced.begin(), type.manual.unreduced.end());
  return axes;
}
AxisSet reduced_of(const ArrayType& type) {
  AxisSet axes = type.sharding.reduced;
  axes.insert(type.manual.reduced.begin(), type.manual.reduced.end());
  return axes;
}

bool own_axes_empty(const ArrayType& type) {
  return type.ndim() == 0 && unreduced_of(type).empty() && reduced_of(type).empty() && type.manual.varying.empty();
}

// default_nary_reduced_rule
Checked<AxisSet> nary_reduced_rule(std::span<const ArrayType* const> operands) {
  std::vector<AxisSet> distinct;
  for (const ArrayType* operand : operands) {
    AxisSet reduced = reduced_of(*operand);
    if (!reduced.empty() && std::find(distinct.begin(), distinct.end(), reduced) == distinct.end())
      distinct.push_back(std::move(reduced));
  }
  if (distinct.empty()) return AxisSet{};
  const MeshRef& mesh = operands[0]->sharding.mesh;
  if (distinct.size() > 1) {
    std::string specs;
    for (const AxisSet& each : distinct) specs += (specs.empty() ? "" : ", ") + frozenset_repr(each, mesh);
    return Error{ErrorClass::ShardingTypeError,
                 "All inputs should be reduced across the same mesh axes. Got specs: {" + specs + "}"};
  }
  const AxisSet& reduced = distinct[0];
  for (const ArrayType* operand : operands) {
    if (own_axes_empty(*operand)) continue;  // resharded to reduced
    const MeshRef& operand_mesh = operand->sharding.mesh;
    AxisSet used = unreduced_of(*operand);
    const AxisSet own_reduced = reduced_of(*operand);
    used.insert(own_reduced.begin(), own_reduced.end());
    used.insert(operand->manual.varying.begin(), operand->manual.varying.end());
    AxisSet sharded_or_varying(operand->manual.varying.begin(), operand->manual.varying.end());
    for (const SpecEntry& entry : operand->sharding.dims) {
      used.insert(entry.begin(), entry.end());
      sharded_or_varying.insert(entry.begin(), entry.end());
    }
    if (operand_mesh)
      for (const MeshAxis& axis : operand_mesh->axes())
        if (!used.contains(axis.name) && reduced.contains(axis.name))
          return Error{ErrorClass::ShardingTypeError,
                       "Inputs cannot be replicated on the same axes that another input is reduced on. Got input "
                       "type: " +
                           operand->str() + " and reduced spec: " + frozenset_repr(reduced, mesh)};
    for (const std::string& axis : sharded_or_varying)
      if (reduced.contains(axis))
        return Error{ErrorClass::ShardingTypeError,
                     "Inputs cannot be sharded/varying on the same axes that another input is reduced on. Reshard the "
                     "input which is reduced to be sharded on the mesh axes it is reduced on via "
                     "`jax.sharding.reshard(inp, jax.P(...))`. Got input type: " +
                         operand->str() + " and reduced spec: " + frozenset_repr(reduced, mesh)};
  }
  return reduced;
}

// The result's sets on the result's mesh: Manual axes in .manual, others in the sharding.
void place_unreduced_reduced(ArrayType& result, const UnreducedReduced& sets) {
  for (auto [axes, manual, explicit_axes] :
       {std::tuple{&sets.unreduced, &result.manual.unreduced, &result.sharding.unreduced},
        std::tuple{&sets.reduced, &result.manual.reduced, &result.sharding.reduced}})
    for (const std::string& axis : *axes) {
      const MeshAxis* found = result.sharding.mesh ? result.sharding.mesh->find(axis) : nullptr;
      (found && found->type == AxisType::Manual ? manual : explicit_axes)->insert(axis);
    }
}

}  // namespace

Checked<UnreducedReduced> nary_unreduced_rule(std::string_view primitive, std::span<const ArrayType* const> operands) {
  Checked<AxisSet> reduced = nary_reduced_rule(operands);
  if (!reduced) return reduced.error();
  const MeshRef& mesh = operands.empty() ? MeshRef{} : operands[0]->sharding.mesh;
  auto reduced_or_resharded = [&](const ArrayType& operand) {
    return own_axes_empty(operand) ? reduced.value() : reduced_of(operand);
  };
  const bool binary = operands.size() == 2;
  const AxisSet lhs_u = binary ? unreduced_of(*operands[0]) : AxisSet{};
  const AxisSet rhs_u = binary ? unreduced_of(*operands[1]) : AxisSet{};
  UnreducedReduced out{{}, reduced.value()};
  if (binary && primitive == "add") {
    if (!lhs_u.empty() && !rhs_u.empty() && lhs_u != rhs_u)
      return Error{ErrorClass::ShardingTypeError,
                   "lhs and rhs to `add` must be unreduced along the same mesh axes. Got lhs=" +
                       frozenset_repr(lhs_u, mesh) + ", rhs=" + frozenset_repr(rhs_u, mesh)};
    if (lhs_u.empty() != rhs_u.empty()) {
      const std::string first = lhs_u.empty() ? "rhs" : "lhs";
      const std::string second = lhs_u.empty() ? "lhs" : "rhs";
      return Error{ErrorClass::ShardingTypeError,
                   first + " is unreduced while " + second +
                       " is not. `add` operation does not allow this because there will be implicit communication. "
                       "Please reduce " +
                       first + " via `reshard` before calling `add`."};
    }
    out.unreduced = lhs_u;
    return out;
  }
  if (binary && (primitive == "mul" || primitive == "multiply")) {
    if (!lhs_u.empty() && !rhs_u.empty())
      return Error{ErrorClass::ShardingTypeError,
                   "lhs and rhs to `mul` cannot be unreduced since mul is bilinear. Got lhs=" +
                       frozenset_repr(lhs_u, mesh) + ", rhs=" + frozenset_repr(rhs_u, mesh)};
    if (!lhs_u.empty() && lhs_u != reduced_or_resharded(*operands[1]))
      return Error{ErrorClass::ShardingTypeError, "RHS should be reduced along the same axes LHS is unreduced on. Got "
                                                  "lhs=" +
                                                      operands[0]->str() + " and rhs=" + operands[1]->str()};
    if (!rhs_u.empty() && rhs_u != reduced_or_resharded(*operands[0]))
      return Error{ErrorClass::ShardingTypeError, "LHS should be reduced along the same axes RHS is unreduced on. Got "
                                                  "lhs=" +
                                                      operands[0]->str() + " and rhs=" + operands[1]->str()};
    out.unreduced = lhs_u.empty() ? rhs_u : lhs_u;
    if (!out.unreduced.empty()) out.reduced.clear();
    return out;
  }
  if (binary && (primitive == "div" || primitive == "divide" || primitive == "true_divide")) {
    if (!rhs_u.empty())
      return Error{ErrorClass::ValueError,
                   "The denominator cannot be unreduced passed to `div`. Got y=" + shaped_array_repr(*operands[1])};
    if (!lhs_u.empty() && lhs_u != reduced_or_resharded(*operands[1]))
      return Error{ErrorClass::ValueError,
                   "Denominator should be reduced along the same axes numerator is unreduced on. Got x=" +
                       shaped_array_repr(*operands[0]) + ", y=" + shaped_array_repr(*operands[1])};
    out.unreduced = lhs_u;
    if (!out.unreduced.empty()) out.reduced.clear();
    return out;
  }
  for (const ArrayType* operand : operands)
    if (!unreduced_of(*operand).empty())
      return Error{ErrorClass::NotImplementedError, "unreduced rule for " + std::string(primitive) +
                                                        " is not implemented. Please file an issue at "
                                                        "https://github.com/jax-ml/jax/issues"};
  return out;
}

Checked<ArrayType> elementwise_rule(std::string_view primitive, std::span<const ArrayType> operands,
                                    ElementType element) {
  const std::string name(primitive);
  std::vector<const ArrayType*> all;
  std::vector<ArrayType> arrays;  // the non-scalar operands, which the rule reads
  for (const ArrayType& operand : operands) {
    all.push_back(&operand);
    if (operand.ndim() > 0) arrays.push_back(operand);
  }
  std::variant<MeshRef, MeshMismatch> mesh = common_mesh(all);
  if (auto* mismatch = std::get_if<MeshMismatch>(&mesh))
    return Error{ErrorClass::ShardingTypeError, "Mesh for all inputs should be equal. Got one mesh: " +
                                                    mismatch->first->repr() +
                                                    " and another mesh: " + mismatch->second->repr()};

  std::set<std::size_t> ranks;
  for (const ArrayType& array : arrays) ranks.insert(array.ndim());
  if (ranks.size() > 1)
    return Error{ErrorClass::TypeError,
                 name + ": arrays must have the same number of dimensions, got " + set_of_ints_repr(ranks)};

  // The broadcast shape: per dimension, the one size other than 1.
  const std::size_t rank = ranks.empty() ? 0 : *ranks.begin();
  Shape shape(rank, 1);
  for (std::size_t dim = 0; dim < rank; ++dim)
    for (const ArrayType& array : arrays) {
      if (array.shape[dim] == 1) continue;
      if (shape[dim] != 1 && shape[dim] != array.shape[dim]) {
        std::string shapes;
        for (const ArrayType& each : arrays) shapes += (shapes.empty() ? "" : ", ") + python_shape_repr(each.shape);
        return Error{ErrorClass::TypeError, name + " got incompatible shapes for broadcasting: " + shapes + "."};
      }
      shape[dim] = array.shape[dim];
    }

  ArrayType result = make_result(element, std::move(shape), std::get<MeshRef>(mesh), varying_union(all));
  // Reference §7: the unreduced/reduced rule runs after the sharding rule.
  auto with_unreduced = [&](ArrayType out) -> Checked<ArrayType> {
    Checked<UnreducedReduced> sets = nary_unreduced_rule(primitive, all);
    if (!sets) return sets.error();
    place_unreduced_reduced(out, sets.value());
    return out;
  };
  if (arrays.empty() || !has_explicit_axis(result.sharding.mesh)) return with_unreduced(std::move(result));

  std::vector<std::size_t> array_ranks(arrays.size(), rank);
  const FactorRule rule = elementwise_factor_rule(array_ranks);
  auto factors = propagate_factors(rule, arrays);
  if (std::holds_alternative<FactorConflict>(factors)) {
    std::string specs;
    for (const ArrayType& array : arrays)
      specs += (specs.empty() ? "" : ", ") + spec_entries_tuple_repr(array.sharding.dims);
    return Error{ErrorClass::ShardingTypeError, name + " got incompatible shardings for broadcasting: " + specs + "."};
  }
  const std::vector<SpecEntry>& entries = std::get<std::vector<SpecEntry>>(factors);
  for (std::size_t dim = 0; dim < rank; ++dim) result.sharding.dims[dim] = entries[rule.result[dim]];
  if (std::optional<Error> error = check_result_axes(primitive, all, result)) return *error;
  return with_unreduced(std::move(result));
}

Checked<ElementType> dot_result_element(ElementType operands, std::optional<DType> preferred) {
  if (!preferred) return operands;
  const DType input = operands.dtype;
  const bool compatible = (is_integer(input) && (is_integer(*preferred) || is_floating(*preferred))) ||
                          (is_floating(input) && is_floating(*preferred)) || input == *preferred;
  if (!compatible)
    return Error{ErrorClass::TypeError,
                 "Input type is incompatible with `preferred_element_type`. The compatible combinations of "
                 "(input_type, preferred_element_type) are (integral, integral), (integral, floating), "
                 "(floating, floating), (complex, complex."};
  const bool same_kind = (is_integer(input) && is_integer(*preferred)) || (is_floating(input) && is_floating(*preferred));
  if (same_kind && byte_size(*preferred) < byte_size(input))
    return Error{ErrorClass::TypeError, "`preferred_element_type` must not be narrower than the original type."};
  return ElementType{*preferred, false};
}

Checked<ArrayType> dot_general_rule(const ArrayType& lhs, const ArrayType& rhs, const DotDimensionNumbers& numbers,
                                    ElementType element, const std::optional<Sharding>& out_sharding) {
  Checked<FactorRule> rule = dot_general_factor_rule(lhs.ndim(), rhs.ndim(), numbers);
  if (!rule) return rule.error();

  // The shape rule: paired dimensions must have equal sizes.
  auto sizes_of = [](const ArrayType& type, const std::vector<int>& dims) {
    std::vector<std::int64_t> sizes;
    for (int dim : dims) sizes.push_back(type.shape[dim]);
    return sizes;
  };
  if (sizes_of(lhs, numbers.lhs_batch) != sizes_of(rhs, numbers.rhs_batch))
    return Error{ErrorClass::TypeError,
                 "dot_general requires lhs batch dimensions and rhs batch dimensions to have the same shape, got " +
                     python_shape_repr(sizes_of(lhs, numbers.lhs_batch)) + " and " +
                     python_shape_repr(sizes_of(rhs, numbers.rhs_batch)) + "."};
  if (sizes_of(lhs, numbers.lhs_contracting) != sizes_of(rhs, numbers.rhs_contracting))
    return Error{ErrorClass::TypeError, "dot_general requires contracting dimensions to have the same shape, got " +
                                            python_shape_repr(sizes_of(lhs, numbers.lhs_contracting)) + " and " +
                                            python_shape_repr(sizes_of(rhs, numbers.rhs_contracting)) + "."};

  const ArrayType* operands[] = {&lhs, &rhs};
  std::variant<MeshRef, MeshMismatch> mesh = common_mesh(operands);
  if (auto* mismatch = std::get_if<MeshMismatch>(&mesh))
    return Error{ErrorClass::ShardingTypeError, "Mesh of both lhs and rhs should match. Got lhs: " +
                                                    mismatch->first->repr() + " and rhs: " + mismatch->second->repr()};

  // Result dimensions follow the rule's result factors: batch, lhs free, rhs free.
  Shape shape;
  for (int factor : rule.value().result)
    for (std::size_t k = 0; k < 2; ++k) {
      const std::vector<int>& dims = rule.value().operands[k];
      auto found = std::find(dims.begin(), dims.end(), factor);
      if (found != dims.end()) {
        shape.push_back(operands[k]->shape[found - dims.begin()]);
        break;
      }
    }
  ArrayType result = make_result(element, std::move(shape), std::get<MeshRef>(mesh), varying_union(operands));

  // The spec entries of some dimensions, as JAX collects them for messages.
  auto entries_at = [](const ArrayType& type, const std::vector<int>& dims) {
    std::vector<SpecEntry> entries;
    for (int dim : dims)
      entries.push_back(static_cast<std::size_t>(dim) < type.sharding.dims.size() ? type.sharding.dims[dim]
                                                                                  : SpecEntry{});
    return entries;
  };
  const std::vector<SpecEntry> lhs_contracting = entries_at(lhs, numbers.lhs_contracting);
  const std::vector<SpecEntry> rhs_contracting = entries_at(rhs, numbers.rhs_contracting);

  if (!unreduced_of(lhs).empty() || !unreduced_of(rhs).empty())
    return Error{ErrorClass::ShardingTypeError, "lhs or rhs passed to dot_general cannot be unreduced. Got lhs=" +
                                                    shaped_array_repr(lhs) + " and rhs=" + shaped_array_repr(rhs)};
  if (out_sharding) {
    // Reference §2.13: an unreduced result needs both sides sharded alike on
    // the contracting dimensions, over exactly the unreduced axes.
    if (!out_sharding->unreduced.empty()) {
      if (lhs_contracting != rhs_contracting)
        return Error{ErrorClass::ShardingTypeError,
                     "lhs and rhs contracting dims should be sharded identically when out_sharding provided to "
                     "dot_general mentions unreduced_axes. Got lhs_contracting_spec=" +
                         spec_entries_tuple_repr(lhs_contracting) +
                         ", rhs_contracting_spec=" + spec_entries_tuple_repr(rhs_contracting)};
      AxisSet contracting_axes;
      for (const SpecEntry& entry : lhs_contracting) contracting_axes.insert(entry.begin(), entry.end());
      if (contracting_axes != out_sharding->unreduced)
        return Error{ErrorClass::ShardingTypeError,
                     "out_sharding's unreduced axes should be equal to the contracting specs. Got unreduced axes=" +
                         python_set_repr({out_sharding->unreduced.begin(), out_sharding->unreduced.end()}) +
                         " and contracting spec=" + spec_entries_tuple_repr(lhs_contracting)};
    }
    result.sharding = *out_sharding;
    return result;
  }
  if (!has_explicit_axis(result.sharding.mesh)) return result;

  auto factors = propagate_factors(rule.value(), std::vector<ArrayType>{lhs, rhs});
  if (const FactorConflict* conflict = std::get_if<FactorConflict>(&factors)) {
    if (conflict->kind == FactorKind::batch)
      return Error{ErrorClass::ShardingTypeError,
                   "dot_general requires lhs batch dimensions and rhs batch dimensions to have the same sharding, "
                   "got " +
                       spec_entries_tuple_repr(entries_at(lhs, numbers.lhs_batch)) + " and " +
                       spec_entries_tuple_repr(entries_at(rhs, numbers.rhs_batch)) + "."};
    return Error{ErrorClass::ShardingTypeError,
                 "Contracting dimensions are sharded and it is ambiguous how the output should be sharded. Please "
                 "specify the output sharding via the `out_sharding` parameter. Got lhs_contracting_spec=" +
                     spec_entries_tuple_repr(lhs_contracting) +
                     " and rhs_contracting_spec=" + spec_entries_tuple_repr(rhs_contracting)};
  }
  const std::vector<SpecEntry>& entries = std::get<std::vector<SpecEntry>>(factors);
  for (std::size_t dim = 0; dim < result.ndim(); ++dim) result.sharding.dims[dim] = entries[rule.value().result[dim]];
  if (std::optional<Error> error = check_result_axes("dot_general", operands, result)) return *error;
  return result;
}

}  // namespace typecheck
