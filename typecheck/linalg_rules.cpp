// Rules of the linear-algebra primitives (linalg_rules.hpp).
#include "typecheck/linalg_rules.hpp"

#include <algorithm>

#include "typecheck/python_repr.hpp"
#include "typecheck/rule_support.hpp"

namespace typecheck {

namespace {

// JAX's linalg_sharding_rule: on an Explicit mesh the last `rank` dims of
// every input are unsharded and the batch dims are sharded alike.
std::optional<Error> check_linalg_sharding(const std::string& name, std::span<const ArrayType* const> inputs,
                                           std::size_t rank) {
  std::optional<std::vector<SpecEntry>> batch;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const ArrayType& input = *inputs[i];
    if (!has_explicit_axis(input.sharding.mesh)) continue;
    const auto& dims = input.sharding.dims;
    const auto split = dims.end() - static_cast<std::ptrdiff_t>(rank);
    if (std::any_of(split, dims.end(), [](const SpecEntry& e) { return !e.empty(); }))
      return Error{ErrorClass::ShardingTypeError, "Input " + std::to_string(i) + " to " + name +
                                                      " must be unsharded on non-batch dimensions, but got " +
                                                      input.sharding.spec().repr() + "."};
    std::vector<SpecEntry> own(dims.begin(), split);
    if (batch && *batch != own)
      return Error{ErrorClass::ShardingTypeError, "All inputs to " + name + " must have the same batch sharding, but got " +
                                                      PartitionSpec::from_entries(*batch).repr() + " and " +
                                                      PartitionSpec::from_entries(own).repr() + "."};
    batch = std::move(own);
  }
  return std::nullopt;
}

// JAX's linalg_shape_rule for one operand of matrix rank 2, its dtype rule
// (a float operand), then the sharding rule; the result (of `tail` matrix
// dims) keeps a's batch dims, dtype and batch sharding.
Checked<ArrayType> factorization_rule(const std::string& name, const ArrayType& a, const Shape& tail) {
  if (a.ndim() < 2)
    return Error{ErrorClass::TypeError, "Input 0 to " + name + " must have rank at least 2, but got shape=" +
                                            python_shape_repr(a.shape)};
  if (!is_floating(a.dtype))
    return Error{ErrorClass::TypeError, name + " requires a float operand, got " + std::string(long_name(a.dtype))};
  const ArrayType* inputs[] = {&a};
  if (auto error = check_linalg_sharding(name, inputs, 2)) return *error;
  ArrayType out = a;
  out.weak_type = false;
  out.shape.resize(a.ndim() - 2);
  out.shape.insert(out.shape.end(), tail.begin(), tail.end());
  out.sharding.dims.resize(a.ndim() - 2);
  out.sharding.dims.resize(out.shape.size());
  return out;
}

}  // namespace

Checked<ArrayType> solve_rule(const ArrayType& a, const ArrayType& b) {
  const std::size_t rank = a.ndim();
  if (rank < 2 || a.shape[rank - 1] != a.shape[rank - 2])
    return Error{ErrorClass::ValueError, "The left-hand side of solve must be a batch of square matrices, got shape " +
                                             python_shape_repr(a.shape)};
  if (b.ndim() != rank || b.shape[rank - 2] != a.shape[rank - 1] ||
      !std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin()))
    return Error{ErrorClass::ValueError, "Incompatible shapes for solve: " + python_shape_repr(a.shape) + " and " +
                                             python_shape_repr(b.shape)};
  if (!is_floating(a.dtype) || a.dtype != b.dtype)
    return Error{ErrorClass::TypeError, std::string("solve requires operands of one float dtype, got ") +
                                            std::string(long_name(a.dtype)) + " and " + std::string(long_name(b.dtype))};
  const ArrayType* inputs[] = {&a, &b};
  if (auto error = check_linalg_sharding("linalg_solve", inputs, 2)) return *error;
  ArrayType out = b;
  out.weak_type = false;
  if (has_explicit_axis(a.sharding.mesh)) out.sharding = a.sharding;
  return out;
}

Checked<ArrayType> cholesky_rule(const ArrayType& a) {
  const std::size_t rank = a.ndim();
  if (rank < 2 || a.shape[rank - 1] != a.shape[rank - 2])
    return Error{ErrorClass::ValueError, "The input to cholesky must be a batch of square matrices, got shape " +
                                             python_shape_repr(a.shape)};
  if (!is_floating(a.dtype))
    return Error{ErrorClass::TypeError, "cholesky requires a float operand, got " + std::string(long_name(a.dtype))};
  const ArrayType* inputs[] = {&a};
  if (auto error = check_linalg_sharding("cholesky", inputs, 2)) return *error;
  ArrayType out = a;
  out.weak_type = false;
  return out;
}

Checked<ArrayType> slogdet_rule(const ArrayType& a) {
  Checked<ArrayType> square = cholesky_rule(a);
  if (!square) {
    Error error = square.error();
    const std::string from = "cholesky", to = "slogdet";
    for (auto at = error.message.find(from); at != std::string::npos; at = error.message.find(from, at + to.size()))
      error.message.replace(at, from.size(), to);
    return error;
  }
  ArrayType out = square.value();
  out.shape.resize(a.ndim() - 2);
  out.sharding.dims.resize(a.ndim() - 2);
  return out;
}

Checked<ArrayType> qr_rule(const ArrayType& a, bool full_matrices, int output) {
  const std::int64_t m = a.ndim() < 2 ? 0 : a.shape[a.ndim() - 2], n = a.ndim() < 2 ? 0 : a.shape.back();
  const std::int64_t k = full_matrices ? m : std::min(m, n);
  return factorization_rule("qr", a, output == 0 ? Shape{m, k} : Shape{k, n});
}

Checked<ArrayType> geqrf_rule(const ArrayType& a, int output) {
  const std::int64_t m = a.ndim() < 2 ? 0 : a.shape[a.ndim() - 2], n = a.ndim() < 2 ? 0 : a.shape.back();
  return factorization_rule("geqrf", a, output == 0 ? Shape{m, n} : Shape{std::min(m, n)});
}

Checked<ArrayType> svd_rule(const ArrayType& a, bool full_matrices, int output) {
  const std::int64_t m = a.ndim() < 2 ? 0 : a.shape[a.ndim() - 2], n = a.ndim() < 2 ? 0 : a.shape.back();
  const std::int64_t k = std::min(m, n);
  return factorization_rule("svd", a, output == 0   ? Shape{m, full_matrices ? m : k}
                                      : output == 1 ? Shape{k}
                                                    : Shape{full_matrices ? n : k, n});
}

Checked<ArrayType> eigh_rule(const ArrayType& a, int output) {
  const std::size_t rank = a.ndim();
  if (rank >= 2 && a.shape[rank - 1] != a.shape[rank - 2])
    return Error{ErrorClass::ValueError, "Argument to symmetric eigendecomposition must have shape [..., n, n], got shape " +
                                             python_shape_repr(Shape(a.shape.end() - 2, a.shape.end()))};
  const std::int64_t n = rank < 2 ? 0 : a.shape.back();
  return factorization_rule("eigh", a, output == 0 ? Shape{n, n} : Shape{n});
}

}  // namespace typecheck
