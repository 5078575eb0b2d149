// The evaluator's last sweep: see teardown.hpp.
#include "interp/python/teardown.hpp"

#include <unordered_set>
#include <utility>

#include "interp/python/classes.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/python/exceptions.hpp"
#include "interp/python/objects.hpp"

namespace interp {

namespace {

// The values `object` holds that can lead back to it, passed to `visit`.
template <class Visit>
void for_each_held(Object& object, Visit&& visit) {
  auto each_attribute = [&](const AttributeList& attributes) {
    for (const auto& [name, value] : attributes) visit(value);
  };
  auto each_entry = [&](const ValueTable& table) {
    for (const auto& entry : table.entries()) {
      if (!entry.live) continue;
      visit(entry.key);
      visit(entry.value);
    }
  };
  // An instance's __dict__ (a plain instance, an exception, a dict subclass's instance, ...).
  if (auto* attributes = object.instance_dict()) each_attribute(*attributes);
  if (auto* sequence = dynamic_cast<SequenceObject*>(&object)) {
    for (const Value& item : sequence->items) visit(item);
  } else if (auto* dict = dynamic_cast<DictObject*>(&object)) {
    each_entry(dict->table);
  } else if (auto* set = dynamic_cast<SetObject*>(&object)) {
    each_entry(set->table);
  } else if (auto* module = dynamic_cast<ModuleObject*>(&object)) {
    for (const auto& [name, value] : module->globals()) visit(value);
  } else if (auto* cls = dynamic_cast<ClassObject*>(&object)) {
    each_attribute(cls->namespace_entries());
  } else if (auto* exception = dynamic_cast<ExceptionObject*>(&object)) {
    for (const Value& argument : exception->args) visit(argument);
  } else if (auto* function = dynamic_cast<FunctionObject*>(&object)) {
    each_attribute(function->attributes);
    for (const Parameter& parameter : function->signature.parameters)
      if (parameter.default_value) visit(*parameter.default_value);
    for (const CellRef& cell : function->closure)
      if (cell && cell->value) visit(*cell->value);
    for (const auto& [name, value] : *function->globals) visit(value);
  }
}

// Moved out before being freed: freeing one value may reach back into the
// container being emptied.
void empty(Object& object) {
  if (auto* attributes = object.instance_dict()) AttributeList freed = std::exchange(*attributes, {});
  if (auto* list = dynamic_cast<ListObject*>(&object)) {
    std::vector<Value> freed = std::exchange(list->items, {});
  } else if (auto* dict = dynamic_cast<DictObject*>(&object)) {
    ValueTable freed = std::exchange(dict->table, {});
  } else if (auto* set = dynamic_cast<SetObject*>(&object)) {
    ValueTable freed = std::exchange(set->table, {});
  } else if (auto* module = dynamic_cast<ModuleObject*>(&object)) {
    Namespace freed = std::exchange(module->globals(), {});
  } else if (auto* cls = dynamic_cast<ClassObject*>(&object)) {
    NamespaceEdit edit = cls->edit_namespace();
    AttributeList freed = std::exchange(edit.entries, {});
  } else if (auto* function = dynamic_cast<FunctionObject*>(&object)) {
    AttributeList freed = std::exchange(function->attributes, {});
    std::vector<CellRef> cells = std::exchange(function->closure, {});
  }
}

}  // namespace

void break_reference_cycles(const std::vector<Value>& roots) {
  // Found first, emptied after: emptying while walking would free objects
  // still on the walk's stack.
  std::vector<ObjectRef> found;
  std::unordered_set<const Object*> seen;
  std::vector<Value> pending(roots);
  while (!pending.empty()) {
    Value value = std::move(pending.back());
    pending.pop_back();
    if (!value.is_object() || !seen.insert(value.object().get()).second) continue;
    // Another interpreter may be using it, on another thread.
    if (auto* cls = dynamic_cast<ClassObject*>(value.object().get()); cls && cls->process_wide) continue;
    found.push_back(value.object());
    for_each_held(*value.object(), [&](const Value& held) { pending.push_back(held); });
  }
  for (const ObjectRef& object : found) empty(*object);
}

}  // namespace interp
