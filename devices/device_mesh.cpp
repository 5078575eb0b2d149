// A re-implementation of JAX's jax/_src/mesh_utils.py (create_device_mesh,
// its per-device-kind handlers, _get_physical_tpu_mesh,
// _create_device_mesh_for_nd_torus and its axis-splitting variant) and of
// jax.make_mesh's choice of allow_split_physical_axes.
#include "devices/device_mesh.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <span>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace devices {

std::string python_tuple(const std::vector<int>& values) {
  if (values.size() == 1) return fmt::format("({},)", values[0]);
  return fmt::format("({})", fmt::join(values, ", "));
}

namespace {

// Physical order of the cores of one tray that forms a ring, and the ring
// orders of small 2-D and 2x2x2 slices (mesh_utils.py's _TRAY_*_ORDER tables).
constexpr std::array<int, 8> tray_ring_order = {0, 1, 2, 3, 6, 7, 4, 5};
constexpr std::array<int, 4> tray_2x2_ring_order = {0, 1, 3, 2};
constexpr std::array<int, 16> tray_4x4_ring_order = {0, 1, 2, 3, 7, 6, 5, 9,
                                                     10, 11, 15, 14, 13, 12, 8, 4};
constexpr std::array<int, 8> v5e_tray_ring_order = {0, 1, 2, 3, 7, 6, 5, 4};
constexpr std::array<int, 8> v5e_tray_iota_order = {0, 4, 2, 6, 1, 5, 3, 7};
constexpr std::array<int, 8> v5p_2x2x2_order = {0, 1, 3, 2, 6, 7, 5, 4};

using DeviceList = std::vector<Device>;

std::int64_t product(const std::vector<int>& values) {
  std::int64_t result = 1;
  for (int value : values) result *= value;
  return result;
}

template <class T>
std::vector<T> take(const std::vector<T>& items, std::span<const int> order) {
  std::vector<T> result;
  result.reserve(order.size());
  for (int index : order) result.push_back(items[static_cast<std::size_t>(index)]);
  return result;
}

// numpy's array.reshape(shape).transpose(perm).flatten() on a row-major list.
template <class T>
std::vector<T> transpose_flat(const std::vector<T>& items, const std::vector<int>& shape,
                              const std::vector<int>& perm) {
  std::size_t rank = shape.size();
  std::vector<std::int64_t> strides(rank, 1);
  for (std::size_t axis = rank; axis-- > 1;) strides[axis - 1] = strides[axis] * shape[axis];
  std::vector<int> out_shape(rank);
  for (std::size_t axis = 0; axis < rank; ++axis)
    out_shape[axis] = shape[static_cast<std::size_t>(perm[axis])];
  std::vector<T> result;
  result.reserve(items.size());
  std::vector<int> index(rank, 0);  // multi-index into the transposed array
  for (std::size_t count = 0; count < items.size(); ++count) {
    std::int64_t source = 0;
    for (std::size_t axis = 0; axis < rank; ++axis)
      source += index[axis] * strides[static_cast<std::size_t>(perm[axis])];
    result.push_back(items[static_cast<std::size_t>(source)]);
    for (std::size_t axis = rank; axis-- > 0;) {
      if (++index[axis] < out_shape[axis]) break;
      index[axis] = 0;
    }
  }
  return result;
}

Coords lexicographic_max_coords(const DeviceList& devices) {
  Coords best = devices.front().coords;
  for (const Device& device : devices) {
    const Coords& c = device.coords;
    if (std::tie(c.x, c.y, c.z) > std::tie(best.x, best.y, best.z)) best = c;
  }
  return best;
}

// The devices sorted z-major, x-minor, which the ring tables index.
DeviceList sequential_devices(const DeviceList& devices) {
  DeviceList sorted = devices;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Device& a, const Device& b) {
    return std::tie(a.coords.z, a.coords.y, a.coords.x) < std::tie(b.coords.z, b.coords.y, b.coords.x);
  });
  return sorted;
}

// _tpu_v2_v3_create_device_mesh: the ring of one 8-core tray, per tray when
// the last mesh axis is 8, else the given order.
DeviceList v2_v3_device_mesh(const std::vector<int>& mesh_shape, const DeviceList& devices) {
  if (devices.size() == 8) return take(devices, tray_ring_order);
  if (mesh_shape.back() == 8) {
    DeviceList result;
    result.reserve(devices.size());
    for (std::size_t row = 0; row < devices.size(); row += 8)
      for (int column : tray_ring_order) result.push_back(devices[row + static_cast<std::size_t>(column)]);
    return result;
  }
  return devices;
}

// _v5e_create_device_mesh: ring orders for 2x2, 8-chip and 4x4 slices.
std::optional<DeviceList> v5e_device_mesh(const std::vector<int>& mesh_shape,
                                          const DeviceList& devices) {
  Coords max = lexicographic_max_coords(devices);
  int bound_x = max.x + 1, bound_y = max.y + 1, bound_z = max.z + 1;
  DeviceList sequential = sequential_devices(devices);
  if (bound_x == 2 && bound_y == 2 && bound_z == 1 && devices.size() == 4)
    return take(sequential, tray_2x2_ring_order);
  if (devices.size() == 8) {
    bool cube = bound_x == 2 && bound_y == 2 && bound_z == 2;
    return take(sequential, cube ? v5e_tray_iota_order : v5e_tray_ring_order);
  }
  if (bound_x == 4 && bound_y == 4 && bound_z == 1 && devices.size() == 16) {
    // Only when the whole mesh is one ring (a single replica group).
    if (*std::max_element(mesh_shape.begin(), mesh_shape.end()) == 16)
      return take(sequential, tray_4x4_ring_order);
  }
  return std::nullopt;
}

// _v5p_create_device_mesh: the 2x2x2 cube's ring order.
std::optional<DeviceList> v5p_device_mesh(const DeviceList& devices) {
  Coords max = lexicographic_max_coords(devices);
  if (max.x == 1 && max.y == 1 && max.z == 1 && devices.size() == 8)
    return take(sequential_devices(devices), v5p_2x2x2_order);
  return std::nullopt;
}

// The devices placed at their coordinates: a row-major [x][y][z] grid of
// indices into `devices` (_get_physical_tpu_mesh for one device per chip;
// v2/v3, two per chip, never get here: their handler always answers).
struct PhysicalMesh {
  std::vector<int> shape;  // 3 axes
  std::vector<int> device_index;
};

Expected<PhysicalMesh> physical_tpu_mesh(const DeviceList& devices) {
  Coords low = devices.front().coords, high = low;
  for (const Device& device : devices) {
    low = {std::min(low.x, device.coords.x), std::min(low.y, device.coords.y),
           std::min(low.z, device.coords.z)};
    high = {std::max(high.x, device.coords.x), std::max(high.y, device.coords.y),
            std::max(high.z, device.coords.z)};
  }
  PhysicalMesh mesh{{high.x - low.x + 1, high.y - low.y + 1, high.z - low.z + 1}, {}};
  std::size_t cells = static_cast<std::size_t>(product(mesh.shape));
  auto not_a_cuboid = [&] {
    std::vector<int> ids;
    for (const Device& device : devices) ids.push_back(device.id);
    return Error{ErrorKind::invalid_argument,
                 fmt::format("the coordinates of devices [{}] do not form a contiguous cuboid",
                             fmt::join(ids, ", "))};
  };
  if (cells != devices.size()) return not_a_cuboid();
  mesh.device_index.assign(cells, -1);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const Device& device = devices[i];
    if (device.core_on_chip != 0)
      return Error{ErrorKind::invalid_argument,
                   fmt::format("creating meshes for TPU >v3 requires one device per chip; got "
                               "core_on_chip={} for {}",
                               device.core_on_chip, device_repr(device))};
    std::size_t cell = static_cast<std::size_t>(
        ((device.coords.x - low.x) * mesh.shape[1] + (device.coords.y - low.y)) * mesh.shape[2] +
        (device.coords.z - low.z));
    mesh.device_index[cell] = static_cast<int>(i);
  }
  if (std::find(mesh.device_index.begin(), mesh.device_index.end(), -1) != mesh.device_index.end())
    return not_a_cuboid();
  return mesh;
}

// All k-element combinations of {0..n-1} in itertools.combinations order.
void for_each_combination(int n, int k, const std::function<bool(const std::vector<int>&)>& visit) {
  std::vector<int> chosen(static_cast<std::size_t>(k));
  std::iota(chosen.begin(), chosen.end(), 0);
  if (k > n) return;
  while (true) {
    if (visit(chosen)) return;
    int i = k - 1;
    while (i >= 0 && chosen[static_cast<std::size_t>(i)] == n - k + i) --i;
    if (i < 0) return;
    ++chosen[static_cast<std::size_t>(i)];
    for (int j = i + 1; j < k; ++j)
      chosen[static_cast<std::size_t>(j)] = chosen[static_cast<std::size_t>(j - 1)] + 1;
  }
}

// Correct prime factorisation. (mesh_utils.py's _get_prime_factors stops
// early and answers [5] for 10; the sizes JAX users meet are powers of two,
// where both agree.)
std::vector<int> prime_factors(int value) {
  std::vector<int> factors;
  for (int p = 2; p * p <= value; ++p)
    while (value % p == 0) {
      factors.push_back(p);
      value /= p;
    }
  if (value > 1) factors.push_back(value);
  return factors;
}

using Assignment = std::vector<std::vector<int>>;  // [physical axis][logical axis] -> size

std::vector<std::vector<int>> feasible_axis_assignments(const std::vector<int>& physical_shape,
                                                        const Assignment& assignment,
                                                        int logical_axis_size) {
  std::map<int, int> multiplicity;  // prime -> count, ascending like the Python dict
  for (int factor : prime_factors(logical_axis_size)) ++multiplicity[factor];
  std::size_t physical_axes = physical_shape.size();
  std::vector<int> available(physical_axes);
  for (std::size_t p = 0; p < physical_axes; ++p) {
    int taken = 1;
    for (int size : assignment[p]) taken *= size;
    available[p] = physical_shape[p] / taken;
  }
  // For each prime of the logical size: the sets of physical axes that can
  // take its copies (an axis appears once per copy of the prime it holds).
  std::vector<int> primes;
  std::vector<std::vector<std::vector<int>>> choices_by_prime;
  for (auto [prime, count] : multiplicity) {
    std::vector<int> axes;
    for (std::size_t p = 0; p < physical_axes; ++p)
      for (int factor : prime_factors(available[p]))
        if (factor == prime) axes.push_back(static_cast<int>(p));
    std::set<std::vector<int>> choices;
    for_each_combination(static_cast<int>(axes.size()), count, [&](const std::vector<int>& chosen) {
      std::vector<int> picked;
      for (int index : chosen) picked.push_back(axes[static_cast<std::size_t>(index)]);
      choices.insert(picked);
      return false;
    });
    primes.push_back(prime);
    choices_by_prime.emplace_back(choices.begin(), choices.end());
  }
  std::vector<std::vector<int>> results;
  std::vector<std::size_t> pick(primes.size(), 0);  // odometer over the cartesian product
  for (const auto& choices : choices_by_prime)
    if (choices.empty()) return results;
  while (true) {
    std::vector<int> result(physical_axes, 1);
    for (std::size_t i = 0; i < primes.size(); ++i)
      for (int axis : choices_by_prime[i][pick[i]]) result[static_cast<std::size_t>(axis)] *= primes[i];
    results.push_back(std::move(result));
    std::size_t i = primes.size();
    while (i > 0 && ++pick[i - 1] == choices_by_prime[i - 1].size()) pick[--i] = 0;
    if (i == 0) return results;
  }
}

// _prefer_first_logical_axis_assignment, heuristic for heuristic.
bool prefer_first(const std::vector<int>& x, const std::vector<int>& y,
                  const std::vector<int>& physical_shape, const Assignment& assignment) {
  auto whole_axis_size = [&](const std::vector<int>& v) {
    std::int64_t size = 1;
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] == physical_shape[i]) size *= v[i];
    return size;
  };
  if (whole_axis_size(x) != whole_axis_size(y)) return whole_axis_size(x) > whole_axis_size(y);
  auto whole_axes = [&](const std::vector<int>& v) {
    int count = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] == physical_shape[i] && v[i] > 1) ++count;
    return count;
  };
  if (whole_axes(x) != whole_axes(y)) return whole_axes(x) > whole_axes(y);
  auto size_on_assigned_axes = [&](const std::vector<int>& v) {
    std::int64_t size = 1;
    for (std::size_t i = 0; i < v.size(); ++i) {
      int taken = 1;
      for (int s : assignment[i]) taken *= s;
      if (taken > 1) size *= v[i];
    }
    return size;
  };
  if (size_on_assigned_axes(x) != size_on_assigned_axes(y))
    return size_on_assigned_axes(x) > size_on_assigned_axes(y);
  return x > y;
}

// _create_device_mesh_for_nd_torus_splitting_axes and _generate_logical_mesh.
Expected<std::vector<int>> nd_torus_mesh_splitting_axes(const PhysicalMesh& physical,
                                                        const std::vector<int>& mesh_shape) {
  std::size_t physical_axes = physical.shape.size(), logical_axes = mesh_shape.size();
  Assignment assignment(physical_axes, std::vector<int>(logical_axes, 1));
  for (std::size_t l = logical_axes; l-- > 0;) {
    std::optional<std::vector<int>> best;
    for (std::vector<int>& candidate : feasible_axis_assignments(physical.shape, assignment, mesh_shape[l]))
      if (!best || prefer_first(candidate, *best, physical.shape, assignment)) best = std::move(candidate);
    if (!best)
      return Error{ErrorKind::invalid_argument,
                   fmt::format("cannot map logical mesh {} onto physical mesh {}, even splitting "
                               "physical axes",
                               python_tuple(mesh_shape), python_tuple(physical.shape))};
    for (std::size_t p = 0; p < physical_axes; ++p) assignment[p][l] = (*best)[p];
  }
  // Split each physical axis into its per-logical-axis factors, then group
  // the factors by logical axis (higher-intensity logical axes minor).
  std::vector<int> split_shape, perm;
  for (std::size_t p = 0; p < physical_axes; ++p)
    for (std::size_t l = 0; l < logical_axes; ++l) split_shape.push_back(assignment[p][l]);
  for (std::size_t l = 0; l < logical_axes; ++l)
    for (std::size_t p = 0; p < physical_axes; ++p) perm.push_back(static_cast<int>(p * logical_axes + l));
  return transpose_flat(physical.device_index, split_shape, perm);
}

// _create_device_mesh_for_nd_torus: each logical axis, most network-intense
// (last) first, takes a whole subset of physical axes, preferring more axes.
Expected<std::vector<int>> nd_torus_mesh(const PhysicalMesh& physical, const std::vector<int>& mesh_shape,
                                         bool allow_split_physical_axes) {
  std::vector<int> assignable = physical.shape;
  std::vector<std::vector<int>> assignment(mesh_shape.size());
  int physical_axes = static_cast<int>(assignable.size());
  for (std::size_t l = mesh_shape.size(); l-- > 0;) {
    int size = mesh_shape[l];
    for (int num_axes = 3; num_axes >= 1 && assignment[l].empty(); --num_axes)
      for_each_combination(physical_axes, num_axes, [&](const std::vector<int>& axes) {
        std::int64_t candidate = 1;
        for (int axis : axes) candidate *= assignable[static_cast<std::size_t>(axis)];
        if (candidate != size) return false;
        assignment[l] = axes;
        for (int axis : axes) assignable[static_cast<std::size_t>(axis)] = 0;
        return true;
      });
    if (assignment[l].empty() && size > 1) {
      if (allow_split_physical_axes) return nd_torus_mesh_splitting_axes(physical, mesh_shape);
      return Error{ErrorKind::not_implemented,
                   fmt::format("Failed to find assignment for logical_axis_index {} of size {} with "
                               "remaining assignable mesh [{}]. The size of each axis in your "
                               "logical mesh must be equal to the product of some subset of the "
                               "physical mesh axis sizes. E.g. logical mesh (4, 16) is compatible "
                               "with physical mesh 4x4x4 since 4=4 and 16=4x4. If you want to "
                               "split physical axes, set  allow_split_physical_axes to True.",
                               l, size, fmt::join(assignable, ", "))};
    }
  }
  std::vector<int> transpose;
  for (const std::vector<int>& axes : assignment) transpose.insert(transpose.end(), axes.begin(), axes.end());
  // A physical axis of size 1 that no logical axis took (numpy would reject
  // the short permutation; appending it changes nothing in the order).
  for (int axis = 0; axis < physical_axes; ++axis)
    if (std::find(transpose.begin(), transpose.end(), axis) == transpose.end()) transpose.push_back(axis);
  return transpose_flat(physical.device_index, physical.shape, transpose);
}

}  // namespace

Expected<std::vector<Device>> create_device_mesh(const std::vector<int>& mesh_shape,
                                                 const std::vector<Device>& devices,
                                                 const DeviceMeshOptions& options) {
  if (mesh_shape.empty() || std::any_of(mesh_shape.begin(), mesh_shape.end(), [](int s) { return s < 1; }))
    return Error{ErrorKind::invalid_argument,
                 fmt::format("mesh_shape {} must be a non-empty sequence of positive ints",
                             python_tuple(mesh_shape))};
  if (product(mesh_shape) != static_cast<std::int64_t>(devices.size()))
    return Error{ErrorKind::invalid_argument,
                 fmt::format("Number of devices {} must equal the product of mesh_shape {}",
                             devices.size(), python_tuple(mesh_shape))};
  const Device& last = devices.back();
  if (last.platform != Platform::tpu || !last.chip) return devices;
  switch (*last.chip) {
    case Chip::v2:
    case Chip::v3: return v2_v3_device_mesh(mesh_shape, devices);
    case Chip::v5e:
      if (std::optional<DeviceList> ring = v5e_device_mesh(mesh_shape, devices)) return *ring;
      break;
    case Chip::v5p:
      if (std::optional<DeviceList> ring = v5p_device_mesh(devices)) return *ring;
      break;
    case Chip::v4:
    case Chip::v6e: break;
  }
  Expected<PhysicalMesh> physical = physical_tpu_mesh(devices);
  if (!physical) return physical.error();
  Expected<std::vector<int>> order = nd_torus_mesh(*physical, mesh_shape, options.allow_split_physical_axes);
  if (!order) return order.error();
  return take(devices, *order);
}

Expected<std::vector<Device>> make_mesh_devices(const std::vector<int>& axis_shapes,
                                                const std::vector<Device>& devices) {
  if (axis_shapes.empty() || std::any_of(axis_shapes.begin(), axis_shapes.end(), [](int s) { return s < 1; }))
    return Error{ErrorKind::invalid_argument,
                 fmt::format("`axis_shapes` passed to `make_mesh` should be a sequence of positive "
                             "ints. Got {}",
                             python_tuple(axis_shapes))};
  std::int64_t needed = product(axis_shapes);
  if (needed > static_cast<std::int64_t>(devices.size()))
    return Error{ErrorKind::invalid_argument,
                 fmt::format("Number of devices {} must be >= the product of mesh_shape {}",
                             devices.size(), python_tuple(axis_shapes))};
  std::vector<Device> used(devices.begin(), devices.begin() + needed);
  bool allow_split = used.front().chip == Chip::v5e;
  return create_device_mesh(axis_shapes, used, {.allow_split_physical_axes = allow_split});
}

}  // namespace devices
