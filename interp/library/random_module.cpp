// jax.random: typed and raw keys, the three random primitives and the
// module's members (random_module.hpp).
#include "interp/library/random_module.hpp"
#include "interp/library/sharding_module.hpp"

#include <cmath>
#include <limits>

#include "devices/host_values.hpp"
#include "devices/indexing.hpp"
#include "devices/random_samplers.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/trace.hpp"

namespace interp {

using typecheck::DType;

namespace {

void status_or_raise(const devices::Status& status) {
  if (!status) raise_devices_error(status.error());
}

const std::vector<std::int64_t>& int_list(const Params& params, std::string_view name) {
  static const std::vector<std::int64_t> none;
  const auto* list = params.get<std::vector<std::int64_t>>(name);
  return list ? *list : none;
}

devices::ThreefryMode mode_of(const Params& params) {
  const auto* mode = params.get<std::string>("mode");
  return mode && *mode == "stable" ? devices::ThreefryMode::stable : devices::ThreefryMode::partitionable;
}

std::string current_mode_name(Evaluator& evaluator) {
  return runtime_of(evaluator).threefry_mode == devices::ThreefryMode::stable ? "stable" : "partitionable";
}

// A key operand of a sampler or of split/fold_in: one key, u32[2].
void check_single_key(std::string_view function, const ArrayObject& key) {
  if (key.aval.dtype != DType::uint32 || key.aval.shape != typecheck::Shape{2})
    raise(exc::TypeError(), std::string(function) + " accepts a single key, but was given a key array of type " +
                                key.aval.str() + "; use jax.vmap for batching.");
}

devices::ThreefryKey key_words(Evaluator& evaluator, const ArrayObject& key) {
  auto words = value_or_raise(devices::integer_values(global_value(evaluator, key)));
  return {static_cast<std::uint32_t>(words.at(0)), static_cast<std::uint32_t>(words.at(1))};
}

double scalar_value(Evaluator& evaluator, const ArrayRef& operand) { return element_values(evaluator, *operand).at(0); }

// A replicated result of `type` on the key's mesh: abstract, or from the
// host words `global`.
ArrayRef replicated_result(Evaluator& evaluator, typecheck::ArrayType type, const ArrayObject& key,
                           const devices::LocalArray* global) {
  type.sharding = typecheck::Sharding::replicated(key.aval.sharding.mesh, type.ndim());
  Layout layout{key.layout.mesh, std::vector<typecheck::SpecEntry>(type.ndim())};
  if (!global) return make_abstract_array(type, layout, key.committed);
  return array_from_global(evaluator, *global, type, layout, key.committed);
}

typecheck::ArrayType key_data_type(typecheck::Shape shape) {
  typecheck::ArrayType type;
  type.dtype = DType::uint32;
  type.shape = std::move(shape);
  type.sharding = typecheck::Sharding::replicated(nullptr, type.shape.size());
  return type;
}

devices::LocalArray words_array(Evaluator& evaluator, const std::vector<devices::ThreefryKey>& keys,
                                const typecheck::Shape& shape) {
  std::vector<std::int64_t> words;
  for (const auto& key : keys) words.insert(words.end(), {key[0], key[1]});
  return value_or_raise(devices::from_values(runtime_of(evaluator).ledger(), DType::uint32, shape,
                                             std::span<const std::int64_t>(words)));
}

// The sampler's output dtypes, with JAX's error for any other.
void check_sampler_dtype(const std::string& sampler, DType dtype) {
  bool floating = dtype == DType::float32 || dtype == DType::bfloat16 || dtype == DType::float16;
  bool integer = dtype == DType::int8 || dtype == DType::int32 || dtype == DType::uint32;
  if ((sampler == "uniform" || sampler == "normal") && !floating)
    raise(exc::ValueError(), "dtype argument to `" + sampler + "` must be a float dtype, got " +
                                 std::string(typecheck::long_name(dtype)));
  if (sampler == "randint" && !integer)
    raise(exc::ValueError(), "dtype argument to `randint` must be an int8, int32 or uint32 dtype, got " +
                                 std::string(typecheck::long_name(dtype)));
  if (sampler == "bits" && dtype != DType::uint32)
    raise(exc::ValueError(), "dtype argument to `bits` must be uint32, got " + std::string(typecheck::long_name(dtype)));
}

// The whole sample on the host.
devices::LocalArray draw_sample(Evaluator& evaluator, const std::string& sampler, DType dtype,
                                const typecheck::Shape& shape, const std::vector<ArrayRef>& operands,
                                devices::ThreefryMode mode) {
  devices::ThreefryKey key = key_words(evaluator, *operands[0]);
  std::vector<std::int64_t> zeros(shape.size(), 0);
  devices::RandomDraw draw{key, mode, shape, devices::whole_array_block(shape, zeros)};
  auto out = value_or_raise(devices::make_local_array(runtime_of(evaluator).ledger(), dtype, shape));
  if (sampler == "uniform") {
    float minval = static_cast<float>(scalar_value(evaluator, operands[1]));
    float maxval = static_cast<float>(scalar_value(evaluator, operands[2]));
    status_or_raise(devices::random_uniform(draw, minval, maxval, out));
  } else if (sampler == "normal") {
    status_or_raise(devices::random_normal(draw, out));
  } else if (sampler == "bernoulli") {
    DType p_dtype = operands[1]->aval.dtype;
    if (p_dtype != DType::bfloat16 && p_dtype != DType::float16) p_dtype = DType::float32;
    status_or_raise(devices::random_bernoulli(draw, p_dtype, static_cast<float>(scalar_value(evaluator, operands[1])), out));
  } else if (sampler == "randint") {
    auto minval = static_cast<std::int64_t>(scalar_value(evaluator, operands[1]));
    auto maxval = static_cast<std::int64_t>(scalar_value(evaluator, operands[2]));
    status_or_raise(devices::random_randint(draw, minval, maxval, out));
  } else {
    status_or_raise(devices::random_bits(draw, out));
  }
  return out;
}

}  // namespace

// ------------------------------------------------------------ typed keys

const TypeRef& KeyArrayObject::type() const {
  static const TypeRef type = make_type("PRNGKeyArray");
  return type;
}

std::string KeyArrayObject::key_type() const {
  std::string out = "key<fry>[";
  for (std::size_t d = 0; d + 1 < aval.shape.size(); ++d) out += (d ? "," : "") + std::to_string(aval.shape[d]);
  return out + "]";
}

std::string KeyArrayObject::repr(Evaluator& evaluator) const {
  std::string shape = "(";
  for (std::size_t d = 0; d + 1 < aval.shape.size(); ++d)
    shape += (d ? ", " : "") + std::to_string(aval.shape[d]) + (aval.shape.size() == 2 ? "," : "");
  shape += ")";
  if (abstract()) return "Array(" + shape + ", dtype=key<fry>)";
  return "Array(" + shape + ", dtype=key<fry>) overlaying:\n" + ArrayObject::str(evaluator);
}

namespace {

// `data` as a `Target` (a typed key array or a plain array of the data),
// sharing its shards.
template <class Target>
std::shared_ptr<Target> sharing(Evaluator& evaluator, const ArrayObject& data) {
  auto key = std::make_shared<Target>();
  key->aval = data.aval;
  key->layout = data.layout;
  for (const auto& shard : data.shards)
    key->shards.emplace_back(shard.shared_buffer(), shard.device_id());
  key->committed = data.committed;
  key->poisoned = data.poisoned;
  if (data.memory) data.memory->keep_type();
  key->memory = data.memory;  // the same shards
  if (!key->memory) charge_if_held(evaluator, *key);
  return key;
}

// `data` (u32[..., 2]) as a typed key array.
Value typed_keys(Evaluator& evaluator, const ArrayRef& data) { return Value(sharing<KeyArrayObject>(evaluator, *data)); }

}  // namespace

std::optional<Value> KeyArrayObject::get_item(Evaluator& evaluator, const Value& index) {
  if (aval.shape.size() < 2) raise(exc::TypeError(), "Cannot index a scalar key array");
  if (!index.is_integral()) raise(exc::TypeError(), "key arrays are indexed by an int");
  auto row = ArrayObject::get_item(evaluator, index);
  if (!row) return row;
  return typed_keys(evaluator, std::static_pointer_cast<ArrayObject>(row->object()));
}

std::optional<std::int64_t> KeyArrayObject::length(Evaluator&) const {
  if (aval.shape.size() < 2) raise(exc::TypeError(), "len() of unsized key array");
  return aval.shape[0];
}

std::optional<std::string> key_type_text(const Value& value) {
  if (auto* key = value.as<KeyArrayObject>()) return key->key_type();
  return std::nullopt;
}

// ------------------------------------------------------------ primitives

// params: num, mode.
ArrayRef random_split_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                     const Params& params, bool execute) {
  check_single_key("jax.random.split", *operands[0]);
  std::int64_t num = params.get<std::int64_t>("num") ? *params.get<std::int64_t>("num") : 2;
  if (num < 0) raise(exc::ValueError(), "split: num must be non-negative, got " + std::to_string(num));
  typecheck::ArrayType type = key_data_type({num, 2});
  if (!execute || operands[0]->abstract()) return replicated_result(evaluator, type, *operands[0], nullptr);
  auto keys = value_or_raise(devices::threefry_split(key_words(evaluator, *operands[0]), num, mode_of(params)));
  devices::LocalArray words = words_array(evaluator, keys, type.shape);
  return replicated_result(evaluator, type, *operands[0], &words);
}

// params: mode (fold_in is the same in both).
ArrayRef random_fold_in_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                       const Params&, bool execute) {
  check_single_key("jax.random.fold_in", *operands[0]);
  if (!operands[1]->aval.shape.empty() || !typecheck::is_integer(operands[1]->aval.dtype))
    raise(exc::TypeError(), "fold_in data must be an integer scalar, got " + operands[1]->aval.str());
  typecheck::ArrayType type = key_data_type({2});
  if (!execute || operands[0]->abstract() || operands[1]->abstract())
    return replicated_result(evaluator, type, *operands[0], nullptr);
  auto data = static_cast<std::uint32_t>(static_cast<std::int64_t>(scalar_value(evaluator, operands[1])));
  devices::LocalArray words =
      words_array(evaluator, {devices::threefry_fold_in(key_words(evaluator, *operands[0]), data)}, type.shape);
  return replicated_result(evaluator, type, *operands[0], &words);
}

// params: sampler, shape, dtype, mode.
ArrayRef random_sample_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                      const Params& params, bool execute) {
  const std::string& sampler = *params.get<std::string>("sampler");
  check_single_key("jax.random." + sampler, *operands[0]);
  typecheck::ArrayType type;
  type.dtype = *typecheck::parse_dtype(*params.get<std::string>("dtype"));
  check_sampler_dtype(sampler, type.dtype);
  const auto& sizes = int_list(params, "shape");
  type.shape.assign(sizes.begin(), sizes.end());
  bool abstract = !execute;
  for (const auto& operand : operands) abstract = abstract || operand->abstract();
  if (abstract) return replicated_result(evaluator, type, *operands[0], nullptr);
  devices::LocalArray sample = draw_sample(evaluator, sampler, type.dtype, type.shape, operands, mode_of(params));
  return replicated_result(evaluator, type, *operands[0], &sample);
}

Cost random_cost(const Primitive&, const std::vector<typecheck::ArrayType>& operands,
                 const typecheck::ArrayType& result, const Params&) {
  double count = 1;
  for (auto s : result.shape) count *= static_cast<double>(s);
  // One threefry2x32 block (20 rounds of add, rotate, xor) per two words.
  return {count * 30.0, bytes_accessed(operands, result)};
}

// ------------------------------------------------------------ members

namespace {

ArrayRef array_ref(const Value& value) { return std::static_pointer_cast<ArrayObject>(value.object()); }

// The key argument's data and whether it was a typed key.
std::pair<ArrayRef, bool> key_argument(Evaluator& evaluator, const Value& value) {
  if (value.as<KeyArrayObject>()) return {array_ref(value), true};
  if (value.as<ArrayObject>()) return {array_ref(value), false};
  if (is_array_like(value)) return {to_array(evaluator, value, DType::uint32), false};
  raise(exc::TypeError(), "JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got " +
                              evaluator.repr(value));
}

// Keys made outside jit keep their typed-ness; inside jit the trace's
// arrays stand for the data (a wrapper would not be a program variable).
Value keys_result(Evaluator& evaluator, const Value& data, bool typed) {
  if (!typed || tracing_jit(evaluator)) return data;
  return typed_keys(evaluator, array_ref(data));
}

typecheck::Shape shape_argument(Evaluator& evaluator, const Value& value) {
  typecheck::Shape out;
  if (value.is_none()) return out;
  if (value.is_integral()) return {value.as_int()};
  for (const auto& v : evaluator.to_vector(value)) out.push_back(evaluator.index_of(v));
  return out;
}

DType dtype_or(Evaluator& evaluator, const Value& value, DType otherwise) {
  return value.is_none() ? otherwise : dtype_argument(evaluator, value);
}

// The draw; with an out_sharding, made where it goes (JAX's samplers take
// out_sharding too): not first whole on the key's devices.
Value sample(Evaluator& evaluator, const std::string& sampler, const Value& key, const typecheck::Shape& shape,
             DType dtype, std::vector<ArrayRef> scalars, const Value& out_sharding = Value()) {
  std::vector<ArrayRef> operands{key_argument(evaluator, key).first};
  for (auto& s : scalars) operands.push_back(std::move(s));
  Params params;
  params.set("sampler", sampler);
  params.set("shape", std::vector<std::int64_t>(shape.begin(), shape.end()));
  params.set("dtype", std::string(typecheck::long_name(dtype)));
  params.set("mode", current_mode_name(evaluator));
  if (out_sharding.is_none()) return bind(evaluator, primitive("random_sample"), std::move(operands), std::move(params));
  Value drawn;
  {
    UnchargedScope staged(evaluator);
    drawn = bind(evaluator, primitive("random_sample"), std::move(operands), std::move(params));
  }
  return place_created(evaluator, "jax.random." + sampler, array_ref(drawn), out_sharding);
}

ArrayRef scalar_operand(Evaluator& evaluator, const Value& value, DType dtype) {
  if (value.as<ArrayObject>()) return array_ref(value);
  return to_array(evaluator, value, dtype);
}

// A concrete key's words: permutation and choice draw on the host (their
// shuffles sort the whole array), so they need the key's value; nullopt in
// check mode, where only the result's type is wanted.
std::optional<devices::ThreefryKey> concrete_key(Evaluator& evaluator, const Value& value, std::string_view function) {
  ArrayRef key = key_argument(evaluator, value).first;
  check_single_key(function, *key);
  if (!key->abstract()) return key_words(evaluator, *key);
  if (evaluator.mode == Evaluator::Mode::check && !tracing_jit(evaluator)) return std::nullopt;
  raise(exc::NotImplementedError(), std::string(function) + " needs a concrete key: it is not supported under jax.jit");
}

Value abstract_result(Evaluator& evaluator, DType dtype, const typecheck::Shape& shape) {
  typecheck::ArrayType type;
  type.dtype = dtype;
  type.shape = shape;
  type.sharding = typecheck::Sharding::replicated(nullptr, shape.size());
  return Value(make_abstract_array(type, default_layout(evaluator, shape.size()), false));
}

// An int32 array of `indices` in `shape`, from the host.
Value index_array(Evaluator& evaluator, const std::vector<std::int32_t>& indices, const typecheck::Shape& shape) {
  typecheck::ArrayType type;
  type.dtype = DType::int32;
  type.shape = shape;
  type.sharding = typecheck::Sharding::replicated(nullptr, shape.size());
  return Value(host_array(evaluator, type, [&]() {
    std::vector<std::int64_t> values(indices.begin(), indices.end());
    return value_or_raise(devices::from_values(runtime_of(evaluator).ledger(), DType::int32, shape,
                                               std::span<const std::int64_t>(values)));
  }));
}

// The slices of `source` along `axis` at `indices`, concatenated along it
// and reshaped to `shape` (jnp.take on the host).
Value take_along(Evaluator& evaluator, const ArrayRef& source, const std::vector<std::int32_t>& indices, int axis,
                 const typecheck::Shape& shape) {
  if (source->abstract()) raise(exc::NotImplementedError(), "permuting an abstract array is not supported");
  devices::LocalArray global = global_value(evaluator, *source);
  std::vector<devices::LocalArray> pieces;
  std::vector<std::int64_t> start(source->aval.ndim(), 0), limit(source->aval.shape.begin(), source->aval.shape.end());
  for (auto index : indices) {
    start[static_cast<std::size_t>(axis)] = index;
    limit[static_cast<std::size_t>(axis)] = index + 1;
    pieces.push_back(value_or_raise(devices::slice(global, start, limit)));
  }
  devices::LocalArray taken = value_or_raise(devices::concatenate(pieces, axis));
  taken = value_or_raise(devices::reshape(taken, shape));
  typecheck::ArrayType type = source->aval;
  type.shape = shape;
  type.sharding = typecheck::Sharding::replicated(nullptr, shape.size());
  return Value(host_array(evaluator, type, [&]() { return taken; }));
}

// Every element of `source` moved along `axis` to where `indices` (one per
// element, as random_shuffle_indices gives them) says: each lane along the
// axis permuted on its own (permutation with independent=True).
Value shuffle_lanes(Evaluator& evaluator, const ArrayRef& source, const std::vector<std::int32_t>& indices, std::size_t axis) {
  if (source->abstract()) raise(exc::NotImplementedError(), "permuting an abstract array is not supported");
  std::vector<std::int64_t> lanes(indices.begin(), indices.end());
  auto out = value_or_raise(devices::take_along_axis(global_value(evaluator, *source), axis, lanes));
  typecheck::ArrayType type = source->aval;
  type.sharding = typecheck::Sharding::replicated(nullptr, type.ndim());
  return Value(host_array(evaluator, type, [&]() { return out; }));
}

// "(2, 3)", "(3,)": a shape as Python prints the tuple.
std::string shape_tuple(const typecheck::Shape& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// JAX's _check_shape: the parameter's shape must broadcast to `shape`
// (lax.broadcast_shapes, NumPy's rules) without changing it.
void check_parameter_shape(std::string_view name, const typecheck::Shape& shape, const typecheck::Shape& parameter) {
  std::size_t rank = std::max(shape.size(), parameter.size());
  typecheck::Shape broadcast(rank, 1);
  for (std::size_t d = 0; d < rank; ++d) {
    std::int64_t a = d + shape.size() >= rank ? shape[d + shape.size() - rank] : 1;
    std::int64_t b = d + parameter.size() >= rank ? parameter[d + parameter.size() - rank] : 1;
    if (a != b && a != 1 && b != 1)
      raise(exc::ValueError(), "Incompatible shapes for broadcasting: shapes=[" + shape_tuple(shape) + ", " +
                                   shape_tuple(parameter) + "]");
    broadcast[d] = a == 1 ? b : a;
  }
  if (broadcast != shape)
    raise(exc::ValueError(), std::string(name) +
                                 " parameter shapes must be broadcast-compatible with shape argument, and the result of "
                                 "broadcasting the shapes must equal the shape argument, but got result " +
                                 shape_tuple(broadcast) + " for shape argument " + shape_tuple(shape) + ".");
}

std::int64_t axis_of(Evaluator& evaluator, const Value& axis, std::size_t ndim) {
  std::int64_t a = evaluator.index_of(axis);
  auto n = static_cast<std::int64_t>(ndim);
  if (a < -n || a >= n)
    raise(exc::ValueError(), "axis " + std::to_string(a) + " is out of bounds for array of dimension " + std::to_string(n));
  return a < 0 ? a + n : a;
}

}  // namespace

void install_random_module(Evaluator& evaluator) {
  auto random = evaluator.module("jax.random");
  auto seeded = [](Evaluator& ev, const Value& seed) {
    devices::ThreefryKey key = devices::threefry_seed(ev.index_of(seed));
    typecheck::ArrayType type = key_data_type({2});
    return host_array(ev, type, [&]() { return words_array(ev, {key}, type.shape); });
  };
  random->add_function("key(seed, *, impl=None)",
                       [seeded](Evaluator& ev, Arguments& a) { return typed_keys(ev, seeded(ev, a[0])); });
  random->add_function("PRNGKey(seed, *, impl=None)",
                       [seeded](Evaluator& ev, Arguments& a) { return Value(seeded(ev, a[0])); });
  random->add_function("key_data(keys)", [](Evaluator& ev, Arguments& a) {
    auto [data, typed] = key_argument(ev, a[0]);
    return typed ? Value(sharing<ArrayObject>(ev, *data)) : Value(data);
  });
  random->add_function("wrap_key_data(key_data, *, impl=None)", [](Evaluator& ev, Arguments& a) {
    ArrayRef data = key_argument(ev, a[0]).first;
    if (data->aval.dtype != DType::uint32 || data->aval.shape.empty() || data->aval.shape.back() != 2)
      raise(exc::TypeError(), "wrap_key_data expects uint32 data with a trailing dimension of 2, got " + data->aval.str());
    return typed_keys(ev, data);
  });
  random->add_function("split(key, num=2)", [](Evaluator& ev, Arguments& a) {
    auto [data, typed] = key_argument(ev, a[0]);
    Params params;
    params.set("num", ev.index_of(a[1]));
    params.set("mode", current_mode_name(ev));
    return keys_result(ev, bind(ev, primitive("random_split"), {data}, std::move(params)), typed);
  });
  random->add_function("fold_in(key, data)", [](Evaluator& ev, Arguments& a) {
    auto [data, typed] = key_argument(ev, a[0]);
    ArrayRef folded = scalar_operand(ev, a[1], DType::int32);
    Params params;
    params.set("mode", current_mode_name(ev));
    return keys_result(ev, bind(ev, primitive("random_fold_in"), {data, folded}, std::move(params)), typed);
  });
  random->add_function("bits(key, shape=(), dtype=None, *, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    return sample(ev, "bits", a[0], shape_argument(ev, a[1]), dtype_or(ev, a[2], DType::uint32), {}, a[3]);
  });
  random->add_function("uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0, *, out_sharding=None)",
                       [](Evaluator& ev, Arguments& a) {
    return sample(ev, "uniform", a[0], shape_argument(ev, a[1]), dtype_or(ev, a[2], DType::float32),
                  {scalar_operand(ev, a[3], DType::float32), scalar_operand(ev, a[4], DType::float32)}, a[5]);
  });
  random->add_function("normal(key, shape=(), dtype=None, *, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    return sample(ev, "normal", a[0], shape_argument(ev, a[1]), dtype_or(ev, a[2], DType::float32), {}, a[3]);
  });
  // JAX's: uniform between erf(lower/sqrt2) and erf(upper/sqrt2) mapped back
  // by erf_inv, clamped inside (lower, upper).
  random->add_function("truncated_normal(key, lower, upper, shape=None, dtype=None, *, out_sharding=None)",
                       [](Evaluator& ev, Arguments& a) {
    DType dtype = dtype_or(ev, a[4], DType::float32);
    const double lower = to_float(ev, a[1]), upper = to_float(ev, a[2]);
    auto erf_of = [&](double bound) {
      return to_array(ev, apply_elementwise(ev, primitive("erf"), {Value(to_array(ev, Value::floating(bound / std::sqrt(2.0)), dtype))}));
    };
    Value u = sample(ev, "uniform", a[0], a[3].is_none() ? typecheck::Shape{} : shape_argument(ev, a[3]), dtype,
                     {erf_of(lower), erf_of(upper)}, a[5]);
    Value out = apply_elementwise(ev, primitive("multiply"),
                                  {apply_elementwise(ev, primitive("erf_inv"), {u}), Value::floating(std::sqrt(2.0))});
    auto bound = [&](double value, float toward) {
      return Value(to_array(ev, Value::floating(std::nextafter(static_cast<float>(value), toward)), dtype));
    };
    out = apply_elementwise(ev, primitive("maximum"), {out, bound(lower, std::numeric_limits<float>::infinity())});
    return apply_elementwise(ev, primitive("minimum"), {out, bound(upper, -std::numeric_limits<float>::infinity())});
  });
  random->add_function("bernoulli(key, p=0.5, shape=None, *, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    ArrayRef p = a[1].is_integral() ? to_array(ev, a[1]) : scalar_operand(ev, a[1], DType::float32);
    if (!typecheck::is_floating(p->aval.dtype))
      raise(exc::TypeError(), "bernoulli probability `p` must have a floating dtype, got " +
                                  std::string(typecheck::long_name(p->aval.dtype)) + ".");
    typecheck::Shape shape = a[2].is_none() ? p->aval.shape : shape_argument(ev, a[2]);
    if (p->aval.shape.empty()) return sample(ev, "bernoulli", a[0], shape, DType::bool_, {p}, a[3]);
    check_parameter_shape("bernoulli", shape, p->aval.shape);
    // An array of probabilities: JAX's _bernoulli, uniform(key, shape, p's
    // dtype) < p with p broadcast, the same draws as a scalar p takes.
    Value uniform = sample(ev, "uniform", a[0], shape, p->aval.dtype,
                           {to_array(ev, Value::floating(0.0), DType::float32), to_array(ev, Value::floating(1.0), DType::float32)},
                           a[3]);
    return bind(ev, primitive("less"), {array_ref(uniform), p});
  });
  random->add_function("randint(key, shape, minval, maxval, dtype=None, *, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    DType dtype = dtype_or(ev, a[4], DType::int32);
    return sample(ev, "randint", a[0], shape_argument(ev, a[1]), dtype,
                  {scalar_operand(ev, a[2], DType::int32), scalar_operand(ev, a[3], DType::int32)}, a[5]);
  });
  random->add_function("permutation(key, x, axis=0, independent=False, *, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    return apply_out_sharding(ev, "permutation", a[4], [&]() -> Value {
      auto key = concrete_key(ev, a[0], "jax.random.permutation");
      devices::ThreefryMode mode = runtime_of(ev).threefry_mode;
      if (a[1].is_integral()) {
        std::int64_t n = a[1].as_int();
        if (n < 0) raise(exc::ValueError(), "permutation of a negative length " + std::to_string(n));
        if (!key) return abstract_result(ev, DType::int32, {n});
        const std::int64_t shape[] = {n};
        return index_array(ev, value_or_raise(devices::random_shuffle_indices(*key, mode, shape, 0)), {n});
      }
      ArrayRef x = to_array(ev, a[1]);
      if (x->aval.shape.empty()) raise(exc::TypeError(), "x must be an integer or at least 1-dimensional");
      auto axis = axis_of(ev, a[2], x->aval.ndim());
      if (!key) return abstract_result(ev, x->aval.dtype, x->aval.shape);
      // JAX's _permutation: independent (or 1-D) shuffles x itself, each lane
      // along the axis by the sort keys of its own elements.
      if (ev.truthy(a[3]) && x->aval.ndim() > 1) {
        auto order = value_or_raise(devices::random_shuffle_indices(*key, mode, x->aval.shape, static_cast<int>(axis)));
        return shuffle_lanes(ev, x, order, static_cast<std::size_t>(axis));
      }
      const std::int64_t length[] = {x->aval.shape[static_cast<std::size_t>(axis)]};
      auto order = value_or_raise(devices::random_shuffle_indices(*key, mode, length, 0));
      return take_along(ev, x, order, static_cast<int>(axis), x->aval.shape);
    });
  });
  random->add_function("choice(key, a, shape=(), replace=True, p=None, axis=0, *, out_sharding=None)", [](Evaluator& ev, Arguments& a) {
    return apply_out_sharding(ev, "choice", a[6], [&]() -> Value {
      auto key = concrete_key(ev, a[0], "jax.random.choice");
      typecheck::Shape draw_shape = shape_argument(ev, a[2]);
      ArrayRef source = a[1].is_integral() ? nullptr : to_array(ev, a[1]);
      std::int64_t axis = source ? axis_of(ev, a[5], source->aval.ndim()) : 0;
      std::int64_t n = source ? source->aval.shape[static_cast<std::size_t>(axis)] : a[1].as_int();
      std::optional<std::vector<float>> weights;
      if (!a[4].is_none() && key) {
        weights.emplace();
        for (double w : element_values(ev, *to_array(ev, a[4]))) weights->push_back(static_cast<float>(w));
        if (static_cast<std::int64_t>(weights->size()) != n)
          raise(exc::ValueError(), "p must be None or match the shape of a");
      }
      typecheck::Shape shape = draw_shape;
      if (source) {
        shape = source->aval.shape;
        shape.erase(shape.begin() + axis);
        shape.insert(shape.begin() + axis, draw_shape.begin(), draw_shape.end());
      }
      if (!key) return abstract_result(ev, source ? source->aval.dtype : DType::int32, shape);
      std::optional<std::span<const float>> p;
      if (weights) p = std::span<const float>(*weights);
      auto indices = value_or_raise(devices::random_choice_indices(*key, runtime_of(ev).threefry_mode, n, draw_shape,
                                                                   ev.truthy(a[3]), p));
      if (!source) return index_array(ev, indices, draw_shape);
      return take_along(ev, source, indices, static_cast<int>(axis), shape);
    });
  });
  install_random_distributions(evaluator);
}

}  // namespace interp
