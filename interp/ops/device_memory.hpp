// Device memory as a TPU would hold it (docs/memory.md): every array, in a
// run as in check mode, charges each device of its mesh its shard's bytes
// while it lives (devices::MemoryLedger), so that check answers "will it
// fit?" as the run would, at the line that allocates.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "devices/error.hpp"
#include "devices/memory.hpp"
#include "lang/source.hpp"
#include "typecheck/array_type.hpp"

namespace interp {

class Evaluator;
class Object;
struct Layout;
class ArrayObject;

// An owner of device memory that knows the line that made it: its notes in
// an out-of-memory error point there.
class SourcedMemoryOwner : public devices::MemoryOwner {
 public:
  std::string memory_source() const override;
  lang::Span made_at;

 protected:
  ~SourcedMemoryOwner() = default;
};

// The device memory an array holds: shared by the arrays that share its
// shards (a retyped view), released with the last of them.
struct ArrayMemory final : SourcedMemoryOwner {
  std::weak_ptr<Object> array;  // the newest array holding it (jax.live_arrays)
  // The type of the array that charged it, which the reports print: read
  // from `array` while that array is the only holder, so that an array pays
  // no copy of its type; kept by keep_type() before another holder shares
  // the memory (a retyped view, a typed key, a donation).
  std::optional<typecheck::ArrayType> charged_type;
  devices::MemoryHold hold;
  void keep_type();
  std::string memory_type() const override;
};

// The span of the operation running now: the call's, else the statement's.
lang::Span current_span(Evaluator& evaluator);

// One shard's bytes of an array of `type` laid out by `layout`.
std::int64_t shard_bytes(const typecheck::ArrayType& type, const Layout& layout);

// Charges `array`'s shards to its devices (once; an array already charged is
// left alone), made at the current line. RESOURCE_EXHAUSTED is raised.
void charge_device_memory(Evaluator& evaluator, ArrayObject& array);
// The same for an abstract array the run would hold: in check mode outside
// any transformation's trace (a traced stand-in holds nothing).
void charge_if_held(Evaluator& evaluator, ArrayObject& array);

// While one lives, arrays made are not charged: an array staged on device 0
// on its way to its sharding (jnp.zeros(..., out_sharding=)), a jitted
// program's values (its memory plan charges them, jit.hpp).
class UnchargedScope {
 public:
  explicit UnchargedScope(Evaluator& evaluator);
  ~UnchargedScope();
  UnchargedScope(const UnchargedScope&) = delete;
  UnchargedScope& operator=(const UnchargedScope&) = delete;

 private:
  Evaluator& evaluator_;
};

// RESOURCE_EXHAUSTED as a RuntimeError (JAX's XlaRuntimeError), with a note
// per largest buffer live on the device, at the line that made it; inside a
// jitted program a first note points at the line whose value did not fit.
[[noreturn]] void raise_out_of_memory(Evaluator& evaluator, const devices::Error& error,
                                      const lang::Span& inside_program = {});

}  // namespace interp
