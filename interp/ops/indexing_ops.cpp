// x.at[index].set/add/get and jnp.take (indexing_ops.hpp). `.at` updates a
// rectangular window (integers and step-1 slices) through the update_slice
// primitive; take is the gather primitive.
#include "interp/ops/indexing_ops.hpp"

#include <algorithm>

#include "devices/host_values.hpp"
#include "devices/indexing.hpp"
#include "interp/python/builtins.hpp"
#include "interp/library/numpy_module.hpp"
#include "interp/ops/collectives.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/ops/runtime.hpp"
#include "interp/transforms/trace.hpp"
#include "typecheck/creation_rules.hpp"
#include "typecheck/rule_support.hpp"
#include "typecheck/shape_arithmetic.hpp"
#include "typecheck/shape_rules.hpp"
#include "typecheck/python_repr.hpp"
#include "typecheck/structural_rules.hpp"

namespace interp {

using typecheck::DType;

namespace {

// The window `items` selects: its start and extent on every operand dim,
// and the shape x[items] has (integer-indexed dims dropped).
struct Window {
  std::vector<std::int64_t> start;
  typecheck::Shape extent;
  typecheck::Shape indexed_shape;
  std::vector<typecheck::IndexItem> items;  // as scatter_rule reads them
};

Window window_of(Evaluator& evaluator, const typecheck::ArrayType& operand, const Value& key) {
  std::vector<Value> keys = key.as<TupleObject>() ? key.as<TupleObject>()->items : std::vector<Value>{key};
  std::size_t named = 0;
  for (const auto& k : keys)
    if (!k.as<EllipsisObject>()) ++named;
  if (named > operand.ndim())
    raise(exc::IndexError(), typecheck::too_many_indices(operand.ndim(), named));
  Window window;
  std::size_t dim = 0;
  auto whole_dim = [&]() {
    window.start.push_back(0);
    window.extent.push_back(operand.shape[dim]);
    window.indexed_shape.push_back(operand.shape[dim]);
    ++dim;
  };
  for (const auto& k : keys) {
    if (k.as<EllipsisObject>()) {
      window.items.push_back(typecheck::IndexItem::ellipsis());
      for (std::size_t rest = operand.ndim() - named; rest > 0; --rest) whole_dim();
      continue;
    }
    std::int64_t n = operand.shape[dim];
    if (k.is_integral()) {
      std::int64_t index = k.as_int() < 0 ? k.as_int() + n : k.as_int();
      if (index < 0 || index >= n)
        raise(exc::IndexError(), typecheck::index_out_of_bounds(k.as_int(), dim, n));
      window.start.push_back(index);
      window.extent.push_back(1);
      window.items.push_back(typecheck::IndexItem::integer(index));
      ++dim;
    } else if (auto* s = k.as<SliceObject>()) {
      auto bounds = s->bounds(n);
      if (bounds.step != 1) raise(exc::NotImplementedError(), "x.at[...] with a slice step other than 1");
      window.start.push_back(bounds.start);
      window.extent.push_back(bounds.count);
      window.indexed_shape.push_back(bounds.count);
      window.items.push_back(typecheck::IndexItem::range(bounds.start, bounds.start + bounds.count));
      ++dim;
    } else {
      raise(exc::TypeError(), "x.at[...] takes static integers, slices and ... in shardlang");
    }
  }
  while (dim < operand.ndim()) whole_dim();
  return window;
}

std::string shape_text(const typecheck::Shape& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// The window of `operand` as an array of the window's extent (rank kept).
Value window_values(Evaluator& evaluator, const ArrayRef& operand, const Window& window) {
  std::vector<std::int64_t> limit, strides;
  for (std::size_t d = 0; d < window.start.size(); ++d) {
    limit.push_back(window.start[d] + window.extent[d]);
    strides.push_back(1);
  }
  Params params;
  params.set("start_indices", window.start);
  params.set("limit_indices", limit);
  params.set("strides", strides);
  params.set("new_sizes", std::vector<std::int64_t>(window.extent.begin(), window.extent.end()));
  return bind(evaluator, primitive("slice"), {operand}, std::move(params));
}

// `update` in the operand's dtype, broadcast to x[items]'s shape (NumPy's
// rules), then given the window's rank.
// scatter_rule checks the shardings first (JAX's errors for sharded indexed dims).
ArrayRef window_update(Evaluator& evaluator, std::string_view method, const ArrayRef& operand, const Window& window,
                       const Value& update, const std::optional<typecheck::Sharding>& out_sharding) {
  ArrayRef given = to_array(evaluator, update);
  (void)checked(typecheck::scatter_rule(method, operand->aval, window.items, given->aval, out_sharding));
  ArrayRef value = to_array(evaluator, apply_astype(evaluator, given, operand->aval.dtype));
  const auto& target = window.indexed_shape;
  if (value->aval.ndim() > target.size())
    raise(exc::ValueError(), "Incompatible shapes for broadcasting: " + shape_text(value->aval.shape) + " and " +
                                 shape_text(target));
  if (value->aval.shape != target) {
    std::vector<std::int64_t> dimensions;
    for (std::size_t k = 0; k < value->aval.ndim(); ++k) {
      auto d = target.size() - value->aval.ndim() + k;
      if (value->aval.shape[k] != 1 && value->aval.shape[k] != target[d])
        raise(exc::ValueError(), "Incompatible shapes for broadcasting: " + shape_text(value->aval.shape) + " and " +
                                     shape_text(target));
      dimensions.push_back(static_cast<std::int64_t>(d));
    }
    Params params;
    params.set("shape", std::vector<std::int64_t>(target.begin(), target.end()));
    params.set("broadcast_dimensions", dimensions);
    value = to_array(evaluator, bind(evaluator, primitive("broadcast_in_dim"), {value}, std::move(params)));
  }
  if (window.extent != target)
    value = to_array(evaluator, apply_reshape(evaluator, Value(value),
                                              std::vector<std::int64_t>(window.extent.begin(), window.extent.end())));
  return value;
}

std::optional<typecheck::Sharding> out_sharding_of(Evaluator& evaluator, const ArrayRef& operand, const Value& value) {
  auto argument = sharding_argument(value);
  if (!argument) return std::nullopt;
  auto& runtime = runtime_of(evaluator);
  typecheck::MeshRef context = runtime.context_mesh ? runtime.context_mesh->mesh->abstract : nullptr;
  return checked(typecheck::canonicalize_out_sharding("scatter", *argument, context, operand->aval.shape));
}

// The updated array, moved to `out_sharding` when one was given.
Value update_window(Evaluator& evaluator, const ArrayRef& operand, const Window& window, const ArrayRef& update,
                    const std::optional<typecheck::Sharding>& out_sharding) {
  Params params;
  params.set("start_indices", window.start);
  Value updated = bind(evaluator, primitive("update_slice"), {operand, update}, std::move(params));
  if (!out_sharding) return updated;
  Layout target{operand->layout.mesh, out_sharding->dims};
  target.dims.resize(operand->aval.ndim());
  return apply_device_put(evaluator, to_array(evaluator, updated), target, std::nullopt);
}

// ---- x.at[index] with strided slices, integer arrays or lists: NumPy's
// basic and advanced indexing resolved on the host to the flat positions
// x[index] reads, then gathered or scattered on the global value.

bool is_index_array(const Value& k) {
  return k.as<ArrayObject>() || k.as<ListObject>() || (k.as<TupleObject>() != nullptr);
}

// Whether `key` needs the general path (the window path takes integers and
// step-1 slices).
bool needs_selection(const Value& key) {
  std::vector<Value> keys = key.as<TupleObject>() ? key.as<TupleObject>()->items : std::vector<Value>{key};
  for (const auto& k : keys) {
    if (k.is_none() || is_index_array(k)) return true;
    if (auto* s = k.as<SliceObject>(); s && !s->step.is_none() && !(s->step.is_integral() && s->step.as_int() == 1))
      return true;
  }
  return false;
}

// x[index]'s shape and, row-major over it, the flat position in x each
// element reads (`size` of x for an out-of-range array index).
struct Selection {
  typecheck::Shape shape;
  std::vector<std::int64_t> positions;
  bool known = true;  // false when an index array is abstract (check mode)
};

Selection select(Evaluator& evaluator, const typecheck::Shape& x_shape, const Value& key) {
  struct Item {
    enum class Kind { integer, slice, newaxis, array } kind;
    std::size_t dim = 0;
    std::int64_t start = 0, step = 1, count = 1;
    std::vector<std::int64_t> values;  // array items, normalized; -1 out of range
    typecheck::Shape shape;
  };
  std::vector<Value> keys = key.as<TupleObject>() ? key.as<TupleObject>()->items : std::vector<Value>{key};
  const std::size_t ndim = x_shape.size();
  Selection selection;
  std::size_t consumed = 0;
  for (const auto& k : keys)
    if (!k.is_none() && !k.as<EllipsisObject>()) ++consumed;
  if (consumed > ndim)
    raise(exc::IndexError(), typecheck::too_many_indices(ndim, consumed));
  bool advanced = false;
  for (const auto& k : keys) advanced = advanced || is_index_array(k);
  std::vector<Item> items;
  std::size_t dim = 0;
  auto full_slice = [&]() {
    items.push_back({Item::Kind::slice, dim, 0, 1, x_shape[dim], {}, {}});
    ++dim;
  };
  for (const auto& k : keys) {
    if (k.as<EllipsisObject>()) {
      for (std::size_t rest = ndim - consumed; rest > 0; --rest) full_slice();
      continue;
    }
    if (k.is_none()) {
      items.push_back({Item::Kind::newaxis, dim, 0, 1, 1, {}, {}});
      continue;
    }
    std::int64_t n = x_shape[dim];
    if (k.is_integral()) {
      std::int64_t index = k.as_int() < 0 ? k.as_int() + n : k.as_int();
      if (index < 0 || index >= n)
        raise(exc::IndexError(), typecheck::index_out_of_bounds(k.as_int(), dim, n));
      if (advanced) items.push_back({Item::Kind::array, dim, 0, 1, 1, {index}, {}});
      else items.push_back({Item::Kind::integer, dim, index, 1, 1, {}, {}});
    } else if (auto* s = k.as<SliceObject>()) {
      auto bounds = s->bounds(n);
      items.push_back({Item::Kind::slice, dim, bounds.start, bounds.step, bounds.count, {}, {}});
    } else {
      ArrayRef indices = to_array(evaluator, k);
      if (!typecheck::is_integer(indices->aval.dtype))
        raise(exc::TypeError(), "x.at[...] index arrays must have an integer dtype, got " +
                                    std::string(typecheck::long_name(indices->aval.dtype)));
      Item item{Item::Kind::array, dim, 0, 1, 1, {}, indices->aval.shape};
      if (indices->abstract()) {  // check mode: the shape is known, the positions are not
        selection.known = false;
        item.values.assign(static_cast<std::size_t>(devices::element_count(indices->aval.shape)), 0);
        items.push_back(std::move(item));
        ++dim;
        continue;
      }
      for (double v : element_values(evaluator, *indices)) {
        auto index = static_cast<std::int64_t>(v);
        if (index < 0) index += n;
        item.values.push_back(index < 0 || index >= n ? -1 : index);
      }
      items.push_back(std::move(item));
    }
    ++dim;
  }
  while (dim < ndim) full_slice();

  // The advanced items broadcast together (NumPy's rules).
  std::vector<typecheck::Shape> advanced_shapes;
  std::vector<std::size_t> advanced_at;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].kind != Item::Kind::array) continue;
    advanced_at.push_back(i);
    advanced_shapes.push_back(items[i].shape);
  }
  std::optional<typecheck::Shape> common = typecheck::broadcast_shapes(advanced_shapes);
  if (!common) raise(exc::IndexError(), "shape mismatch: indexing arrays could not be broadcast together");
  const typecheck::Shape& broadcast = *common;
  // Result dims: slices and newaxes in order, the broadcast block where the
  // advanced items sit when they are adjacent, else first.
  struct ResultDim {
    std::optional<std::size_t> item;  // a slice or newaxis item; nullopt: a broadcast dim
    std::size_t broadcast_dim = 0;
  };
  bool adjacent = advanced_at.empty() || advanced_at.back() - advanced_at.front() + 1 == advanced_at.size();
  std::vector<ResultDim> result;
  auto add_block = [&]() {
    for (std::size_t b = 0; b < broadcast.size(); ++b) result.push_back({std::nullopt, b});
  };
  if (!adjacent) add_block();
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].kind == Item::Kind::array) {
      if (adjacent && i == advanced_at.front()) add_block();
      continue;
    }
    if (items[i].kind != Item::Kind::integer) result.push_back({i, 0});
  }
  for (const auto& r : result) selection.shape.push_back(r.item ? items[*r.item].count : broadcast[r.broadcast_dim]);
  std::vector<std::int64_t> x_strides(ndim, 1);
  for (std::size_t d = ndim; d-- > 1;) x_strides[d - 1] = x_strides[d] * x_shape[d];
  const std::int64_t size = devices::element_count(x_shape);
  const std::int64_t total = devices::element_count(selection.shape);
  if (!selection.known) return selection;
  selection.positions.reserve(static_cast<std::size_t>(total));
  std::vector<std::int64_t> at(result.size(), 0), b_index(broadcast.size(), 0);
  for (std::int64_t e = 0; e < total; ++e) {
    std::int64_t rest = e;
    for (std::size_t r = result.size(); r-- > 0;) {
      at[r] = rest % std::max<std::int64_t>(selection.shape[r], 1);
      rest /= std::max<std::int64_t>(selection.shape[r], 1);
      if (!result[r].item) b_index[result[r].broadcast_dim] = at[r];
    }
    std::int64_t position = 0;
    bool in_range = true;
    for (std::size_t r = 0; r < result.size(); ++r)
      if (result[r].item && items[*result[r].item].kind == Item::Kind::slice) {
        const Item& item = items[*result[r].item];
        position += (item.start + at[r] * item.step) * x_strides[item.dim];
      }
    for (const Item& item : items) {
      if (item.kind == Item::Kind::integer) position += item.start * x_strides[item.dim];
      if (item.kind != Item::Kind::array) continue;
      std::int64_t flat = 0, stride = 1;  // the element of this array at b_index (broadcast)
      for (std::size_t d = item.shape.size(); d-- > 0;) {
        std::int64_t b = b_index[broadcast.size() - item.shape.size() + d];
        flat += (item.shape[d] == 1 ? 0 : b) * stride;
        stride *= item.shape[d];
      }
      std::int64_t index = item.values[static_cast<std::size_t>(flat)];
      if (index < 0) in_range = false;
      else position += index * x_strides[item.dim];
    }
    selection.positions.push_back(in_range ? position : size);
  }
  return selection;
}

bool size_limit_exceeded(const typecheck::Shape& shape) {
  return devices::element_count(shape) >= std::int64_t{1} << 31;
}

// The selection's positions as an int32 array of x[index]'s shape.
ArrayRef positions_array(Evaluator& evaluator, const Selection& selection) {
  auto made = devices::from_values(runtime_of(evaluator).ledger(), DType::int32, selection.shape,
                                   std::span<const std::int64_t>(selection.positions));
  if (!made) raise_devices_error(made.error());
  typecheck::ArrayType type;
  type.dtype = DType::int32;
  type.shape = selection.shape;
  type.sharding = typecheck::Sharding::replicated(nullptr, type.ndim());
  return array_from_global(evaluator, *made, type, default_layout(evaluator, type.ndim()), false);
}

// x.at[index].set/add/multiply/min/max on the general path: the updates (in
// x's dtype, broadcast to x[index]'s shape) applied in order by the scatter
// primitive at the host-resolved positions; x's sharding and devices stay.
Value selection_update(Evaluator& evaluator, std::string_view method, const ArrayRef& operand, const Value& key,
                       const Value& update_value, const std::optional<typecheck::Sharding>& out_sharding) {
  Selection selection = select(evaluator, operand->aval.shape, key);
  ArrayRef update = to_array(evaluator, apply_astype(evaluator, to_array(evaluator, update_value), operand->aval.dtype));
  const auto& target = selection.shape;
  const auto& given = update->aval.shape;
  bool fits = given.size() <= target.size();
  for (std::size_t k = 0; fits && k < given.size(); ++k) {
    auto t = target[target.size() - given.size() + k];
    fits = given[k] == 1 || given[k] == t;
  }
  if (!fits)
    raise(exc::ValueError(), "Incompatible shapes for broadcasting: " + shape_text(given) + " and " + shape_text(target));
  typecheck::ArrayType type = operand->aval;
  if (out_sharding) type.sharding = *out_sharding;
  Layout layout = operand->layout;
  if (out_sharding) {
    layout.dims = out_sharding->dims;
    layout.dims.resize(type.ndim());
  }
  if (!selection.known) {
    if (tracing_jit(evaluator) && evaluator.mode == Evaluator::Mode::run)
      raise(exc::NotImplementedError(), "x.at[...] with index arrays computed inside jax.jit (pass them in concrete)");
    return Value(make_abstract_array(type, layout, operand->committed));
  }
  if (given != target) {
    std::vector<std::int64_t> dimensions;
    for (std::size_t k = 0; k < given.size(); ++k) dimensions.push_back(static_cast<std::int64_t>(target.size() - given.size() + k));
    Params params;
    params.set("shape", std::vector<std::int64_t>(target.begin(), target.end()));
    params.set("broadcast_dimensions", dimensions);
    update = to_array(evaluator, bind(evaluator, primitive("broadcast_in_dim"), {update}, std::move(params)));
  }
  if (size_limit_exceeded(operand->aval.shape))
    raise(exc::ValueError(), "x.at[...] with index arrays on arrays of 2^31 or more elements");
  Params params;
  params.set("method", std::string(method));
  Value scattered = bind(evaluator, primitive("scatter"), {operand, positions_array(evaluator, selection), update},
                         std::move(params));
  if (!out_sharding) return scattered;
  return apply_device_put(evaluator, to_array(evaluator, scattered), layout, std::nullopt);
}

// x.at[items]: set, add and get.
class AtReference final : public Object {
 public:
  AtReference(ArrayRef operand, Value key) : operand_(std::move(operand)), key_(std::move(key)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("_IndexUpdateRef");
    return type;
  }
  std::vector<std::string> attribute_names() const override { return {"add", "get", "max", "min", "multiply", "set"}; }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    ArrayRef operand = operand_;
    Value key = key_;
    // The elementwise op that combines the old window with the update.
    static constexpr std::pair<std::string_view, std::string_view> updates[] = {
        {"add", "add"}, {"max", "maximum"}, {"min", "minimum"}, {"multiply", "multiply"}, {"set", ""}};
    for (const auto& [method_name, combine] : updates) {
      if (name != method_name) continue;
      std::string method(method_name), op(combine);
      return Value(native(method + "(values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None)",
                          [operand, key, method, op](Evaluator& ev, Arguments& a) {
        auto out_sharding = out_sharding_of(ev, operand, a[4]);
        if (needs_selection(key)) return selection_update(ev, method, operand, key, a[0], out_sharding);
        Window window = window_of(ev, operand->aval, key);
        ArrayRef update = window_update(ev, method, operand, window, a[0], out_sharding);
        if (op.empty()) return update_window(ev, operand, window, update, out_sharding);
        Value merged = apply_elementwise(ev, primitive(op), {window_values(ev, operand, window), Value(update)});
        return update_window(ev, operand, window, to_array(ev, apply_astype(ev, to_array(ev, merged), operand->aval.dtype)),
                             out_sharding);
      }));
    }
    if (name == "get")
      return Value(native("get(*, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None, "
                          "out_sharding=None)", [operand, key](Evaluator& ev, Arguments& a) {
        // jnp's indexing mode: promise_in_bounds (XLA clamps) unless 'fill' asks for fill_value.
        const bool fill = gather_mode(ev, a[2], "promise_in_bounds") == "fill";
        if (!a[4].is_none() || fill) {
          // One integer index array: the gather along axis 0 that jnp.take does.
          if (!key.as<ArrayObject>() || !typecheck::is_integer(key.as<ArrayObject>()->aval.dtype))
            raise(exc::NotImplementedError(), "x.at[...].get(" + std::string(fill ? "mode='fill'" : "out_sharding=") +
                                                  ") takes one integer index array in shardlang, not " + ev.repr(key));
          CallArgs take{{Value(operand), key}, {{"axis", Value::integer(0)}, {"out_sharding", a[4]}}};
          if (fill) take.keywords.insert(take.keywords.end(), {{"mode", a[2]}, {"fill_value", a[3]}});
          return ev.call(*ev.module("jax.numpy")->find("take"), take);
        }
        return *operand->get_item(ev, key);
      }));
    return Object::get_attribute(evaluator, name);
  }

 private:
  ArrayRef operand_;
  Value key_;
};

class AtIndexer final : public Object {
 public:
  explicit AtIndexer(ArrayRef operand) : operand_(std::move(operand)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("_IndexUpdateHelper");
    return type;
  }
  std::optional<Value> get_item(Evaluator&, const Value& key) override {
    return Value(std::make_shared<AtReference>(operand_, key));
  }

 private:
  ArrayRef operand_;
};

}  // namespace

std::string gather_mode(Evaluator& evaluator, const Value& mode, const std::string& default_mode) {
  if (mode.is_none()) return default_mode;
  const std::string* name = string_of(mode);
  if (name && *name == "drop") return "fill";
  if (!name || (*name != "fill" && *name != "clip" && *name != "promise_in_bounds"))
    raise(exc::ValueError(), "Unknown gather mode \"" + evaluator.str(mode) + "\"");
  return *name;
}

Value gather_along(Evaluator& evaluator, const ArrayRef& operand, const Value& indices_value, std::int64_t axis,
                   const Value& out_sharding) {
  ArrayRef indices = to_array(evaluator, indices_value);
  if (!typecheck::is_integer(indices->aval.dtype)) raise(exc::TypeError(), "take: indices must be integers");
  indices = to_array(evaluator, apply_astype(evaluator, indices, DType::int32));
  Params params;
  params.set("axis", axis);
  if (auto sharding = sharding_argument(out_sharding)) params.set("out_sharding", *sharding);
  return bind(evaluator, primitive("gather"), {operand, indices}, std::move(params));
}

Value at_indexer(const ArrayRef& operand) { return Value(std::make_shared<AtIndexer>(operand)); }

// operands: x, int32 indices; params: axis, out_sharding (optional). The
// gathered dim and the indices are whole on every device; the other dims
// keep the operand's sharding.
ArrayRef gather_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                               const Params& params, bool execute) {
  const ArrayRef& operand = operands[0];
  const ArrayRef& indices = operands[1];
  auto axis = static_cast<std::size_t>(*params.get<std::int64_t>("axis"));
  std::optional<typecheck::Sharding> out_sharding;
  if (const auto* requested = params.get<typecheck::ShardingArg>("out_sharding")) {
    typecheck::Shape shape(operand->aval.shape.begin(), operand->aval.shape.begin() + static_cast<std::ptrdiff_t>(axis));
    shape.insert(shape.end(), indices->aval.shape.begin(), indices->aval.shape.end());
    shape.insert(shape.end(), operand->aval.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, operand->aval.shape.end());
    auto& runtime = runtime_of(evaluator);
    typecheck::MeshRef context = runtime.context_mesh ? runtime.context_mesh->mesh->abstract : nullptr;
    out_sharding = checked(typecheck::canonicalize_out_sharding("jnp.take", *requested, context, shape));
  }
  typecheck::ArrayType out_type =
      checked(typecheck::take_rule(operand->aval, indices->aval, static_cast<std::int64_t>(axis), out_sharding));
  // Computed where the operand is, or where committed indices are when the
  // operand is not committed (it moves there whole).
  const bool follow_indices = !operand->committed && indices->committed && !(indices->layout.mesh == operand->layout.mesh);
  DeviceMeshRef mesh = follow_indices ? indices->layout.mesh : operand->layout.mesh;
  Layout needed{mesh, follow_indices ? std::vector<typecheck::SpecEntry>(operand->aval.ndim()) : operand->layout.dims};
  needed.dims[axis].clear();
  std::vector<typecheck::SpecEntry> computed_dims(needed.dims.begin(), needed.dims.begin() + static_cast<std::ptrdiff_t>(axis));
  computed_dims.resize(axis + indices->aval.ndim());
  computed_dims.insert(computed_dims.end(), needed.dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1, needed.dims.end());
  Layout computed{mesh, computed_dims};
  Layout out_layout = computed;
  if (typecheck::has_explicit_axis(out_type.sharding.mesh)) out_layout.dims = out_type.sharding.dims;
  out_layout.dims.resize(out_type.ndim());
  const bool committed = operand->committed || follow_indices;
  if (!execute) return make_abstract_array(out_type, out_layout, committed);
  ArrayRef input = relayout(evaluator, operand, needed);
  ArrayRef picks = relayout(evaluator, indices, Layout{mesh, std::vector<typecheck::SpecEntry>(indices->aval.ndim())});
  auto shards = run_per_position(evaluator, mesh, {input, picks}, [&](const std::vector<devices::LocalArray>& in)
                                                                       -> devices::Expected<devices::LocalArray> {
    auto positions = devices::integer_values(in[1]);
    if (!positions) return positions.error();
    return devices::gather(in[0], axis, *positions, in[1].shape);
  });
  ArrayRef out = make_array(evaluator, out_type, computed, std::move(shards), committed);
  out = relayout(evaluator, out, out_layout);
  out->aval = out_type;
  return out;
}

// operands: x, int32 flat positions (x[index]'s shape; x.size drops an
// update), updates in x's dtype and the positions' shape. params: method
// (set add multiply min max). Every device applies the updates in order to
// a whole copy (16-bit floats in float32); the result is laid out as x.
ArrayRef scatter_implementation(Evaluator& evaluator, const Primitive&, const std::vector<ArrayRef>& operands,
                                const Params& params, bool execute) {
  const ArrayRef& operand = operands[0];
  const std::string& name = *params.get<std::string>("method");
  const auto method = name == "set"        ? devices::ScatterMethod::set
                      : name == "add"      ? devices::ScatterMethod::add
                      : name == "multiply" ? devices::ScatterMethod::multiply
                      : name == "min"      ? devices::ScatterMethod::min
                                           : devices::ScatterMethod::max;
  typecheck::ArrayType type = operand->aval;
  for (const auto& o : operands) type.manual.varying.insert(o->aval.manual.varying.begin(), o->aval.manual.varying.end());
  if (!execute || operand->abstract() || operands[1]->abstract() || operands[2]->abstract())
    return make_abstract_array(type, operand->layout, operand->committed);
  const DeviceMeshRef& mesh = operand->layout.mesh;
  auto whole = [&](const ArrayRef& a) {
    return relayout(evaluator, a, Layout{mesh, std::vector<typecheck::SpecEntry>(a->aval.ndim())});
  };
  std::vector<ArrayRef> inputs{whole(operand), whole(operands[1]), whole(operands[2])};
  auto shards = run_per_position(evaluator, mesh, inputs, [&](const std::vector<devices::LocalArray>& in)
                                                               -> devices::Expected<devices::LocalArray> {
    auto positions = devices::integer_values(in[1]);
    if (!positions) return positions.error();
    return devices::scatter(in[0], *positions, in[2], method);
  });
  ArrayRef out = make_array(evaluator, type, Layout{mesh, std::vector<typecheck::SpecEntry>(type.ndim())}, std::move(shards),
                            operand->committed);
  out = relayout(evaluator, out, operand->layout);
  out->aval = type;
  return out;
}

// ---- x[index] with integer or boolean arrays among its items: NumPy's
// advanced indexing as one static slice for the basic items, then one gather
// over the advanced dims (merged into one dim by a reshape when there are
// several), so it traces, differentiates and batches as those primitives do.

typecheck::IndexItem slice_index_item(Evaluator& evaluator, const SliceObject& slice) {
  auto bound = [&](const Value& v) -> std::optional<std::int64_t> {
    if (v.is_none()) return std::nullopt;
    return evaluator.index_of(v);
  };
  return typecheck::IndexItem::range(bound(slice.lower), bound(slice.upper), bound(slice.step));
}

bool has_index_arrays(const Value& key) {
  std::vector<Value> keys = key.as<TupleObject>() ? key.as<TupleObject>()->items : std::vector<Value>{key};
  return std::any_of(keys.begin(), keys.end(), is_index_array);
}

void refuse_indexer(Evaluator& evaluator, const Value& index) {
  if (index.is_bool())
    raise(exc::NotImplementedError(), "a Python bool as an index (x[True], x[False]) is not supported in shardlang; "
                                      "write x[None] or index with a boolean array");
  if (string_of(index)) raise(exc::TypeError(), "JAX does not support string indexing; got idx=" + evaluator.repr(index));
  if (index.is_float()) raise(exc::TypeError(), "Indexer must have integer or boolean type, got indexer with type float64");
  raise(exc::IndexError(), "only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and integer or boolean arrays "
                           "are valid indices. Got " + evaluator.str(index));
}

const TypeRef& non_concrete_boolean_index_error() {
  static const TypeRef type = make_type("NonConcreteBooleanIndexError", exc::IndexError());
  return type;
}

namespace {

// Extents as Python prints a list of them: [2, 3].
std::string python_list_repr(const typecheck::Shape& shape) {
  std::string out;
  for (auto extent : shape) out += (out.empty() ? "" : ", ") + std::to_string(extent);
  return "[" + out + "]";
}

// An index item: a basic one (int, slice, None, ...) kept as given, or an
// index array (sequences made arrays, a boolean mask made its nonzero
// positions, one array per dim it covers).
struct IndexPart {
  Value basic;
  ArrayRef array;
};

struct IndexParts {
  std::vector<IndexPart> parts;
  std::size_t consumed = 0;  // operand dims the parts name (not None or ...)
  // check mode: a mask's true elements are unknown, so all were assumed true
  // and the result is a poisoned guess.
  bool guessed = false;
};

IndexParts index_parts(Evaluator& evaluator, const typecheck::Shape& shape, const std::vector<Value>& keys) {
  std::vector<std::pair<Value, ArrayRef>> converted;
  std::size_t consumed = 0;
  for (const auto& k : keys) {
    ArrayRef array;
    if (k.as<ArrayObject>() || k.as<ListObject>() || k.as<TupleObject>()) {
      bool empty_sequence = (k.as<ListObject>() && k.as<ListObject>()->items.empty()) ||
                            (k.as<TupleObject>() && k.as<TupleObject>()->items.empty());
      array = empty_sequence ? to_array(evaluator, k, DType::int32) : to_array(evaluator, k);
      if (!typecheck::is_integer(array->aval.dtype) && array->aval.dtype != DType::bool_)
        raise(exc::TypeError(), "Indexer must have integer or boolean type, got indexer with type " +
                                    std::string(typecheck::long_name(array->aval.dtype)));
    }
    if (!k.is_none() && !k.as<EllipsisObject>()) consumed += array && array->aval.dtype == DType::bool_ ? array->aval.ndim() : 1;
    converted.emplace_back(k, array);
  }
  if (consumed > shape.size())
    raise(exc::IndexError(), typecheck::too_many_indices(shape.size(), consumed));
  IndexParts made;
  made.consumed = consumed;
  std::vector<IndexPart>& parts = made.parts;
  std::size_t dim = 0;
  for (std::size_t position = 0; position < converted.size(); ++position) {
    auto& [key, array] = converted[position];
    if (key.as<EllipsisObject>()) dim += shape.size() - consumed;
    if (!array || array->aval.dtype != DType::bool_) {
      if (!key.is_none() && !key.as<EllipsisObject>()) ++dim;
      parts.push_back({key, array});
      continue;
    }
    const typecheck::Shape& mask = array->aval.shape;
    typecheck::Shape expected(shape.begin() + static_cast<std::ptrdiff_t>(dim),
                              shape.begin() + static_cast<std::ptrdiff_t>(dim + mask.size()));
    for (std::size_t d = 0; d < mask.size(); ++d)
      if (mask[d] != 0 && mask[d] != expected[d])
        raise(exc::IndexError(), "boolean index did not match shape of indexed array in index " + std::to_string(position) +
                                     ": got " + typecheck::python_shape_repr(mask) + ", expected " + python_list_repr(expected));
    dim += mask.size();
    if (array->abstract()) {
      if (evaluator.mode == Evaluator::Mode::run || tracing_jit(evaluator) || checking_jitted_body(evaluator))
        raise(non_concrete_boolean_index_error(), "Array boolean indices must be concrete; got " + array->aval.str() + "\n");
      typecheck::ArrayType guess;
      guess.dtype = DType::int32;
      guess.shape = {devices::element_count(mask)};
      guess.sharding = typecheck::Sharding::replicated(nullptr, 1);
      for (std::size_t d = 0; d < mask.size(); ++d)
        parts.push_back({Value(), make_abstract_array(guess, default_layout(evaluator, 1), false)});
      made.guessed = true;
      continue;
    }
    // np.where(mask): the true elements' coordinates, one array per mask dim.
    std::vector<std::vector<Value>> coordinates(mask.size());
    std::vector<double> truth = element_values(evaluator, *array);
    for (std::size_t e = 0; e < truth.size(); ++e) {
      if (truth[e] == 0) continue;
      std::size_t rest = e;
      for (std::size_t d = mask.size(); d-- > 0;) {
        auto extent = static_cast<std::size_t>(mask[d]);
        coordinates[d].push_back(Value::integer(static_cast<std::int64_t>(rest % extent)));
        rest /= extent;
      }
    }
    for (auto& along : coordinates)
      parts.push_back({Value(), to_array(evaluator, make_list(std::move(along)), DType::int32)});
  }
  return made;
}

}  // namespace

Value advanced_index(Evaluator& evaluator, const ArrayRef& operand, const Value& key) {
  std::vector<Value> keys = key.as<TupleObject>() ? key.as<TupleObject>()->items : std::vector<Value>{key};
  IndexParts resolved = index_parts(evaluator, operand->aval.shape, keys);
  const std::vector<IndexPart>& parts = resolved.parts;
  // The basic items as one static index, advanced dims kept whole; which
  // parts are advanced (integers count beside arrays: NumPy's rule) and
  // where each advanced dim lands in the static index's result.
  std::vector<typecheck::IndexItem> items;
  std::vector<std::size_t> advanced, advanced_dims;
  std::size_t sliced_dim = 0;
  bool identity = true;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const IndexPart& part = parts[i];
    if (part.basic.is_bool()) refuse_indexer(evaluator, part.basic);
    if (part.array || part.basic.is_integral()) {
      advanced.push_back(i);
      advanced_dims.push_back(sliced_dim++);
      items.push_back(typecheck::IndexItem::range());
    } else if (part.basic.is_none()) {
      items.push_back(typecheck::IndexItem::newaxis());
      ++sliced_dim;
      identity = false;
    } else if (part.basic.as<EllipsisObject>()) {
      items.push_back(typecheck::IndexItem::ellipsis());
      sliced_dim += operand->aval.ndim() - resolved.consumed;
    } else if (auto* s = part.basic.as<SliceObject>()) {
      items.push_back(slice_index_item(evaluator, *s));
      identity = identity && s->lower.is_none() && s->upper.is_none() && s->step.is_none();
      ++sliced_dim;
    } else {
      refuse_indexer(evaluator, part.basic);
    }
  }
  // The advanced dims of the result go where the advanced items are when
  // they are adjacent in the index, else first.
  const bool adjacent = advanced.back() - advanced.front() + 1 == advanced.size();
  ArrayRef sliced = operand;
  if (!identity)
    sliced = to_array(evaluator, index_static(evaluator, operand, items, checked(typecheck::static_index_rule(operand->aval, items))));

  // The advanced indices as int32, out-of-range ones clamped (jnp's default
  // gather mode, promise_in_bounds, clamps as XLA's gather does): a lone
  // index array into [-n, n) (the gather counts negative ones from the
  // end); several each into [0, n) after negative ones are wrapped, then
  // combined into one position into their row-major product.
  const typecheck::Shape& shape = sliced->aval.shape;
  auto elementwise = [&](const char* name, Value lhs, Value rhs) {
    return apply_elementwise(evaluator, primitive(name), {std::move(lhs), std::move(rhs)});
  };
  Value flat;
  std::int64_t merged_extent = 1;
  for (std::size_t a = 0; a < advanced.size(); ++a) {
    const IndexPart& part = parts[advanced[a]];
    const std::size_t dim = advanced_dims[a];
    const std::int64_t n = shape[dim];
    merged_extent = typecheck::checked_multiply(merged_extent, n).value_or(std::int64_t{1} << 31);
    if (!part.array) {  // an integer beside index arrays, checked as a lone integer index is
      std::int64_t index = part.basic.as_int();
      if (index < -n || index >= n)
        raise(exc::IndexError(), typecheck::index_out_of_bounds(index, dim, n));
      Value wrapped = Value::integer(index < 0 ? index + n : index);
      flat = a == 0 ? wrapped : elementwise("add", elementwise("multiply", flat, Value::integer(n)), wrapped);
      continue;
    }
    Value index = elementwise("maximum", apply_astype(evaluator, part.array, DType::int32), Value::integer(-n));
    index = elementwise("minimum", index, Value::integer(n - 1));
    if (advanced.size() > 1) {
      Value negative = apply_astype(evaluator, to_array(evaluator, elementwise("less", index, Value::integer(0))), DType::int32);
      index = elementwise("add", index, elementwise("multiply", negative, Value::integer(n)));
    }
    flat = a == 0 ? index : elementwise("add", elementwise("multiply", flat, Value::integer(n)), index);
  }
  if (merged_extent >= std::int64_t{1} << 31)
    raise(exc::ValueError(), "advanced indexing over dims of 2^31 or more elements together");
  // The advanced dims brought together (moved first when they are not
  // adjacent) and merged into one, which the gather reads.
  std::int64_t gather_axis = static_cast<std::int64_t>(advanced_dims.front());
  Value gathered_from(sliced);
  if (advanced_dims.size() > 1) {
    std::vector<int> order;
    if (!adjacent) {
      for (auto d : advanced_dims) order.push_back(static_cast<int>(d));
      for (std::size_t d = 0; d < shape.size(); ++d)
        if (std::find(advanced_dims.begin(), advanced_dims.end(), d) == advanced_dims.end()) order.push_back(static_cast<int>(d));
      gathered_from = apply_transpose(evaluator, gathered_from, order);
      gather_axis = 0;
    }
    const typecheck::Shape& moved = to_array(evaluator, gathered_from)->aval.shape;
    std::vector<std::int64_t> sizes(moved.begin(), moved.begin() + gather_axis);
    sizes.push_back(merged_extent);
    sizes.insert(sizes.end(), moved.begin() + gather_axis + static_cast<std::ptrdiff_t>(advanced_dims.size()), moved.end());
    gathered_from = apply_reshape(evaluator, gathered_from, sizes);
  }
  Params params;
  params.set("axis", gather_axis);
  ArrayRef result = to_array(evaluator, bind(evaluator, primitive("gather"),
                                             {to_array(evaluator, gathered_from), to_array(evaluator, flat, DType::int32)},
                                             std::move(params)));
  if (resolved.guessed) result->poisoned = true;
  return Value(result);
}

}  // namespace interp
