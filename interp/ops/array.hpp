// jax.Array in the evaluator: a type (typecheck::ArrayType), a layout on a
// device mesh, and one shard per mesh position (replicated shards share one
// host Buffer), plus `committed` (runtime.md "Committed and uncommitted
// arrays"). In check mode arrays carry no shards: only their type and layout.
//
// Data moves between layouts (on one mesh or onto another) as blocks
// (devices/redistribute.hpp): each device's new shard is built from the
// old shards that overlap it, and in a run over several processes
// (devices/processes.hpp) only the bytes a process lacks cross to it.
//
// Over several processes every process runs the same program and holds the
// same arrays; a shard lives only on the process holding its device (the
// other processes' shards are placeholders: Buffer::remote), except on a
// one-device mesh, which every process keeps (Runtime::holder). Kernels run
// through run_per_position and data moves through relayout and
// devices/collectives.hpp, which know this; code that reads shards
// directly must skip the placeholders.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "devices/buffer.hpp"
#include "devices/kernels.hpp"
#include "interp/ops/device_memory.hpp"
#include "interp/ops/runtime.hpp"

namespace interp {

// The statement that gave an array its sharding (a device_put, reshard or
// out_sharding=) and the variable it assigned, if any.
struct ShardingOrigin {
  lang::Span span;
  std::string name;
};

class ArrayObject : public Object {
 public:
  const TypeRef& type() const override;
  std::string repr(Evaluator& evaluator) const override;
  std::string str(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  std::vector<std::string> attribute_names() const override;
  std::optional<Value> binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                 bool reflected) override;
  std::optional<Value> unary_op(Evaluator& evaluator, lang::ast::UnaryOperator op) override;
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override;
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override;
  IteratorRef iterate(Evaluator& evaluator) override;
  std::optional<std::int64_t> length(Evaluator& evaluator) const override;
  bool truthy(Evaluator& evaluator) const override;
  std::optional<std::size_t> hash() const override { return std::nullopt; }

  bool abstract() const { return shards.empty(); }
  devices::LocalArray local(std::size_t position) const {
    return {shards[position].shared_buffer(), layout.shard_shape(aval.shape)};
  }

  typecheck::ArrayType aval;
  Layout layout;
  std::vector<devices::DeviceBuffer> shards;  // per mesh position of layout.mesh; empty when abstract
  bool committed = false;
  // Check mode: the best-guess result of a failed operation, or computed
  // from one; errors that follow only from poisoned arrays are not reported.
  bool poisoned = false;
  // The spec device_put was given, which .sharding.spec shows as written.
  std::optional<typecheck::PartitionSpec> requested_spec;
  // Its shards' bytes on its devices (device_memory.hpp): every array of a
  // run, and the abstract arrays a run would hold in check mode. Arrays that
  // share their shards (a retyped view) share the hold.
  std::shared_ptr<ArrayMemory> memory;
  // Check mode: where its sharding came from, for the notes of an error
  // (track_sharding_origin in check_mode.hpp); shared with the arrays
  // computed from it. Null: not known.
  std::shared_ptr<const ShardingOrigin> sharding_origin;
  // Its whole value, assembled from its shards by a product computed once
  // (dot_general.cpp) and kept while the array lives: a model's weights
  // meet every step's activations whole. Shards are never written, so it
  // stays their value. Null until then.
  mutable std::shared_ptr<devices::Buffer> assembled;
};
using ArrayRef = std::shared_ptr<ArrayObject>;

// jnp.float32 and friends: callable (jnp.float32(3)), printed as the class.
class DTypeObject : public Object {
 public:
  explicit DTypeObject(typecheck::DType dtype) : dtype(dtype) {}
  const TypeRef& type() const override;
  std::string repr(Evaluator&) const override;
  std::string str(Evaluator&) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool callable() const override { return true; }
  Value call(Evaluator& evaluator, CallArgs& args) override;
  bool equals(const Value& other) const override;
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override;
  std::optional<std::size_t> hash() const override { return static_cast<std::size_t>(dtype); }
  typecheck::DType dtype;
};

// A dtype argument: a DTypeObject, a name ("float32"), or Python's float/int/bool.
typecheck::DType dtype_argument(Evaluator& evaluator, const Value& value);

// ------------------------------------------------------------ making arrays

// An array from per-position shards (placed on their devices, counted in HBM).
ArrayRef make_array(Evaluator& evaluator, typecheck::ArrayType aval, Layout layout,
                    std::vector<std::shared_ptr<devices::Buffer>> shards, bool committed);
// `array`'s shards (shared, not copied) under another type or commitment;
// an abstract array stays abstract.
ArrayRef retyped_array(Evaluator& evaluator, const ArrayObject& array, typecheck::ArrayType aval, bool committed);
// `array`'s shard buffers, by mesh position (shared, not copied): another
// array of the same blocks in another shape takes them as they are.
std::vector<std::shared_ptr<devices::Buffer>> buffers_of(const ArrayObject& array);
// Inside a shard_map body (a mesh with Manual axes) every device holds its
// own value: on_manual_mesh says whether `array` is such a value, and
// block_at is the one `position` of its mesh holds, as a one-device array
// (`array` itself when it is not one value per device).
bool on_manual_mesh(const ArrayObject& array);
ArrayRef block_at(Evaluator& evaluator, const ArrayRef& array, std::size_t position);
// An abstract array (check mode): no shards.
ArrayRef make_abstract_array(typecheck::ArrayType aval, Layout layout, bool committed);
// An array holding `global` split by `layout` (a host-to-device transfer).
ArrayRef array_from_global(Evaluator& evaluator, const devices::LocalArray& global, typecheck::ArrayType aval,
                           Layout layout, bool committed);
// An uncommitted array of `aval` on device 0, from the host; `global` is
// only read in run mode.
ArrayRef host_array(Evaluator& evaluator, const typecheck::ArrayType& aval,
                    const std::function<devices::LocalArray()>& global);

// The whole array on the host (device-to-host transfer). Over several
// processes, each gets the blocks it lacks from the others: every process
// must ask for it, as for multihost_utils.process_allgather.
devices::LocalArray global_value(Evaluator& evaluator, const ArrayObject& array);
// Elements as doubles (row-major).
std::vector<double> element_values(Evaluator& evaluator, const ArrayObject& array);

// Python scalars, nested lists, numpy-likes and arrays as arrays; `dtype`
// overrides the inferred one.
ArrayRef to_array(Evaluator& evaluator, const Value& value, std::optional<typecheck::DType> dtype = std::nullopt);
// A Python number (int, float or bool) as the operand of an eager operation
// beside the concrete `array`: the array of the dtype the two promote to,
// weak where that is, on the array's mesh and shared by its devices, as
// jnp's promote_args converts it. The operation then neither converts nor
// moves it.
ArrayRef number_beside(Evaluator& evaluator, const Value& number, const ArrayObject& array);
bool is_array_like(const Value& value);
// The class of arrays (jax.Array, jnp.ndarray).
const TypeRef& array_type();
// jax.errors.ConcretizationTypeError and its TracerBoolConversionError
// (bool() of a traced array), raised by the array methods.
const TypeRef& concretization_type_error();
const TypeRef& tracer_bool_conversion_error();
// JAX's core.concrete_or_error: the array's value (a traced one's where
// eager differentiation knows it), or a ConcretizationTypeError with
// `context` for a traced one; null in check mode outside jit (no value to
// know: the caller guesses).
ArrayRef concrete_or_error(Evaluator& evaluator, const ArrayRef& array, const std::string& context);

// The same data in `target` layout: collectives on the same mesh, a host
// transfer across meshes. An unreduced array's devices hold partial sums:
// each moves among the devices of its own coordinate along the unreduced
// axes, so the partial sums stay apart.
ArrayRef relayout(Evaluator& evaluator, const ArrayRef& array, const Layout& target);
// The indices of the mesh axes `names` (those `mesh` has), in that order.
std::vector<int> mesh_axes(const DeviceMesh& mesh, const typecheck::AxisList& names);
// `array` (of a type unreduced over `axes`) holding its value on the first
// device of each group along `axes` and zeros on the others: partial sums
// that add up to the value (a reshard to P(unreduced=...) of a value whole
// on those axes, as JAX's tests show).
ArrayRef kept_on_first(Evaluator& evaluator, const ArrayRef& array, const typecheck::AxisSet& axes);
// The array converted to `dtype` (same layout).
ArrayRef astype(Evaluator& evaluator, const ArrayRef& array, typecheck::DType dtype);

// Runs `kernel` once per distinct combination of input shards (replicated
// positions share the work and the result), in parallel (in turn on the
// calling thread when the inputs hold fewer than inline_elements elements in
// all), and returns the per-position results. Every input must already be in
// its needed layout on `mesh`. Positions another process holds run there:
// their results here are placeholders (make_array gives them their size
// when none ran here).
std::vector<std::shared_ptr<devices::Buffer>> run_per_position(
    Evaluator& evaluator, const DeviceMeshRef& mesh, const std::vector<ArrayRef>& inputs,
    const std::function<devices::Expected<devices::LocalArray>(const std::vector<devices::LocalArray>&)>& kernel);
inline constexpr std::int64_t inline_elements = std::int64_t{1} << 15;
// The same, for kernels that need to know the mesh position they run for
// (one representative of the positions sharing their inputs).
std::vector<std::shared_ptr<devices::Buffer>> run_per_position(
    Evaluator& evaluator, const DeviceMeshRef& mesh, const std::vector<ArrayRef>& inputs,
    const std::function<devices::Expected<devices::LocalArray>(const std::vector<devices::LocalArray>&, std::size_t)>&
        kernel);
// The same, the kernel seeing input i's shard in `shapes[i]` (its elements
// in another shape: an operand of lower rank with leading 1s, say).
std::vector<std::shared_ptr<devices::Buffer>> run_per_position(
    Evaluator& evaluator, const DeviceMeshRef& mesh, const std::vector<ArrayRef>& inputs,
    std::vector<devices::Shape> shapes,
    const std::function<devices::Expected<devices::LocalArray>(const std::vector<devices::LocalArray>&, std::size_t)>&
        kernel);

// Raises a devices error in the script (MemoryError, ValueError, ...).
[[noreturn]] void raise_devices_error(const devices::Error& error);
// A devices result's value, or its error raised in the script.
template <class T>
T value_or_raise(devices::Expected<T> result) {
  if (!result) raise_devices_error(result.error());
  return std::move(*result);
}

// The layout an array of `shape` gets by default (device 0, replicated).
Layout default_layout(Evaluator& evaluator, std::size_t ndim);

// jax.sharding's objects, the array members of jax / jnp / np (jax_modules.cpp).
void install_array_members(Evaluator& evaluator);

// A shape as the Python tuple of ints x.shape is.
Value shape_value(const typecheck::Shape& shape);

}  // namespace interp
