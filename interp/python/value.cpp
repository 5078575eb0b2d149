#include "interp/python/value.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>

#include "interp/python/builtin_types.hpp"
#include "interp/python/classes.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/python/exceptions.hpp"
#include "interp/python/objects.hpp"

namespace interp {

namespace ast = lang::ast;

bool Value::is_same(const Value& other) const {
  if (kind_ != other.kind_) return false;
  if (object_ || other.object_) return object_ == other.object_;  // objects, number instances
  switch (kind_) {
    case Kind::none: return true;
    case Kind::boolean:
    case Kind::integer: return integer_ == other.integer_;
    case Kind::floating: return floating_ == other.floating_;
    case Kind::object: return object_ == other.object_;
  }
  return false;
}

// ------------------------------------------------------------ Object defaults

std::string Object::repr(Evaluator&) const {
  char address[32];
  std::snprintf(address, sizeof address, "%p", static_cast<const void*>(this));
  return "<" + type()->name() + " object at " + address + ">";
}

std::optional<Value> Object::get_attribute(Evaluator& evaluator, const std::string& name) {
  for (const TypeObject* t = type().get(); t != nullptr; t = t->base().get())
    if (const ObjectRef* method = t->find_method(name)) return TypeObject::bind(evaluator, Value(self()), *method);
  return std::nullopt;
}

bool Object::set_attribute(Evaluator&, const std::string&, const Value&) { return false; }

std::optional<Value> Object::descriptor_get(Evaluator&, const Value&, const Value&) { return std::nullopt; }

std::vector<std::string> Object::attribute_names() const { return type()->attribute_names(); }

Value Object::call(Evaluator&, CallArgs&) {
  raise(exc::TypeError(), "'" + type()->name() + "' object is not callable");
}

std::optional<Value> Object::binary_op(Evaluator&, ast::BinaryOperator, const Value&, bool) { return std::nullopt; }
std::optional<Value> Object::binary_inplace(Evaluator&, ast::BinaryOperator, const Value&) { return std::nullopt; }
std::optional<Value> Object::unary_op(Evaluator&, ast::UnaryOperator) { return std::nullopt; }
std::optional<Value> Object::compare(Evaluator&, ast::CompareOperator, const Value&, bool) { return std::nullopt; }
std::optional<Value> Object::get_item(Evaluator&, const Value&) { return std::nullopt; }
bool Object::set_item(Evaluator&, const Value&, const Value&) { return false; }
bool Object::delete_item(Evaluator&, const Value&) { return false; }
IteratorRef Object::iterate(Evaluator&) { return nullptr; }
std::optional<std::int64_t> Object::length(Evaluator&) const { return std::nullopt; }
std::optional<bool> Object::contains(Evaluator&, const Value&) { return std::nullopt; }
bool Object::truthy(Evaluator& evaluator) const {
  auto n = length(evaluator);
  return !n || *n != 0;
}
std::optional<std::size_t> Object::hash() const { return std::hash<const void*>()(this); }
bool Object::equals(const Value& other) const { return other.is_object() && other.object().get() == this; }
std::optional<Value> Object::enter(Evaluator&) { return std::nullopt; }
bool Object::exit(Evaluator&, const Value*) { return false; }

IteratorRef Iterator::iterate(Evaluator&) { return std::static_pointer_cast<Iterator>(self()); }
const TypeRef& Iterator::type() const { return types::iterator(); }

// ------------------------------------------------------------ signatures

namespace {

Value parse_default(std::string_view text) {
  if (text == "None") return Value::none();
  if (text == "True") return Value::boolean(true);
  if (text == "False") return Value::boolean(false);
  if (text == "()") return make_tuple({});
  if (!text.empty() && (text.front() == '\'' || text.front() == '"'))
    return make_str(std::string(text.substr(1, text.size() - 2)));
  std::int64_t integer = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), integer);
  if (error == std::errc() && end == text.data() + text.size()) return Value::integer(integer);
  return Value::floating(std::strtod(std::string(text).c_str(), nullptr));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += names.size() == 2 ? " and " : (i + 1 == names.size() ? ", and " : ", ");
    out += "'" + names[i] + "'";
  }
  return out;
}

}  // namespace

Signature Signature::parse(std::string_view text) {
  Signature signature;
  auto open = text.find('(');
  signature.name = std::string(text.substr(0, open));
  std::string_view rest = text.substr(open + 1, text.rfind(')') - open - 1);
  bool keyword_only = false;
  std::vector<Parameter> params;
  while (!trim(rest).empty()) {
    auto comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item == "/") {
      for (auto& p : params) p.kind = Parameter::Kind::positional_only;
      continue;
    }
    if (item == "*") {
      keyword_only = true;
      continue;
    }
    Parameter p;
    if (item.substr(0, 2) == "**") {
      p.kind = Parameter::Kind::kwargs;
      p.name = std::string(item.substr(2));
      p.required = false;
    } else if (item.front() == '*') {
      p.kind = Parameter::Kind::varargs;
      p.name = std::string(item.substr(1));
      p.required = false;
      keyword_only = true;
    } else {
      p.kind = keyword_only ? Parameter::Kind::keyword_only : Parameter::Kind::positional_or_keyword;
      auto equals = item.find('=');
      p.name = std::string(trim(item.substr(0, equals)));
      if (equals != std::string_view::npos) {
        p.required = false;
        std::string_view default_text = trim(item.substr(equals + 1));
        if (default_text != "?") p.default_value = parse_default(default_text);
      }
    }
    params.push_back(std::move(p));
  }
  signature.parameters = std::move(params);
  return signature;
}

bool binds_positionally(const std::vector<Parameter>& params, std::size_t given) {
  if (given > params.size()) return false;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Parameter& p = params[i];
    bool fits = i < given ? p.kind == Parameter::Kind::positional_only || p.kind == Parameter::Kind::positional_or_keyword
                          : p.kind != Parameter::Kind::varargs && p.kind != Parameter::Kind::kwargs && !p.required;
    if (!fits) return false;
  }
  return true;
}

bool bind_positional(const std::vector<Parameter>& params, std::vector<Value>& positional, Arguments& bound) {
  if (!binds_positionally(params, positional.size())) return false;
  bind_positionally(params, positional.size(), [&](std::size_t i) { return std::move(positional[i]); }, bound);
  return true;
}

Arguments bind_arguments(Evaluator& evaluator, const Signature& signature, CallArgs& args) {
  const auto& params = signature.parameters;
  Arguments bound;
  if (args.keywords.empty() && bind_positional(params, args.positional, bound)) return bound;
  bound.values.resize(params.size());
  const std::string& fname = signature.name;

  std::size_t positional_capacity = 0;
  std::optional<std::size_t> varargs, kwargs;
  for (std::size_t i = 0; i < params.size(); ++i) {
    auto kind = params[i].kind;
    if (kind == Parameter::Kind::positional_only || kind == Parameter::Kind::positional_or_keyword)
      positional_capacity = i + 1;
    if (kind == Parameter::Kind::varargs) varargs = i;
    if (kind == Parameter::Kind::kwargs) kwargs = i;
  }

  std::size_t given = args.positional.size();
  // Built-ins of one positional-only argument word their errors as CPython's METH_O functions do.
  if (params.size() == 1 && params[0].kind == Parameter::Kind::positional_only && params[0].required) {
    if (!args.keywords.empty()) raise(exc::TypeError(), fname + "() takes no keyword arguments");
    if (given != 1)
      raise(exc::TypeError(), fname + "() takes exactly one argument (" + std::to_string(given) + " given)");
  }
  if (given > positional_capacity && !varargs) {
    std::size_t keyword_only_given = 0;
    for (const auto& [name, value] : args.keywords)
      for (const auto& p : params)
        if (p.kind == Parameter::Kind::keyword_only && p.name == name) ++keyword_only_given;
    std::size_t required = 0;
    for (std::size_t i = 0; i < positional_capacity; ++i)
      if (params[i].required) ++required;
    std::string takes = required == positional_capacity
                            ? std::to_string(positional_capacity)
                            : "from " + std::to_string(required) + " to " + std::to_string(positional_capacity);
    std::string plural = positional_capacity == 1 && required == positional_capacity ? "" : "s";
    std::string also;
    if (keyword_only_given > 0)
      also = std::string(" positional argument") + (given == 1 ? "" : "s") + " (and " + std::to_string(keyword_only_given) +
             " keyword-only argument" + (keyword_only_given == 1 ? "" : "s") + ")";
    raise(exc::TypeError(), fname + "() takes " + takes + " positional argument" + plural + " but " +
                                std::to_string(given) + also + (given == 1 && also.empty() ? " was" : " were") + " given");
  }
  for (std::size_t i = 0; i < std::min(given, positional_capacity); ++i) bound.values[i] = std::move(args.positional[i]);
  if (varargs) {
    std::vector<Value> extra;
    for (std::size_t i = positional_capacity; i < given; ++i) extra.push_back(std::move(args.positional[i]));
    bound.values[*varargs] = make_tuple(std::move(extra));
  }

  std::shared_ptr<DictObject> extra_keywords = kwargs ? make_dict() : nullptr;
  std::vector<std::string> positional_only_as_keyword;
  for (auto& keyword : args.keywords) {
    const std::string& name = keyword.first;
    Value& value = keyword.second;
    auto param = std::find_if(params.begin(), params.end(), [&](const Parameter& p) {
      return p.name == name && p.kind != Parameter::Kind::varargs && p.kind != Parameter::Kind::kwargs;
    });
    if (param != params.end() && param->kind == Parameter::Kind::positional_only) {
      if (extra_keywords) {
        extra_keywords->table.insert(make_str(name), value);
        continue;
      }
      positional_only_as_keyword.push_back(name);
      continue;
    }
    if (param == params.end()) {
      if (!extra_keywords) {
        if (!signature.user_defined) raise(exc::TypeError(), "'" + name + "' is an invalid keyword argument for " + fname + "()");
        raise(exc::TypeError(), fname + "() got an unexpected keyword argument '" + name + "'");
      }
      extra_keywords->table.insert(make_str(name), value);
      continue;
    }
    std::size_t index = static_cast<std::size_t>(param - params.begin());
    if (bound.values[index]) raise(exc::TypeError(), fname + "() got multiple values for argument '" + name + "'");
    bound.values[index] = std::move(value);
  }
  if (!positional_only_as_keyword.empty()) {
    std::string names;
    for (std::size_t i = 0; i < positional_only_as_keyword.size(); ++i)
      names += (i ? ", '" : "'") + positional_only_as_keyword[i] + "'";
    raise(exc::TypeError(), fname + "() got some positional-only arguments passed as keyword arguments: " + names);
  }
  if (kwargs) bound.values[*kwargs] = Value(extra_keywords);

  std::vector<std::string> missing_positional, missing_keyword;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (bound.values[i]) continue;
    const Parameter& p = params[i];
    if (p.default_value) {
      bound.values[i] = *p.default_value;
    } else if (p.required) {
      (p.kind == Parameter::Kind::keyword_only ? missing_keyword : missing_positional).push_back(p.name);
    }
  }
  if (!missing_positional.empty())
    raise(exc::TypeError(), fname + "() missing " + std::to_string(missing_positional.size()) +
                                " required positional argument" + (missing_positional.size() == 1 ? "" : "s") +
                                ": " + quoted_list(missing_positional));
  if (!missing_keyword.empty())
    raise(exc::TypeError(), fname + "() missing " + std::to_string(missing_keyword.size()) +
                                " required keyword-only argument" + (missing_keyword.size() == 1 ? "" : "s") +
                                ": " + quoted_list(missing_keyword));
  (void)evaluator;
  return bound;
}

// ------------------------------------------------------------ functions

NativeFunction::NativeFunction(Signature signature, NativeFastBody fast, std::string module)
    : signature_(std::move(signature)), module_(std::move(module)), fast_(fast) {
  const std::vector<Parameter>& params = signature_.parameters;
  for (const Parameter& p : params) {
    bool positional = p.kind == Parameter::Kind::positional_only || p.kind == Parameter::Kind::positional_or_keyword;
    if (!positional || params.size() > fast_arity || (!p.required && !p.default_value))
      throw std::logic_error(signature_.name + ": a fast body takes positional parameters only, with defaults");
    if (p.required) ++fast_required_;
  }
  body_ = [fast, count = params.size()](Evaluator& evaluator, Arguments& a) {
    std::array<Value, fast_arity> values;
    for (std::size_t i = 0; i < count; ++i) values[i] = std::move(*a.values[i]);
    return fast(evaluator, values.data());
  };
}

const TypeRef& NativeFunction::type() const { return types::builtin_function(); }

std::string NativeFunction::repr(Evaluator&) const { return "<built-in function " + signature_.name + ">"; }

Value NativeFunction::call(Evaluator& evaluator, CallArgs& args) {
  Arguments bound = bind_arguments(evaluator, signature_, args);
  return body_(evaluator, bound);
}

std::optional<Value> NativeFunction::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "__name__" || name == "__qualname__") return make_str(signature_.name);
  if (name == "__module__") return module_.empty() ? Value::none() : make_str(module_);
  return Object::get_attribute(evaluator, name);
}

ObjectRef native(std::string_view signature, NativeFunctionBody body) {
  return std::make_shared<NativeFunction>(Signature::parse(signature), std::move(body));
}

const TypeRef& BoundMethod::type() const { return types::method(); }

std::string BoundMethod::repr(Evaluator& evaluator) const {
  if (!dynamic_cast<const NativeFunction*>(function_.get()))
    return "<bound method " + qualified_name(Value(function_)) + " of " + evaluator.repr(self_) + ">";
  char address[32];
  std::snprintf(address, sizeof address, "%p", static_cast<const void*>(self_.is_object() ? self_.object().get() : this));
  std::string name = qualified_name(Value(function_));
  return "<built-in method " + name + " of " + type_name(self_) + " object at " + address + ">";
}

Value BoundMethod::call(Evaluator& evaluator, CallArgs& args) {
  args.positional.insert(args.positional.begin(), self_);
  return function_->call(evaluator, args);
}

// ------------------------------------------------------------ types

const TypeRef& TypeObject::type() const { return types::type(); }

std::string TypeObject::repr(Evaluator&) const { return "<class '" + name_ + "'>"; }

std::optional<Value> TypeObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "__name__" || name == "__qualname__") return make_str(name_);
  if (name == "__base__") return base_ ? Value(base_) : Value::none();
  if (const ObjectRef* method = find_method(name)) return Value(*method);
  for (const TypeObject* t : ancestors_)
    if (const ObjectRef* method = t->find_method(name)) return Value(*method);
  return Object::get_attribute(evaluator, name);
}

std::vector<std::string> TypeObject::attribute_names() const {
  // The dunder methods of object and the exceptions (classes.hpp) are left
  // out, as Python's completion leaves them out until `_` is typed.
  std::vector<std::string> names;
  for (const TypeObject* t = this; t != nullptr; t = t->base_.get())
    for (const auto& [name, method] : t->methods_)
      if (name.rfind("__", 0) != 0) names.push_back(name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Value TypeObject::call(Evaluator& evaluator, CallArgs& args) {
  if (!constructor_) raise(exc::TypeError(), "cannot create '" + name_ + "' instances");
  return constructor_(evaluator, args);
}

bool TypeObject::is_subclass_of(const TypeObject& other) const {
  return this == &other || std::find(ancestors_.begin(), ancestors_.end(), &other) != ancestors_.end();
}

void TypeObject::add_method(std::string_view signature, NativeFunctionBody body) {
  auto function = std::make_shared<NativeFunction>(Signature::parse(signature), std::move(body), name_);
  std::string name = function->name();
  insert_method(name, std::move(function));
}

void TypeObject::add_method(std::string_view signature, NativeFastBody fast) {
  auto function = std::make_shared<NativeFunction>(Signature::parse(signature), fast, name_);
  std::string name = function->name();
  insert_method(name, std::move(function));
}

void TypeObject::add_attribute(const std::string& name, AttributeDescriptor::Getter getter) {
  insert_method(name, std::make_shared<AttributeDescriptor>(name, name_, std::move(getter)));
}

void TypeObject::insert_method(const std::string& name, ObjectRef method) {
  auto at = std::lower_bound(methods_.begin(), methods_.end(), name,
                             [](const auto& entry, const std::string& n) { return entry.first < n; });
  methods_.insert(at, {name, std::move(method)});
}

Value TypeObject::bind(Evaluator& evaluator, const Value& self, const ObjectRef& method) {
  if (auto value = method->descriptor_get(evaluator, self, Value::none())) return *value;
  return Value(std::make_shared<BoundMethod>(self, method));
}

const TypeRef& AttributeDescriptor::type() const {
  static const TypeRef type = make_type("getset_descriptor", types::object());
  return type;
}

namespace {
// std::string's <, compared here without a call of memcmp: method names are
// short and differ early.
bool name_less(const std::string& a, const std::string& b) {
  const std::size_t size = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < size; ++i)
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  return a.size() < b.size();
}
}  // namespace

const ObjectRef* TypeObject::find_method(const std::string& name) const {
  // The methods found last on this thread, by type and the name's address
  // (a call site's, mostly). An entry is used only when it still lies among
  // this type's methods with this name: the type may have gained methods
  // since, or be another one at a freed type's address, and the name another
  // string at a freed one's.
  struct Found {
    const TypeObject* type = nullptr;
    const std::string* name = nullptr;
    const std::pair<std::string, ObjectRef>* entry = nullptr;
  };
  thread_local std::array<Found, 256> found;
  Found& slot = found[((reinterpret_cast<std::uintptr_t>(this) >> 4) ^ (reinterpret_cast<std::uintptr_t>(&name) >> 3)) %
                      found.size()];
  const auto* first = methods_.data();
  const std::less<> before;
  if (slot.type == this && slot.name == &name && !before(slot.entry, first) &&
      before(slot.entry, first + methods_.size()) && same_name(slot.entry->first, name))
    return &slot.entry->second;
  auto at = std::lower_bound(methods_.begin(), methods_.end(), name,
                             [](const auto& entry, const std::string& n) { return name_less(entry.first, n); });
  if (at == methods_.end() || !same_name(at->first, name)) return nullptr;
  slot = Found{this, &name, &*at};
  return &at->second;
}

TypeRef make_type(std::string name, TypeRef base) { return std::make_shared<TypeObject>(std::move(name), std::move(base)); }

namespace types {

namespace {
TypeRef built(const char* name, const TypeRef& base) {
  TypeRef type = make_type(name, base);
  install_builtin_type(name, *type);
  return type;
}
}  // namespace

#define SHARDLANG_BUILTIN_TYPE(function, name, base) \
  const TypeRef& function() {                        \
    static const TypeRef type = built(name, base);   \
    return type;                                     \
  }

namespace {
// What object() makes: no attributes of its own, equal and hashed by identity,
// shown as <object object at 0x...> (Object's defaults).
class BareObject : public Object {
 public:
  const TypeRef& type() const override { return types::object(); }
};
}  // namespace

const TypeRef& object() {
  static const TypeRef type = [] {
    TypeRef made = make_type("object");
    made->set_constructor([](Evaluator&, CallArgs& args) {
      if (!args.positional.empty() || !args.keywords.empty()) raise(exc::TypeError(), "object() takes no arguments");
      return Value(std::make_shared<BareObject>());
    });
    return made;
  }();
  return type;
}
SHARDLANG_BUILTIN_TYPE(none, "NoneType", object())
SHARDLANG_BUILTIN_TYPE(integer, "int", object())
SHARDLANG_BUILTIN_TYPE(boolean, "bool", integer())
SHARDLANG_BUILTIN_TYPE(floating, "float", object())
SHARDLANG_BUILTIN_TYPE(str, "str", object())
SHARDLANG_BUILTIN_TYPE(tuple, "tuple", object())
SHARDLANG_BUILTIN_TYPE(list, "list", object())
SHARDLANG_BUILTIN_TYPE(dict, "dict", object())
SHARDLANG_BUILTIN_TYPE(set, "set", object())
SHARDLANG_BUILTIN_TYPE(frozenset, "frozenset", object())
SHARDLANG_BUILTIN_TYPE(range, "range", object())
SHARDLANG_BUILTIN_TYPE(slice, "slice", object())
SHARDLANG_BUILTIN_TYPE(ellipsis, "ellipsis", object())
SHARDLANG_BUILTIN_TYPE(function, "function", object())
SHARDLANG_BUILTIN_TYPE(builtin_function, "builtin_function_or_method", object())
SHARDLANG_BUILTIN_TYPE(method, "method", object())
SHARDLANG_BUILTIN_TYPE(module, "module", object())
SHARDLANG_BUILTIN_TYPE(type, "type", object())
SHARDLANG_BUILTIN_TYPE(iterator, "iterator", object())
SHARDLANG_BUILTIN_TYPE(generator, "generator", object())
SHARDLANG_BUILTIN_TYPE(zip, "zip", object())
SHARDLANG_BUILTIN_TYPE(map, "map", object())
SHARDLANG_BUILTIN_TYPE(filter, "filter", object())
SHARDLANG_BUILTIN_TYPE(enumerate, "enumerate", object())
SHARDLANG_BUILTIN_TYPE(reversed, "reversed", object())
SHARDLANG_BUILTIN_TYPE(list_iterator, "list_iterator", object())

#undef SHARDLANG_BUILTIN_TYPE

}  // namespace types

const TypeRef& type_of(const Value& value) {
  if (value.has_hooks()) return value.object()->type();
  switch (value.kind()) {
    case Value::Kind::none: return types::none();
    case Value::Kind::boolean: return types::boolean();
    case Value::Kind::integer: return types::integer();
    case Value::Kind::floating: return types::floating();
    case Value::Kind::object: break;
  }
  return types::object();
}

std::string type_name(const Value& value) { return type_of(value)->name(); }

}  // namespace interp
