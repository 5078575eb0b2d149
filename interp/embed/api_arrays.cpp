// Arrays across the public API (include/shardlang/shardlang.hpp "Arrays"):
// dtypes, the Array handle over an ArrayObject, and make_array. A transfer
// copies each block of the array once, straight between the host buffer and
// its shard (devices/host_copy.hpp); an array held by one buffer is shown in
// place.
#include <algorithm>
#include <map>
#include <new>

#include "devices/host_copy.hpp"
#include "devices/host_values.hpp"
#include "interp/embed/api_state.hpp"
#include "interp/ops/array.hpp"
#include "interp/ops/runtime.hpp"
#include "shardlang/shardlang.hpp"
#include "typecheck/dtype.hpp"

namespace shardlang {

// ORDER DType: the public enum lists typecheck's dtypes in the same order.
static_assert(static_cast<int>(DType::float32) == static_cast<int>(typecheck::DType::float32) &&
              static_cast<int>(DType::bfloat16) == static_cast<int>(typecheck::DType::bfloat16) &&
              static_cast<int>(DType::bool_) == static_cast<int>(typecheck::DType::bool_));

namespace {
typecheck::DType internal(DType dtype) { return static_cast<typecheck::DType>(dtype); }
DType public_dtype(typecheck::DType dtype) { return static_cast<DType>(dtype); }
}  // namespace

std::string_view dtype_name(DType dtype) { return typecheck::long_name(internal(dtype)); }
std::size_t dtype_size(DType dtype) { return static_cast<std::size_t>(typecheck::byte_size(internal(dtype))); }
std::optional<DType> parse_dtype(std::string_view name) {
  auto parsed = typecheck::parse_dtype(name);
  if (!parsed) return std::nullopt;
  return public_dtype(*parsed);
}

// ------------------------------------------------------------ Array

struct Array::Impl {
  interp::ArrayRef array;  // concrete: it has shards
  std::vector<std::int64_t> shape;
};

Array::Array() = default;
Array::Array(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
Array::operator bool() const { return impl_ != nullptr; }

DType Array::dtype() const { return impl_ ? public_dtype(impl_->array->aval.dtype) : DType::float32; }

const std::vector<std::int64_t>& Array::shape() const {
  static const std::vector<std::int64_t> none;
  return impl_ ? impl_->shape : none;
}

std::int64_t Array::size() const {
  if (!impl_) return 0;
  std::int64_t count = 1;
  for (std::int64_t extent : impl_->shape) count *= extent;
  return count;
}

std::size_t Array::byte_size() const { return static_cast<std::size_t>(size()) * dtype_size(dtype()); }

std::string Array::type() const { return impl_ ? impl_->array->aval.str() : std::string(); }

PartitionSpec Array::spec() const {
  PartitionSpec spec;
  if (impl_)
    for (const auto& entry : impl_->array->layout.dims) spec.push_back(entry);
  return spec;
}

std::span<const std::byte> Array::bytes() const {
  if (!impl_ || !impl_->array->layout.fully_replicated()) return {};
  return devices::element_bytes(impl_->array->local(0));
}

bool Array::read(void* out, std::size_t size) const {
  if (!impl_ || size != byte_size()) return false;
  const interp::ArrayObject& array = *impl_->array;
  const interp::Layout& layout = array.layout;
  std::size_t element_size = dtype_size(dtype());
  typecheck::Shape local = layout.shard_shape(array.aval.shape);
  std::vector<std::int64_t> strides = devices::row_major_strides(array.aval.shape, element_size);
  std::vector<std::vector<std::int64_t>> copied;  // blocks already written (replicas hold the same)
  for (std::size_t position = 0; position < layout.position_count(); ++position) {
    std::vector<std::int64_t> start(local.size());
    for (std::size_t d = 0; d < local.size(); ++d)
      start[d] = layout.block_index(d, static_cast<int>(position)) * local[d];
    if (std::find(copied.begin(), copied.end(), start) != copied.end()) continue;
    devices::shard_to_host(array.shards[position].buffer(), {start, local, strides}, static_cast<std::byte*>(out));
    copied.push_back(std::move(start));
  }
  return true;
}

// ------------------------------------------------------------ conversions

std::optional<Array> array_to_host(const interp::Value& value) {
  auto array = std::dynamic_pointer_cast<interp::ArrayObject>(value.is_object() ? value.object() : nullptr);
  if (!array || array->abstract()) return std::nullopt;
  auto impl = std::make_shared<Array::Impl>();
  impl->shape = array->aval.shape;
  impl->array = std::move(array);
  return Array(std::move(impl));
}

namespace {

// The spec's entries as P(...)'s arguments: None, 'X' or ('X', 'Y').
typecheck::PartitionSpec internal_spec(const PartitionSpec& spec) {
  std::vector<typecheck::SpecInput> inputs;
  for (const auto& entry : spec) {
    if (entry.empty()) {
      inputs.push_back(typecheck::SpecInput::none());
    } else if (entry.size() == 1) {
      inputs.push_back(typecheck::SpecInput::name(entry[0]));
    } else {
      std::vector<typecheck::SpecInput> axes;
      for (const auto& axis : entry) axes.push_back(typecheck::SpecInput::name(axis));
      inputs.push_back(typecheck::SpecInput::tuple(std::move(axes)));
    }
  }
  return interp::checked(typecheck::PartitionSpec::make(inputs));
}

// Where make_array puts an array of `shape`: its layout, whether it is
// committed, and the spec as given (what .sharding.spec shows).
struct Placement {
  interp::Layout layout;
  bool committed = false;
  std::optional<typecheck::PartitionSpec> requested;
};

Placement placement_of(interp::Evaluator& evaluator, const typecheck::Shape& shape,
                       const std::optional<PartitionSpec>& spec) {
  interp::Runtime& runtime = interp::runtime_of(evaluator);
  interp::DeviceMeshRef context = runtime.context_mesh ? runtime.context_mesh->mesh : nullptr;
  if (spec) {
    if (!context)
      interp::raise(interp::exc::ValueError(), "make_array: a PartitionSpec places the array on the context mesh, "
                                               "and there is none: run jax.set_mesh(mesh) first");
    typecheck::PartitionSpec requested = internal_spec(*spec);
    return {interp::checked(interp::make_layout(context, requested, shape)), true, requested};
  }
  if (context) return {interp::Layout{context, std::vector<typecheck::SpecEntry>(shape.size())}, false, std::nullopt};
  return {interp::default_layout(evaluator, shape.size()), false, std::nullopt};
}

}  // namespace

interp::ArrayRef array_from_host(interp::Evaluator& evaluator, const HostArray& data,
                                 const std::optional<PartitionSpec>& spec) {
  typecheck::Shape shape(data.shape.begin(), data.shape.end());
  std::int64_t count = 1;
  for (std::int64_t extent : shape) {
    if (extent < 0) interp::raise(interp::exc::ValueError(), "make_array: negative dimension in the shape");
    count *= extent;
  }
  if (!data.strides.empty() && data.strides.size() != shape.size())
    interp::raise(interp::exc::ValueError(), "make_array: strides must have one entry per dimension");
  if (!data.data && count > 0) interp::raise(interp::exc::ValueError(), "make_array: no data");
  Placement placement = placement_of(evaluator, shape, spec);
  const interp::Layout& layout = placement.layout;

  typecheck::ArrayType aval;
  aval.dtype = internal(data.dtype);
  aval.shape = shape;
  aval.sharding = layout.mesh->devices.size() == 1
                      ? typecheck::Sharding::replicated(nullptr, shape.size())
                      : interp::checked(typecheck::make_sharding(
                            layout.mesh->abstract, typecheck::PartitionSpec::from_entries(layout.dims), shape));

  std::size_t element_size = dtype_size(data.dtype);
  std::vector<std::int64_t> strides =
      data.strides.empty() ? devices::row_major_strides(shape, element_size) : data.strides;
  typecheck::Shape local = layout.shard_shape(shape);
  const auto& ledger = interp::runtime_of(evaluator).ledger();
  std::map<std::vector<std::int64_t>, std::shared_ptr<devices::Buffer>> by_block;  // replicas share one buffer
  std::vector<std::shared_ptr<devices::Buffer>> shards;
  for (std::size_t position = 0; position < layout.position_count(); ++position) {
    std::vector<std::int64_t> start(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) start[d] = layout.block_index(d, static_cast<int>(position)) * local[d];
    std::shared_ptr<devices::Buffer>& shard = by_block[start];
    if (!shard) {
      auto copied = devices::shard_from_host(ledger, aval.dtype, static_cast<const std::byte*>(data.data),
                                             {start, local, strides});
      if (!copied) interp::raise_devices_error(copied.error());
      shard = *copied;
    }
    shards.push_back(shard);
  }
  interp::ArrayRef array = interp::make_array(evaluator, std::move(aval), layout, std::move(shards), placement.committed);
  array->requested_spec = placement.requested;
  return array;
}

interp::Value array_from_host(interp::Evaluator& evaluator, const Array& array) {
  const interp::ArrayRef& held = array.impl()->array;
  interp::Runtime& runtime = interp::runtime_of(evaluator);
  // An array of this interpreter goes back as it is; one of another
  // interpreter (other devices, another memory ledger) comes over through
  // the host, as NumPy's array would.
  if (runtime.started() && held->shards.front().buffer().ledger() == runtime.ledger()) return interp::Value(held);
  std::vector<std::byte> bytes(array.byte_size());
  array.read(bytes.data(), bytes.size());
  return interp::Value(array_from_host(evaluator, HostArray{array.dtype(), array.shape(), bytes.data(), {}}, std::nullopt));
}

ArrayResult Interpreter::make_array(const HostArray& data, const std::optional<PartitionSpec>& spec) {
  ArrayResult out;
  interp::Evaluator& evaluator = *state_->evaluator;
  try {
    out.array = *array_to_host(interp::Value(array_from_host(evaluator, data, spec)));
  } catch (interp::PyError& error) {
    out.result = Result({from_exception(evaluator, *error.exception)}, error.exception->type()->name());
  } catch (const std::bad_alloc&) {
    out.result = Result({internal_error("MemoryError: out of memory")}, "MemoryError");
  }
  return out;
}

}  // namespace shardlang
