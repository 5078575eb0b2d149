// Executing statements: names and assignment targets, control flow, try /
// raise / with, imports and the line magics (%timeit, %time, %xmode).

#include "interp/python/evaluator.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include <sys/resource.h>

#include "interp/python/annotations.hpp"
#include "interp/python/classes.hpp"
#include "interp/python/imports.hpp"
#include "interp/python/loop_items.hpp"
#include "interp/transforms/check_mode.hpp"

namespace interp {

namespace ast = lang::ast;

namespace {

constexpr const char* unbound_local_message = "' where it is not associated with a value";

std::string format_time(double seconds) {
  // IPython's _format_time(timespan, precision=3).
  if (seconds >= 60.0) {
    std::string out;
    double leftover = seconds;
    const std::pair<const char*, double> parts[] = {{"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}};
    for (const auto& [suffix, length] : parts) {
      auto value = static_cast<long long>(leftover / length);
      if (value > 0) {
        leftover = std::fmod(leftover, length);
        out += (out.empty() ? "" : " ") + std::to_string(value) + suffix;
      }
      if (leftover < 1) break;
    }
    return out;
  }
  static const char* units[] = {"s", "ms", "\xc2\xb5s", "ns"};
  static const double scaling[] = {1, 1e3, 1e6, 1e9};
  int order = 3;
  if (seconds > 0) {
    int exponent = static_cast<int>(std::floor(std::log10(seconds)));
    int floored_thirds = exponent >= 0 ? exponent / 3 : -((-exponent + 2) / 3);  // Python's //
    order = std::clamp(-floored_thirds, 0, 3);
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.3g %s", seconds * scaling[order], units[order]);
  return text;
}

}  // namespace

// ------------------------------------------------------------ names

Value Evaluator::load_name(const ast::Name& name, Frame& frame) {
  const std::string& id = name.id;
  if (frame.scope != nullptr) {
    const NameRef ref = name_ref(name);
    if (ref.kind == NameRef::Kind::fast) {
      if (const auto& v = frame.fast[ref.index]) return *v;
      raise(exc::UnboundLocalError(), "cannot access local variable '" + id + unbound_local_message);
    }
    if (ref.kind == NameRef::Kind::cell) {
      if (const auto& v = frame.cells[ref.index]->value) return *v;
      if (ref.index < frame.scope->own_cells)
        raise(exc::UnboundLocalError(), "cannot access local variable '" + id + unbound_local_message);
      raise(exc::NameError(), "cannot access free variable '" + id + unbound_local_message + " in enclosing scope");
    }
    if (ref.kind == NameRef::Kind::class_body)
      if (const Value* v = find_attribute_in(*frame.class_namespace, id)) return *v;
  }
  if (const Value* v = load_global(name, frame)) return *v;
  raise(exc::NameError(), "name '" + id + "' is not defined");
}

const Value* Evaluator::look_up_global(const ast::Name& name, const Frame& frame) {
  const Namespace& names = **frame.globals;
  GlobalSiteCache* cache = nullptr;
  if (frame.resolution != nullptr && name.resolved_index < frame.resolution->global_sites.size()) {
    cache = &frame.resolution->global_sites[name.resolved_index];
    if (cache->site != &name) cache = nullptr;
  }
  const Value* value = lookup_global(name.id, frame);
  if (cache != nullptr && value != nullptr) *cache = GlobalSiteCache{&name, names.version(), builtins.version(), value};
  return value;
}

void Evaluator::store_name(const void* site, const std::string& id, Value value, Frame& frame) {
  store_name(frame.scope != nullptr ? frame.resolution->name(site) : NameRef{}, id, std::move(value), frame);
}

void Evaluator::store_name(const NameRef& ref, const std::string& id, Value value, Frame& frame) {
  if (frame.scope != nullptr) {
    if (ref.kind == NameRef::Kind::fast) {
      frame.fast[ref.index] = std::move(value);
      return;
    }
    if (ref.kind == NameRef::Kind::cell) {
      frame.cells[ref.index]->value = std::move(value);
      return;
    }
    if (ref.kind == NameRef::Kind::class_body) {
      if (frame.class_behaviour)
        value = frame.class_behaviour->class_body_store(*this, *frame.class_namespace, id, std::move(value));
      set_attribute_in(*frame.class_namespace, id, std::move(value));
      return;
    }
  }
  (**frame.globals)[id] = std::move(value);
}

void Evaluator::delete_name(const ast::Expr& expr, const std::string& id, Frame& frame) {
  if (frame.scope != nullptr) {
    const NameRef& ref = frame.resolution->name(&expr);
    std::optional<Value>* slot = nullptr;
    if (ref.kind == NameRef::Kind::fast) slot = &frame.fast[ref.index];
    if (ref.kind == NameRef::Kind::cell) slot = &frame.cells[ref.index]->value;
    if (slot != nullptr) {
      if (!*slot) raise(exc::UnboundLocalError(), "cannot access local variable '" + id + unbound_local_message);
      slot->reset();
      return;
    }
    if (ref.kind == NameRef::Kind::class_body) {
      AttributeList& names = *frame.class_namespace;
      auto at = std::find_if(names.begin(), names.end(), [&](const auto& entry) { return entry.first == id; });
      if (at == names.end()) raise(exc::NameError(), "name '" + id + "' is not defined");
      names.erase(at);
      return;
    }
  }
  if ((*frame.globals)->erase(id) == 0) raise(exc::NameError(), "name '" + id + "' is not defined");
}

void Evaluator::assign(const ast::Expr& target, Value value, Frame& frame) {
  if (auto* name = std::get_if<ast::Name>(&target.node)) {
    if (observer) observer->assigned(target, value);
    store_name(name_ref(*name), name->id, std::move(value), frame);
    return;
  }
  if (auto* attribute = std::get_if<ast::Attribute>(&target.node)) {
    Value held;
    store_attribute(*attribute, eval_operand(*attribute->value, frame, held), value, frame);
    return;
  }
  if (auto* subscript = std::get_if<ast::Subscript>(&target.node)) {
    Value object = eval(*subscript->value, frame);
    Value key = eval_subscript_key(*subscript->slice, frame);
    set_item(object, key, value);
    return;
  }
  const ast::ExprList* elements = nullptr;
  if (auto* tuple = std::get_if<ast::Tuple>(&target.node)) elements = &tuple->elts;
  if (auto* list = std::get_if<ast::List>(&target.node)) elements = &list->elts;
  if (elements == nullptr) raise(exc::SyntaxError(), "cannot assign to expression");
  // Check mode: a function check could not follow returned an unknown; what
  // the caller unpacks from it is unknown too.
  if (is_unknown(value)) {
    for (const auto& element : *elements) {
      auto* starred = std::get_if<ast::Starred>(&element->node);
      assign(starred ? *starred->value : *element, value, frame);
    }
    return;
  }
  if (!value.is_object() || !value.object()->iterate(*this))
    raise(exc::TypeError(), "cannot unpack non-iterable " + type_name(value) + " object");
  std::vector<Value> items = to_vector(value);
  std::size_t star = elements->size();
  for (std::size_t i = 0; i < elements->size(); ++i)
    if (std::holds_alternative<ast::Starred>((*elements)[i]->node)) star = i;
  if (star == elements->size()) {
    if (items.size() > elements->size())
      raise(exc::ValueError(), "too many values to unpack (expected " + std::to_string(elements->size()) + ")");
    if (items.size() < elements->size())
      raise(exc::ValueError(), "not enough values to unpack (expected " + std::to_string(elements->size()) + ", got " +
                                   std::to_string(items.size()) + ")");
    for (std::size_t i = 0; i < items.size(); ++i) assign(*(*elements)[i], std::move(items[i]), frame);
    return;
  }
  std::size_t after = elements->size() - star - 1;
  if (items.size() < star + after)
    raise(exc::ValueError(), "not enough values to unpack (expected at least " + std::to_string(star + after) +
                                 ", got " + std::to_string(items.size()) + ")");
  for (std::size_t i = 0; i < star; ++i) assign(*(*elements)[i], items[i], frame);
  std::vector<Value> middle(items.begin() + static_cast<std::ptrdiff_t>(star),
                            items.end() - static_cast<std::ptrdiff_t>(after));
  assign(*std::get<ast::Starred>((*elements)[star]->node).value, make_list(std::move(middle)), frame);
  for (std::size_t i = 0; i < after; ++i) assign(*(*elements)[star + 1 + i], items[items.size() - after + i], frame);
}

void Evaluator::store_attribute(const ast::Attribute& attribute, const Value& object, const Value& value,
                                const Frame& frame) {
  if (InstanceObject* instance = object.is_object() ? object.object()->as_instance() : nullptr)
    if (site_store_attribute(attribute_site(attribute, frame), *instance, attribute.attr, value)) return;
  set_attribute(object, attribute.attr, value);
}

void Evaluator::set_attribute(const Value& object, const std::string& name, const Value& value) {
  if (object.has_hooks() && object.object()->set_attribute(*this, name, value)) return;
  raise(exc::AttributeError(), "'" + type_name(object) + "' object has no attribute '" + name + "'");
}

void Evaluator::delete_target(const ast::Expr& target, Frame& frame) {
  if (auto* name = std::get_if<ast::Name>(&target.node)) return delete_name(target, name->id, frame);
  if (auto* subscript = std::get_if<ast::Subscript>(&target.node)) {
    Value object = eval(*subscript->value, frame);
    Value key = eval_subscript_key(*subscript->slice, frame);
    if (object.has_hooks() && object.object()->delete_item(*this, key)) return;
    raise(exc::TypeError(), "'" + type_name(object) + "' object doesn't support item deletion");
  }
  if (auto* tuple = std::get_if<ast::Tuple>(&target.node)) {
    for (const auto& e : tuple->elts) delete_target(*e, frame);
    return;
  }
  if (auto* list = std::get_if<ast::List>(&target.node)) {
    for (const auto& e : list->elts) delete_target(*e, frame);
    return;
  }
  if (auto* attribute = std::get_if<ast::Attribute>(&target.node)) {
    Value object = eval(*attribute->value, frame);
    AttributeList* attributes = object.has_hooks() ? object.object()->instance_dict() : nullptr;
    if (attributes && type_of(object)->as_class())
      if (call_special(*this, object, "__delattr__", {make_str(attribute->attr)})) return;
    std::optional<NamespaceEdit> edit;
    if (auto* cls = object.as<ClassObject>()) attributes = &edit.emplace(*cls).entries;
    if (attributes) {
      auto at = std::find_if(attributes->begin(), attributes->end(),
                             [&](const auto& entry) { return entry.first == attribute->attr; });
      if (at == attributes->end())
        raise(exc::AttributeError(), (object.as<ClassObject>() ? "type object '" + type_name(Value(object)) : "'" + type_name(object) + "' object") + " has no attribute '" + attribute->attr + "'");
      attributes->erase(at);
      return;
    }
    raise(exc::AttributeError(), "'" + type_name(object) + "' object attribute '" + attribute->attr + "' cannot be deleted");
  }
  raise(exc::SyntaxError(), "cannot delete expression");
}

// ------------------------------------------------------------ statements

std::optional<Value>* Evaluator::local_slot(const ast::Expr& target, Frame& frame) const {
  if (observer != nullptr) return nullptr;
  std::optional<std::uint32_t> index = fast_local_index(target, frame);
  return index ? &frame.fast[*index] : nullptr;
}

std::optional<Value>* Evaluator::local_slot(const ast::ExprList& targets, Frame& frame) const {
  return targets.size() == 1 ? local_slot(*targets.front(), frame) : nullptr;
}

Evaluator::Flow Evaluator::exec_body(const ast::Body& body, Frame& frame) {
  for (const auto& stmt : body) {
    Flow flow = exec(*stmt, frame);
    if (flow != Flow::normal) return flow;
  }
  return Flow::normal;
}

Evaluator::Flow Evaluator::exec(const ast::Stmt& stmt, Frame& frame) {
  guard_stack();
  poll_interrupt();
  RestoreOnExit restore_span(statement_span);
  RestoreOnExit restore_statement(statement);
  statement_span = stmt.span;
  statement = &stmt;
  try {
    return std::visit(
        [&](const auto& node) -> Flow {
          using T = std::decay_t<decltype(node)>;
          if constexpr (std::is_same_v<T, ast::ExprStmt>) {
            Value value = eval(*node.value, frame);
            if (echo_expression_statements && frame.scope == nullptr && !value.is_none()) {
              show(Shown::value, repr(value) + "\n");
              (**frame.globals)["_"] = std::move(value);
            }
          } else if constexpr (std::is_same_v<T, ast::Assign>) {
            if (std::optional<Value>* slot = local_slot(node.targets, frame)) {
              *slot = eval(*node.value, frame);
              return Flow::normal;
            }
            Value value = eval(*node.value, frame);
            for (const auto& target : node.targets) assign(*target, value, frame);
          } else if constexpr (std::is_same_v<T, ast::AugAssign>) {
            const ast::Expr& target = *node.target;
            if (std::optional<Value>* slot = local_slot(target, frame); slot != nullptr && slot->has_value()) {
              Value operand = eval(*node.value, frame);
              **slot = inplace(node.op, **slot, operand);
            } else if (auto* name = std::get_if<ast::Name>(&target.node)) {
              Value current = load_name(*name, frame);
              Value operand = eval(*node.value, frame);
              Value result = inplace(node.op, current, operand);
              if (observer) observer->assigned(target, result);
              store_name(name_ref(*name), name->id, std::move(result), frame);
            } else if (auto* attribute = std::get_if<ast::Attribute>(&target.node)) {
              Value held;
              const Value& object = eval_operand(*attribute->value, frame, held);
              InstanceObject* instance = object.is_object() ? object.object()->as_instance() : nullptr;
              AttributeSiteCache* site = instance ? attribute_site(*attribute, frame) : nullptr;
              const Value* own = instance ? site_own_attribute(site, *instance, attribute->attr) : nullptr;
              Value current = own ? *own : get_attribute(object, attribute->attr);
              Value operand = eval(*node.value, frame);
              Value result = inplace(node.op, current, operand);
              if (instance && site_store_attribute(site, *instance, attribute->attr, result)) return Flow::normal;
              if (!object.has_hooks() || !object.object()->set_attribute(*this, attribute->attr, result))
                raise(exc::AttributeError(), "'" + type_name(object) + "' object has no attribute '" + attribute->attr + "'");
            } else if (auto* subscript = std::get_if<ast::Subscript>(&target.node)) {
              Value object = eval(*subscript->value, frame);
              Value key = eval_subscript_key(*subscript->slice, frame);
              Value current = get_item(object, key);
              Value operand = eval(*node.value, frame);
              set_item(object, key, inplace(node.op, current, operand));
            } else {
              raise(exc::SyntaxError(), "illegal expression for augmented assignment");
            }
          } else if constexpr (std::is_same_v<T, ast::AnnAssign>) {
            // The annotation is kept unevaluated (it may name shape variables),
            // except in a class body: dataclasses and NamedTuple read __annotations__.
            if (frame.class_namespace != nullptr)
              if (const auto* name = std::get_if<ast::Name>(&node.target->node))
                record_class_annotation(name->id, *node.annotation, frame);
            if (node.value) {
              Value value = eval(*node.value, frame);
              if (const auto* name = std::get_if<ast::Name>(&node.target->node))
                check_annotation(node.annotation.get(), value, frame.shape_variables(), "variable '" + name->id + "'");
              assign(*node.target, std::move(value), frame);
            }
          } else if constexpr (std::is_same_v<T, ast::FunctionDef>) {
            std::vector<Value> decorators;
            for (const auto& d : node.decorators) decorators.push_back(eval(*d, frame));
            Value function = make_function(&stmt, node.params, frame);
            auto* f = function.as<FunctionObject>();
            f->body = &node.body;
            f->returns = node.returns.get();
            // Where Python's co_firstlineno points: the first decorator's line.
            f->definition = node.decorators.empty() ? stmt.span : node.decorators.front()->span.to(stmt.span);
            function = apply_decorators(node.decorators, decorators, std::move(function));
            store_name(&stmt, node.name.name, std::move(function), frame);
          } else if constexpr (std::is_same_v<T, ast::ClassDef>) {
            return exec_class_def(node, stmt, frame);
          } else if constexpr (std::is_same_v<T, ast::Return>) {
            frame.return_value = node.value ? eval(*node.value, frame) : Value::none();
            return Flow::return_;
          } else if constexpr (std::is_same_v<T, ast::If>) {
            return exec_body(truthy(eval(*node.test, frame)) ? node.body : node.orelse, frame);
          } else if constexpr (std::is_same_v<T, ast::While>) {
            while (true) {
              poll_interrupt();
              if (!truthy(eval(*node.test, frame))) return exec_body(node.orelse, frame);
              Flow flow = exec_body(node.body, frame);
              if (flow == Flow::break_) break;
              if (flow == Flow::return_) return flow;
            }
          } else if constexpr (std::is_same_v<T, ast::For>) {
            return exec_for(node, frame);
          } else if constexpr (std::is_same_v<T, ast::Break>) {
            return Flow::break_;
          } else if constexpr (std::is_same_v<T, ast::Continue>) {
            return Flow::continue_;
          } else if constexpr (std::is_same_v<T, ast::Try>) {
            return exec_try(node, frame);
          } else if constexpr (std::is_same_v<T, ast::Raise>) {
            exec_raise(node, frame);
          } else if constexpr (std::is_same_v<T, ast::Assert>) {
            Value test = eval(*node.test, frame);
            // Asserting array data that check mode does not have is skipped.
            bool unknown = is_unknown(test) || (mode == Mode::check && is_abstract_array(test));
            if (!unknown && !truthy(test)) {
              std::vector<Value> args;
              if (node.msg) args.push_back(eval(*node.msg, frame));
              throw PyError{std::make_shared<ExceptionObject>(exc::AssertionError(), std::move(args))};
            }
          } else if constexpr (std::is_same_v<T, ast::Import>) {
            exec_import(node, frame);
          } else if constexpr (std::is_same_v<T, ast::ImportFrom>) {
            exec_import_from(node, frame);
          } else if constexpr (std::is_same_v<T, ast::Delete>) {
            for (const auto& target : node.targets) delete_target(*target, frame);
          } else if constexpr (std::is_same_v<T, ast::With>) {
            return exec_with(node, frame);
          } else if constexpr (std::is_same_v<T, ast::LineMagic>) {
            if (node.name.name == "xmode") exec_xmode(node);
            else exec_timeit(node, stmt, frame);
          }
          return Flow::normal;  // Pass, Global, Nonlocal: nothing to run
        },
        stmt.node);
  } catch (PyError& error) {
    ExceptionObject& exception = *error.exception;
    if (!exception.frame_span_set) {
      exception.frame_span = stmt.span;
      exception.frame_span_set = true;
    }
    throw;
  }
}

Evaluator::Flow Evaluator::exec_for(const ast::For& node, Frame& frame) {
  Value iterable = eval(*node.iter, frame);
  LoopItems items(*this, iterable);
  std::optional<Value>* target_slot = local_slot(*node.target, frame);
  while (true) {
    poll_interrupt();
    std::optional<Value> item = items.next();
    if (!item) return exec_body(node.orelse, frame);
    if (target_slot != nullptr) *target_slot = std::move(*item);
    else assign(*node.target, std::move(*item), frame);
    Flow flow = exec_body(node.body, frame);
    if (flow == Flow::break_) return Flow::normal;
    if (flow == Flow::return_) return flow;
  }
}

bool Evaluator::exception_matches(const ExceptionObject& exception, const Value& handler_type) {
  if (auto* cls = handler_type.as<TypeObject>()) {
    if (!cls->is_subclass_of(*exc::BaseException()))
      raise(exc::TypeError(), "catching classes that do not inherit from BaseException is not allowed");
    return exception.type()->is_subclass_of(*cls);
  }
  if (auto* tuple = handler_type.as<TupleObject>()) {
    for (const auto& item : tuple->items)
      if (exception_matches(exception, item)) return true;
    return false;
  }
  raise(exc::TypeError(), "catching classes that do not inherit from BaseException is not allowed");
}

Evaluator::Flow Evaluator::exec_try(const ast::Try& node, Frame& frame) {
  Flow flow = Flow::normal;
  std::optional<PyError> pending;
  try {
    bool raised = false;
    try {
      struct InTry {
        int& depth;
        explicit InTry(int& d) : depth(d) { ++depth; }
        ~InTry() { --depth; }
      } in_try(try_depth);
      flow = exec_body(node.body, frame);
    } catch (PyError& error) {
      raised = true;
      std::shared_ptr<ExceptionObject> exception = error.exception;
      if (is_check_stop(*exception)) throw;
      const ast::ExceptHandler* chosen = nullptr;
      for (const auto& handler : node.handlers) {
        if (!handler.type || exception_matches(*exception, eval(*handler.type, frame))) {
          chosen = &handler;
          break;
        }
      }
      if (chosen == nullptr) throw;
      if (chosen->name) store_name(chosen, chosen->name->name, Value(exception), frame);
      handling.push_back(exception);
      struct HandlingScope {
        std::vector<std::shared_ptr<ExceptionObject>>& stack;
        ~HandlingScope() { stack.pop_back(); }
      } handling_scope{handling};
      try {
        flow = exec_body(chosen->body, frame);
      } catch (PyError& inner) {
        if (inner.exception != exception && inner.exception->context.is_none())
          inner.exception->context = Value(exception);
        throw;
      }
      if (chosen->name) {
        // Python unbinds the `as` name when the handler ends.
        if (frame.scope != nullptr) {
          const NameRef& ref = frame.resolution->name(chosen);
          if (ref.kind == NameRef::Kind::fast) frame.fast[ref.index].reset();
          else if (ref.kind == NameRef::Kind::cell) frame.cells[ref.index]->value.reset();
          else (*frame.globals)->erase(chosen->name->name);
        } else {
          (*frame.globals)->erase(chosen->name->name);
        }
      }
    }
    if (!raised && flow == Flow::normal) flow = exec_body(node.orelse, frame);
  } catch (PyError& error) {
    if (node.finalbody.empty()) throw;
    pending = error;
  }
  if (!node.finalbody.empty()) {
    Value saved_return = frame.return_value;
    Flow final_flow = exec_body(node.finalbody, frame);
    if (final_flow != Flow::normal) return final_flow;  // break/continue/return discard a pending exception
    frame.return_value = std::move(saved_return);
    if (pending) throw *pending;
  }
  return flow;
}

void Evaluator::exec_raise(const ast::Raise& node, Frame& frame) {
  if (!node.exc) {
    if (handling.empty()) raise(exc::RuntimeError(), "No active exception to reraise");
    throw PyError{handling.back()};
  }
  auto to_exception = [&](const Value& v) -> std::shared_ptr<ExceptionObject> {
    if (auto* cls = v.as<TypeObject>(); cls && cls->is_subclass_of(*exc::BaseException())) {
      Value instance = call(v, std::vector<Value>{});
      return std::static_pointer_cast<ExceptionObject>(instance.object());
    }
    if (v.as<ExceptionObject>()) return std::static_pointer_cast<ExceptionObject>(v.object());
    return nullptr;
  };
  Value value = eval(*node.exc, frame);
  std::shared_ptr<ExceptionObject> exception = to_exception(value);
  if (!exception) raise(exc::TypeError(), "exceptions must derive from BaseException");
  if (node.cause) {
    Value cause = eval(*node.cause, frame);
    if (cause.is_none()) {
      exception->cause = Value::none();
    } else if (auto c = to_exception(cause)) {
      exception->cause = Value(c);
    } else {
      raise(exc::TypeError(), "exception causes must derive from BaseException");
    }
  }
  exception->reset_traceback();
  if (!handling.empty() && handling.back() != exception && exception->context.is_none())
    exception->context = Value(handling.back());
  throw PyError{exception};
}

Evaluator::Flow Evaluator::exec_with(const ast::With& node, Frame& frame) {
  std::function<Flow(std::size_t)> enter_item = [&](std::size_t index) -> Flow {
    if (index == node.items.size()) return exec_body(node.body, frame);
    const ast::WithItem& item = node.items[index];
    Value manager = eval(*item.context_expr, frame);
    std::optional<Value> entered = manager.has_hooks() ? manager.object()->enter(*this) : std::nullopt;
    if (!entered)
      raise(exc::TypeError(), "'" + type_name(manager) + "' object does not support the context manager protocol");
    if (item.optional_vars) assign(*item.optional_vars, *entered, frame);
    Flow flow;
    try {
      flow = enter_item(index + 1);
    } catch (PyError& error) {
      Value pending(error.exception);
      if (!manager.object()->exit(*this, &pending)) throw;
      return Flow::normal;
    }
    manager.object()->exit(*this, nullptr);
    return flow;
  };
  return enter_item(0);
}

void Evaluator::exec_import(const ast::Import& node, Frame& frame) {
  for (const auto& alias : node.names) {
    Value module = imports->import(alias.name);
    if (alias.asname) {
      store_name(&alias, alias.asname->name, std::move(module), frame);
    } else {
      // `import a.b.c` binds the top-level package `a`.
      std::string top = alias.name.substr(0, alias.name.find('.'));
      store_name(&alias, top, top == alias.name ? std::move(module) : imports->import(top), frame);
    }
  }
}

void Evaluator::exec_import_from(const ast::ImportFrom& node, Frame& frame) {
  std::string name = imports->resolve(node.module, node.level, frame);
  Value module = imports->import(name);
  for (const auto& alias : node.names) {
    if (alias.name == "*") {
      for (const auto& member : imports->star_names(module)) (**frame.globals)[member] = get_attribute(module, member);
      continue;
    }
    store_name(&alias, alias.asname ? alias.asname->name : alias.name, imports->import_from(module, name, alias.name),
               frame);
  }
}

// IPython's %xmode MODE: the exception reporting mode, by name in any case
// (Plain, Context, Verbose, Minimal, Docs); printed as IPython prints it.
void Evaluator::exec_xmode(const ast::LineMagic& node) {
  static const std::array<std::string_view, 5> modes{"Plain", "Context", "Verbose", "Minimal", "Docs"};
  std::string given;
  if (const auto* expression = node.statement ? std::get_if<ast::ExprStmt>(&node.statement->node) : nullptr)
    if (const auto* name = std::get_if<ast::Name>(&expression->value->node)) given = name->id;
  std::string wanted = given;
  for (std::size_t i = 0; i < wanted.size(); ++i)
    wanted[i] = static_cast<char>(i == 0 ? std::toupper(static_cast<unsigned char>(wanted[i]))
                                         : std::tolower(static_cast<unsigned char>(wanted[i])));
  if (std::find(modes.begin(), modes.end(), wanted) == modes.end())
    raise(exc::ValueError(), "Unrecognized mode in FormattedTB: <" + wanted + ">");
  exception_mode = wanted;
  write("Exception reporting mode: " + exception_mode + "\n");
}

void Evaluator::exec_timeit(const ast::LineMagic& node, const ast::Stmt& stmt, Frame& frame) {
  if (node.name.name == "time") {
    // IPython's %time: the statement once, its CPU and wall times.
    auto cpu = [] {
      rusage usage{};
      getrusage(RUSAGE_SELF, &usage);
      return std::pair<double, double>{usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6,
                                       usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6};
    };
    auto [user0, sys0] = cpu();
    auto start = std::chrono::steady_clock::now();
    exec(*node.statement, frame);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    auto [user1, sys1] = cpu();
    write("CPU times: user " + format_time(user1 - user0) + ", sys: " + format_time(sys1 - sys0) + ", total: " +
          format_time(user1 - user0 + sys1 - sys0) + "\nWall time: " + format_time(wall) + "\n");
    return;
  }
  if (node.name.name != "timeit")
    raise(exc::NameError(), "Line magic function `%" + node.name.name + "` not found.");
  long long number = 0, repeat = 7;  // IPython's defaults: number chosen below, 7 runs
  for (std::size_t i = 0; i < node.options.size(); ++i) {
    const std::string& option = node.options[i];
    auto value_of = [&](const std::string& flag) -> std::optional<long long> {
      if (option == flag && i + 1 < node.options.size()) return std::atoll(node.options[++i].c_str());
      if (option.rfind(flag, 0) == 0 && option.size() > flag.size()) return std::atoll(option.c_str() + flag.size());
      return std::nullopt;
    };
    if (auto n = value_of("-n")) number = *n;
    else if (auto r = value_of("-r")) repeat = *r;
  }
  if (repeat < 1) repeat = 1;
  // The timed statement's value is not echoed at the prompt (IPython's %timeit).
  struct NoEcho {
    bool& echo;
    bool saved;
    explicit NoEcho(bool& echo) : echo(echo), saved(echo) { echo = false; }
    ~NoEcho() { echo = saved; }
  } no_echo(echo_expression_statements);
  using Clock = std::chrono::steady_clock;
  auto time_loops = [&](long long loops) {
    auto start = Clock::now();
    for (long long k = 0; k < loops; ++k) {
      poll_interrupt();
      exec(*node.statement, frame);
    }
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  if (number <= 0) {
    // IPython: the first power of ten whose total time reaches 0.2 s.
    number = 1;
    for (int index = 0; index < 10; ++index) {
      number = 1;
      for (int k = 0; k < index; ++k) number *= 10;
      if (time_loops(number) >= 0.2) break;
    }
  }
  double best = std::numeric_limits<double>::infinity();
  for (long long r = 0; r < repeat; ++r) best = std::min(best, time_loops(number));
  best /= static_cast<double>(number);
  write(std::to_string(number) + " loop" + (number == 1 ? "" : "s") + ", best of " + std::to_string(repeat) + ": " +
        format_time(best) + " per loop\n");
  if (after_timeit) after_timeit(*this, stmt, [&] { exec(*node.statement, frame); });
}

}  // namespace interp
