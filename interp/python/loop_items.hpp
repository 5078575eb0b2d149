// The items a for loop takes from its iterable (statements.cpp's exec_for
// and compiled.cpp's loops).
#pragma once

#include <optional>
#include <typeinfo>

#include "interp/python/evaluator.hpp"

namespace interp {

// The items of `iterable`, one at a time. Those of a range, list or tuple
// are taken by position, as their iterator would give them: that iterator is
// invisible to the program. The caller keeps `iterable` alive.
class LoopItems {
 public:
  LoopItems(Evaluator& evaluator, const Value& iterable) : evaluator_(evaluator) {
    const Object* object = iterable.is_object() ? iterable.object().get() : nullptr;
    const std::type_info* type = object ? &typeid(*object) : nullptr;
    if (type && *type == typeid(RangeObject)) range_ = static_cast<const RangeObject*>(object);
    else if (type && (*type == typeid(ListObject) || *type == typeid(TupleObject)))
      sequence_ = static_cast<const SequenceObject*>(object);
    else iterator_ = evaluator.iterate(iterable);
  }
  // The next item, or nullopt after the last.
  std::optional<Value> next() {
    std::size_t i = position_++;
    if (range_) {
      if (i < static_cast<std::size_t>(range_->size())) return Value::integer(range_->at(static_cast<std::int64_t>(i)));
      return std::nullopt;
    }
    if (sequence_) {
      if (i < sequence_->items.size()) return sequence_->items[i];
      return std::nullopt;
    }
    return iterator_->next(evaluator_);
  }

 private:
  Evaluator& evaluator_;
  const RangeObject* range_ = nullptr;
  const SequenceObject* sequence_ = nullptr;
  IteratorRef iterator_;
  std::size_t position_ = 0;
};

}  // namespace interp
