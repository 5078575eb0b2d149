// Evaluating expressions: literals, names, operators, calls, subscripts,
// lambdas and f-strings (comprehensions are in comprehensions.cpp).

#include "interp/python/evaluator.hpp"

#include <array>
#include <cstdint>
#include <typeinfo>

#include "interp/python/classes.hpp"
#include "interp/python/format.hpp"

namespace interp {

namespace ast = lang::ast;

Value Evaluator::eval_expression(const ast::Expr& expr, Frame& frame) {
  guard_stack();
  try {
    if (!observer) return eval_node(expr, frame);
    Value value = eval_node(expr, frame);
    observer->evaluated(expr, value);
    return value;
  } catch (PyError& error) {
    ExceptionObject& exception = *error.exception;
    if (!exception.frame_span_set) {
      exception.frame_span = expr.span;
      exception.frame_span_set = true;
    }
    throw;
  }
}

void Evaluator::eval_elements(const ast::ExprList& elements, Frame& frame, std::vector<Value>& out) {
  out.reserve(elements.size());
  for (const auto& e : elements) {
    if (auto* starred = std::get_if<ast::Starred>(&e->node)) {
      Value iterable = eval(*starred->value, frame);
      std::vector<Value> items = to_vector(iterable);
      out.insert(out.end(), std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
    } else {
      out.push_back(eval(*e, frame));
    }
  }
}

Value Evaluator::eval_subscript_key(const ast::Expr& slice, Frame& frame) {
  if (auto* tuple = std::get_if<ast::Tuple>(&slice.node)) {
    std::vector<Value> parts;
    for (const auto& e : tuple->elts) parts.push_back(eval_subscript_key(*e, frame));
    return make_tuple(std::move(parts));
  }
  return eval(slice, frame);
}

void Evaluator::eval_arguments(const ast::Call& call, const Value& callee, Frame& frame, CallArgs& args) {
  args.positional.reserve(args.positional.size() + call.args.size());
  for (const auto& e : call.args) {
    if (auto* starred = std::get_if<ast::Starred>(&e->node)) {
      Value iterable = eval(*starred->value, frame);
      if (!iterable.is_object() || !iterable.object()->iterate(*this))
        raise(exc::TypeError(), qualified_name(callee) + "() argument after * must be an iterable, not " +
                                    type_name(iterable));
      std::vector<Value> items = to_vector(iterable);
      args.positional.insert(args.positional.end(), items.begin(), items.end());
    } else {
      args.positional.push_back(eval(*e, frame));
    }
  }
  for (const auto& keyword : call.keywords) {
    Value value = eval(*keyword.value, frame);
    auto add = [&](std::string name, Value v) {
      for (const auto& [existing, unused] : args.keywords)
        if (existing == name)
          raise(exc::TypeError(), qualified_name(callee) + "() got multiple values for keyword argument '" + name + "'");
      args.keywords.emplace_back(std::move(name), std::move(v));
    };
    if (keyword.name) {
      add(keyword.name->name, std::move(value));
      continue;
    }
    auto* mapping = value.as<DictObject>();
    if (!mapping)
      raise(exc::TypeError(), qualified_name(callee) + "() argument after ** must be a mapping, not " + type_name(value));
    for (const auto& entry : mapping->table.entries()) {
      if (!entry.live) continue;
      const std::string* key = string_of(entry.key);
      if (!key) raise(exc::TypeError(), "keywords must be strings");
      add(*key, entry.value);
    }
  }
}

namespace {
// The str of a literal: one object per literal, as CPython keeps one in the
// code object (a str is immutable), from a small cache of the literals last
// evaluated on this thread. A slot is checked against the literal's text
// too: a freed program's literal may have the address of a newer one.
const Value& literal_str(const std::string& text) {
  struct Slot {
    const std::string* literal = nullptr;
    Value value;
  };
  thread_local std::array<Slot, 512> slots;
  Slot& slot = slots[(reinterpret_cast<std::uintptr_t>(&text) >> 4) % slots.size()];
  if (slot.literal != &text || *string_of(slot.value) != text) {
    slot.literal = &text;
    slot.value = make_str(text);
  }
  return slot.value;
}

}  // namespace

const ObjectRef* container_method(const Value& object, const std::string& name) {
  if (!object.is_object()) return nullptr;
  const Object& o = *object.object();
  if (!is_exactly<ListObject>(o) && !is_exactly<DictObject>(o) && !is_exactly<StrObject>(o) &&
      !is_exactly<TupleObject>(o) && !is_exactly<SetObject>(o))
    return nullptr;
  for (const TypeObject* t = o.type().get(); t != nullptr; t = t->base().get())
    if (const ObjectRef* method = t->find_method(name)) return method;
  return nullptr;
}

bool Evaluator::call_method(const ast::Expr& expression, const ast::Call& call, Frame& frame, Value& result) {
  const auto* attribute = std::get_if<ast::Attribute>(&call.func->node);
  if (!attribute || observer) return false;
  Value held;
  const Value& object = eval_operand(*attribute->value, frame, held);
  // As the bound method would pass them: the object first, then the arguments.
  auto arguments_for = [&](const Value& callee) {
    CallArgs args;
    args.positional = take_arguments();
    args.positional.reserve(call.args.size() + 1);
    args.positional.push_back(object);
    eval_arguments(call, callee, frame, args);
    return args;
  };
  if (const ObjectRef* method = container_method(object, attribute->attr)) {
    Value callee(*method);
    CallArgs args = arguments_for(callee);
    RestoreOnExit restore_call(running_call);
    running_call = {&expression, nullptr};
    result = callee.object()->call(*this, args);
    give_back_arguments(args.positional);
    return true;
  }
  InstanceObject* instance = object.is_object() ? object.object()->as_instance() : nullptr;
  const Value* method = instance ? site_method(attribute_site(*attribute, frame), *instance, attribute->attr) : nullptr;
  if (!method || find_attribute_in(instance->attributes, attribute->attr)) {
    // Python's attribute lookup, then the call, as for any callee.
    Value callee;
    try {
      callee = get_attribute(object, attribute->attr);
    } catch (PyError& error) {
      if (!error.exception->frame_span_set) {
        error.exception->frame_span = call.func->span;
        error.exception->frame_span_set = true;
      }
      throw;
    }
    result = call_with_arguments(expression, call, std::move(callee), frame);
    return true;
  }
  Value callee = *method;  // the function stays alive through the call
  FunctionObject* function = &the_function(callee);
  if (call.keywords.empty() && call_function_directly(*function, &object, call.args, frame, result)) return true;
  CallArgs args = arguments_for(callee);
  RestoreOnExit restore_call(running_call);
  running_call = {&expression, function};
  result = call_function(*function, args);
  give_back_arguments(args.positional);
  return true;
}

Value Evaluator::call_with_arguments(const ast::Expr& expression, const ast::Call& call, Value callee, Frame& frame) {
  CallArgs args;
  args.positional = take_arguments();
  eval_arguments(call, callee, frame, args);
  RestoreOnExit restore_call(running_call);
  running_call = {&expression, callee.is_object() ? callee.object().get() : nullptr};
  Value result = this->call(callee, args);
  give_back_arguments(args.positional);
  return result;
}

Value Evaluator::eval_call(const ast::Expr& expression, const ast::Call& call, Frame& frame) {
  Value result;
  if (std::holds_alternative<ast::Attribute>(call.func->node) && call_method(expression, call, frame, result))
    return result;
  Value callee = eval(*call.func, frame);
  if (call.keywords.empty())
    if (FunctionObject* function = callee.is_object() ? callee.object()->as_function() : nullptr)
      if (call_function_directly(*function, nullptr, call.args, frame, result)) return result;
  return call_with_arguments(expression, call, std::move(callee), frame);
}

Value Evaluator::make_function(const void* scope_node, const ast::Parameters& params, Frame& frame) {
  auto function = std::make_shared<FunctionObject>();
  function->program = *frame.program;
  function->globals = *frame.globals;
  function->scope = &function->program->resolution.scope(scope_node);
  function->parameters = &params;
  Signature& signature = function->signature;
  signature.name = function->scope->qualname;
  signature.user_defined = true;
  auto add = [&](const ast::Parameter& p, Parameter::Kind kind) {
    Parameter parameter;
    parameter.name = p.name.name;
    parameter.kind = kind;
    if (p.default_) {
      parameter.default_value = eval(*p.default_, frame);
      parameter.required = false;
    }
    if (kind == Parameter::Kind::varargs || kind == Parameter::Kind::kwargs) parameter.required = false;
    signature.parameters.push_back(std::move(parameter));
  };
  for (const auto& p : params.positional) add(p, Parameter::Kind::positional_or_keyword);
  if (params.varargs) add(*params.varargs, Parameter::Kind::varargs);
  for (const auto& p : params.keyword_only) add(p, Parameter::Kind::keyword_only);
  if (params.kwargs) add(*params.kwargs, Parameter::Kind::kwargs);
  function->plain_parameters = !params.varargs && params.keyword_only.empty() && !params.kwargs;
  for (const auto& p : params.positional) function->annotated = function->annotated || p.annotation;
  for (const auto& p : params.keyword_only) function->annotated = function->annotated || p.annotation;
  for (std::uint32_t source : function->scope->free_sources) function->closure.push_back(frame.cells.at(source));
  return Value(function);
}

Value Evaluator::eval_joined_str(const ast::JoinedStr& node, Frame& frame) {
  std::string out;
  for (const auto& part : node.parts) {
    if (auto* text = std::get_if<std::string>(&part)) {
      out += *text;
      continue;
    }
    const auto& field = std::get<ast::FormattedValue>(part);
    Value value = eval(*field.value, frame);
    if (field.conversion == 'r' || field.conversion == 'a') value = make_str(repr(value));
    else if (field.conversion == 's') value = make_str(str(value));
    if (field.format_spec_expr) out += format_value(*this, value, str(eval(*field.format_spec_expr, frame)));
    else out += format_value(*this, value, field.format_spec);
  }
  return make_str(std::move(out));
}

Value Evaluator::eval_node(const ast::Expr& expr, Frame& frame) {
  return std::visit(
      [&](const auto& node) -> Value {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<T, ast::Constant>) {
          return std::visit(
              [](const auto& c) -> Value {
                using C = std::decay_t<decltype(c)>;
                if constexpr (std::is_same_v<C, ast::NoneLiteral>) return Value::none();
                else if constexpr (std::is_same_v<C, bool>) return Value::boolean(c);
                else if constexpr (std::is_same_v<C, std::int64_t>) return Value::integer(c);
                else if constexpr (std::is_same_v<C, double>) return Value::floating(c);
                else if constexpr (std::is_same_v<C, std::string>) return literal_str(c);
                else return ellipsis_value();
              },
              node.value);
        } else if constexpr (std::is_same_v<T, ast::Name>) {
          return load_name(node, frame);
        } else if constexpr (std::is_same_v<T, ast::JoinedStr>) {
          return eval_joined_str(node, frame);
        } else if constexpr (std::is_same_v<T, ast::Tuple>) {
          std::vector<Value> items;
          eval_elements(node.elts, frame, items);
          return make_tuple(std::move(items));
        } else if constexpr (std::is_same_v<T, ast::List>) {
          std::vector<Value> items;
          eval_elements(node.elts, frame, items);
          return make_list(std::move(items));
        } else if constexpr (std::is_same_v<T, ast::Set>) {
          std::vector<Value> items;
          eval_elements(node.elts, frame, items);
          auto set = make_set();
          for (auto& item : items) set->table.insert(item, Value());
          return Value(set);
        } else if constexpr (std::is_same_v<T, ast::Dict>) {
          auto dict = make_dict();
          for (std::size_t i = 0; i < node.values.size(); ++i) {
            if (!node.keys[i]) {
              Value other = eval(*node.values[i], frame);
              auto* mapping = other.as<DictObject>();
              if (!mapping) raise(exc::TypeError(), "'" + type_name(other) + "' object is not a mapping");
              for (const auto& entry : mapping->table.entries())
                if (entry.live) dict->table.insert(entry.key, entry.value);
              continue;
            }
            Value key = eval(*node.keys[i], frame);
            Value value = eval(*node.values[i], frame);
            dict->table.insert(key, std::move(value));
          }
          return Value(dict);
        } else if constexpr (std::is_same_v<T, ast::ListComp> || std::is_same_v<T, ast::SetComp> ||
                             std::is_same_v<T, ast::DictComp> || std::is_same_v<T, ast::GeneratorExp>) {
          return eval_comprehension(expr, frame);
        } else if constexpr (std::is_same_v<T, ast::BinOp>) {
          Value left = eval(*node.left, frame);
          Value right = eval(*node.right, frame);
          return binary(node.op, left, right);
        } else if constexpr (std::is_same_v<T, ast::UnaryOp>) {
          return unary(node.op, eval(*node.operand, frame));
        } else if constexpr (std::is_same_v<T, ast::BoolOp>) {
          Value result;
          for (const auto& e : node.values) {
            result = eval(*e, frame);
            bool t = truthy(result);
            if (node.op == ast::BooleanOperator::and_ ? !t : t) return result;
          }
          return result;
        } else if constexpr (std::is_same_v<T, ast::Compare>) {
          Value left = eval(*node.left, frame);
          if (node.ops.size() == 1) return compare(node.ops[0], left, eval(*node.comparators[0], frame));
          Value result = Value::boolean(true);
          for (std::size_t i = 0; i < node.ops.size(); ++i) {
            Value right = eval(*node.comparators[i], frame);
            result = compare(node.ops[i], left, right);
            if (i + 1 < node.ops.size() && !truthy(result)) return result;
            left = std::move(right);
          }
          return result;
        } else if constexpr (std::is_same_v<T, ast::IfExp>) {
          return truthy(eval(*node.test, frame)) ? eval(*node.body, frame) : eval(*node.orelse, frame);
        } else if constexpr (std::is_same_v<T, ast::Starred>) {
          raise(exc::SyntaxError(), "can't use starred expression here");
        } else if constexpr (std::is_same_v<T, ast::Call>) {
          return eval_call(expr, node, frame);
        } else if constexpr (std::is_same_v<T, ast::Attribute>) {
          Value held;
          const Value& object = eval_operand(*node.value, frame, held);
          // The common case first: an instance's own attribute (self.x).
          if (InstanceObject* instance = object.is_object() ? object.object()->as_instance() : nullptr)
            if (const Value* own = site_own_attribute(attribute_site(node, frame), *instance, node.attr)) return *own;
          return get_attribute(object, node.attr);
        } else if constexpr (std::is_same_v<T, ast::Subscript>) {
          Value held;
          const Value& object = eval_operand(*node.value, frame, held);
          Value key = eval_subscript_key(*node.slice, frame);
          return get_item(object, key);
        } else if constexpr (std::is_same_v<T, ast::Slice>) {
          Value lower = node.lower ? eval(*node.lower, frame) : Value::none();
          Value upper = node.upper ? eval(*node.upper, frame) : Value::none();
          Value step = node.step ? eval(*node.step, frame) : Value::none();
          return Value(std::make_shared<SliceObject>(std::move(lower), std::move(upper), std::move(step)));
        } else if constexpr (std::is_same_v<T, ast::Lambda>) {
          Value function = make_function(&expr, node.params, frame);
          function.as<FunctionObject>()->lambda_body = node.body.get();
          function.as<FunctionObject>()->definition = expr.span;
          return function;
        } else if constexpr (std::is_same_v<T, ast::Yield>) {
          return eval_yield(node.value.get(), frame);
        } else if constexpr (std::is_same_v<T, ast::YieldFrom>) {
          return eval_yield_from(*node.value, frame);
        }
      },
      expr.node);
}

}  // namespace interp
