// Host values of the evaluator: None, bool, int, float inline, and every other
// value as a heap Object with virtual hooks (attributes, call, operators,
// subscripts, iteration, ...). An instance of a user class deriving from int
// or float is its number inline (whatever reads a number reads it) with the
// instance's object beside it, whose hooks the protocols ask. New kinds of values (arrays, meshes, shardings,
// keys, jitted functions) are new Object subclasses: the evaluator reaches
// them only through these hooks.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "lang/ast.hpp"

namespace interp {

class Evaluator;
class Object;
class TypeObject;
class Iterator;
class FunctionObject;
class InstanceObject;
class ClassObject;
using ObjectRef = std::shared_ptr<Object>;
using TypeRef = std::shared_ptr<TypeObject>;
using IteratorRef = std::shared_ptr<Iterator>;

class Value {
 public:
  enum class Kind : std::uint8_t { none, boolean, integer, floating, object };

  Value() = default;  // None
  Value(ObjectRef object) : kind_(Kind::object), object_(std::move(object)) {}  // NOLINT: implicit
  static Value none() { return Value(); }
  static Value boolean(bool b) { Value v; v.kind_ = Kind::boolean; v.integer_ = b; return v; }
  static Value integer(std::int64_t i) { Value v; v.kind_ = Kind::integer; v.integer_ = i; return v; }
  static Value floating(double d) { Value v; v.kind_ = Kind::floating; v.floating_ = d; return v; }
  // An instance of a subclass of int or float: `number` (a plain int or
  // float) with the instance's object (builtin_subclasses.cpp).
  static Value number_instance(const Value& number, ObjectRef instance) {
    Value v = number;
    v.object_ = std::move(instance);
    return v;
  }

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::none; }
  bool is_bool() const { return kind_ == Kind::boolean; }
  bool is_int() const { return kind_ == Kind::integer; }
  bool is_float() const { return kind_ == Kind::floating; }
  bool is_object() const { return kind_ == Kind::object; }
  // bool counts as an int, as in Python.
  bool is_integral() const { return kind_ == Kind::integer || kind_ == Kind::boolean; }
  bool is_number() const { return is_integral() || kind_ == Kind::floating; }
  // Whether the protocols ask an object's hooks: an object, or a number that
  // is an instance of a subclass of int or float.
  bool has_hooks() const { return object_ != nullptr; }
  bool is_number_instance() const { return kind_ != Kind::object && object_ != nullptr; }
  // The number without its subclass instance (int(x), arithmetic's operands).
  Value plain_number() const {
    Value v = *this;
    v.object_.reset();
    return v;
  }

  bool as_bool() const { return integer_ != 0; }
  std::int64_t as_int() const { return integer_; }  // also for bool
  double as_float() const { return kind_ == Kind::floating ? floating_ : static_cast<double>(integer_); }
  // The object; for a number, its subclass instance or null.
  const ObjectRef& object() const { return object_; }
  // The object as a T, or null when it is not one.
  template <class T>
  T* as() const {
    return kind_ == Kind::object ? dynamic_cast<T*>(object_.get()) : nullptr;
  }
  bool is_same(const Value& other) const;  // Python's `is`

 private:
  Kind kind_ = Kind::none;
  union {
    std::int64_t integer_ = 0;
    double floating_;
  };
  ObjectRef object_;
};

// The arguments of a call as written at the call site (after * and ** expansion).
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;
};

// The base of every heap value. Each hook has Python's default behaviour;
// "nullopt" answers mean "not supported" and let the evaluator raise
// Python's TypeError/AttributeError with the usual wording.
class Object : public std::enable_shared_from_this<Object> {
 public:
  virtual ~Object() = default;
  virtual const TypeRef& type() const = 0;

  virtual std::string repr(Evaluator& evaluator) const;
  virtual std::string str(Evaluator& evaluator) const { return repr(evaluator); }
  // format(obj, spec) / f'{obj:spec}'; nullopt: str() for an empty spec,
  // else TypeError.
  virtual std::optional<std::string> format(Evaluator&, std::string_view) const { return std::nullopt; }

  // Attribute lookup; the default finds the type's methods and binds them.
  virtual std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name);
  virtual bool set_attribute(Evaluator& evaluator, const std::string& name, const Value& value);
  // For tab completion and dir(): the attribute names, sorted.
  virtual std::vector<std::string> attribute_names() const;

  virtual bool callable() const { return false; }
  virtual Value call(Evaluator& evaluator, CallArgs& args);

  // Binary operators with Python's reflected protocol: the evaluator asks the
  // left operand (reflected=false) and then the right one (reflected=true);
  // nullopt means NotImplemented. In-place operators (+=) first try
  // binary_inplace.
  virtual std::optional<Value> binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op,
                                         const Value& other, bool reflected);
  virtual std::optional<Value> binary_inplace(Evaluator& evaluator, lang::ast::BinaryOperator op,
                                              const Value& other);
  virtual std::optional<Value> unary_op(Evaluator& evaluator, lang::ast::UnaryOperator op);
  // Rich comparison (==, !=, <, <=, >, >=) of this object with `other`;
  // reflected=true when this object is the right operand (then `op` is
  // already swapped: a < b asks b for b > a). nullopt: NotImplemented.
  virtual std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op,
                                       const Value& other, bool reflected);

  virtual std::optional<Value> get_item(Evaluator& evaluator, const Value& key);
  virtual bool set_item(Evaluator& evaluator, const Value& key, const Value& value);
  virtual bool delete_item(Evaluator& evaluator, const Value& key);

  virtual IteratorRef iterate(Evaluator& evaluator);  // null: not iterable
  virtual std::optional<std::int64_t> length(Evaluator& evaluator) const;  // nullopt: no len()
  virtual std::optional<bool> contains(Evaluator& evaluator, const Value& item);  // nullopt: iterate
  virtual bool truthy(Evaluator& evaluator) const;

  // Hashing for dict keys and sets; nullopt means unhashable. Equality used
  // by dicts, sets, `in` and list.index (identity by default).
  virtual std::optional<std::size_t> hash() const;
  virtual bool equals(const Value& other) const;

  // The context-manager protocol of `with`: enter returns the `as` value;
  // exit runs when the block ends (pending is the exception leaving the
  // block, or null) and returns true to swallow that exception.
  virtual std::optional<Value> enter(Evaluator& evaluator);
  virtual bool exit(Evaluator& evaluator, const Value* pending);

  // The descriptor protocol (__get__) for an object found in a class's
  // namespace: what `instance.name` gives (instance is None when read
  // through the class). nullopt: not a descriptor, the object itself.
  virtual std::optional<Value> descriptor_get(Evaluator& evaluator, const Value& instance, const Value& owner);

  // The evaluator's fast paths ask these instead of a dynamic_cast: a
  // `def` or lambda function, an instance of a user class, a user class.
  virtual FunctionObject* as_function() { return nullptr; }
  virtual InstanceObject* as_instance() { return nullptr; }
  virtual const ClassObject* as_class() const { return nullptr; }
  // The __dict__ of an instance of a user class (a plain instance, an
  // exception, an instance of a subclass of dict, list, ...); null for others.
  virtual std::vector<std::pair<std::string, Value>>* instance_dict() { return nullptr; }

  ObjectRef self() { return shared_from_this(); }
};

// Whether `object` is exactly a T, not an instance of a subclass: known by
// its type_info's name pointer, without a dynamic_cast (a copy of the name
// elsewhere only misses the shortcut).
template <class T>
bool is_exactly(const Object& object) {
  return typeid(object).name() == typeid(T).name();
}

class Iterator : public Object {
 public:
  virtual std::optional<Value> next(Evaluator& evaluator) = 0;
  IteratorRef iterate(Evaluator&) override;
  const TypeRef& type() const override;
};

// ------------------------------------------------------------ native functions

// A Python-style parameter list for built-in functions, written as Python
// writes it: "sorted(iterable, /, *, key=None, reverse=False)". Defaults are
// None, True, False, numbers, quoted strings, or `?` (optional, no default:
// the argument is then absent).
struct Parameter {
  enum class Kind : std::uint8_t { positional_only, positional_or_keyword, keyword_only, varargs, kwargs };
  std::string name;
  Kind kind = Kind::positional_or_keyword;
  bool required = true;
  std::optional<Value> default_value;  // absent when required or `?`
};

struct Signature {
  std::string name;  // as shown in errors: "sorted" or "counter.<locals>.bump"
  std::vector<Parameter> parameters;
  bool user_defined = false;  // a `def` or lambda: Python words some errors differently

  static Signature parse(std::string_view text);
};

// The bound arguments of a call, one per parameter (varargs as a tuple,
// kwargs as a dict); `absent` only for `?` parameters that were not given.
struct Arguments {
  // Most built-ins take a few: kept without an allocation.
  boost::container::small_vector<std::optional<Value>, 4> values;
  bool has(std::size_t i) const { return values[i].has_value(); }
  const Value& operator[](std::size_t i) const { return *values[i]; }
};

// Binds call arguments to a signature with Python's rules and TypeErrors.
Arguments bind_arguments(Evaluator& evaluator, const Signature& signature, CallArgs& args);
// The common call, bound without a check that can fail: positional
// arguments only, each to a parameter that takes one, and the parameters
// after them all with a default or optional. binds_positionally: whether
// `given` such arguments are one; bind_positionally binds them, argument(i)
// each (in order: a caller may evaluate it then), then the defaults;
// bind_positional does both, false when nothing was bound.
bool binds_positionally(const std::vector<Parameter>& params, std::size_t given);
template <class Argument>
void bind_positionally(const std::vector<Parameter>& params, std::size_t given, Argument&& argument, Arguments& bound) {
  // Appended one by one: within the inline capacity, cheaper than a resize.
  for (std::size_t i = 0; i < given; ++i) bound.values.emplace_back(argument(i));
  for (std::size_t i = given; i < params.size(); ++i) bound.values.push_back(params[i].default_value);
}
bool bind_positional(const std::vector<Parameter>& params, std::vector<Value>& positional, Arguments& bound);

using NativeFunctionBody = std::function<Value(Evaluator&, Arguments&)>;
// The body of a hot built-in (len, list.append, dict.get) over its
// arguments as they are, one per parameter in order, defaults filled in:
// what a call of positional arguments runs without an Arguments (CPython's
// vectorcall), where the compiled bodies can make one.
using NativeFastBody = Value (*)(Evaluator&, const Value* arguments);

class NativeFunction : public Object {
 public:
  NativeFunction(Signature signature, NativeFunctionBody body, std::string module = {})
      : signature_(std::move(signature)), body_(std::move(body)), module_(std::move(module)) {}
  // A built-in with a fast body, which `body` runs too: its parameters all
  // positional, at most fast_arity, the optional ones with a default.
  NativeFunction(Signature signature, NativeFastBody fast, std::string module = {});
  static constexpr std::size_t fast_arity = 4;
  NativeFastBody fast_body() const { return fast_; }
  // Whether `given` positional arguments are a call the fast body takes.
  bool fast_takes(std::size_t given) const {
    return fast_ != nullptr && given >= fast_required_ && given <= signature_.parameters.size();
  }
  const TypeRef& type() const override;
  std::string repr(Evaluator& evaluator) const override;
  bool callable() const override { return true; }
  Value call(Evaluator& evaluator, CallArgs& args) override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  const Signature& signature() const { return signature_; }
  const std::string& name() const { return signature_.name; }
  const NativeFunctionBody& body() const { return body_; }
  const std::string& module() const { return module_; }

 private:
  Signature signature_;
  NativeFunctionBody body_;
  std::string module_;
  NativeFastBody fast_ = nullptr;
  std::size_t fast_required_ = 0;  // the parameters without a default
};

// "len(obj, /)" + body: the one-line way to declare a built-in.
ObjectRef native(std::string_view signature, NativeFunctionBody body);

// A method bound to its object: calling it passes the object first.
class BoundMethod : public Object {
 public:
  BoundMethod(Value self, ObjectRef function) : self_(std::move(self)), function_(std::move(function)) {}
  const TypeRef& type() const override;
  std::string repr(Evaluator& evaluator) const override;
  bool callable() const override { return true; }
  Value call(Evaluator& evaluator, CallArgs& args) override;
  const ObjectRef& function() const { return function_; }

 private:
  Value self_;
  ObjectRef function_;
};

// A built-in type's data attribute (int.real, float.imag): CPython's
// getset_descriptor. Read through an instance it is its getter's value;
// through the type, itself.
class AttributeDescriptor : public Object {
 public:
  using Getter = std::function<Value(const Value& self)>;
  AttributeDescriptor(std::string name, std::string owner, Getter getter)
      : name_(std::move(name)), owner_(std::move(owner)), getter_(std::move(getter)) {}
  const TypeRef& type() const override;
  std::string repr(Evaluator&) const override { return "<attribute '" + name_ + "' of '" + owner_ + "' objects>"; }
  std::optional<Value> descriptor_get(Evaluator&, const Value& instance, const Value&) override {
    if (instance.is_none()) return std::nullopt;
    return getter_(instance);
  }

 private:
  std::string name_, owner_;
  Getter getter_;
};

// ------------------------------------------------------------ types

class TypeObject : public Object {
 public:
  // `constructor` receives the call's arguments (without the class).
  TypeObject(std::string name, TypeRef base, std::function<Value(Evaluator&, CallArgs&)> constructor = {})
      : name_(std::move(name)), base_(std::move(base)), constructor_(std::move(constructor)) {
    if (base_) {
      ancestors_.push_back(base_.get());
      ancestors_.insert(ancestors_.end(), base_->ancestors_.begin(), base_->ancestors_.end());
    }
  }
  const TypeRef& type() const override;
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  std::vector<std::string> attribute_names() const override;
  bool callable() const override { return static_cast<bool>(constructor_); }
  Value call(Evaluator& evaluator, CallArgs& args) override;

  const std::string& name() const { return name_; }
  const TypeRef& base() const { return base_; }
  bool is_subclass_of(const TypeObject& other) const;
  // The method resolution order after this type: C3 over a class's bases
  // (classes.hpp), the base chain for a built-in type.
  const std::vector<TypeObject*>& ancestors() const { return ancestors_; }
  // Methods looked up on instances (and as unbound functions on the class).
  void add_method(std::string_view signature, NativeFunctionBody body);
  void add_method(std::string_view signature, NativeFastBody fast);
  // A data attribute of the instances (an AttributeDescriptor among the methods).
  void add_attribute(const std::string& name, AttributeDescriptor::Getter getter);
  const ObjectRef* find_method(const std::string& name) const;
  // A method or attribute found by find_method, as read through `self`:
  // a bound method, or the attribute's value.
  static Value bind(Evaluator& evaluator, const Value& self, const ObjectRef& method);
  void set_constructor(std::function<Value(Evaluator&, CallArgs&)> constructor) {
    constructor_ = std::move(constructor);
  }
  // What calling the type with one positional argument makes (str(x)),
  // where the constructor makes the same without binding its arguments; null: none.
  using OneArgument = Value (*)(Evaluator&, const Value&);
  OneArgument one_argument() const { return one_argument_; }
  void set_one_argument(OneArgument make) { one_argument_ = make; }
  // A library type that user classes may derive from (collections.deque):
  // makes an empty instance of such a class (`cls`), which __init__ fills
  // (builtin_subclasses.hpp's SubclassInstance over the type's object).
  using SubclassMaker = std::function<Value(Evaluator&, const TypeRef& cls)>;
  void set_subclass_maker(SubclassMaker maker) { subclass_maker_ = std::move(maker); }
  const SubclassMaker& subclass_maker() const { return subclass_maker_; }

 protected:
  // A class statement's type (classes.hpp): its MRO is computed by the caller.
  TypeObject(std::string name, TypeRef base, std::vector<TypeObject*> ancestors)
      : name_(std::move(name)), base_(std::move(base)), ancestors_(std::move(ancestors)) {}

 private:
  std::string name_;
  TypeRef base_;
  std::vector<TypeObject*> ancestors_;  // kept alive by the bases
  std::function<Value(Evaluator&, CallArgs&)> constructor_;
  OneArgument one_argument_ = nullptr;
  SubclassMaker subclass_maker_;
  void insert_method(const std::string& name, ObjectRef method);

  std::vector<std::pair<std::string, ObjectRef>> methods_;  // sorted by name
};

// Creates a type object (the hierarchy is fixed once built).
TypeRef make_type(std::string name, TypeRef base = nullptr);

// The built-in types; immutable once built, shared by every interpreter.
namespace types {
const TypeRef& object();
const TypeRef& none();
const TypeRef& boolean();
const TypeRef& integer();
const TypeRef& floating();
const TypeRef& str();
const TypeRef& tuple();
const TypeRef& list();
const TypeRef& dict();
const TypeRef& set();
const TypeRef& frozenset();
const TypeRef& range();
const TypeRef& slice();
const TypeRef& ellipsis();
const TypeRef& function();
const TypeRef& builtin_function();
const TypeRef& method();
const TypeRef& module();
const TypeRef& type();
const TypeRef& iterator();
}  // namespace types

const TypeRef& type_of(const Value& value);
std::string type_name(const Value& value);

}  // namespace interp
