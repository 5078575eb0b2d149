// JAX's mutable array references (101/state.md "Refs", 201/jit.md "In-place
// updates with refs"): jax.new_ref / jax.ref.new_ref, jax.Ref,
// jax.freeze / jax.ref.freeze, ref[idx] reads and ref[idx] = v writes,
// jax.ref.get / set / swap / addupdate.
//
// A Ref made outside any trace owns its buffer: a write copies the new
// values into that buffer in place (unsafe_buffer_pointer() stays), and a
// read returns a fresh array. A Ref made inside a trace (new_ref in a
// jitted, differentiated or vmapped function) holds that trace's value and
// a write binds the update there, so such functions transform as pure ones.
//
// A jitted function that reads or writes a Ref made outside it (passed as
// an argument or closed over) gets the Ref's value as one more program
// input, and the final value of a Ref it wrote as one more output, which
// each call (cached ones too) copies back into the Ref's buffer: the
// write is the call's side effect. Under grad and vmap a Ref made outside
// may be read; a write of a value computed there is refused with JAX's
// messages (a differentiated value; a vmapped value on an unbatched Ref),
// and a Ref may not be differentiated with respect to.
#pragma once

#include <memory>
#include <vector>

#include "interp/ops/array.hpp"

namespace interp {

class JitTrace;
class Trace;

class RefObject : public Object {
 public:
  RefObject(ArrayRef value, Trace* owner) : value(std::move(value)), owner(owner) {}
  const TypeRef& type() const override;
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override;
  bool set_item(Evaluator& evaluator, const Value& key, const Value& value) override;
  std::optional<std::int64_t> length(Evaluator& evaluator) const override;
  std::optional<std::size_t> hash() const override { return reinterpret_cast<std::size_t>(this); }

  // The value the current trace sees (a jit root lifts a Ref made outside it).
  ArrayRef read(Evaluator& evaluator);
  // ref[key] (`key` None: the whole value); `swap` returns the old values.
  ArrayRef get(Evaluator& evaluator, const Value& key);
  ArrayRef swap(Evaluator& evaluator, const Value& key, const Value& value, const char* operation = "swap");
  // ref[key] += x, x of the window's shape and dtype.
  void addupdate(Evaluator& evaluator, const Value& key, const Value& x);

  // A concrete buffer (made outside any trace), or a value of `owner`.
  ArrayRef value;
  Trace* owner;
};

// The Refs made outside a jitted function that its trace met (jit.cpp): each
// one's program input and its value at the end of the body so far.
struct RefEffects {
  struct Lifted {
    std::shared_ptr<RefObject> ref;
    std::size_t input = 0;  // its position among the program's inputs
    ArrayRef current;       // a tracer of the jit trace
    bool written = false;
  };
  std::vector<Lifted> lifted;
};

// `value`'s data copied into `ref`'s buffer (a jitted call's write-back).
void write_back(Evaluator& evaluator, RefObject& ref, const ArrayRef& value);
// `array` with buffers of its own (replicated shards still share one).
ArrayRef array_copy(Evaluator& evaluator, const ArrayRef& array);
// Whether two arrays share a shard's buffer.
bool shares_buffers(const ArrayObject& a, const ArrayObject& b);
// Ref{f32[3]}: JAX's AbstractRef.str_short().
std::string ref_type_str(const RefObject& ref);

void install_refs(Evaluator& evaluator);

}  // namespace interp
