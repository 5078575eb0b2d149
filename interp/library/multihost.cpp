// jax's members for programs over several processes (multihost.hpp).
#include "interp/library/multihost.hpp"

#include <cstring>
#include <map>

#include "interp/library/tree_module.hpp"
#include "interp/python/builtins.hpp"
#include "typecheck/rule_support.hpp"

namespace interp {

namespace {

// Each process's `mine`, in process order; every process of the run calls
// it at the same point of the program.
std::vector<std::vector<std::byte>> gather_from_processes(Runtime& runtime, std::span<const std::byte> mine) {
  const devices::Processes& processes = runtime.processes();
  if (processes.count() == 1) return {std::vector<std::byte>(mine.begin(), mine.end())};
  devices::Transport& transport = processes.transport();
  transport.begin_operation();
  std::vector<int> everyone;
  for (int p = 0; p < processes.count(); ++p) everyone.push_back(p);
  std::vector<std::uint64_t> sizes(everyone.size());
  sizes[static_cast<std::size_t>(processes.index())] = mine.size();
  transport.all_gather(std::as_writable_bytes(std::span(sizes)),
                       std::vector<std::size_t>(everyone.size(), sizeof(std::uint64_t)), everyone);
  std::vector<std::size_t> counts(sizes.begin(), sizes.end());
  std::size_t total = 0, offset = 0;
  for (std::size_t p = 0; p < counts.size(); ++p) {
    if (static_cast<int>(p) < processes.index()) offset += counts[p];
    total += counts[p];
  }
  std::vector<std::byte> whole(total);
  std::copy(mine.begin(), mine.end(), whole.begin() + static_cast<std::ptrdiff_t>(offset));
  transport.all_gather(whole, counts, everyone);
  std::vector<std::vector<std::byte>> parts;
  offset = 0;
  for (std::size_t count : counts) {
    parts.emplace_back(whole.begin() + static_cast<std::ptrdiff_t>(offset),
                       whole.begin() + static_cast<std::ptrdiff_t>(offset + count));
    offset += count;
  }
  return parts;
}

std::vector<std::byte> bytes_of(const std::string& text) {
  std::vector<std::byte> out(text.size());
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

std::string text_of(const std::vector<std::byte>& bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

Value device_list(Evaluator& evaluator, int process) {
  Runtime& runtime = runtime_of(evaluator);
  std::vector<Value> out;
  for (const auto& device : runtime.devices())
    if (runtime.ledger()->holder(device.id) == process) out.push_back(Value(std::make_shared<DeviceObject>(device)));
  return make_list(std::move(out));
}

// jax.Shard: one device's part of an array.
class ShardObject : public Object {
 public:
  ShardObject(devices::Device device, Value index, std::int64_t replica_id, ArrayRef data)
      : device(std::move(device)), index(std::move(index)), replica_id(replica_id), data(std::move(data)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("Shard");
    return type;
  }
  std::string repr(Evaluator& evaluator) const override {
    return "Shard(device=" + devices::device_repr(device) + ", index=" + evaluator.repr(index) +
           ", replica_id=" + std::to_string(replica_id) + ", data=" + data->str(evaluator) + ")";
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "device") return Value(std::make_shared<DeviceObject>(device));
    if (name == "index") return index;
    if (name == "replica_id") return Value::integer(replica_id);
    if (name == "data") return Value(data);
    return Object::get_attribute(evaluator, name);
  }
  devices::Device device;
  Value index;
  std::int64_t replica_id;
  ArrayRef data;
};

// What one process contributes to process_allgather: the array's value
// here, with a leading process axis unless `tiled` concatenates along the
// first one.
Value allgather_leaf(Evaluator& evaluator, const Value& leaf, bool tiled) {
  ArrayRef array = to_array(evaluator, leaf);
  devices::LocalArray value = global_value(evaluator, *array);
  typecheck::ArrayType aval = array->aval;
  aval.weak_type = false;
  aval.sharding = typecheck::Sharding::replicated(nullptr, aval.ndim());
  if (!is_fully_addressable(evaluator, *array)) return Value(host_array(evaluator, aval, [&]() { return value; }));
  Runtime& runtime = runtime_of(evaluator);
  std::string signature = std::string(typecheck::long_name(aval.dtype)) + typecheck::ints_tuple_repr(aval.shape);
  auto signatures = gather_from_processes(runtime, bytes_of(signature));
  for (const auto& other : signatures)
    if (text_of(other) != signature)
      raise(exc::ValueError(), "process_allgather needs the same shape and dtype on every process; got " +
                                   text_of(signatures.front()) + " and " + text_of(other));
  auto parts = gather_from_processes(runtime, value.buffer->bytes());
  std::int64_t processes = static_cast<std::int64_t>(parts.size());
  if (tiled && !aval.shape.empty()) aval.shape[0] *= processes;
  else aval.shape.insert(aval.shape.begin(), processes);
  aval.sharding = typecheck::Sharding::replicated(nullptr, aval.ndim());
  return Value(host_array(evaluator, aval, [&]() {
    auto made = devices::make_local_array(runtime.ledger(), aval.dtype, aval.shape);
    if (!made) raise_devices_error(made.error());
    std::byte* out = made->buffer->bytes().data();
    for (const auto& part : parts) out = std::copy(part.begin(), part.end(), out);
    return *made;
  }));
}

}  // namespace

bool is_fully_addressable(Evaluator& evaluator, const ArrayObject& array) {
  Runtime& runtime = runtime_of(evaluator);
  for (std::size_t p = 0; p < array.layout.position_count(); ++p)
    if (!runtime.holds(*array.layout.mesh, p)) return false;
  return true;
}

Value addressable_shards(Evaluator& evaluator, const ArrayRef& array) {
  Runtime& runtime = runtime_of(evaluator);
  const Layout& layout = array->layout;
  typecheck::Shape block = layout.shard_shape(array->aval.shape);
  std::map<std::vector<std::int64_t>, std::int64_t> replicas;  // of each block so far
  std::vector<Value> shards;
  for (std::size_t p = 0; p < layout.position_count(); ++p) {
    std::vector<std::int64_t> origin;
    std::vector<Value> index;
    for (std::size_t d = 0; d < block.size(); ++d) {
      std::int64_t start = layout.block_index(d, static_cast<int>(p)) * block[d];
      origin.push_back(start);
      bool whole = block[d] == array->aval.shape[d];
      index.push_back(Value(std::make_shared<SliceObject>(whole ? Value() : Value::integer(start),
                                                          whole ? Value() : Value::integer(start + block[d]), Value())));
    }
    std::int64_t replica_id = replicas[origin]++;
    if (!runtime.holds(*layout.mesh, p) || array->abstract()) continue;
    const devices::Device& device = layout.mesh->devices[p];
    typecheck::ArrayType aval = array->aval;
    aval.shape = block;
    aval.sharding = typecheck::Sharding::replicated(nullptr, block.size());
    ArrayRef data = make_array(evaluator, aval, Layout{runtime.single_device_mesh(device.id), std::vector<typecheck::SpecEntry>(block.size())},
                               {array->shards[p].shared_buffer()}, true);
    shards.push_back(Value(std::make_shared<ShardObject>(device, make_tuple(std::move(index)), replica_id, data)));
  }
  return make_list(std::move(shards));
}

void install_multihost(Evaluator& evaluator) {
  auto jax = evaluator.module("jax");
  jax->add_function("process_count(backend=None)", [](Evaluator& ev, Arguments&) {
    return Value::integer(runtime_of(ev).processes().count());
  });
  jax->add_function("process_index(backend=None)", [](Evaluator& ev, Arguments&) {
    return Value::integer(runtime_of(ev).processes().index());
  });
  jax->add_function("local_devices(process_index=None, backend=None, host_id=None)", [](Evaluator& ev, Arguments& a) {
    const Value& which = a[0].is_none() ? a[2] : a[0];
    return device_list(ev, which.is_none() ? runtime_of(ev).processes().index() : static_cast<int>(ev.index_of(which)));
  });
  jax->add_function("local_device_count(backend=None)", [](Evaluator& ev, Arguments&) {
    Runtime& runtime = runtime_of(ev);
    return Value::integer(static_cast<std::int64_t>(runtime.devices().size()) / runtime.processes().count());
  });

  auto distributed = evaluator.module("jax.distributed");
  // Under mpirun the processes already know each other: initialize checks
  // what it is told against that and otherwise does nothing, as JAX's does
  // when it detects the cluster itself.
  distributed->add_function(
      "initialize(coordinator_address=None, num_processes=None, process_id=None, local_device_ids=None, "
      "cluster_detection_method=None, initialization_timeout=300, coordinator_bind_address=None)",
      [](Evaluator& ev, Arguments& a) {
        Runtime& runtime = runtime_of(ev);
        if (runtime.distributed_initialized) raise(exc::RuntimeError(), "distributed.initialize should only be called once.");
        const devices::Processes& processes = runtime.processes();
        if (!a[1].is_none() && ev.index_of(a[1]) != processes.count())
          raise(exc::ValueError(), "jax.distributed.initialize: num_processes=" + std::to_string(ev.index_of(a[1])) +
                                       " but this run has " + std::to_string(processes.count()) + " processes");
        if (!a[2].is_none() && ev.index_of(a[2]) != processes.index())
          raise(exc::ValueError(), "jax.distributed.initialize: process_id=" + std::to_string(ev.index_of(a[2])) +
                                       " but this is process " + std::to_string(processes.index()));
        runtime.distributed_initialized = true;
        return Value();
      });
  distributed->add_function("shutdown()", [](Evaluator& ev, Arguments&) {
    runtime_of(ev).distributed_initialized = false;
    return Value();
  });
  jax->add("distributed", Value(distributed));

  auto multihost = evaluator.module("jax.experimental.multihost_utils");
  multihost->add_function("process_allgather(in_tree, tiled=False)", [](Evaluator& ev, Arguments& a) {
    TreeDef def;
    std::vector<Value> leaves = tree_flatten(ev, a[0], def);
    for (Value& leaf : leaves) leaf = allgather_leaf(ev, leaf, ev.truthy(a[1]));
    return tree_unflatten(ev, def, leaves);
  });
  multihost->add_function("sync_global_devices(name)", [](Evaluator& ev, Arguments& a) {
    const std::string* name = string_of(a[0]);
    if (!name) raise(exc::TypeError(), "sync_global_devices: name must be a str");
    auto names = gather_from_processes(runtime_of(ev), bytes_of(*name));
    for (const auto& other : names)
      if (text_of(other) != *name)
        raise(exc::AssertionError(), "sync_global_devices name mismatch ('" + *name + "'): process 0 passed '" +
                                         text_of(names.front()) + "'");
    return Value();
  });
  evaluator.module("jax.experimental")->add("multihost_utils", Value(multihost));
}

}  // namespace interp
