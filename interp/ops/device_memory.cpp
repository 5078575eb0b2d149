// Charging device memory (device_memory.hpp).
#include "interp/ops/device_memory.hpp"

#include <filesystem>

#include "interp/ops/array.hpp"
#include "interp/transforms/trace.hpp"

namespace interp {

std::string SourcedMemoryOwner::memory_source() const {
  if (made_at.empty()) return {};
  lang::SourceRange range = lang::resolve(made_at);
  if (!range.known()) return {};
  return std::filesystem::path(made_at.file->name()).filename().string() + ":" + std::to_string(range.begin.line);
}

lang::Span current_span(Evaluator& evaluator) {
  return evaluator.running_call.expression ? evaluator.running_call.expression->span : evaluator.statement_span;
}

std::int64_t shard_bytes(const typecheck::ArrayType& type, const Layout& layout) {
  // devices::element_count of the shard shape, without making it: 0 when
  // an extent is (the others' product may overflow then).
  auto extent = [&](std::size_t d) { return d < layout.dims.size() ? type.shape[d] / layout.block_count(d) : type.shape[d]; };
  for (std::size_t d = 0; d < type.shape.size(); ++d)
    if (extent(d) == 0) return 0;
  std::int64_t count = 1;
  for (std::size_t d = 0; d < type.shape.size(); ++d) count *= extent(d);
  return count * typecheck::byte_size(type.dtype);
}

void ArrayMemory::keep_type() {
  if (charged_type) return;
  if (auto holder = array.lock()) charged_type = static_cast<const ArrayObject&>(*holder).aval;
}

std::string ArrayMemory::memory_type() const {
  if (charged_type) return charged_type->str();
  auto holder = array.lock();
  return holder ? static_cast<const ArrayObject&>(*holder).aval.str() : std::string();
}

void charge_device_memory(Evaluator& evaluator, ArrayObject& array) {
  Runtime& runtime = runtime_of(evaluator);
  if (array.memory || runtime.uncharged_depth > 0) return;
  auto memory = std::make_shared<ArrayMemory>();
  memory->made_at = current_span(evaluator);
  memory->array = array.weak_from_this();
  auto hold = runtime.ledger()->allocate(runtime.memory_set(array.layout.mesh), shard_bytes(array.aval, array.layout),
                                         memory.get());
  if (!hold) raise_out_of_memory(evaluator, hold.error());
  memory->hold = std::move(*hold);
  array.memory = std::move(memory);
}

void charge_if_held(Evaluator& evaluator, ArrayObject& array) {
  if (evaluator.mode != Evaluator::Mode::check || !runtime_of(evaluator).trace_stack.empty()) return;
  try {
    charge_device_memory(evaluator, array);
  } catch (PyError& error) {
    // Reported at this line; checking goes on with the array uncharged.
    if (!recover_in_check(evaluator, error, array.poisoned)) throw;
  }
}

UnchargedScope::UnchargedScope(Evaluator& evaluator) : evaluator_(evaluator) { ++runtime_of(evaluator).uncharged_depth; }

UnchargedScope::~UnchargedScope() { --runtime_of(evaluator_).uncharged_depth; }

void raise_out_of_memory(Evaluator& evaluator, const devices::Error& error, const lang::Span& inside_program) {
  auto exception = make_exception(exc::RuntimeError(), error.message);
  if (!inside_program.empty())
    exception->notes.emplace_back(inside_program, "the jitted program allocates it here");
  const auto& ledger = runtime_of(evaluator).ledger();
  auto largest = ledger->largest_live(error.device, 3);
  if (!largest.empty())
    exception->notes.emplace_back(lang::Span{}, "the largest buffers live on " + ledger->device_label(error.device) + ":");
  for (const auto& live : largest) {
    auto* sourced = dynamic_cast<const SourcedMemoryOwner*>(live.owner);
    exception->notes.emplace_back(sourced ? sourced->made_at : lang::Span{},
                                  live.owner->memory_type() + ": " + devices::describe_bytes(live.bytes));
  }
  throw PyError{std::move(exception)};
}

}  // namespace interp
