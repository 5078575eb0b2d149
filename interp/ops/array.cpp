// Arrays: making them, moving them between layouts, running kernels per
// device (array.hpp). The array methods and operators are in array_methods.cpp.
#include "interp/ops/array.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include <boost/container/small_vector.hpp>

#include "devices/host_values.hpp"
#include "devices/redistribute.hpp"
#include "interp/ops/collectives.hpp"
#include "interp/python/builtins.hpp"

namespace interp {

using typecheck::DType;

[[noreturn]] void raise_devices_error(const devices::Error& error) {
  switch (error.kind) {
    case devices::ErrorKind::host_out_of_memory: raise(exc::MemoryError(), error.message);
    case devices::ErrorKind::not_implemented: raise(exc::NotImplementedError(), error.message);
    case devices::ErrorKind::resource_exhausted: raise(exc::RuntimeError(), error.message);
    case devices::ErrorKind::invalid_argument: break;
  }
  raise(exc::ValueError(), error.message);
}

Layout default_layout(Evaluator& evaluator, std::size_t ndim) {
  Layout layout{runtime_of(evaluator).single_device_mesh(0), {}};
  layout.dims.resize(ndim);
  return layout;
}

namespace {

// Gives `array` (laid out, without shards) its per-position shards, placed
// on the devices of its layout.
void place_shards(Evaluator& evaluator, ArrayObject& array, std::vector<std::shared_ptr<devices::Buffer>> shards) {
  Runtime& runtime = runtime_of(evaluator);
  const DeviceMesh& mesh = *array.layout.mesh;
  // One process holds every device (Runtime::holds), asked once per array.
  const bool one_process = runtime.processes().count() == 1;
  array.shards.reserve(shards.size());
  for (std::size_t p = 0; p < shards.size(); ++p) {
    std::shared_ptr<devices::Buffer> shard = std::move(shards[p]);
    if (!one_process && !runtime.holds(mesh, p)) {
      // Another process's: a placeholder of its size.
      if (!shard || !shard->is_remote() || !shard->is_sized()) {
        bool sized = shard && shard->is_sized();
        std::int64_t count = sized ? shard->element_count()
                                   : devices::element_count(array.layout.shard_shape(array.aval.shape));
        shard = devices::Buffer::remote(runtime.ledger(), runtime.holder(mesh, p),
                                        sized ? shard->dtype() : array.aval.dtype, count);
      }
    } else if (!shard || shard->is_remote()) {
      raise(exc::RuntimeError(), "internal error: the shard of " + devices::device_label(mesh.devices[p]) +
                                     " is not on the process that holds the device");
    }
    array.shards.emplace_back(std::move(shard), mesh.devices[p].id);
  }
}

}  // namespace

ArrayRef make_array(Evaluator& evaluator, typecheck::ArrayType aval, Layout layout,
                    std::vector<std::shared_ptr<devices::Buffer>> shards, bool committed) {
  auto array = std::make_shared<ArrayObject>();
  array->aval = std::move(aval);
  array->committed = committed;
  array->layout = std::move(layout);
  place_shards(evaluator, *array, std::move(shards));
  charge_device_memory(evaluator, *array);
  return array;
}

ArrayRef retyped_array(Evaluator& evaluator, const ArrayObject& array, typecheck::ArrayType aval, bool committed) {
  // The same bytes: the new array shares the old one's hold.
  bool same_bytes = shard_bytes(aval, array.layout) == shard_bytes(array.aval, array.layout);
  ArrayRef retyped;
  if (array.abstract()) {
    retyped = make_abstract_array(std::move(aval), array.layout, committed);
  } else {
    retyped = std::make_shared<ArrayObject>();
    retyped->aval = std::move(aval);
    retyped->committed = committed;
    retyped->layout = array.layout;
    for (const auto& shard : array.shards) retyped->shards.emplace_back(shard.shared_buffer(), shard.device_id());
  }
  if (same_bytes && array.memory) {
    array.memory->keep_type();
    retyped->memory = array.memory;
    retyped->memory->array = retyped->weak_from_this();  // jax.live_arrays lists the newest of them
  } else if (retyped->abstract()) {
    charge_if_held(evaluator, *retyped);
  } else {
    charge_device_memory(evaluator, *retyped);
  }
  return retyped;
}

std::vector<std::shared_ptr<devices::Buffer>> buffers_of(const ArrayObject& array) {
  std::vector<std::shared_ptr<devices::Buffer>> out;
  out.reserve(array.shards.size());
  for (const auto& shard : array.shards) out.push_back(shard.shared_buffer());
  return out;
}

bool on_manual_mesh(const ArrayObject& array) {
  const auto& mesh = array.layout.mesh;
  return mesh && mesh->abstract && mesh->abstract->has_axis_of_type(typecheck::AxisType::Manual);
}

ArrayRef block_at(Evaluator& evaluator, const ArrayRef& array, std::size_t position) {
  const Layout& layout = array->layout;
  if (array->abstract() || !layout.fully_replicated() || position >= array->shards.size()) return array;
  typecheck::ArrayType aval = array->aval;
  aval.sharding = typecheck::Sharding::replicated(nullptr, aval.ndim());
  aval.manual = {};
  Layout one{runtime_of(evaluator).single_device_mesh(layout.mesh->devices[position].id),
             std::vector<typecheck::SpecEntry>(aval.ndim())};
  return make_array(evaluator, std::move(aval), std::move(one), {array->shards[position].shared_buffer()}, true);
}

ArrayRef make_abstract_array(typecheck::ArrayType aval, Layout layout, bool committed) {
  auto array = std::make_shared<ArrayObject>();
  array->aval = std::move(aval);
  array->layout = std::move(layout);
  array->committed = committed;
  return array;
}

namespace {

// Where `layout` puts the blocks of an array of `shape`, and which process
// holds each (devices/redistribute.hpp).
devices::Placement placement_of(Evaluator& evaluator, const Layout& layout, const typecheck::Shape& shape) {
  Runtime& runtime = runtime_of(evaluator);
  devices::Placement placement;
  placement.block_shape = layout.shard_shape(shape);
  placement.positions.resize(layout.position_count());
  const std::vector<std::int64_t> origins = layout.block_origins(placement.block_shape);
  for (std::size_t p = 0; p < placement.positions.size(); ++p) {
    devices::Placement::Position& position = placement.positions[p];
    const auto first = origins.begin() + static_cast<long>(p * shape.size());
    position.origin.assign(first, first + static_cast<long>(shape.size()));
    position.process = runtime.holder(*layout.mesh, p);
  }
  return placement;
}

// An unreduced array's placement: its positions along the unreduced axes
// hold different partial sums of the same block, so each coordinate along
// them is a leading dimension of its own (blocks of one element there) and
// a move takes a block only from devices of the same coordinate. `placement`
// itself when the mesh lacks one of the axes.
devices::Placement apart_by(devices::Placement placement, const DeviceMesh& mesh, const typecheck::AxisSet& unreduced) {
  typecheck::AxisList names(unreduced.begin(), unreduced.end());
  std::vector<int> axes = mesh_axes(mesh, names);
  if (axes.size() != names.size()) return placement;
  placement.block_shape.insert(placement.block_shape.begin(), 1);
  for (const auto& group : devices::replica_groups(mesh.shape, axes))
    for (std::size_t k = 0; k < group.size(); ++k) {
      auto& origin = placement.positions[static_cast<std::size_t>(group[k])].origin;
      origin.insert(origin.begin(), static_cast<std::int64_t>(k));
    }
  return placement;
}

bool has_axes(const DeviceMesh& mesh, const typecheck::AxisSet& axes) {
  return std::all_of(axes.begin(), axes.end(), [&](const std::string& axis) { return mesh.abstract->index_of(axis).has_value(); });
}

// The whole array, on every process (a host value).
devices::Placement whole_everywhere(const typecheck::Shape& shape) {
  return {shape, {{std::vector<std::int64_t>(shape.size(), 0), devices::every_process}}};
}

// A shard_map body's array holds each position's own values under a whole
// layout: the first position's are the array's, as one process reads them.
devices::Replicas replicas_of(const ArrayObject& array) {
  return is_manual(array) ? devices::Replicas::first : devices::Replicas::equal;
}

// Every position holding the whole array `source` on a run of one
// process: each shares it, as redistribute shares a block that a source
// block already is, without planning the move (a Python scalar an
// operation puts on its operands' devices takes this way).
std::optional<std::vector<std::shared_ptr<devices::Buffer>>> shared_whole(Evaluator& evaluator,
                                                                          const std::shared_ptr<devices::Buffer>& source,
                                                                          const Layout& target) {
  if (runtime_of(evaluator).processes().count() != 1 || !target.fully_replicated()) return std::nullopt;
  return std::vector<std::shared_ptr<devices::Buffer>>(target.position_count(), source);
}

// Slices `global` (a host value every process has) into the shards of `layout`.
std::vector<std::shared_ptr<devices::Buffer>> split_global(Evaluator& evaluator, const devices::LocalArray& global,
                                                           const Layout& layout, const typecheck::Shape& shape) {
  if (auto shared = shared_whole(evaluator, global.buffer, layout)) return std::move(*shared);
  return value_or_raise(devices::redistribute({global.buffer}, whole_everywhere(shape),
                                              placement_of(evaluator, layout, shape), global.dtype(),
                                              runtime_of(evaluator).ledger()));
}

}  // namespace

ArrayRef array_from_global(Evaluator& evaluator, const devices::LocalArray& global, typecheck::ArrayType aval,
                           Layout layout, bool committed) {
  if (evaluator.mode == Evaluator::Mode::check) {
    ArrayRef array = make_abstract_array(std::move(aval), std::move(layout), committed);
    charge_if_held(evaluator, *array);
    return array;
  }
  auto shards = split_global(evaluator, global, layout, aval.shape);
  return make_array(evaluator, std::move(aval), std::move(layout), std::move(shards), committed);
}

ArrayRef host_array(Evaluator& evaluator, const typecheck::ArrayType& aval,
                    const std::function<devices::LocalArray()>& global) {
  Layout layout = default_layout(evaluator, aval.ndim());
  if (evaluator.mode == Evaluator::Mode::check) {
    ArrayRef array = make_abstract_array(aval, std::move(layout), false);
    charge_if_held(evaluator, *array);
    return array;
  }
  // Charged before the host makes the values (a TPU without room fails
  // first), then given them: the array keeps that one charge.
  ArrayRef array = make_abstract_array(aval, std::move(layout), false);
  charge_device_memory(evaluator, *array);
  place_shards(evaluator, *array, split_global(evaluator, global(), array->layout, aval.shape));
  return array;
}

devices::LocalArray global_value(Evaluator& evaluator, const ArrayObject& array) {
  const typecheck::Shape& shape = array.aval.shape;
  auto whole = value_or_raise(devices::redistribute(buffers_of(array), placement_of(evaluator, array.layout, shape),
                                                    whole_everywhere(shape), array.aval.dtype,
                                                    runtime_of(evaluator).ledger(), replicas_of(array)));
  return {whole.front(), shape};
}

std::vector<double> element_values(Evaluator& evaluator, const ArrayObject& array) {
  return devices::element_values(global_value(evaluator, array));
}

std::vector<std::shared_ptr<devices::Buffer>> run_per_position(
    Evaluator& evaluator, const DeviceMeshRef& mesh, const std::vector<ArrayRef>& inputs,
    const std::function<devices::Expected<devices::LocalArray>(const std::vector<devices::LocalArray>&)>& kernel) {
  return run_per_position(evaluator, mesh, inputs,
                          [&](const std::vector<devices::LocalArray>& locals, std::size_t) { return kernel(locals); });
}

std::vector<std::shared_ptr<devices::Buffer>> run_per_position(
    Evaluator& evaluator, const DeviceMeshRef& mesh, const std::vector<ArrayRef>& inputs,
    const std::function<devices::Expected<devices::LocalArray>(const std::vector<devices::LocalArray>&, std::size_t)>&
        kernel) {
  std::vector<devices::Shape> shapes;
  shapes.reserve(inputs.size());
  for (const auto& in : inputs) shapes.push_back(in->layout.shard_shape(in->aval.shape));
  return run_per_position(evaluator, mesh, inputs, std::move(shapes), kernel);
}

std::vector<std::shared_ptr<devices::Buffer>> run_per_position(
    Evaluator& evaluator, const DeviceMeshRef& mesh, const std::vector<ArrayRef>& inputs,
    std::vector<devices::Shape> shapes,
    const std::function<devices::Expected<devices::LocalArray>(const std::vector<devices::LocalArray>&, std::size_t)>&
        kernel) {
  Runtime& runtime = runtime_of(evaluator);
  const std::size_t positions = mesh->devices.size();
  // Positions whose inputs share every buffer compute once (a linear search
  // of the positions before: meshes are small, and a map's allocations cost
  // more than the comparisons); positions another process holds compute
  // there (no representative).
  constexpr std::size_t elsewhere = SIZE_MAX;
  // Inline for the usual mesh sizes: an eager operation on small arrays is
  // mostly this bookkeeping.
  boost::container::small_vector<std::size_t, 16> representative(positions, elsewhere);
  boost::container::small_vector<std::size_t, 16> unique;
  std::int64_t elements = 0;
  auto same_inputs = [&](std::size_t p, std::size_t q) {
    for (const auto& in : inputs)
      if (&in->shards[p].buffer() != &in->shards[q].buffer()) return false;
    return true;
  };
  const bool one_process = runtime.processes().count() == 1;  // Runtime::holds, asked once
  for (std::size_t p = 0; p < positions; ++p) {
    if (!one_process && !runtime.holds(*mesh, p)) continue;
    auto found = std::find_if(unique.begin(), unique.end(), [&](std::size_t q) { return same_inputs(p, q); });
    representative[p] = found == unique.end() ? p : *found;
    if (found != unique.end()) continue;
    unique.push_back(p);
    for (const auto& in : inputs) elements += in->shards[p].buffer().element_count();
  }
  // Each input's shard as the kernel sees it: its shape is every position's.
  std::vector<devices::LocalArray> template_locals;
  template_locals.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) template_locals.push_back({nullptr, std::move(shapes[i])});
  std::vector<std::shared_ptr<devices::Buffer>> results(positions);
  boost::container::small_vector<std::optional<devices::Error>, 16> errors(unique.size());
  auto run = [&](std::size_t task, std::vector<devices::LocalArray>& locals) {
    std::size_t p = unique[task];
    for (std::size_t i = 0; i < inputs.size(); ++i) locals[i].buffer = inputs[i]->shards[p].shared_buffer();
    auto result = kernel(locals, p);
    if (result) results[p] = std::move(result->buffer);
    else errors[task] = std::move(result.error());
  };
  if (elements < inline_elements) {
    // Little work: waking the pool's threads would cost more than it saves.
    for (std::size_t task = 0; task < unique.size(); ++task) run(task, template_locals);
  } else {
    runtime.pool().run_all(static_cast<int>(unique.size()), [&](int task) {
      std::vector<devices::LocalArray> locals = template_locals;
      run(static_cast<std::size_t>(task), locals);
    });
  }
  for (const auto& e : errors)
    if (e) raise_devices_error(*e);
  // Elsewhere: a placeholder of a result's size when one ran here (every
  // position's result has one shape), else unsized until placed.
  const devices::Buffer* model = unique.empty() ? nullptr : results[unique.front()].get();
  for (std::size_t p = 0; p < positions; ++p) {
    if (representative[p] != elsewhere) {
      if (representative[p] != p) results[p] = results[representative[p]];
      continue;
    }
    int holder = runtime.holder(*mesh, p);
    results[p] = model ? devices::Buffer::remote(runtime.ledger(), holder, model->dtype(), model->element_count())
                       : devices::Buffer::remote_unsized(runtime.ledger(), holder);
  }
  return results;
}

ArrayRef relayout(Evaluator& evaluator, const ArrayRef& array, const Layout& target) {
  if (array->layout == target) return array;
  if (array->abstract()) {
    ArrayRef moved = make_abstract_array(array->aval, target, array->committed);
    charge_if_held(evaluator, *moved);
    return moved;
  }
  if (array->layout.fully_replicated() && array->aval.sharding.unreduced.empty())
    if (auto shared = shared_whole(evaluator, array->shards.front().shared_buffer(), target))
      return make_array(evaluator, array->aval, target, std::move(*shared), array->committed);
  const typecheck::Shape& shape = array->aval.shape;
  devices::Placement from = placement_of(evaluator, array->layout, shape), to = placement_of(evaluator, target, shape);
  if (const auto& unreduced = array->aval.sharding.unreduced;
      !unreduced.empty() && has_axes(*array->layout.mesh, unreduced) && has_axes(*target.mesh, unreduced)) {
    from = apart_by(std::move(from), *array->layout.mesh, unreduced);
    to = apart_by(std::move(to), *target.mesh, unreduced);
  }
  auto shards = value_or_raise(devices::redistribute(buffers_of(*array), from, to, array->aval.dtype,
                                                     runtime_of(evaluator).ledger(), replicas_of(*array)));
  return make_array(evaluator, array->aval, target, std::move(shards), array->committed);
}

std::vector<int> mesh_axes(const DeviceMesh& mesh, const typecheck::AxisList& names) {
  std::vector<int> out;
  for (const auto& name : names)
    if (auto index = mesh.abstract->index_of(name)) out.push_back(static_cast<int>(*index));
  return out;
}

ArrayRef kept_on_first(Evaluator& evaluator, const ArrayRef& array, const typecheck::AxisSet& axes) {
  if (axes.empty() || array->abstract()) return array;
  const DeviceMesh& mesh = *array->layout.mesh;
  auto groups = devices::replica_groups(mesh.shape, mesh_axes(mesh, typecheck::AxisList(axes.begin(), axes.end())));
  auto zeros = devices::full(runtime_of(evaluator).ledger(), array->aval.dtype, array->layout.shard_shape(array->aval.shape), 0.0);
  if (!zeros) raise_devices_error(zeros.error());
  std::vector<std::shared_ptr<devices::Buffer>> shards = buffers_of(*array);
  for (const auto& group : groups)
    for (std::size_t k = 1; k < group.size(); ++k) shards[static_cast<std::size_t>(group[k])] = zeros->buffer;
  return make_array(evaluator, array->aval, array->layout, std::move(shards), array->committed);
}

ArrayRef astype(Evaluator& evaluator, const ArrayRef& array, DType dtype) {
  if (array->aval.dtype == dtype) return array;
  typecheck::ArrayType aval = array->aval;
  aval.dtype = dtype;
  aval.weak_type = false;
  if (array->abstract()) {
    ArrayRef converted = make_abstract_array(aval, array->layout, array->committed);
    charge_if_held(evaluator, *converted);
    return converted;
  }
  const auto& shards = array->shards;
  if (runtime_of(evaluator).processes().count() == 1 &&
      std::all_of(shards.begin(), shards.end(), [&](const auto& s) { return s.shares_storage_with(shards.front()); })) {
    // Every device holds the one buffer (a scalar put on a mesh): converted
    // once, as run_per_position would, without its bookkeeping.
    std::shared_ptr<devices::Buffer> converted = value_or_raise(devices::convert(array->local(0), dtype)).buffer;
    return make_array(evaluator, std::move(aval), array->layout,
                      std::vector<std::shared_ptr<devices::Buffer>>(shards.size(), converted), array->committed);
  }
  auto converted = run_per_position(evaluator, array->layout.mesh, {array}, [dtype](const std::vector<devices::LocalArray>& in) {
    return devices::convert(in[0], dtype);
  });
  return make_array(evaluator, std::move(aval), array->layout, std::move(converted), array->committed);
}

}  // namespace interp
