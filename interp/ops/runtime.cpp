// The simulated mesh's script objects and layouts (runtime.hpp).
#include "interp/ops/runtime.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include <boost/container/small_vector.hpp>

#include "devices/device_mesh.hpp"
#include "interp/python/builtins.hpp"
#include "interp/python/format.hpp"
#include "interp/transforms/costing.hpp"
#include "typecheck/python_repr.hpp"
#include "typecheck/structural_rules.hpp"
#include "typecheck/rule_support.hpp"

namespace interp {

// ------------------------------------------------------------ meshes and layouts

std::vector<int> DeviceMesh::device_ids() const {
  std::vector<int> ids;
  for (const auto& d : devices) ids.push_back(d.id);
  return ids;
}

bool DeviceMesh::same_devices(const DeviceMesh& other) const {
  if (this == &other) return true;
  return std::equal(devices.begin(), devices.end(), other.devices.begin(), other.devices.end(),
                    [](const devices::Device& a, const devices::Device& b) { return a.id == b.id; });
}

std::vector<int> DeviceMesh::coordinates(int position) const {
  std::vector<int> coords(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    coords[i] = position % shape[i];
    position /= shape[i];
  }
  return coords;
}

int DeviceMesh::coordinate(int position, std::size_t axis) const {
  for (std::size_t i = shape.size(); --i > axis;) position /= shape[i];
  return position % shape[axis];
}

namespace {
// Searched here rather than by AbstractMesh::index_of: every shard shape asks
// it for each sharded dim, and inlined a name of another length costs one
// comparison.
int axis_position(const DeviceMesh& mesh, const std::string& name) {
  const std::vector<typecheck::MeshAxis>& axes = mesh.abstract->axes();
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == name) return static_cast<int>(i);
  return -1;
}
}  // namespace

std::int64_t Layout::block_count(std::size_t dim) const {
  std::int64_t count = 1;
  for (const auto& axis : dims[dim]) count *= mesh->shape[axis_position(*mesh, axis)];
  return count;
}

std::int64_t Layout::block_index(std::size_t dim, int position) const {
  std::int64_t index = 0;
  for (const auto& axis : dims[dim]) {
    int a = axis_position(*mesh, axis);
    index = index * mesh->shape[a] + mesh->coordinate(position, static_cast<std::size_t>(a));
  }
  return index;
}

std::vector<std::int64_t> Layout::block_origins(const typecheck::Shape& block) const {
  const std::size_t rank = block.size();
  std::vector<std::int64_t> origins(position_count() * rank, 0);
  if (position_count() == 1) return origins;
  boost::container::small_vector<int, 4> axes;
  for (std::size_t d = 0; d < rank && d < dims.size(); ++d) {
    if (dims[d].empty()) continue;
    axes.clear();
    for (const auto& axis : dims[d]) axes.push_back(axis_position(*mesh, axis));
    for (std::size_t p = 0; p < position_count(); ++p) {
      std::int64_t index = 0;
      for (int a : axes) {
        const auto axis = static_cast<std::size_t>(a);
        index = index * mesh->shape[axis] + mesh->coordinate(static_cast<int>(p), axis);
      }
      origins[p * rank + d] = index * block[d];
    }
  }
  return origins;
}

typecheck::Shape Layout::shard_shape(const typecheck::Shape& global) const {
  typecheck::Shape local = global;
  for (std::size_t d = 0; d < local.size() && d < dims.size(); ++d) local[d] /= block_count(d);
  return local;
}

bool Layout::fully_replicated() const {
  return std::all_of(dims.begin(), dims.end(), [](const auto& e) { return e.empty(); });
}

bool Layout::operator==(const Layout& other) const {
  const bool same_mesh = mesh == other.mesh || (mesh->same_devices(*other.mesh) && mesh->shape == other.mesh->shape &&
                                                *mesh->abstract == *other.mesh->abstract);
  return same_mesh && dims == other.dims;
}

typecheck::Checked<Layout> make_layout(const DeviceMeshRef& mesh, const typecheck::PartitionSpec& spec,
                                       const typecheck::Shape& shape) {
  if (auto error = typecheck::check_spec(*mesh->abstract, spec)) return *error;
  const auto& parts = spec.partitions();
  if (parts.size() > shape.size())
    return typecheck::Error{typecheck::ErrorClass::ValueError,
                            "Sharding NamedSharding(mesh=" + typecheck::mesh_repr(mesh->abstract) + ", spec=" +
                                spec.repr() + ") is only valid for values of rank at least " +
                                std::to_string(parts.size()) + ", but was applied to a value of rank " +
                                std::to_string(shape.size())};
  Layout layout{mesh, parts};
  layout.dims.resize(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    std::int64_t count = layout.block_count(d);
    if (shape[d] % count != 0)
      return typecheck::Error{typecheck::ErrorClass::ValueError,
                              "One of device_put args was given the sharding of NamedSharding(mesh=" +
                                  typecheck::mesh_repr(mesh->abstract) + ", spec=" + spec.repr() +
                                  "), which implies that the global size of its dimension " + std::to_string(d) +
                                  " should be divisible by " + std::to_string(count) + ", but it is equal to " +
                                  std::to_string(shape[d]) + " (full shape: " + typecheck::ints_tuple_repr(shape) +
                                  ")"};
  }
  return layout;
}

DeviceMeshRef make_device_mesh(std::vector<int> shape, std::vector<devices::Device> devices,
                               const std::vector<std::string>& names, const std::vector<typecheck::AxisType>& types) {
  if (names.size() != shape.size())
    raise(exc::ValueError(), "Mesh requires the ndim of its first argument (`devices`) to equal the length of its "
                             "second argument (`axis_names`), but got devices.ndim == " +
                                 std::to_string(shape.size()) + " and len(axis_names) == " +
                                 std::to_string(names.size()) + ".");
  std::vector<typecheck::MeshAxis> axes;
  for (std::size_t i = 0; i < shape.size(); ++i)
    axes.push_back({names[i], shape[i], i < types.size() ? types[i] : typecheck::AxisType::Auto});
  auto mesh = std::make_shared<DeviceMesh>();
  mesh->shape = std::move(shape);
  mesh->devices = std::move(devices);
  mesh->abstract = checked(typecheck::AbstractMesh::make(std::move(axes)));
  return mesh;
}

// ------------------------------------------------------------ Runtime

const std::vector<devices::Device>& Runtime::devices() {
  if (devices_.empty()) {
    auto made = devices::make_devices(options_.platform, options_.chip, options_.device_count);
    if (!made) raise(exc::ValueError(), made.error().message);
    int processes = options_.processes.count();
    if (options_.device_count % processes != 0)
      raise(exc::ValueError(), "the " + std::to_string(options_.device_count) + " devices cannot be split evenly over the " +
                                   std::to_string(processes) + " processes of this run");
    devices_ = std::move(*made);
    ledger_ = devices::MemoryLedger::for_devices(
        devices_, options_.host_memory_bytes.value_or(devices::default_host_memory_budget()),
        options_.device_memory_bytes, options_.processes);
    // --profile shows the moment of the highest peak (devices/memory_report.hpp).
    if (options_.profile) ledger_->keep_peak_moment(true);
    // --trace draws each device's memory over time: the profile samples the ledger.
    if (options_.profile && options_.trace_memory) {
      if (!costs) costs = std::make_shared<CostRecorder>(options_.chip, static_cast<int>(devices_.size()), true);
      costs->trace_memory(ledger_);
    }
    single_meshes_.resize(devices_.size());
  }
  return devices_;
}

const std::shared_ptr<devices::MemoryLedger>& Runtime::ledger() {
  devices();
  return ledger_;
}

devices::MemoryLedger::DeviceSet Runtime::memory_set(const DeviceMeshRef& mesh) {
  auto found = memory_sets_.find(mesh.get());
  if (found != memory_sets_.end() && !found->second.first.expired()) return found->second.second;
  auto set = ledger()->device_set(mesh->device_ids());
  memory_sets_[mesh.get()] = {mesh, set};
  return set;
}

devices::ThreadPool& Runtime::pool() {
  // One worker per hardware thread: the shards of all devices share the machine's cores.
  if (!pool_) pool_ = std::make_unique<devices::ThreadPool>(0);
  return *pool_;
}

DeviceMeshRef Runtime::single_device_mesh(int id) {
  const auto& all = devices();
  auto& slot = single_meshes_.at(static_cast<std::size_t>(id));
  if (!slot) slot = make_device_mesh({}, {all.at(static_cast<std::size_t>(id))}, {}, {});
  return slot;
}

int Runtime::holder(const DeviceMesh& mesh, std::size_t position) {
  if (mesh.devices.size() == 1) return devices::every_process;
  return ledger()->holder(mesh.devices[position].id);
}

bool Runtime::holds(const DeviceMesh& mesh, std::size_t position) {
  if (options_.processes.count() == 1) return true;  // one process holds every device
  int process = holder(mesh, position);
  return process == devices::every_process || process == options_.processes.index();
}

Runtime& runtime_of(Evaluator& evaluator) {
  if (!evaluator.runtime) evaluator.runtime = std::make_shared<Runtime>(RuntimeOptions{});
  return *evaluator.runtime;
}

namespace {
const TypeRef& sharding_type_error() {
  static const TypeRef type = make_type("ShardingTypeError", exc::TypeError());
  return type;
}
const TypeRef& duplicate_spec_error() {
  static const TypeRef type = make_type("DuplicateSpecError", exc::ValueError());
  return type;
}
}  // namespace

void raise_error(const typecheck::Error& error) {
  using typecheck::ErrorClass;
  switch (error.error_class) {
    case ErrorClass::ValueError: raise(exc::ValueError(), error.message);
    case ErrorClass::TypeError: raise(exc::TypeError(), error.message);
    case ErrorClass::ShardingTypeError: raise(sharding_type_error(), error.message);
    case ErrorClass::DuplicateSpecError: raise(duplicate_spec_error(), error.message);
    case ErrorClass::AssertionError: raise(exc::AssertionError(), error.message);
    case ErrorClass::NotImplementedError: raise(exc::NotImplementedError(), error.message);
    case ErrorClass::NameError: raise(exc::NameError(), error.message);
    case ErrorClass::IndexError: raise(exc::IndexError(), error.message);
    case ErrorClass::KeyError: raise(exc::KeyError(), error.message);
    case ErrorClass::RuntimeError: raise(exc::RuntimeError(), error.message);
  }
  raise(exc::ValueError(), error.message);
}

// ------------------------------------------------------------ Device

const TypeRef& DeviceObject::type() const {
  static const TypeRef type = make_type("Device");
  return type;
}

std::string DeviceObject::repr(Evaluator&) const { return devices::device_repr(device); }

std::optional<Value> DeviceObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "id") return Value::integer(device.id);
  if (name == "platform") return make_str(std::string(devices::platform_name(device.platform)));
  if (name == "device_kind") return make_str(devices::device_kind(device));
  if (name == "process_index") return Value::integer(device.process_index);
  if (name == "memory_stats") {
    int id = device.id;
    // As XLA's allocator reports them; bytes_limit only where the device has HBM.
    return Value(native("memory_stats()", [id](Evaluator& ev, Arguments&) {
      devices::MemoryLedger::DeviceStats stats = runtime_of(ev).ledger()->device_stats(id);
      auto out = make_dict();
      out->table.insert(make_str("bytes_in_use"), Value::integer(stats.bytes_in_use));
      out->table.insert(make_str("peak_bytes_in_use"), Value::integer(stats.peak_bytes_in_use));
      out->table.insert(make_str("largest_alloc_size"), Value::integer(stats.largest_alloc_size));
      out->table.insert(make_str("num_allocs"), Value::integer(stats.num_allocs));
      if (stats.bytes_limit) out->table.insert(make_str("bytes_limit"), Value::integer(*stats.bytes_limit));
      return Value(out);
    }));
  }
  if (device.platform == devices::Platform::tpu) {
    if (name == "coords")
      return make_tuple({Value::integer(device.coords.x), Value::integer(device.coords.y),
                         Value::integer(device.coords.z)});
    if (name == "core_on_chip") return Value::integer(device.core_on_chip);
  }
  return Object::get_attribute(evaluator, name);
}

bool DeviceObject::equals(const Value& other) const {
  auto* d = other.as<DeviceObject>();
  return d && d->device.id == device.id;
}

// ------------------------------------------------------------ device arrays

namespace {

// numpy's text of an n-d object array whose elements are `items` (row-major
// over `shape`): elements separated by spaces, rows by newlines indented to
// `indent` columns plus the nesting depth, lines wrapped at `line_width`
// columns (numpy's default 75; PositionalSharding's repr asks for 100).
std::string object_array_text(const std::vector<std::string>& items, const std::vector<int>& shape,
                              std::size_t indent, std::size_t line_width = 75) {
  if (shape.empty()) return items.empty() ? "" : items[0];
  std::size_t stride = 1;
  for (std::size_t i = 1; i < shape.size(); ++i) stride *= static_cast<std::size_t>(shape[i]);
  std::string out = "[";
  if (shape.size() == 1) {
    std::size_t column = indent + 1;
    for (int i = 0; i < shape[0]; ++i) {
      const std::string& word = items[static_cast<std::size_t>(i)];
      if (i > 0) {
        if (column + 1 + word.size() + 1 > line_width) {
          out += "\n" + std::string(indent + 1, ' ');
          column = indent + 1;
        } else {
          out += " ";
          ++column;
        }
      }
      out += word;
      column += word.size();
    }
    return out + "]";
  }
  std::vector<int> inner(shape.begin() + 1, shape.end());
  for (int i = 0; i < shape[0]; ++i) {
    if (i > 0) out += std::string(shape.size() - 1, '\n') + std::string(indent + 1, ' ');
    std::vector<std::string> part(items.begin() + static_cast<std::ptrdiff_t>(i * stride),
                                  items.begin() + static_cast<std::ptrdiff_t>((i + 1) * stride));
    out += object_array_text(part, inner, indent + 1, line_width);
  }
  return out + "]";
}

Value shape_tuple(const std::vector<int>& shape) {
  std::vector<Value> items;
  for (int s : shape) items.push_back(Value::integer(s));
  return make_tuple(std::move(items));
}

std::vector<int> int_list(Evaluator& evaluator, const Value& value) {
  std::vector<int> out;
  if (value.is_integral()) return {c_int(value.as_int())};
  for (const auto& v : evaluator.to_vector(value)) out.push_back(c_int(evaluator.index_of(v)));
  return out;
}

std::int64_t product(const std::vector<int>& shape) {
  std::int64_t p = 1;
  for (int s : shape) p *= s;
  return p;
}

// numpy's reshape of a shape with at most one -1.
std::vector<int> reshaped(std::vector<int> sizes, std::int64_t total) {
  std::int64_t known = 1;
  int unknown = -1;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1 && unknown < 0) unknown = static_cast<int>(i);
    else known *= sizes[i];
  }
  if (unknown >= 0 && known > 0 && total % known == 0) sizes[static_cast<std::size_t>(unknown)] = static_cast<int>(total / known);
  if (product(sizes) != total)
    raise(exc::ValueError(), "cannot reshape array of size " + std::to_string(total) + " into shape " +
                                 devices::python_tuple(sizes));
  return sizes;
}

std::vector<int> shape_arguments(Evaluator& evaluator, Arguments& a, std::size_t index) {
  const auto& rest = a[index].as<TupleObject>()->items;
  if (rest.size() == 1 && !rest[0].is_integral()) return int_list(evaluator, rest[0]);
  std::vector<int> out;
  for (const auto& v : rest) out.push_back(c_int(evaluator.index_of(v)));
  return out;
}

}  // namespace

int c_int(std::int64_t value) {
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
    raise(exc::OverflowError(), "Python int too large to convert to C int");
  return static_cast<int>(value);
}

const TypeRef& DeviceArrayObject::type() const {
  static const TypeRef type = make_type("numpy.ndarray");
  return type;
}

std::string DeviceArrayObject::repr(Evaluator&) const {
  std::vector<std::string> items;
  for (const auto& d : devices) items.push_back(devices::device_repr(d));
  return "array(" + object_array_text(items, shape, 6) + ", dtype=object)";
}

std::string DeviceArrayObject::str(Evaluator&) const {
  std::vector<std::string> items;
  for (const auto& d : devices) items.push_back(devices::device_repr(d));
  return object_array_text(items, shape, 0);
}

std::optional<Value> DeviceArrayObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "shape") return shape_tuple(shape);
  if (name == "ndim") return Value::integer(static_cast<std::int64_t>(shape.size()));
  if (name == "size") return Value::integer(static_cast<std::int64_t>(devices.size()));
  if (name == "flat" || name == "flatten" || name == "reshape" || name == "tolist") {
    auto self_ref = std::static_pointer_cast<DeviceArrayObject>(self());
    if (name == "flat") return Value(std::make_shared<DeviceArrayObject>(std::vector<int>{static_cast<int>(devices.size())}, devices));
    if (name == "flatten")
      return Value(native("flatten()", [self_ref](Evaluator&, Arguments&) {
        return Value(std::make_shared<DeviceArrayObject>(std::vector<int>{static_cast<int>(self_ref->devices.size())},
                                                         self_ref->devices));
      }));
    if (name == "tolist")
      return Value(native("tolist()", [self_ref](Evaluator&, Arguments&) {
        std::vector<Value> items;
        for (const auto& d : self_ref->devices) items.push_back(Value(std::make_shared<DeviceObject>(d)));
        return make_list(std::move(items));
      }));
    return Value(native("reshape(*shape)", [self_ref](Evaluator& ev, Arguments& a) {
      auto sizes = reshaped(shape_arguments(ev, a, 0), static_cast<std::int64_t>(self_ref->devices.size()));
      return Value(std::make_shared<DeviceArrayObject>(std::move(sizes), self_ref->devices));
    }));
  }
  return Object::get_attribute(evaluator, name);
}

std::optional<std::int64_t> DeviceArrayObject::length(Evaluator&) const {
  if (shape.empty()) return std::nullopt;
  return shape[0];
}

std::optional<Value> DeviceArrayObject::get_item(Evaluator& evaluator, const Value& key) {
  if (shape.empty()) return std::nullopt;
  std::int64_t n = shape[0];
  std::size_t stride = devices.size() / static_cast<std::size_t>(std::max(1, shape[0]));
  std::vector<int> inner(shape.begin() + 1, shape.end());
  auto row = [&](std::int64_t i) -> Value {
    if (inner.empty()) return Value(std::make_shared<DeviceObject>(devices[static_cast<std::size_t>(i)]));
    std::vector<devices::Device> part(devices.begin() + static_cast<std::ptrdiff_t>(i * stride),
                                      devices.begin() + static_cast<std::ptrdiff_t>((i + 1) * stride));
    return Value(std::make_shared<DeviceArrayObject>(inner, std::move(part)));
  };
  if (auto* s = key.as<SliceObject>()) {
    auto b = s->bounds(n);
    std::vector<devices::Device> picked;
    for (std::int64_t k = 0, i = b.start; k < b.count; ++k, i += b.step)
      for (std::size_t j = 0; j < stride; ++j) picked.push_back(devices[static_cast<std::size_t>(i) * stride + j]);
    std::vector<int> out_shape = shape;
    out_shape[0] = static_cast<int>(b.count);
    return Value(std::make_shared<DeviceArrayObject>(std::move(out_shape), std::move(picked)));
  }
  std::int64_t i = evaluator.index_of(key);
  if (i < 0) i += n;
  if (i < 0 || i >= n)
    raise(exc::IndexError(), typecheck::index_out_of_bounds(i, 0, n));
  return row(i);
}

IteratorRef DeviceArrayObject::iterate(Evaluator& evaluator) {
  std::vector<Value> rows;
  for (int i = 0; i < (shape.empty() ? 0 : shape[0]); ++i) rows.push_back(*get_item(evaluator, Value::integer(i)));
  return std::make_shared<ListIterator>(std::move(rows), types::list_iterator());
}

// ------------------------------------------------------------ AxisType

const TypeRef& AxisTypeObject::type() const {
  static const TypeRef type = make_type("AxisType");
  return type;
}
std::string AxisTypeObject::repr(Evaluator&) const {
  return std::string(typecheck::axis_type_name(axis_type));
}
bool AxisTypeObject::equals(const Value& other) const {
  auto* a = other.as<AxisTypeObject>();
  return a && a->axis_type == axis_type;
}

// ------------------------------------------------------------ Mesh

const TypeRef& MeshObject::type() const {
  static const TypeRef type = make_type("Mesh");
  return type;
}

namespace {
std::string axis_types_repr(const typecheck::MeshRef& mesh) {
  std::string out = "axis_types=(";
  const auto& axes = mesh->axes();
  for (std::size_t i = 0; i < axes.size(); ++i)
    out += (i ? ", " : "") + std::string(typecheck::axis_type_name(axes[i].type));
  return out + (axes.size() == 1 ? ",)" : ")");
}
}  // namespace

std::string MeshObject::str(Evaluator&) const {
  if (mesh->abstract->axes().empty()) return "Mesh()";
  std::string out = "Mesh(";
  for (const auto& axis : mesh->abstract->axes())
    out += typecheck::python_string_repr(axis.name) + ": " + std::to_string(axis.size) + ", ";
  return out + axis_types_repr(mesh->abstract) + ")";
}

std::string MeshObject::repr(Evaluator&) const {
  if (mesh->abstract->axes().empty()) return "Mesh(axis_sizes=(), axis_names=())";
  std::vector<std::string> sizes, names;
  for (const auto& axis : mesh->abstract->axes()) {
    sizes.push_back(std::to_string(axis.size));
    names.push_back(typecheck::python_string_repr(axis.name));
  }
  return "Mesh(axis_sizes=" + typecheck::python_tuple_repr(sizes) + ", axis_names=" + typecheck::python_tuple_repr(names) +
         ", " + axis_types_repr(mesh->abstract) + ")";
}

std::optional<Value> mesh_attribute(const typecheck::MeshRef& mesh, const std::string& name) {
  static const std::vector<typecheck::MeshAxis> none;
  const auto& axes = mesh ? mesh->axes() : none;
  auto each = [&](auto&& of) {
    std::vector<Value> out;
    for (const auto& a : axes) out.push_back(of(a));
    return make_tuple(std::move(out));
  };
  if (name == "axis_names") return each([](const auto& a) { return make_str(a.name); });
  if (name == "axis_types") return each([](const auto& a) { return Value(std::make_shared<AxisTypeObject>(a.type)); });
  if (name == "axis_sizes") return each([](const auto& a) { return Value::integer(a.size); });
  if (name == "shape_tuple")
    return each([](const auto& a) { return make_tuple({make_str(a.name), Value::integer(a.size)}); });
  if (name == "shape") {
    auto d = make_dict();
    for (const auto& a : axes) d->table.insert(make_str(a.name), Value::integer(a.size));
    return Value(d);
  }
  if (name == "size") return Value::integer(axes.empty() ? 0 : mesh->device_count());
  if (name == "empty") return Value::boolean(axes.empty());
  if (name == "abstract_mesh") return Value(std::make_shared<AbstractMeshObject>(axes.empty() ? nullptr : mesh));
  return std::nullopt;
}

// Mesh.update / AbstractMesh.update: the same mesh with the given axis
// sizes, names or types (None keeps them); update_axis_types: the axes a
// dict names switched to its types.
namespace {

typecheck::MeshRef updated_mesh(Evaluator& evaluator, const typecheck::MeshRef& mesh, const Value& sizes,
                                const Value& names, const Value& types) {
  std::vector<typecheck::MeshAxis> axes = mesh ? mesh->axes() : std::vector<typecheck::MeshAxis>{};
  auto each = [&](const Value& given, const char* what, auto&& set) {
    if (given.is_none()) return;
    std::vector<Value> items = given.as<AxisTypeObject>() ? std::vector<Value>{given} : evaluator.to_vector(given);
    if (items.size() != axes.size())
      raise(exc::ValueError(), std::string(what) + " must have " + std::to_string(axes.size()) + " entries, got " +
                                   std::to_string(items.size()));
    for (std::size_t i = 0; i < axes.size(); ++i) set(axes[i], items[i]);
  };
  each(sizes, "axis_sizes", [&](auto& axis, const Value& v) { axis.size = evaluator.index_of(v); });
  each(names, "axis_names", [&](auto& axis, const Value& v) {
    const std::string* name = string_of(v);
    if (!name) raise(exc::TypeError(), "axis names must be strings");
    axis.name = *name;
  });
  each(types, "axis_types", [&](auto& axis, const Value& v) {
    auto* t = v.as<AxisTypeObject>();
    if (!t) raise(exc::TypeError(), "axis_types must be AxisType values");
    axis.type = t->axis_type;
  });
  return checked(typecheck::AbstractMesh::make(std::move(axes), mesh ? mesh->abstract_device() : std::nullopt));
}

typecheck::MeshRef mesh_with_axis_types(Evaluator& evaluator, const typecheck::MeshRef& mesh, const Value& name_to_type) {
  auto* table = name_to_type.as<DictObject>();
  if (!table) raise(exc::TypeError(), "update_axis_types takes a dict from axis names to AxisType values");
  typecheck::MeshRef out = mesh;
  for (const auto& entry : table->table.entries()) {
    if (!entry.live) continue;
    auto* t = entry.value.as<AxisTypeObject>();
    const std::string* name = string_of(entry.key);
    if (!t || !name) raise(exc::TypeError(), "update_axis_types takes a dict from axis names to AxisType values");
    if (!out || !out->find(*name)) raise(exc::ValueError(), "axis name " + *name + " is not in the mesh");
    out = out->with_axis_types({*name}, t->axis_type);
  }
  return out;
}

}  // namespace

std::optional<Value> MeshObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "update")
    return Value(native("update(axis_names=None, axis_types=None)", [mesh = mesh](Evaluator& ev, Arguments& a) {
      auto updated = std::make_shared<DeviceMesh>(*mesh);
      updated->abstract = updated_mesh(ev, mesh->abstract, Value::none(), a[0], a[1]);
      return Value(std::make_shared<MeshObject>(updated));
    }));
  if (name == "devices") return Value(std::make_shared<DeviceArrayObject>(mesh->shape, mesh->devices));
  if (name == "size") return Value::integer(static_cast<std::int64_t>(mesh->devices.size()));
  if (auto found = mesh_attribute(mesh->abstract, name)) return found;
  return Object::get_attribute(evaluator, name);
}

bool MeshObject::equals(const Value& other) const {
  auto* m = other.as<MeshObject>();
  return m && m->mesh->same_devices(*mesh) && m->mesh->shape == mesh->shape &&
         *m->mesh->abstract == *mesh->abstract;
}

std::optional<Value> MeshObject::enter(Evaluator& evaluator) {
  Runtime& rt = runtime_of(evaluator);
  saved_context.push_back(rt.context_mesh);
  saved_context.push_back(rt.concrete_mesh);
  rt.context_mesh = std::static_pointer_cast<MeshObject>(self());
  rt.concrete_mesh = rt.context_mesh;
  return Value(self());
}

bool MeshObject::exit(Evaluator& evaluator, const Value*) {
  if (saved_context.size() >= 2) {
    runtime_of(evaluator).concrete_mesh = saved_context.back();
    saved_context.pop_back();
    runtime_of(evaluator).context_mesh = saved_context.back();
    saved_context.pop_back();
  }
  return false;
}

// ------------------------------------------------------------ AbstractMesh

const TypeRef& AbstractMeshObject::type() const {
  static const TypeRef type = make_type("AbstractMesh");
  return type;
}

std::optional<Value> AbstractMeshObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "abstract_device") {
    if (!mesh || !mesh->abstract_device()) return Value::none();
    return Value(std::make_shared<AbstractDeviceObject>(*mesh->abstract_device()));
  }
  if (name == "update")
    return Value(native("update(axis_sizes=None, axis_names=None, axis_types=None)", [mesh = mesh](Evaluator& ev, Arguments& a) {
      return Value(std::make_shared<AbstractMeshObject>(updated_mesh(ev, mesh, a[0], a[1], a[2])));
    }));
  if (name == "update_axis_types")
    return Value(native("update_axis_types(name_to_type)", [mesh = mesh](Evaluator& ev, Arguments& a) {
      return Value(std::make_shared<AbstractMeshObject>(mesh_with_axis_types(ev, mesh, a[0])));
    }));
  for (const char* missing : {"devices", "device_ids", "is_multi_process", "local_devices", "local_mesh"})
    if (name == missing) raise(exc::ValueError(), "AbstractMesh does not implement " + name);
  if (auto found = mesh_attribute(mesh, name)) return found;
  return Object::get_attribute(evaluator, name);
}

bool AbstractMeshObject::equals(const Value& other) const {
  auto* m = other.as<AbstractMeshObject>();
  return m && typecheck::same_mesh(m->mesh, mesh);
}

std::optional<Value> AbstractMeshObject::compare(Evaluator&, lang::ast::CompareOperator op, const Value& other, bool) {
  using Op = lang::ast::CompareOperator;
  if (op == Op::eq) return Value::boolean(equals(other));
  if (op == Op::not_eq_) return Value::boolean(!equals(other));
  return std::nullopt;
}

std::optional<Value> AbstractMeshObject::enter(Evaluator&) {
  raise(exc::ValueError(), "AbstractMesh does not implement __enter__");
}

const TypeRef& AbstractDeviceObject::type() const {
  static const TypeRef type = make_type("AbstractDevice");
  return type;
}

std::optional<Value> AbstractDeviceObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "device_kind") return make_str(device.device_kind);
  if (name == "platform") return make_str(device.platform);
  if (name == "num_cores") return device.num_cores ? Value::integer(*device.num_cores) : Value::none();
  return Object::get_attribute(evaluator, name);
}

bool AbstractDeviceObject::equals(const Value& other) const {
  auto* d = other.as<AbstractDeviceObject>();
  return d && d->device == device;
}

// ------------------------------------------------------------ PartitionSpec

const TypeRef& PartitionSpecObject::type() const {
  static const TypeRef type = make_type("PartitionSpec");
  return type;
}

namespace {
Value entry_value(const typecheck::SpecEntry& entry) {
  if (entry.empty()) return Value::none();
  if (entry.size() == 1) return make_str(entry[0]);
  std::vector<Value> names;
  for (const auto& n : entry) names.push_back(make_str(n));
  return make_tuple(std::move(names));
}
}  // namespace

std::optional<Value> PartitionSpecObject::get_item(Evaluator& evaluator, const Value& key) {
  std::vector<Value> items;
  for (const auto& e : spec.partitions()) items.push_back(entry_value(e));
  return make_tuple(std::move(items)).object()->get_item(evaluator, key);
}

IteratorRef PartitionSpecObject::iterate(Evaluator&) {
  std::vector<Value> items;
  for (const auto& e : spec.partitions()) items.push_back(entry_value(e));
  return std::make_shared<ListIterator>(std::move(items), types::list_iterator());
}

namespace {
Value axis_set_value(const typecheck::AxisSet& axes) {
  auto out = make_set();
  for (const auto& axis : axes) out->table.insert(make_str(axis), Value());
  return Value(out);
}
}  // namespace

std::optional<Value> PartitionSpecObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "unreduced") return axis_set_value(spec.unreduced());
  if (name == "reduced") return axis_set_value(spec.reduced());
  return Object::get_attribute(evaluator, name);
}

bool PartitionSpecObject::equals(const Value& other) const {
  auto* p = other.as<PartitionSpecObject>();
  return p && p->spec == spec;
}

std::optional<Value> PartitionSpecObject::compare(Evaluator&, lang::ast::CompareOperator op, const Value& other,
                                                  bool) {
  using Op = lang::ast::CompareOperator;
  if (op == Op::eq) return Value::boolean(equals(other));
  if (op == Op::not_eq_) return Value::boolean(!equals(other));
  return std::nullopt;
}

// ------------------------------------------------------------ NamedSharding

const TypeRef& AbstractNamedShardingObject::type() const {
  static const TypeRef type = make_type("NamedSharding");
  return type;
}

std::string AbstractNamedShardingObject::repr(Evaluator&) const {
  return "NamedSharding(mesh=" + typecheck::mesh_repr(mesh) + ", spec=" + spec.repr() + ")";
}

std::optional<Value> AbstractNamedShardingObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "mesh") return Value(std::make_shared<AbstractMeshObject>(mesh));
  if (name == "spec") return Value(std::make_shared<PartitionSpecObject>(spec));
  if (name == "memory_kind") return Value::none();
  return Object::get_attribute(evaluator, name);
}

bool AbstractNamedShardingObject::equals(const Value& other) const {
  auto* n = other.as<AbstractNamedShardingObject>();
  return n && typecheck::same_mesh(n->mesh, mesh) && n->spec == spec;
}

std::optional<Value> AbstractNamedShardingObject::compare(Evaluator&, lang::ast::CompareOperator op,
                                                          const Value& other, bool) {
  using Op = lang::ast::CompareOperator;
  if (op == Op::eq) return Value::boolean(equals(other));
  if (op == Op::not_eq_) return Value::boolean(!equals(other));
  return std::nullopt;
}

const TypeRef& NamedShardingObject::type() const {
  static const TypeRef type = make_type("NamedSharding");
  return type;
}

std::string NamedShardingObject::repr(Evaluator& evaluator) const {
  MeshObject mesh_object(mesh);
  return "NamedSharding(mesh=" + mesh_object.str(evaluator) + ", spec=" + spec.repr() + ", memory_kind=device)";
}

std::optional<Value> NamedShardingObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "mesh") return Value(std::make_shared<MeshObject>(mesh));
  if (name == "spec") return Value(std::make_shared<PartitionSpecObject>(spec));
  if (name == "device_set") {
    auto s = make_set();
    for (const auto& d : mesh->devices) s->table.insert(Value(std::make_shared<DeviceObject>(d)), Value());
    return Value(s);
  }
  if (name == "num_devices") return Value::integer(static_cast<std::int64_t>(mesh->devices.size()));
  if (name == "shard_shape")
    return Value(native("shard_shape(global_shape)", [mesh = mesh, spec = spec](Evaluator& ev, Arguments& a) {
      typecheck::Shape global;
      for (const Value& d : ev.to_vector(a[0])) global.push_back(ev.index_of(d));
      Layout layout = checked(make_layout(mesh, spec, global));
      std::vector<Value> local;
      for (auto d : layout.shard_shape(global)) local.push_back(Value::integer(d));
      return make_tuple(std::move(local));
    }));
  if (name == "is_fully_replicated") {
    bool replicated = std::all_of(spec.partitions().begin(), spec.partitions().end(),
                                  [](const auto& e) { return e.empty(); });
    // Unreduced devices hold parts of a sum, not copies of one value.
    return Value::boolean(replicated && spec.unreduced().empty());
  }
  return Object::get_attribute(evaluator, name);
}

bool NamedShardingObject::equals(const Value& other) const {
  auto* n = other.as<NamedShardingObject>();
  if (!n) return false;
  // Trailing Nones do not change a sharding.
  auto trimmed = [](std::vector<typecheck::SpecEntry> p) {
    while (!p.empty() && p.back().empty()) p.pop_back();
    return p;
  };
  return n->mesh->same_devices(*mesh) && n->mesh->shape == mesh->shape &&
         *n->mesh->abstract == *mesh->abstract && trimmed(n->spec.partitions()) == trimmed(spec.partitions()) &&
         n->spec.unreduced() == spec.unreduced() && n->spec.reduced() == spec.reduced();
}

std::optional<Value> NamedShardingObject::compare(Evaluator&, lang::ast::CompareOperator op, const Value& other,
                                                  bool) {
  using Op = lang::ast::CompareOperator;
  if (op == Op::eq) return Value::boolean(equals(other));
  if (op == Op::not_eq_) return Value::boolean(!equals(other));
  return std::nullopt;
}

// ------------------------------------------------------------ PositionalSharding

const TypeRef& PositionalShardingObject::type() const {
  static const TypeRef type = make_type("PositionalSharding");
  return type;
}

std::vector<std::size_t> PositionalShardingObject::shown_axes() const {
  std::vector<std::size_t> order = axis_order;
  if (order.empty())
    for (std::size_t i = 0; i < device_shape.size(); ++i) order.push_back(i);
  std::erase_if(order, [this](std::size_t i) { return dropped[i]; });
  return order;
}

namespace {

// The devices of a sharding without replicated axes, row-major over its shown
// axes (what reshape reads after T).
std::vector<devices::Device> devices_in_shown_order(const PositionalShardingObject& sharding) {
  std::vector<std::size_t> shown = sharding.shown_axes();
  const auto& shape = sharding.device_shape;
  std::vector<devices::Device> out(sharding.devices.size());
  for (std::size_t position = 0; position < sharding.devices.size(); ++position) {
    std::size_t rest = position;
    std::vector<std::size_t> coords(shape.size());
    for (std::size_t i = shape.size(); i-- > 0;) {
      coords[i] = rest % static_cast<std::size_t>(shape[i]);
      rest /= static_cast<std::size_t>(shape[i]);
    }
    std::size_t target = 0;
    for (std::size_t i : shown) target = target * static_cast<std::size_t>(shape[i]) + coords[i];
    out[target] = sharding.devices[position];
  }
  return out;
}

}  // namespace

std::vector<int> PositionalShardingObject::shape() const {
  std::vector<int> out;
  for (std::size_t i : shown_axes()) out.push_back(collapsed[i] ? 1 : device_shape[i]);
  return out;
}

Layout PositionalShardingObject::layout() const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < device_shape.size(); ++i) names.push_back("_positional_" + std::to_string(i));
  auto mesh = make_device_mesh(device_shape, devices, names,
                               std::vector<typecheck::AxisType>(device_shape.size(), typecheck::AxisType::Auto));
  Layout layout{mesh, {}};
  for (std::size_t i : shown_axes())
    layout.dims.push_back(collapsed[i] ? typecheck::SpecEntry{} : typecheck::SpecEntry{names[i]});
  return layout;
}

std::string PositionalShardingObject::repr(Evaluator&) const {
  // Each visible element is the set of devices that holds it, ids sorted.
  std::vector<int> visible = shape();
  std::vector<std::size_t> kept = shown_axes();
  std::vector<std::vector<int>> sets(static_cast<std::size_t>(product(visible)));
  for (std::size_t position = 0; position < devices.size(); ++position) {
    std::size_t rest = position;
    std::vector<int> coords(device_shape.size());
    for (std::size_t i = device_shape.size(); i-- > 0;) {
      coords[i] = static_cast<int>(rest % static_cast<std::size_t>(device_shape[i]));
      rest /= static_cast<std::size_t>(device_shape[i]);
    }
    std::size_t index = 0;
    for (std::size_t k = 0; k < kept.size(); ++k)
      index = index * static_cast<std::size_t>(visible[k]) + (collapsed[kept[k]] ? 0 : static_cast<std::size_t>(coords[kept[k]]));
    sets[index].push_back(devices[position].id);
  }
  std::string platform = devices.empty() ? "" : std::string(devices::platform_display_name(devices[0].platform));
  std::vector<std::string> items;
  for (auto& s : sets) {
    std::sort(s.begin(), s.end());
    std::string text = "{" + platform + " ";
    for (std::size_t i = 0; i < s.size(); ++i) text += (i ? ", " : "") + std::to_string(s[i]);
    items.push_back(text + "}");
  }
  return "PositionalSharding(" + object_array_text(items, visible, 19, 100) + ", shape=" + devices::python_tuple(visible) + ")";
}

std::optional<Value> PositionalShardingObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  auto self_ref = std::static_pointer_cast<PositionalShardingObject>(self());
  if (name == "shape") return shape_tuple(shape());
  if (name == "ndim") return Value::integer(static_cast<std::int64_t>(shape().size()));
  if (name == "device_set") {
    auto s = make_set();
    for (const auto& d : devices) s->table.insert(Value(std::make_shared<DeviceObject>(d)), Value());
    return Value(s);
  }
  if (name == "T") {
    // Reverses the shown axes; the devices keep their order, as in JAX.
    auto t = std::make_shared<PositionalShardingObject>(*this);
    if (t->axis_order.empty())
      for (std::size_t i = 0; i < device_shape.size(); ++i) t->axis_order.push_back(i);
    std::reverse(t->axis_order.begin(), t->axis_order.end());
    return Value(t);
  }
  if (name == "reshape")
    return Value(native("reshape(*shape)", [self_ref](Evaluator& ev, Arguments& a) {
      bool plain = std::none_of(self_ref->collapsed.begin(), self_ref->collapsed.end(), [](bool b) { return b; }) &&
                   std::none_of(self_ref->dropped.begin(), self_ref->dropped.end(), [](bool b) { return b; });
      if (!plain) raise(exc::NotImplementedError(), "reshape of a replicated PositionalSharding");
      auto r = std::make_shared<PositionalShardingObject>();
      r->device_shape = reshaped(shape_arguments(ev, a, 0), static_cast<std::int64_t>(self_ref->devices.size()));
      r->devices = devices_in_shown_order(*self_ref);
      r->collapsed.assign(r->device_shape.size(), false);
      r->dropped.assign(r->device_shape.size(), false);
      return Value(r);
    }));
  if (name == "replicate")
    return Value(native("replicate(axis=None, keepdims=True)", [self_ref](Evaluator& ev, Arguments& a) {
      auto r = std::make_shared<PositionalShardingObject>(*self_ref);
      std::vector<std::size_t> kept = r->shown_axes();
      bool keepdims = ev.truthy(a[1]);
      auto apply = [&](std::size_t i) {
        r->collapsed[i] = true;
        if (!keepdims) r->dropped[i] = true;
      };
      if (a[0].is_none()) {
        for (std::size_t i : kept) apply(i);
      } else {
        std::int64_t axis = ev.index_of(a[0]);
        auto n = static_cast<std::int64_t>(kept.size());
        if (axis < 0) axis += n;
        if (axis < 0 || axis >= n)
          raise(exc::ValueError(), "axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                                       std::to_string(n));
        apply(kept[static_cast<std::size_t>(axis)]);
      }
      return Value(r);
    }));
  return Object::get_attribute(evaluator, name);
}

}  // namespace interp
