// Arrays: making them, moving them between layouts, running kernels per
// device (array.hpp). The array methods and operators are in array_methods.cpp.
#include "interp/ops/array.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "devices/collectives.hpp"
#include "devices/host_values.hpp"
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

namespace {
template <class T>
T value_or_raise(devices::Expected<T> result) {
  if (!result) raise_devices_error(result.error());
  return std::move(*result);
}
}  // namespace

Layout default_layout(Evaluator& evaluator, std::size_t ndim) {
  Layout layout{runtime_of(evaluator).single_device_mesh(0), {}};
  layout.dims.resize(ndim);
  return layout;
}

ArrayRef make_array(Evaluator& evaluator, typecheck::ArrayType aval, Layout layout,
                    std::vector<std::shared_ptr<devices::Buffer>> shards, bool committed) {
  auto array = std::make_shared<ArrayObject>();
  array->aval = std::move(aval);
  array->committed = committed;
  for (std::size_t p = 0; p < shards.size(); ++p) {
    auto placed = devices::DeviceBuffer::place(shards[p], layout.mesh->devices[p].id);
    if (!placed) raise_devices_error(placed.error());
    array->shards.push_back(std::move(*placed));
  }
  array->layout = std::move(layout);
  (void)evaluator;
  return array;
}

ArrayRef retyped_array(Evaluator& evaluator, const ArrayObject& array, typecheck::ArrayType aval, bool committed) {
  if (array.abstract()) return make_abstract_array(std::move(aval), array.layout, committed);
  std::vector<std::shared_ptr<devices::Buffer>> shards;
  for (const auto& shard : array.shards) shards.push_back(shard.shared_buffer());
  return make_array(evaluator, std::move(aval), array.layout, std::move(shards), committed);
}

ArrayRef make_abstract_array(typecheck::ArrayType aval, Layout layout, bool committed) {
  auto array = std::make_shared<ArrayObject>();
  array->aval = std::move(aval);
  array->layout = std::move(layout);
  array->committed = committed;
  return array;
}

namespace {

// The block coordinates (one per dimension) position p holds.
std::vector<std::int64_t> block_of(const Layout& layout, int position) {
  std::vector<std::int64_t> block(layout.dims.size());
  for (std::size_t d = 0; d < block.size(); ++d) block[d] = layout.block_index(d, position);
  return block;
}

// Where a block of extents `local` starting at `start` lies in a row-major
// array of `shape`, when its elements are consecutive there: the offset of
// its first element. They are when, past its first axis of extent > 1, the
// block spans every axis whole.
std::optional<std::int64_t> contiguous_offset(const typecheck::Shape& shape, const typecheck::Shape& local,
                                              const std::vector<std::int64_t>& start) {
  std::size_t first = 0;
  while (first < shape.size() && local[first] == 1) ++first;
  for (std::size_t d = first + 1; d < shape.size(); ++d)
    if (local[d] != shape[d]) return std::nullopt;
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) offset = offset * shape[d] + start[d];
  return offset;
}

// Slices `global` into the shards of `layout`, one per distinct block. A
// block whose elements are consecutive in `global` (and start 64-byte
// aligned, as the kernels' buffers do) is a view of its bytes, not a copy:
// device_put of a host array onto a mesh holds no second copy of it.
std::vector<std::shared_ptr<devices::Buffer>> split_global(const devices::LocalArray& global, const Layout& layout,
                                                           const typecheck::Shape& shape) {
  if (layout.fully_replicated()) return std::vector<std::shared_ptr<devices::Buffer>>(layout.position_count(), global.buffer);
  typecheck::Shape local = layout.shard_shape(shape);
  std::map<std::vector<std::int64_t>, std::shared_ptr<devices::Buffer>> by_block;
  std::vector<std::shared_ptr<devices::Buffer>> shards;
  const std::int64_t element_size = typecheck::byte_size(global.dtype());
  for (std::size_t p = 0; p < layout.position_count(); ++p) {
    auto block = block_of(layout, static_cast<int>(p));
    auto& slot = by_block[block];
    if (!slot) {
      std::vector<std::int64_t> start(shape.size()), limit(shape.size());
      for (std::size_t d = 0; d < shape.size(); ++d) {
        start[d] = block[d] * local[d];
        limit[d] = start[d] + local[d];
      }
      std::optional<std::int64_t> offset = contiguous_offset(shape, local, start);
      if (offset && *offset * element_size % 64 == 0)
        slot = value_or_raise(devices::Buffer::view(global.buffer, *offset, devices::element_count(local)));
      else
        slot = value_or_raise(devices::slice(global, start, limit)).buffer;
    }
    shards.push_back(slot);
  }
  return shards;
}

}  // namespace

ArrayRef array_from_global(Evaluator& evaluator, const devices::LocalArray& global, typecheck::ArrayType aval,
                           Layout layout, bool committed) {
  if (evaluator.mode == Evaluator::Mode::check) return make_abstract_array(std::move(aval), std::move(layout), committed);
  auto shards = split_global(global, layout, aval.shape);
  return make_array(evaluator, std::move(aval), std::move(layout), std::move(shards), committed);
}

ArrayRef host_array(Evaluator& evaluator, const typecheck::ArrayType& aval,
                    const std::function<devices::LocalArray()>& global) {
  Layout layout = default_layout(evaluator, aval.ndim());
  if (evaluator.mode == Evaluator::Mode::check) return make_abstract_array(aval, std::move(layout), false);
  return array_from_global(evaluator, global(), aval, std::move(layout), false);
}

devices::LocalArray global_value(Evaluator& evaluator, const ArrayObject& array) {
  (void)evaluator;
  const Layout& layout = array.layout;
  if (layout.fully_replicated()) return array.local(0);
  // One shard per block, then concatenated along each dimension, last first.
  std::size_t ndim = array.aval.ndim();
  std::vector<std::int64_t> counts(ndim);
  for (std::size_t d = 0; d < ndim; ++d) counts[d] = layout.block_count(d);
  std::map<std::vector<std::int64_t>, devices::LocalArray> blocks;
  for (std::size_t p = 0; p < layout.position_count(); ++p) {
    auto block = block_of(layout, static_cast<int>(p));
    if (!blocks.count(block)) blocks.emplace(block, array.local(p));
  }
  for (std::size_t d = ndim; d-- > 0;) {
    std::map<std::vector<std::int64_t>, devices::LocalArray> merged;
    std::map<std::vector<std::int64_t>, std::vector<devices::LocalArray>> groups;
    for (auto& [block, piece] : blocks) {
      auto key = block;
      key[d] = 0;
      groups[key].push_back(piece);  // map order: block[d] ascending within a key
    }
    for (auto& [key, pieces] : groups)
      merged.emplace(key, pieces.size() == 1 ? pieces[0] : value_or_raise(devices::concatenate(pieces, static_cast<int>(d))));
    blocks = std::move(merged);
  }
  return blocks.begin()->second;
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
  const std::size_t positions = mesh->devices.size();
  // Positions whose inputs share every buffer compute once (a linear search
  // of the positions before: meshes are small, and a map's allocations cost
  // more than the comparisons).
  std::vector<std::size_t> representative(positions);
  std::vector<std::size_t> unique;
  std::int64_t elements = 0;
  auto same_inputs = [&](std::size_t p, std::size_t q) {
    for (const auto& in : inputs)
      if (&in->shards[p].buffer() != &in->shards[q].buffer()) return false;
    return true;
  };
  for (std::size_t p = 0; p < positions; ++p) {
    auto found = std::find_if(unique.begin(), unique.end(), [&](std::size_t q) { return same_inputs(p, q); });
    representative[p] = found == unique.end() ? p : *found;
    if (found != unique.end()) continue;
    unique.push_back(p);
    for (const auto& in : inputs) elements += in->shards[p].buffer().element_count();
  }
  std::vector<std::shared_ptr<devices::Buffer>> results(positions);
  std::vector<std::optional<devices::Error>> errors(unique.size());
  auto run = [&](int task, std::vector<devices::LocalArray>& locals) {
    std::size_t p = unique[static_cast<std::size_t>(task)];
    locals.clear();
    for (const auto& in : inputs) locals.push_back(in->local(p));
    auto result = kernel(locals, p);
    if (result) results[p] = result->buffer;
    else errors[static_cast<std::size_t>(task)] = result.error();
  };
  if (elements < inline_elements) {
    // Little work: waking the pool's threads would cost more than it saves.
    std::vector<devices::LocalArray> locals;
    for (std::size_t task = 0; task < unique.size(); ++task) run(static_cast<int>(task), locals);
  } else {
    runtime_of(evaluator).pool().run_all(static_cast<int>(unique.size()), [&](int task) {
      std::vector<devices::LocalArray> locals;
      run(task, locals);
    });
  }
  for (const auto& e : errors)
    if (e) raise_devices_error(*e);
  for (std::size_t p = 0; p < positions; ++p) results[p] = results[representative[p]];
  return results;
}

namespace {

bool same_mesh(const DeviceMeshRef& a, const DeviceMeshRef& b) {
  return a == b || (a->device_ids() == b->device_ids() && a->shape == b->shape && *a->abstract == *b->abstract);
}

std::vector<int> axis_indices(const DeviceMesh& mesh, const typecheck::SpecEntry& axes) {
  std::vector<int> out;
  for (const auto& a : axes) out.push_back(static_cast<int>(*mesh.abstract->index_of(a)));
  return out;
}

}  // namespace

ArrayRef relayout(Evaluator& evaluator, const ArrayRef& array, const Layout& target) {
  if (array->layout == target) return array;
  if (array->abstract()) return make_abstract_array(array->aval, target, array->committed);
  const typecheck::Shape& shape = array->aval.shape;
  if (!same_mesh(array->layout.mesh, target.mesh)) {
    // Another mesh: through the host.
    auto global = global_value(evaluator, *array);
    return make_array(evaluator, array->aval, target, split_global(global, target, shape), array->committed);
  }
  // Same mesh: all-gather each dimension whose split changes, then slice.
  const DeviceMesh& mesh = *target.mesh;
  Layout current = array->layout;
  devices::Shards shards;
  for (const auto& s : array->shards) shards.push_back(s.shared_buffer());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (current.dims[d].empty() || current.dims[d] == target.dims[d]) continue;
    auto groups = devices::replica_groups(mesh.shape, axis_indices(mesh, current.dims[d]));
    shards = value_or_raise(devices::all_gather(shards, current.shard_shape(shape), groups, static_cast<int>(d)));
    current.dims[d].clear();
  }
  if (current.dims != target.dims) {
    typecheck::Shape from = current.shard_shape(shape), to = target.shard_shape(shape);
    std::map<std::pair<const devices::Buffer*, std::vector<std::int64_t>>, std::shared_ptr<devices::Buffer>> done;
    for (std::size_t p = 0; p < shards.size(); ++p) {
      auto block = block_of(target, static_cast<int>(p));
      std::vector<std::int64_t> start(shape.size()), limit(shape.size());
      for (std::size_t d = 0; d < shape.size(); ++d) {
        bool slice_here = current.dims[d].empty() && !target.dims[d].empty();
        start[d] = slice_here ? block[d] * to[d] : 0;
        limit[d] = start[d] + to[d];
      }
      auto key = std::make_pair(shards[p].get(), start);
      auto& slot = done[key];
      if (!slot) slot = value_or_raise(devices::slice(devices::LocalArray{shards[p], from}, start, limit)).buffer;
      shards[p] = slot;
    }
  }
  return make_array(evaluator, array->aval, target, std::move(shards), array->committed);
}

ArrayRef astype(Evaluator& evaluator, const ArrayRef& array, DType dtype) {
  if (array->aval.dtype == dtype) return array;
  typecheck::ArrayType aval = array->aval;
  aval.dtype = dtype;
  aval.weak_type = false;
  if (array->abstract()) return make_abstract_array(aval, array->layout, array->committed);
  auto shards = run_per_position(evaluator, array->layout.mesh, {array},
                                 [dtype](const std::vector<devices::LocalArray>& in) { return devices::convert(in[0], dtype); });
  return make_array(evaluator, aval, array->layout, std::move(shards), array->committed);
}

}  // namespace interp
