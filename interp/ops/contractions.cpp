// Contractions (contractions.hpp): every one binds dot_general, so it runs
// eagerly, traces under jit and type-checks in check mode alike.
#include "interp/ops/contractions.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "interp/python/builtins.hpp"
#include "interp/library/numpy_module.hpp"
#include "interp/python/objects.hpp"
#include "typecheck/python_repr.hpp"

namespace interp {

using typecheck::DotDimensionNumbers;

namespace {

std::vector<std::int64_t> as_int64(const std::vector<int>& dims) { return {dims.begin(), dims.end()}; }

std::vector<int> as_int(const std::vector<std::int64_t>* dims) {
  return dims ? std::vector<int>(dims->begin(), dims->end()) : std::vector<int>{};
}

DotDimensionNumbers matmul_numbers(std::size_t lhs_rank) {
  return {{static_cast<int>(lhs_rank) - 1}, {0}, {}, {}};
}

}  // namespace

DotDimensionNumbers dot_dimension_numbers(const Params& params, std::size_t lhs_rank) {
  const auto* lhs_contracting = params.get<std::vector<std::int64_t>>("lhs_contracting");
  if (!lhs_contracting) return matmul_numbers(lhs_rank);
  return {as_int(lhs_contracting), as_int(params.get<std::vector<std::int64_t>>("rhs_contracting")),
          as_int(params.get<std::vector<std::int64_t>>("lhs_batch")),
          as_int(params.get<std::vector<std::int64_t>>("rhs_batch"))};
}

void set_dot_dimension_numbers(Params& params, const DotDimensionNumbers& numbers, std::size_t lhs_rank) {
  const DotDimensionNumbers matmul = matmul_numbers(lhs_rank);
  if (lhs_rank > 0 && numbers.lhs_contracting == matmul.lhs_contracting &&
      numbers.rhs_contracting == matmul.rhs_contracting && numbers.lhs_batch.empty() && numbers.rhs_batch.empty())
    return;
  params.set("lhs_contracting", as_int64(numbers.lhs_contracting));
  params.set("rhs_contracting", as_int64(numbers.rhs_contracting));
  params.set("lhs_batch", as_int64(numbers.lhs_batch));
  params.set("rhs_batch", as_int64(numbers.rhs_batch));
}

devices::Precision dot_precision(const Params& params) {
  const auto* precision = params.get<std::string>("precision");
  if (!precision) return devices::Precision::default_precision;
  if (*precision == "HIGHEST") return devices::Precision::highest;
  if (*precision == "HIGH") return devices::Precision::high;
  return devices::Precision::default_precision;
}

std::optional<typecheck::DType> dot_preferred_element_type(const Params& params) {
  const auto* name = params.get<std::string>("preferred_element_type");
  if (!name) return std::nullopt;
  return typecheck::parse_dtype(*name);
}

namespace {

// lax.Precision's names and the strings JAX accepts for them.
std::string precision_name(Evaluator& evaluator, const Value& value) {
  if (auto* tuple = value.as<TupleObject>()) {
    // (lhs, rhs): the product runs at the higher of the two.
    std::string best = "DEFAULT";
    for (const auto& item : tuple->items) {
      std::string name = precision_name(evaluator, item);
      if (name == "HIGHEST" || (name == "HIGH" && best == "DEFAULT")) best = name;
    }
    return best;
  }
  const std::string* text = string_of(value);
  if (!text) raise(exc::TypeError(), "precision argument must be None, a string in ['highest', 'float32', 'high', "
                                     "'bfloat16_3x', 'tensorfloat32', 'default', 'bfloat16', 'fastest'], a "
                                     "lax.Precision value or a tuple of two lax.Precision values or strings; got " +
                                         evaluator.repr(value) + ".");
  std::string lower;
  for (char c : *text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "highest" || lower == "float32") return "HIGHEST";
  if (lower == "high" || lower == "bfloat16_3x" || lower == "tensorfloat32") return "HIGH";
  if (lower == "default" || lower == "bfloat16" || lower == "fastest") return "DEFAULT";
  raise(exc::ValueError(), "Unknown precision " + evaluator.repr(value));
}

// dot_general's params from the keyword arguments.
}  // namespace

Params contraction_params(Evaluator& evaluator, const ContractionOptions& options) {
  Params params;
  if (!options.precision.is_none()) {
    std::string name = precision_name(evaluator, options.precision);
    if (name != "DEFAULT") params.set("precision", name);
  }
  if (!options.preferred_element_type.is_none())
    params.set("preferred_element_type",
               std::string(typecheck::long_name(dtype_argument(evaluator, options.preferred_element_type))));
  if (auto argument = sharding_argument(options.out_sharding)) params.set("out_sharding", *argument);
  return params;
}

namespace {

ArrayRef bind_dot_general(Evaluator& evaluator, const ArrayRef& lhs, const ArrayRef& rhs,
                          const DotDimensionNumbers& numbers, const Params& options) {
  Params params;  // dimension numbers first, as JAX prints them
  set_dot_dimension_numbers(params, numbers, lhs->aval.ndim());
  params.entries.insert(params.entries.end(), options.entries.begin(), options.entries.end());
  return to_array(evaluator, bind(evaluator, primitive("dot_general"), {lhs, rhs}, std::move(params)));
}

ArrayRef reshaped(Evaluator& evaluator, const ArrayRef& array, const typecheck::Shape& shape) {
  if (array->aval.shape == shape) return array;
  return to_array(evaluator, apply_reshape(evaluator, Value(array), std::vector<std::int64_t>(shape.begin(), shape.end())));
}

ArrayRef transposed(Evaluator& evaluator, const ArrayRef& array, const std::vector<int>& permutation) {
  bool identity = true;
  for (std::size_t i = 0; i < permutation.size(); ++i) identity = identity && permutation[i] == static_cast<int>(i);
  if (identity) return array;
  return to_array(evaluator, apply_transpose(evaluator, Value(array), permutation));
}

// The array in `dtype` through the convert primitive, so that a jit trace
// records the conversion (ops/array.hpp's astype converts buffers).
ArrayRef converted(Evaluator& evaluator, const ArrayRef& array, typecheck::DType dtype) {
  if (array->aval.dtype == dtype) return array;
  return to_array(evaluator, apply_astype(evaluator, array, dtype));
}

// Both operands in their promoted dtype (jnp promotes before lax).
std::pair<ArrayRef, ArrayRef> promoted_pair(Evaluator& evaluator, const Value& lhs_value, const Value& rhs_value) {
  ArrayRef lhs = to_array(evaluator, lhs_value), rhs = to_array(evaluator, rhs_value);
  std::vector<typecheck::ElementType> elements{lhs->aval.element_type(), rhs->aval.element_type()};
  typecheck::DType common = typecheck::result_type(elements).dtype;
  return {converted(evaluator, lhs, common), converted(evaluator, rhs, common)};
}

std::int64_t canonical_axis(std::int64_t axis, std::size_t rank) {
  const auto n = static_cast<std::int64_t>(rank);
  if (axis < -n || axis >= n)
    raise(exc::ValueError(), "axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(n));
  return axis < 0 ? axis + n : axis;
}

std::vector<int> int_list(Evaluator& evaluator, const Value& value) {
  std::vector<int> out;
  for (const auto& item : evaluator.to_vector(value)) out.push_back(c_int(evaluator.index_of(item)));
  return out;
}

// ------------------------------------------------------------ einsum

// One operand's subscripts, '...' expanded: every dimension one label.
// Ellipsis dimensions get labels below 'A' (char 1, 2, ...), right-aligned
// across operands as NumPy broadcasts them.
struct EinsumSpec {
  std::vector<std::string> inputs;
  std::string output;
};

bool is_label(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

std::string label_text(char label) {
  return is_label(label) ? std::string(1, label) : "...";
}

EinsumSpec parse_einsum(const std::string& subscripts, const std::vector<ArrayRef>& operands) {
  std::string text;
  for (char c : subscripts)
    if (c != ' ') text += c;
  const auto arrow = text.find("->");
  std::vector<std::string> terms;
  std::string inputs_text = text.substr(0, arrow);
  for (std::size_t start = 0;;) {
    auto comma = inputs_text.find(',', start);
    terms.push_back(inputs_text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() < operands.size())
    raise(exc::ValueError(), "more operands provided to einstein sum function than specified in the subscripts string");
  if (terms.size() > operands.size())
    raise(exc::ValueError(), "fewer operands provided to einstein sum function than specified in the subscripts string");
  // The letters of a term and where its ellipsis lies.
  auto split = [](const std::string& term, std::size_t index) {
    std::string letters;
    std::optional<std::size_t> ellipsis;
    for (std::size_t i = 0; i < term.size(); ++i) {
      if (term.compare(i, 3, "...") == 0 && !ellipsis) {
        ellipsis = letters.size();
        i += 2;
      } else if (is_label(term[i])) {
        letters += term[i];
      } else {
        raise(exc::ValueError(), "invalid subscript '" + std::string(1, term[i]) +
                                     "' in einstein sum subscripts string, subscripts must be letters (operand " +
                                     std::to_string(index) + ")");
      }
    }
    return std::pair{letters, ellipsis};
  };
  std::size_t ellipsis_rank = 0;
  std::vector<std::pair<std::string, std::optional<std::size_t>>> parsed;
  for (std::size_t k = 0; k < terms.size(); ++k) {
    parsed.push_back(split(terms[k], k));
    const auto& [letters, ellipsis] = parsed.back();
    const std::size_t rank = operands[k]->aval.ndim();
    if (letters.size() > rank || (!ellipsis && letters.size() != rank))
      raise(exc::ValueError(), letters.size() > rank
                                   ? "einstein sum subscripts string contains too many subscripts for operand " +
                                         std::to_string(k)
                                   : "operand has more dimensions than subscripts given in einstein sum, but no '...' "
                                     "ellipsis provided to broadcast the extra dimensions.");
    if (ellipsis) ellipsis_rank = std::max(ellipsis_rank, rank - letters.size());
  }
  auto ellipsis_labels = [&](std::size_t count) {
    std::string labels;
    for (std::size_t i = ellipsis_rank - count; i < ellipsis_rank; ++i) labels += static_cast<char>(1 + i);
    return labels;
  };
  EinsumSpec spec;
  std::map<char, int> occurrences;
  for (std::size_t k = 0; k < parsed.size(); ++k) {
    const auto& [letters, ellipsis] = parsed[k];
    std::string labels = letters;
    if (ellipsis) labels.insert(*ellipsis, ellipsis_labels(operands[k]->aval.ndim() - letters.size()));
    for (char c : labels) ++occurrences[c];
    spec.inputs.push_back(std::move(labels));
  }
  if (arrow == std::string::npos) {
    // Implicit: the ellipsis dimensions, then the letters used once, sorted.
    spec.output = ellipsis_labels(ellipsis_rank);
    for (const auto& [label, count] : occurrences)
      if (is_label(label) && count == 1) spec.output += label;
  } else {
    auto [letters, ellipsis] = split(text.substr(arrow + 2), terms.size());
    spec.output = letters;
    if (ellipsis) spec.output.insert(*ellipsis, ellipsis_labels(ellipsis_rank));
    for (std::size_t i = 0; i < spec.output.size(); ++i) {
      char label = spec.output[i];
      if (spec.output.find(label) != i)
        raise(exc::ValueError(), "einstein sum subscripts string includes output subscript '" + label_text(label) +
                                     "' multiple times");
      if (!occurrences.count(label))
        raise(exc::ValueError(), "einstein sum subscripts string included output subscript '" + label_text(label) +
                                     "' which never appeared in an input");
    }
  }
  return spec;
}

struct Term {
  ArrayRef array;
  std::string labels;
};

Value einsum(Evaluator& evaluator, const std::string& subscripts, const std::vector<Value>& values,
             const ContractionOptions& options) {
  if (values.empty()) raise(exc::ValueError(), "No input operands");
  std::vector<ArrayRef> operands;
  std::vector<typecheck::ElementType> elements;
  for (const auto& v : values) {
    operands.push_back(to_array(evaluator, v));
    elements.push_back(operands.back()->aval.element_type());
  }
  const typecheck::DType common = typecheck::result_type(elements).dtype;
  for (auto& operand : operands) operand = converted(evaluator, operand, common);
  EinsumSpec spec = parse_einsum(subscripts, operands);

  // Each label's size; a size-1 dimension against a larger one broadcasts
  // (that operand drops it).
  std::map<char, std::int64_t> sizes;
  for (std::size_t k = 0; k < operands.size(); ++k)
    for (std::size_t d = 0; d < spec.inputs[k].size(); ++d) {
      std::int64_t size = operands[k]->aval.shape[d];
      auto [it, inserted] = sizes.emplace(spec.inputs[k][d], size);
      if (inserted || it->second == size || size == 1) continue;
      if (it->second == 1) {
        it->second = size;
        continue;
      }
      raise(exc::ValueError(), "Size of label '" + label_text(spec.inputs[k][d]) + "' for operand " +
                                   std::to_string(k) + " (" + std::to_string(size) + ") does not match previous terms (" +
                                   std::to_string(it->second) + ").");
    }
  std::vector<Term> terms;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    Term term{operands[k], ""};
    typecheck::Shape kept;
    for (std::size_t d = 0; d < spec.inputs[k].size(); ++d) {
      char label = spec.inputs[k][d];
      if (term.labels.find(label) != std::string::npos)
        raise(exc::NotImplementedError(), "jnp.einsum with a subscript repeated within one operand ('" + subscripts + "')");
      if (operands[k]->aval.shape[d] == 1 && sizes[label] != 1) continue;
      term.labels += label;
      kept.push_back(operands[k]->aval.shape[d]);
    }
    term.array = reshaped(evaluator, term.array, kept);
    terms.push_back(std::move(term));
  }
  // Labels that one operand alone has and the output lacks are summed first.
  auto used_elsewhere = [&](char label, std::size_t except) {
    if (spec.output.find(label) != std::string::npos) return true;
    for (std::size_t k = 0; k < terms.size(); ++k)
      if (k != except && terms[k].labels.find(label) != std::string::npos) return true;
    return false;
  };
  for (std::size_t k = 0; k < terms.size(); ++k) {
    std::vector<Value> axes;
    std::string kept;
    for (std::size_t d = 0; d < terms[k].labels.size(); ++d) {
      if (used_elsewhere(terms[k].labels[d], k)) kept += terms[k].labels[d];
      else axes.push_back(Value::integer(static_cast<std::int64_t>(d)));
    }
    if (axes.empty()) continue;
    terms[k].array = to_array(evaluator, apply_reduction(evaluator, "sum", Value(terms[k].array), make_tuple(axes), false));
    terms[k].labels = kept;
  }

  // The requested output sharding, per label.
  std::optional<typecheck::ShardingArg> out_sharding = sharding_argument(options.out_sharding);
  auto spec_for = [&](const std::string& labels) {
    std::vector<typecheck::SpecEntry> entries;
    const auto& partitions = out_sharding->spec.partitions();
    for (char label : labels) {
      std::size_t at = spec.output.find(label);
      entries.push_back(at < partitions.size() ? partitions[at] : typecheck::SpecEntry{});
    }
    typecheck::ShardingArg moved = *out_sharding;
    moved.spec = typecheck::PartitionSpec::from_entries(entries, out_sharding->spec.unreduced(), out_sharding->spec.reduced());
    return moved;
  };

  // Contract pairwise, left to right.
  Term result = terms[0];
  for (std::size_t k = 1; k < terms.size(); ++k) {
    const Term& rhs = terms[k];
    std::string needed = spec.output;
    for (std::size_t later = k + 1; later < terms.size(); ++later) needed += terms[later].labels;
    DotDimensionNumbers numbers;
    std::string batch, lhs_free, rhs_free;
    for (std::size_t d = 0; d < result.labels.size(); ++d) {
      char label = result.labels[d];
      auto in_rhs = rhs.labels.find(label);
      if (in_rhs == std::string::npos) {
        lhs_free += label;
      } else if (needed.find(label) != std::string::npos) {
        batch += label;
        numbers.lhs_batch.push_back(static_cast<int>(d));
        numbers.rhs_batch.push_back(static_cast<int>(in_rhs));
      } else {
        numbers.lhs_contracting.push_back(static_cast<int>(d));
        numbers.rhs_contracting.push_back(static_cast<int>(in_rhs));
      }
    }
    for (char label : rhs.labels)
      if (result.labels.find(label) == std::string::npos) rhs_free += label;
    ContractionOptions step = options;
    std::string produced = batch + lhs_free + rhs_free;
    step.out_sharding = Value();
    Params params = contraction_params(evaluator, step);
    if (out_sharding && k + 1 == terms.size()) params.set("out_sharding", spec_for(produced));
    result = {bind_dot_general(evaluator, result.array, rhs.array, numbers, std::move(params)), produced};
  }
  std::vector<int> permutation;
  for (char label : spec.output) permutation.push_back(static_cast<int>(result.labels.find(label)));
  ArrayRef out = transposed(evaluator, result.array, permutation);
  if (terms.size() == 1) {
    if (!options.preferred_element_type.is_none())
      out = converted(evaluator, out, dtype_argument(evaluator, options.preferred_element_type));
    if (out_sharding) {
      DeviceMeshRef mesh = runtime_of(evaluator).context_mesh ? runtime_of(evaluator).context_mesh->mesh : out->layout.mesh;
      Layout layout = checked(make_layout(mesh, out_sharding->spec, out->aval.shape));
      out = to_array(evaluator, apply_device_put(evaluator, out, layout, out_sharding->spec));
    }
  }
  return Value(out);
}

// ------------------------------------------------------------ ragged_dot

Value call_jnp(Evaluator& evaluator, const std::string& name, std::vector<Value> arguments) {
  const Value* function = evaluator.module("jax.numpy")->find(name);
  if (!function) raise(exc::NotImplementedError(), "jnp." + name);
  return evaluator.call(*function, std::move(arguments));
}

// lax.ragged_dot(lhs[m, k], rhs[g, k, n], group_sizes[g]): row i of lhs is
// multiplied by rhs[j] for the group j its position falls in (groups take
// consecutive rows; rows past the groups give zeros). Computed as every
// group's product, masked by membership and summed over groups: one term
// per element is nonzero, so the sum is exact.
Value ragged_dot(Evaluator& evaluator, const Value& lhs_value, const Value& rhs_value, const Value& sizes_value,
                 const ContractionOptions& options) {
  auto [lhs, rhs] = promoted_pair(evaluator, lhs_value, rhs_value);
  ArrayRef group_sizes = to_array(evaluator, sizes_value);
  if (lhs->aval.ndim() != 2 || rhs->aval.ndim() != 3 || group_sizes->aval.ndim() != 1)
    raise(exc::TypeError(), "ragged_dot requires lhs of rank 2, rhs of rank 3 and group_sizes of rank 1, got lhs " +
                                typecheck::python_shape_repr(lhs->aval.shape) + ", rhs " +
                                typecheck::python_shape_repr(rhs->aval.shape) + " and group_sizes " +
                                typecheck::python_shape_repr(group_sizes->aval.shape));
  const std::int64_t m = lhs->aval.shape[0], g = rhs->aval.shape[0];
  if (group_sizes->aval.shape[0] != g)
    raise(exc::TypeError(), "ragged_dot requires group_sizes of shape (" + std::to_string(g) + ",), got " +
                                typecheck::python_shape_repr(group_sizes->aval.shape));
  if (!typecheck::is_integer(group_sizes->aval.dtype))
    raise(exc::TypeError(), "ragged_dot requires integer group_sizes, got " +
                                std::string(typecheck::long_name(group_sizes->aval.dtype)));
  group_sizes = converted(evaluator, group_sizes, typecheck::DType::int32);
  // Group j holds rows [ends[j] - sizes[j], ends[j]); ends = inclusive
  // cumulative sum, as a product with a lower-triangular matrix of ones.
  Value groups = call_jnp(evaluator, "arange", {Value::integer(g)});
  Value column = Value(reshaped(evaluator, to_array(evaluator, groups), {g, 1}));
  Value lower = call_jnp(evaluator, "less_equal", {groups, column});
  Value triangle = Value(converted(evaluator, to_array(evaluator, lower), typecheck::DType::int32));
  Value ends = apply_dot(evaluator, triangle, Value(group_sizes));
  Value starts = call_jnp(evaluator, "subtract", {ends, Value(group_sizes)});
  Value rows = Value(reshaped(evaluator, to_array(evaluator, call_jnp(evaluator, "arange", {Value::integer(m)})), {m, 1}));
  Value member = call_jnp(evaluator, "logical_and",
                          {call_jnp(evaluator, "greater_equal", {rows, starts}), call_jnp(evaluator, "less", {rows, ends})});
  Value mask = Value(reshaped(evaluator, to_array(evaluator, member), {m, g, 1}));
  Params params = contraction_params(evaluator, options);
  ArrayRef products = bind_dot_general(evaluator, lhs, rhs, {{1}, {1}, {}, {}}, std::move(params));  // [m, g, n]
  Value masked = call_jnp(evaluator, "where", {mask, Value(products), Value::integer(0)});
  Value summed = apply_reduction(evaluator, "sum", masked, Value::integer(1), false);
  return Value(converted(evaluator, to_array(evaluator, summed), products->aval.dtype));
}

ContractionOptions options_from(const Arguments& a, std::size_t first) {
  return {a[first + 2], a[first], a[first + 1]};
}

void install_numpy_contractions(const std::shared_ptr<ModuleObject>& jnp);
void install_lax_contractions(const std::shared_ptr<ModuleObject>& lax);

}  // namespace

Value apply_dot(Evaluator& evaluator, const Value& lhs_value, const Value& rhs_value, const ContractionOptions& options) {
  auto [lhs, rhs] = promoted_pair(evaluator, lhs_value, rhs_value);
  const std::size_t a_rank = lhs->aval.ndim(), b_rank = rhs->aval.ndim();
  if (a_rank == 0 || b_rank == 0) {
    Value product = apply_elementwise(evaluator, primitive("multiply"), {Value(lhs), Value(rhs)});
    if (options.preferred_element_type.is_none()) return product;
    return Value(converted(evaluator, to_array(evaluator, product), dtype_argument(evaluator, options.preferred_element_type)));
  }
  const int b_contracting = b_rank == 1 ? 0 : static_cast<int>(b_rank) - 2;
  return Value(bind_dot_general(evaluator, lhs, rhs, {{static_cast<int>(a_rank) - 1}, {b_contracting}, {}, {}},
                                contraction_params(evaluator, options)));
}

Value apply_matmul(Evaluator& evaluator, const Value& lhs_value, const Value& rhs_value,
                   const ContractionOptions& options) {
  auto [a, b] = promoted_pair(evaluator, lhs_value, rhs_value);
  for (std::size_t i = 0; i < 2; ++i) {
    const ArrayRef& x = i == 0 ? a : b;
    if (x->aval.ndim() < 1)
      raise(exc::ValueError(), "matmul input operand " + std::to_string(i) + " must have ndim at least 1, but it has ndim " +
                                   std::to_string(x->aval.ndim()));
  }
  // jnp.matmul's plan (tensor_contractions.py): per broadcast batch
  // dimension, a batch dimension of dot_general where both have it alike, a
  // free dimension of the one that has it where the other has 1 (squeezed)
  // or lacks it; then the result transposed into NumPy's order.
  const bool a_matrix = a->aval.ndim() > 1, b_matrix = b->aval.ndim() > 1;
  const std::size_t a_batch_rank = a_matrix ? a->aval.ndim() - 2 : 0, b_batch_rank = b_matrix ? b->aval.ndim() - 2 : 0;
  const std::size_t batch_rank = std::max(a_batch_rank, b_batch_rank);
  std::vector<int> a_squeeze, b_squeeze, both_squeeze, a_batch, b_batch, index_batch, index_a, index_b;
  for (std::size_t i = 0; i < batch_rank; ++i) {
    const bool in_a = i >= batch_rank - a_batch_rank, in_b = i >= batch_rank - b_batch_rank;
    const std::size_t ai = i - (batch_rank - a_batch_rank), bi = i - (batch_rank - b_batch_rank);
    const std::int64_t sa = in_a ? a->aval.shape[ai] : 0, sb = in_b ? b->aval.shape[bi] : 0;
    auto spec_of = [](const ArrayRef& x, std::size_t d) {
      return d < x->aval.sharding.dims.size() ? x->aval.sharding.dims[d] : typecheck::SpecEntry{};
    };
    const typecheck::SpecEntry pa = in_a ? spec_of(a, ai) : typecheck::SpecEntry{};
    const typecheck::SpecEntry pb = in_b ? spec_of(b, bi) : typecheck::SpecEntry{};
    const int ii = static_cast<int>(i);
    if (!in_a) {
      index_b.push_back(ii);
    } else if (!in_b) {
      index_a.push_back(ii);
    } else if (sa == 1 && sb == 1 && pa.empty() && pb.empty()) {
      a_squeeze.push_back(static_cast<int>(index_batch.size() + index_a.size() + a_squeeze.size()));
      b_squeeze.push_back(static_cast<int>(index_batch.size() + index_b.size() + b_squeeze.size()));
      both_squeeze.push_back(ii);
    } else if (sa == 1 && pa.empty()) {
      index_b.push_back(ii);
      a_squeeze.push_back(static_cast<int>(index_batch.size() + index_a.size() + a_squeeze.size()));
    } else if (sb == 1 && pb.empty()) {
      index_a.push_back(ii);
      b_squeeze.push_back(static_cast<int>(index_batch.size() + index_b.size() + b_squeeze.size()));
    } else if (sa == sb && pa == pb) {
      a_batch.push_back(static_cast<int>(index_batch.size() + index_a.size()));
      b_batch.push_back(static_cast<int>(index_batch.size() + index_b.size()));
      index_batch.push_back(ii);
    } else {
      raise(exc::ValueError(), "Incompatible types for matmul arguments: " + a->aval.str() + " and " +
                                   b->aval.str());
    }
  }
  if (a_matrix) index_a.push_back(static_cast<int>(batch_rank));
  if (b_matrix) index_b.push_back(static_cast<int>(batch_rank) + (a_matrix ? 1 : 0));
  auto squeezed = [&](const ArrayRef& x, const std::vector<int>& dims) {
    typecheck::Shape shape;
    for (std::size_t d = 0; d < x->aval.ndim(); ++d)
      if (std::find(dims.begin(), dims.end(), static_cast<int>(d)) == dims.end()) shape.push_back(x->aval.shape[d]);
    return reshaped(evaluator, x, shape);
  };
  a = squeezed(a, a_squeeze);
  b = squeezed(b, b_squeeze);
  DotDimensionNumbers numbers{{static_cast<int>(a->aval.ndim()) - 1},
                              {static_cast<int>(b->aval.ndim()) - 1 - (b_matrix ? 1 : 0)}, a_batch, b_batch};
  ArrayRef out = bind_dot_general(evaluator, a, b, numbers, contraction_params(evaluator, options));
  // Result dimension i (batch, a's, b's) goes to output position order[i].
  std::vector<int> order = index_batch;
  order.insert(order.end(), index_a.begin(), index_a.end());
  order.insert(order.end(), index_b.begin(), index_b.end());
  std::vector<int> permutation(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) permutation[i] = static_cast<int>(i);
  std::sort(permutation.begin(), permutation.end(), [&](int x, int y) { return order[x] < order[y]; });
  out = transposed(evaluator, out, permutation);
  if (!both_squeeze.empty()) {
    typecheck::Shape shape = out->aval.shape;
    for (int d : both_squeeze) shape.insert(shape.begin() + d, 1);
    out = reshaped(evaluator, out, shape);
  }
  return Value(out);
}

void install_contractions(Evaluator& evaluator) {
  for (const char* module : {"jax.numpy", "numpy"}) install_numpy_contractions(evaluator.module(module));
  install_lax_contractions(evaluator.module("jax.lax"));
}

namespace {

void install_numpy_contractions(const std::shared_ptr<ModuleObject>& jnp) {
  const std::string keywords = "*, precision=None, preferred_element_type=None, out_sharding=None)";
  jnp->add_function("dot(a, b, " + keywords,
                    [](Evaluator& ev, Arguments& a) { return apply_dot(ev, a[0], a[1], options_from(a, 2)); });
  jnp->add_function("matmul(a, b, " + keywords,
                    [](Evaluator& ev, Arguments& a) { return apply_matmul(ev, a[0], a[1], options_from(a, 2)); });
  jnp->add_function("einsum(subscripts, *operands, out=None, optimize='auto', " + keywords.substr(3),
                    [](Evaluator& ev, Arguments& a) {
                      const std::string* subscripts = string_of(a[0]);
                      if (!subscripts) raise(exc::TypeError(), "einsum subscripts must be a str");
                      if (!a[2].is_none()) raise(exc::NotImplementedError(), "The 'out' argument to jnp.einsum is not supported.");
                      return einsum(ev, *subscripts, a[1].as<TupleObject>()->items, options_from(a, 4));
                    });
  jnp->add_function("tensordot(a, b, axes=2, " + keywords, [](Evaluator& ev, Arguments& a) {
    auto [lhs, rhs] = promoted_pair(ev, a[0], a[1]);
    const std::size_t a_rank = lhs->aval.ndim(), b_rank = rhs->aval.ndim();
    DotDimensionNumbers numbers;
    if (a[2].is_integral() && !a[2].is_bool()) {
      const std::int64_t count = a[2].as_int();
      if (count < 0 || count > static_cast<std::int64_t>(std::min(a_rank, b_rank)))
        raise(exc::TypeError(), "Number of tensordot axes (axes " + std::to_string(count) + ") exceeds input ranks (" +
                                    typecheck::python_shape_repr(lhs->aval.shape) + " and " +
                                    typecheck::python_shape_repr(rhs->aval.shape) + ")");
      for (std::int64_t i = 0; i < count; ++i) {
        numbers.lhs_contracting.push_back(static_cast<int>(static_cast<std::int64_t>(a_rank) - count + i));
        numbers.rhs_contracting.push_back(static_cast<int>(i));
      }
    } else {
      std::vector<Value> pair = a[2].as<TupleObject>() || string_of(a[2]) == nullptr ? ev.to_vector(a[2]) : std::vector<Value>{};
      if (pair.size() != 2)
        raise(exc::TypeError(), "tensordot axes argument must be an int, a pair of ints, or a pair of lists/tuples of ints.");
      if (pair[0].is_integral() && pair[1].is_integral()) {
        numbers.lhs_contracting.push_back(static_cast<int>(canonical_axis(pair[0].as_int(), a_rank)));
        numbers.rhs_contracting.push_back(static_cast<int>(canonical_axis(pair[1].as_int(), b_rank)));
      } else {
        std::vector<int> lhs_axes = int_list(ev, pair[0]), rhs_axes = int_list(ev, pair[1]);
        if (lhs_axes.size() != rhs_axes.size())
          raise(exc::TypeError(), "tensordot requires axes lists to have equal length, got " + ev.repr(pair[0]) +
                                      " and " + ev.repr(pair[1]) + ".");
        for (int axis : lhs_axes) numbers.lhs_contracting.push_back(static_cast<int>(canonical_axis(axis, a_rank)));
        for (int axis : rhs_axes) numbers.rhs_contracting.push_back(static_cast<int>(canonical_axis(axis, b_rank)));
      }
    }
    return Value(bind_dot_general(ev, lhs, rhs, numbers, contraction_params(ev, options_from(a, 3))));
  });

}

// (((lhs_contracting), (rhs_contracting)), ((lhs_batch), (rhs_batch)))
DotDimensionNumbers dimension_numbers(Evaluator& ev, const Value& value) {
  const char* form = "dot_general dimension_numbers must be ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))";
  auto pairs = ev.to_vector(value);
  if (pairs.size() != 2) raise(exc::TypeError(), form);
  auto contracting = ev.to_vector(pairs[0]), batch = ev.to_vector(pairs[1]);
  if (contracting.size() != 2 || batch.size() != 2) raise(exc::TypeError(), form);
  return {int_list(ev, contracting[0]), int_list(ev, contracting[1]), int_list(ev, batch[0]), int_list(ev, batch[1])};
}

void install_lax_contractions(const std::shared_ptr<ModuleObject>& lax) {
  const std::string keywords = "*, precision=None, preferred_element_type=None, out_sharding=None)";
  auto precision = std::make_shared<ModuleObject>("Precision");
  for (const char* name : {"DEFAULT", "HIGH", "HIGHEST"}) precision->add(name, make_str(name));
  lax->add("Precision", Value(precision));
  lax->add_function("dot_general(lhs, rhs, dimension_numbers, " + keywords, [](Evaluator& ev, Arguments& a) {
    auto [lhs, rhs] = promoted_pair(ev, a[0], a[1]);
    return Value(bind_dot_general(ev, lhs, rhs, dimension_numbers(ev, a[2]), contraction_params(ev, options_from(a, 3))));
  });
  // JAX 0.11's lax.dot: dot_general, its dimension numbers implied for
  // un-batched matrix and vector products.
  lax->add_function("dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None, out_sharding=None)",
                    [](Evaluator& ev, Arguments& a) {
                      auto [lhs, rhs] = promoted_pair(ev, a[0], a[1]);
                      const auto& l = lhs->aval.shape;
                      const auto& r = rhs->aval.shape;
                      DotDimensionNumbers numbers;
                      if (!a[2].is_none()) {
                        numbers = dimension_numbers(ev, a[2]);
                      } else if (!l.empty() && l.size() <= 2 && !r.empty() && r.size() <= 2 && l.back() == r.front()) {
                        numbers.lhs_contracting = {static_cast<int>(l.size()) - 1};
                        numbers.rhs_contracting = {0};
                      } else {
                        raise(exc::ValueError(), "jax.lax.dot: dimension_numbers must be specified when not performing simple "
                                                 "un-batched matrix-matrix, matrix-vector, or vector-vector products; got lhs_shape=" +
                                                     typecheck::python_shape_repr(l) + " rhs_shape=" + typecheck::python_shape_repr(r));
                      }
                      return Value(bind_dot_general(ev, lhs, rhs, numbers, contraction_params(ev, options_from(a, 3))));
                    });
  lax->add_function("ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None, group_offset=None)",
                    [](Evaluator& ev, Arguments& a) {
                      if (!a[5].is_none()) raise(exc::NotImplementedError(), "ragged_dot's group_offset is not supported");
                      return ragged_dot(ev, a[0], a[1], a[2], {Value(), a[3], a[4]});
                    });
}

}  // namespace

}  // namespace interp
