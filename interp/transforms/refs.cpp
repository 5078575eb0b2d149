// JAX's mutable array references (refs.hpp).
#include "interp/transforms/refs.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "interp/library/numpy_module.hpp"
#include "interp/ops/primitives.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/check_mode.hpp"
#include "interp/transforms/trace.hpp"

namespace interp {

namespace {

const TypeRef& ref_class() {
  static const TypeRef type = make_type("Ref");
  return type;
}

// The jit trace at the bottom of the stack (a jitted function being traced
// from outside any trace), which lifts the Refs made outside it.
JitTrace* jit_root(Evaluator& evaluator) {
  auto& stack = runtime_of(evaluator).trace_stack;
  auto* root = stack.empty() ? nullptr : dynamic_cast<JitTrace*>(stack.front());
  return root && root->ref_effects ? root : nullptr;
}

Trace* top_trace(Evaluator& evaluator) {
  auto& stack = runtime_of(evaluator).trace_stack;
  return stack.empty() ? nullptr : stack.back();
}

}  // namespace

ArrayRef array_copy(Evaluator& evaluator, const ArrayRef& array) {
  if (array->abstract()) return make_abstract_array(array->aval, array->layout, array->committed);
  std::map<const devices::Buffer*, std::shared_ptr<devices::Buffer>> copies;
  std::vector<std::shared_ptr<devices::Buffer>> shards;
  for (const auto& shard : array->shards) {
    const auto& buffer = shard.shared_buffer();
    if (buffer->is_remote()) {
      shards.push_back(buffer);
      continue;
    }
    auto& copy = copies[buffer.get()];
    if (!copy) copy = value_or_raise(buffer->clone());
    shards.push_back(copy);
  }
  return make_array(evaluator, array->aval, array->layout, std::move(shards), array->committed);
}

bool shares_buffers(const ArrayObject& a, const ArrayObject& b) {
  for (const auto& x : a.shards)
    for (const auto& y : b.shards)
      if (x.shares_storage_with(y)) return true;
  return false;
}

namespace {

// A key that names the whole value: None, `...` or ().
bool whole(const Value& key) {
  if (key.is_none() || key.as<EllipsisObject>()) return true;
  auto* tuple = key.as<TupleObject>();
  return tuple && tuple->items.empty();
}

std::string python_shape(const typecheck::Shape& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// How many traces of the stack to keep for work where `holder` (nullptr:
// beneath all traces) holds a value.
std::size_t through(Evaluator& evaluator, Trace* holder) {
  const auto& stack = runtime_of(evaluator).trace_stack;
  for (std::size_t i = 0; i < stack.size(); ++i)
    if (stack[i] == holder) return i + 1;
  return 0;
}

// Whether a traced value depends on the trace's inputs (what grad
// differentiates, what vmap maps); `cut`: not through stop_gradient.
bool depends_on_inputs(const JitTrace& trace, int variable, bool cut) {
  const Jaxpr& program = *trace.program;
  std::map<int, const Equation*> made_by;
  for (const auto& e : program.equations) made_by[e.output] = &e;
  std::vector<int> pending{variable};
  std::set<int> seen;
  while (!pending.empty()) {
    int v = pending.back();
    pending.pop_back();
    if (!seen.insert(v).second) continue;
    if (std::find(program.inputs.begin(), program.inputs.end(), v) != program.inputs.end()) return true;
    auto found = made_by.find(v);
    if (found == made_by.end() || (cut && found->second->primitive->name == "stop_gradient")) continue;
    pending.insert(pending.end(), found->second->inputs.begin(), found->second->inputs.end());
  }
  return false;
}

// The value to write into a Ref whose value lives below the current trace
// `top`: what the value is there (it must not depend on what `top` traces).
ArrayRef value_below(Evaluator& evaluator, Trace* top, const RefObject& ref, const ArrayRef& value) {
  auto* trace = dynamic_cast<JitTrace*>(top);
  std::optional<int> variable = trace ? trace->traced_variable(*value) : std::nullopt;
  if (!variable) return value;  // made outside `top`
  // Check mode knows no values: an abstract array of the type stands for it.
  ArrayRef known = trace->concrete_value(*value);
  if (!known && evaluator.mode == Evaluator::Mode::check)
    known = make_abstract_array(value->aval, value->layout, value->committed);
  if (trace->differentiating) {
    if (known && !depends_on_inputs(*trace, *variable, true)) return known;
    raise(exc::Exception(), "performing a set/swap operation with a differentiated value on a non-differentiated array "
                            "reference of type " + ref_type_str(ref) +
                                ". Move the array reference to be an argument of the differentiated function?");
  }
  if (trace->batching) {
    if (known && !depends_on_inputs(*trace, *variable, false)) return known;
    raise(exc::Exception(), "performing a set/swap operation with vmapped value on an unbatched array reference of type " +
                                ref_type_str(ref) + ". Move the array reference to be an argument to the vmapped function?");
  }
  if (known) return known;
  raise(exc::NotImplementedError(), "shardlang: a value traced inside this transformation cannot be written into a Ref "
                                    "made outside it (only jax.jit carries such writes out as effects)");
}

ArrayRef as_array_value(Evaluator& evaluator, const Value& value) {
  if (value.as<RefObject>())
    raise(exc::ValueError(), "Cannot store a Ref into another Ref. Did you forget to load from it using `[...]`?");
  return value.as<ArrayObject>() ? std::static_pointer_cast<ArrayObject>(value.object()) : to_array(evaluator, value);
}

RefObject& ref_argument(Evaluator& evaluator, const Value& value, const std::string& function) {
  auto* ref = value.as<RefObject>();
  if (!ref) raise(exc::ValueError(), "Can only call `" + function + "` on a `Ref`: " + evaluator.repr(value) + ".");
  return *ref;
}

}  // namespace

std::string ref_type_str(const RefObject& ref) { return "Ref{" + ref.value->aval.short_str() + "}"; }

const TypeRef& RefObject::type() const { return ref_class(); }

std::string RefObject::repr(Evaluator& evaluator) const {
  std::string text = evaluator.repr(Value(value));
  return text.rfind("Array", 0) == 0 ? "Ref" + text.substr(5) : "Ref(" + text + ")";
}

ArrayRef RefObject::read(Evaluator& evaluator) {
  if (owner) {
    auto& stack = runtime_of(evaluator).trace_stack;
    if (std::find(stack.begin(), stack.end(), owner) == stack.end())
      raise(exc::ValueError(), "shardlang: this Ref was made inside a transformation that has returned; a Ref cannot "
                               "outlive the function that made it");
    return value;
  }
  JitTrace* root = jit_root(evaluator);
  if (!root) return value;
  for (const auto& lifted : root->ref_effects->lifted)
    if (lifted.ref.get() == this) return lifted.current;
  ArrayRef tracer = root->add_input(*value);
  root->ref_effects->lifted.push_back(
      {std::static_pointer_cast<RefObject>(shared_from_this()), root->program->inputs.size() - 1, tracer, false});
  return tracer;
}

ArrayRef RefObject::get(Evaluator& evaluator, const Value& key) {
  ArrayRef current = read(evaluator);
  ArrayRef out = whole(key) ? current : to_array(evaluator, *current->get_item(evaluator, key));
  // A read outside any trace is an array of its own: later writes do not reach it.
  return current->abstract() || top_trace(evaluator) ? out : array_copy(evaluator, out);
}

ArrayRef RefObject::swap(Evaluator& evaluator, const Value& key, const Value& given, const char* operation) {
  ArrayRef current = read(evaluator);
  Trace* holder = owner ? owner : (jit_root(evaluator) ? runtime_of(evaluator).trace_stack.front() : nullptr);
  Trace* top = top_trace(evaluator);
  ArrayRef update = as_array_value(evaluator, given);
  if (top != holder) update = value_below(evaluator, top, *this, update);
  TraceStackCut cut(evaluator, through(evaluator, holder));
  ArrayRef old = whole(key) ? current : to_array(evaluator, *current->get_item(evaluator, key));
  // JAX's _maybe_implicit_cast: a weak float into a float Ref, any int into an int Ref.
  typecheck::DType ref_dtype = current->aval.dtype, dtype = update->aval.dtype;
  if ((update->aval.weak_type && typecheck::is_floating(ref_dtype) && typecheck::is_floating(dtype)) ||
      (typecheck::is_integer(ref_dtype) && typecheck::is_integer(dtype)))
    update = to_array(evaluator, apply_astype(evaluator, update, ref_dtype));
  if (old->aval.shape != update->aval.shape)
    raise(exc::ValueError(), std::string("Invalid shape for `") + operation + "`. Ref shape: " +
                                 python_shape(current->aval.shape) + ". Expected shape: " + python_shape(old->aval.shape) +
                                 ". Value shape: " + python_shape(update->aval.shape) + ".");
  if (old->aval.dtype != update->aval.dtype)
    raise(exc::ValueError(), std::string("Invalid dtype for `") + operation + "`. Ref dtype: " +
                                 std::string(typecheck::long_name(old->aval.dtype)) + ". Value dtype: " +
                                 std::string(typecheck::long_name(update->aval.dtype)) + ". ");
  ArrayRef updated = update;
  if (!whole(key)) {
    Value at = evaluator.get_item(evaluator.get_attribute(Value(current), "at"), key);
    updated = to_array(evaluator, evaluator.call(evaluator.get_attribute(at, "set"), {Value(update)}));
  }
  if (!holder) {
    old = current->abstract() ? old : array_copy(evaluator, old);
    write_back(evaluator, *this, updated);
  } else if (owner) {
    value = updated;
  } else {
    for (auto& lifted : jit_root(evaluator)->ref_effects->lifted)
      if (lifted.ref.get() == this) {
        lifted.current = updated;
        lifted.written = true;
      }
  }
  return old;
}

void write_back(Evaluator& evaluator, RefObject& ref, const ArrayRef& given) {
  ArrayRef& buffer = ref.value;
  if (buffer->abstract() || given->abstract()) return;  // check mode: the type stays
  ArrayRef source = given->layout == buffer->layout ? given : relayout(evaluator, given, buffer->layout);
  if (source->aval.dtype != buffer->aval.dtype) source = astype(evaluator, source, buffer->aval.dtype);
  for (std::size_t p = 0; p < buffer->shards.size(); ++p) {
    const auto& target = buffer->shards[p].shared_buffer();
    const auto& from = source->shards[p].shared_buffer();
    if (target->is_remote() || target == from) continue;
    std::memcpy(target->bytes().data(), from->bytes().data(), static_cast<std::size_t>(target->byte_size()));
  }
}

void RefObject::addupdate(Evaluator& evaluator, const Value& key, const Value& given) {
  ArrayRef old = get(evaluator, key);
  ArrayRef x = as_array_value(evaluator, given);
  if (old->aval.shape != x->aval.shape)
    raise(exc::ValueError(), "Invalid shape for `addupdate`. Ref shape: " + python_shape(value->aval.shape) +
                                 ". Expected shape: " + python_shape(old->aval.shape) + ". Value shape: " +
                                 python_shape(x->aval.shape) + ".");
  if (old->aval.dtype != x->aval.dtype)
    raise(exc::ValueError(), "Invalid dtype for `addupdate`. Ref dtype: " + std::string(typecheck::long_name(old->aval.dtype)) +
                                 ". Value shape: " + std::string(typecheck::long_name(x->aval.dtype)) + ". ");
  swap(evaluator, key, apply_elementwise(evaluator, primitive("add"), {Value(old), Value(x)}), "addupdate");
}

std::optional<Value> RefObject::get_item(Evaluator& evaluator, const Value& key) { return Value(get(evaluator, key)); }

bool RefObject::set_item(Evaluator& evaluator, const Value& key, const Value& given) {
  swap(evaluator, key, given);
  return true;
}

std::optional<std::int64_t> RefObject::length(Evaluator&) const {
  if (value->aval.shape.empty()) raise(exc::TypeError(), "len() of unsized object");
  return value->aval.shape[0];
}

std::optional<Value> RefObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  auto self = std::static_pointer_cast<RefObject>(shared_from_this());
  if (name == "shape" || name == "dtype" || name == "ndim" || name == "size" || name == "sharding")
    return evaluator.get_attribute(Value(value), name);
  if (name == "committed" || name == "_committed") return Value::boolean(true);
  if (name == "addupdate")
    return Value(native("addupdate(x, idx=())", [self](Evaluator& ev, Arguments& a) {
      self->addupdate(ev, a[1], a[0]);
      return Value();
    }));
  if (name == "unsafe_buffer_pointer")
    return Value(native("unsafe_buffer_pointer()", [self](Evaluator& ev, Arguments&) {
      if (!self->owner && ev.mode == Evaluator::Mode::check) return unknown_value();  // no buffers in check mode
      if (self->owner || self->value->abstract() || self->value->shards.empty())
        raise(exc::ValueError(), "unsafe_buffer_pointer() of a Ref traced inside a transformation has no buffer");
      const auto& buffer = self->value->shards[0].shared_buffer();
      return Value::integer(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(buffer->bytes().data())));
    }));
  if (name == "at") raise(exc::NotImplementedError(), "");
  return Object::get_attribute(evaluator, name);
}

void install_refs(Evaluator& evaluator) {
  auto jax = evaluator.module("jax");
  auto ref = evaluator.module("jax.ref");
  auto new_ref = [](Evaluator& ev, Arguments& a) {
    if (!a[1].is_none()) raise(exc::NotImplementedError(), "array ref with memory space only works inside of a `jit`.");
    if (ev.truthy(a[3])) raise(exc::NotImplementedError(), "pinned array ref only works inside of a `jit`.");
    if (a[0].as<RefObject>()) raise(exc::ValueError(), "Cannot store a Ref into another Ref. Did you forget to load from it using `[...]`?");
    ArrayRef init = as_array_value(ev, a[0]);
    Trace* top = top_trace(ev);
    return Value(std::make_shared<RefObject>(top ? init : array_copy(ev, init), top));
  };
  auto freeze = [](Evaluator& ev, Arguments& a) {
    RefObject& r = ref_argument(ev, a[0], "freeze");
    if (r.owner != top_trace(ev))
      raise(exc::ValueError(), "shardlang: jax.freeze of a Ref made outside the function being transformed: a Ref can "
                               "only be frozen in the scope where it was created");
    return Value(r.get(ev, Value()));
  };
  for (auto* module : {jax.get(), ref.get()}) {
    module->add_function("new_ref(init_val, *, memory_space=None, kind=None, pin=False)", new_ref);
    module->add_function("freeze(ref)", freeze);
    module->add("Ref", Value(ref_class()));
  }
  ref->add_function("get(ref, idx=None)", [](Evaluator& ev, Arguments& a) {
    return Value(ref_argument(ev, a[0], "ref_get").get(ev, a[1]));
  });
  ref->add_function("swap(ref, idx, value)", [](Evaluator& ev, Arguments& a) {
    return Value(ref_argument(ev, a[0], "ref_swap").swap(ev, a[1], a[2]));
  });
  ref->add_function("set(ref, idx, value)", [](Evaluator& ev, Arguments& a) {
    ref_argument(ev, a[0], "ref_set").swap(ev, a[1], a[2]);
    return Value();
  });
  ref->add_function("addupdate(ref, idx, x)", [](Evaluator& ev, Arguments& a) {
    ref_argument(ev, a[0], "addupdate").addupdate(ev, a[1], a[2]);
    return Value();
  });
  jax->add("ref", Value(ref));
}

}  // namespace interp
