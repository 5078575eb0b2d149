// Instances of user classes: every hook of Object answered by the dunder
// method the class defines (__repr__, __add__/__radd__, __getitem__,
// __iter__, __enter__, ...), or Python's default when it defines none.

#include <cstdio>

#include "interp/python/classes.hpp"
#include "interp/python/evaluator.hpp"

namespace interp {

namespace ast = lang::ast;

namespace {

// ORDER BinaryOperator (ast.hpp): the dunder names of each operator.
struct OperatorNames {
  const char* plain;
  const char* reflected;
  const char* inplace;
};
const OperatorNames& operator_names(ast::BinaryOperator op) {
  static const OperatorNames names[] = {
      {"__add__", "__radd__", "__iadd__"},          {"__sub__", "__rsub__", "__isub__"},
      {"__mul__", "__rmul__", "__imul__"},          {"__matmul__", "__rmatmul__", "__imatmul__"},
      {"__truediv__", "__rtruediv__", "__itruediv__"}, {"__floordiv__", "__rfloordiv__", "__ifloordiv__"},
      {"__mod__", "__rmod__", "__imod__"},          {"__pow__", "__rpow__", "__ipow__"},
      {"__lshift__", "__rlshift__", "__ilshift__"}, {"__rshift__", "__rrshift__", "__irshift__"},
      {"__or__", "__ror__", "__ior__"},             {"__xor__", "__rxor__", "__ixor__"},
      {"__and__", "__rand__", "__iand__"}};
  return names[static_cast<int>(op)];
}

}  // namespace

const char* compare_dunder_name(ast::CompareOperator op) {
  switch (op) {
    case ast::CompareOperator::eq: return "__eq__";
    case ast::CompareOperator::not_eq_: return "__ne__";
    case ast::CompareOperator::lt: return "__lt__";
    case ast::CompareOperator::lt_e: return "__le__";
    case ast::CompareOperator::gt: return "__gt__";
    case ast::CompareOperator::gt_e: return "__ge__";
    default: return nullptr;
  }
}

const char* binary_dunder_name(ast::BinaryOperator op, bool reflected, bool inplace) {
  const OperatorNames& names = operator_names(op);
  return inplace ? names.inplace : reflected ? names.reflected : names.plain;
}

namespace {

// nullopt for NotImplemented (or no such method).
std::optional<Value> operator_result(std::optional<Value> result) {
  if (result && result->is_same(not_implemented())) return std::nullopt;
  return result;
}

// A user iterator (a class with __next__) as the evaluator's Iterator:
// StopIteration ends it.
class UserIterator : public Iterator {
 public:
  explicit UserIterator(Value iterator) : iterator_(std::move(iterator)) {}
  std::optional<Value> next(Evaluator& evaluator) override {
    try {
      auto item = call_special(evaluator, iterator_, "__next__", {});
      if (!item) raise(exc::TypeError(), "'" + type_name(iterator_) + "' object is not an iterator");
      return item;
    } catch (PyError& error) {
      if (error.exception->type()->is_subclass_of(*exc::StopIteration())) return std::nullopt;
      throw;
    }
  }

 private:
  Value iterator_;
};

// The old sequence protocol: __getitem__(0), (1), ... until IndexError.
class SequenceIterator : public Iterator {
 public:
  explicit SequenceIterator(Value sequence) : sequence_(std::move(sequence)) {}
  std::optional<Value> next(Evaluator& evaluator) override {
    try {
      return call_special(evaluator, sequence_, "__getitem__", {Value::integer(index_++)});
    } catch (PyError& error) {
      if (error.exception->type()->is_subclass_of(*exc::IndexError()) ||
          error.exception->type()->is_subclass_of(*exc::StopIteration()))
        return std::nullopt;
      throw;
    }
  }

 private:
  Value sequence_;
  std::int64_t index_ = 0;
};

Value self_of(const Object* object) { return Value(const_cast<Object*>(object)->self()); }

const std::string& text_result(const Value& result, const char* method) {
  const std::string* text = string_of(result);
  if (!text) raise(exc::TypeError(), std::string(method) + " returned non-string (type " + type_name(result) + ")");
  return *text;
}

}  // namespace

// ------------------------------------------------------------ the dunders' parts

std::optional<std::string> dunder_text(Evaluator& evaluator, const Value& self, const char* name) {
  if (auto result = call_special(evaluator, self, name, {})) return text_result(*result, name);
  return std::nullopt;
}

std::optional<std::string> dunder_format(Evaluator& evaluator, const Value& self, std::string_view spec) {
  if (auto result = call_special(evaluator, self, "__format__", {make_str(std::string(spec))}))
    return text_result(*result, "__format__");
  return std::nullopt;
}

std::optional<Value> dunder_binary(Evaluator& evaluator, const Value& self, ast::BinaryOperator op, const Value& other,
                                   bool reflected, bool inplace) {
  return operator_result(call_special(evaluator, self, binary_dunder_name(op, reflected, inplace), {other}));
}

std::optional<Value> dunder_unary(Evaluator& evaluator, const Value& self, ast::UnaryOperator op) {
  const char* name = op == ast::UnaryOperator::usub   ? "__neg__"
                     : op == ast::UnaryOperator::uadd ? "__pos__"
                                                      : "__invert__";
  return call_special(evaluator, self, name, {});
}

std::optional<Value> dunder_compare(Evaluator& evaluator, const Value& self, ast::CompareOperator op, const Value& other) {
  const char* name = compare_dunder_name(op);
  if (!name) return std::nullopt;
  if (auto result = operator_result(call_special(evaluator, self, name, {other}))) return result;
  // != is the negation of a class's own ==.
  if (op == ast::CompareOperator::not_eq_)
    if (auto equal = operator_result(call_special(evaluator, self, "__eq__", {other})))
      return Value::boolean(!evaluator.truthy(*equal));
  return std::nullopt;
}

IteratorRef dunder_iterate(Evaluator& evaluator, const Value& self) {
  auto iterator = call_special(evaluator, self, "__iter__", {});
  if (!iterator) return nullptr;
  if (iterator->is_object())
    if (auto native = std::dynamic_pointer_cast<Iterator>(iterator->object())) return native;
  if (!find_class_member(*type_of(*iterator), "__next__"))
    raise(exc::TypeError(), "iter() returned non-iterator of type '" + type_name(*iterator) + "'");
  return std::make_shared<UserIterator>(*iterator);
}

std::optional<std::int64_t> dunder_length(Evaluator& evaluator, const Value& self) {
  auto result = call_special(evaluator, self, "__len__", {});
  if (!result) return std::nullopt;
  if (!result->is_integral())
    raise(exc::TypeError(), "'" + type_name(*result) + "' object cannot be interpreted as an integer");
  if (result->as_int() < 0) raise(exc::ValueError(), "__len__() should return >= 0");
  return result->as_int();
}

std::optional<bool> dunder_contains(Evaluator& evaluator, const Value& self, const Value& item) {
  auto result = call_special(evaluator, self, "__contains__", {item});
  if (!result) return std::nullopt;
  return evaluator.truthy(*result);
}

std::optional<bool> dunder_bool(Evaluator& evaluator, const Value& self) {
  if (auto result = call_special(evaluator, self, "__bool__", {})) {
    if (!result->is_bool()) raise(exc::TypeError(), "__bool__ should return bool, returned " + type_name(*result));
    return result->as_bool();
  }
  if (auto n = dunder_length(evaluator, self)) return *n != 0;
  return std::nullopt;
}

std::optional<std::optional<std::size_t>> dunder_hash(Evaluator& evaluator, const Value& self) {
  const Value* method = find_class_member(*type_of(self), "__hash__");
  if (method == nullptr) return std::nullopt;
  if (method->is_none()) return std::optional<std::size_t>();
  Value result = evaluator.call(*method, {self});
  if (!result.is_integral()) raise(exc::TypeError(), "__hash__ method should return an integer");
  return std::optional<std::size_t>(static_cast<std::size_t>(result.as_int()));
}

std::optional<bool> dunder_equals(Evaluator& evaluator, const Value& self, const Value& other) {
  if (!find_class_member(*type_of(self), "__eq__")) return std::nullopt;
  auto result = operator_result(call_special(evaluator, self, "__eq__", {other}));
  return result && evaluator.truthy(*result);
}

bool dunder_exit(Evaluator& evaluator, const Value& self, const Value* pending) {
  std::vector<Value> arguments{Value::none(), Value::none(), Value::none()};
  if (pending) arguments = {Value(type_of(*pending)), *pending, Value::none()};
  auto result = call_special(evaluator, self, "__exit__", std::move(arguments));
  return result && evaluator.truthy(*result);
}

// ------------------------------------------------------------ InstanceObject

std::string InstanceObject::repr(Evaluator& evaluator) const {
  if (auto text = dunder_text(evaluator, self_of(this), "__repr__")) return *text;
  char address[32];
  std::snprintf(address, sizeof address, "%p", static_cast<const void*>(this));
  auto* cls = dynamic_cast<const ClassObject*>(cls_.get());
  return "<" + (cls ? cls->dotted_name() : cls_->name()) + " object at " + address + ">";
}

std::string InstanceObject::str(Evaluator& evaluator) const {
  if (auto text = dunder_text(evaluator, self_of(this), "__str__")) return *text;
  return repr(evaluator);
}

std::optional<std::string> InstanceObject::format(Evaluator& evaluator, std::string_view spec) const {
  if (auto text = dunder_format(evaluator, self_of(this), spec)) return text;
  if (spec.empty()) return str(evaluator);
  return std::nullopt;
}

std::optional<Value> InstanceObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (const Value* own = own_instance_attribute(*cls_, attributes, name)) return *own;
  return instance_attribute(evaluator, Value(self()), attributes, name);
}

void InstanceObject::remember() {
  if (remembered_for_teardown_) return;
  remembered_for_teardown_ = true;
  evaluator_->remember_attribute_owner(self());
}

bool InstanceObject::set_attribute(Evaluator& evaluator, const std::string& name, const Value& value) {
  note_store(value);
  if (!set_own_instance_attribute(*cls_, attributes, name, value))
    set_instance_attribute(evaluator, Value(self()), attributes, name, value);
  return true;
}

namespace {
// Whether `entry` holds for the instances of `instance`'s class, learnt again if not.
bool current(AttributeSiteCache& entry, const InstanceObject& instance, const std::string& name) {
  if (site_holds(entry, instance)) return true;
  const ClassObject* user = instance.type()->as_class();
  if (user == nullptr) return false;
  learn_instance_name(*user, name, entry);
  return entry.version != 0;
}

// The own attribute `name`, found wherever it is and kept as the entry's hint; null when absent.
Value* scan_attributes(AttributeSiteCache& entry, AttributeList& attributes, const std::string& name) {
  for (std::size_t i = 0; i < attributes.size(); ++i)
    if (same_name(attributes[i].first, name)) {
      entry.index = static_cast<std::uint32_t>(i);
      return &attributes[i].second;
    }
  return nullptr;
}
}  // namespace

const Value* find_own_attribute(AttributeSiteCache* entry, InstanceObject& instance, const std::string& name) {
  if (entry == nullptr || !current(*entry, instance, name))
    return own_instance_attribute(*instance.type(), instance.attributes, name);
  return entry->own_wins ? scan_attributes(*entry, instance.attributes, name) : nullptr;
}

bool store_own_attribute(AttributeSiteCache* entry, InstanceObject& instance, const std::string& name,
                         const Value& value) {
  instance.note_store(value);
  if (entry == nullptr || !current(*entry, instance, name))
    return set_own_instance_attribute(*instance.type(), instance.attributes, name, value);
  if (!entry->plain_store) return false;
  entry->index = static_cast<std::uint32_t>(set_attribute_in(instance.attributes, name, value));
  return true;
}

const Value* find_class_function(AttributeSiteCache* entry, InstanceObject& instance, const std::string& name) {
  if (entry == nullptr || !current(*entry, instance, name)) return class_function(*instance.type(), name);
  return entry->method;
}

std::vector<std::string> InstanceObject::attribute_names() const {
  std::vector<std::string> names = cls_->attribute_names();
  for (const auto& [name, value] : attributes) names.push_back(name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

bool InstanceObject::callable() const { return find_class_member(*cls_, "__call__") != nullptr; }

Value InstanceObject::call(Evaluator& evaluator, CallArgs& args) {
  const Value* method = find_class_member(*cls_, "__call__");
  if (!method) raise(exc::TypeError(), "'" + cls_->name() + "' object is not callable");
  args.positional.insert(args.positional.begin(), Value(self()));
  return evaluator.call(*method, args);
}

std::optional<Value> InstanceObject::binary_op(Evaluator& evaluator, ast::BinaryOperator op, const Value& other,
                                               bool reflected) {
  return dunder_binary(evaluator, Value(self()), op, other, reflected, false);
}

std::optional<Value> InstanceObject::binary_inplace(Evaluator& evaluator, ast::BinaryOperator op, const Value& other) {
  return dunder_binary(evaluator, Value(self()), op, other, false, true);
}

std::optional<Value> InstanceObject::unary_op(Evaluator& evaluator, ast::UnaryOperator op) {
  return dunder_unary(evaluator, Value(self()), op);
}

std::optional<Value> InstanceObject::compare(Evaluator& evaluator, ast::CompareOperator op, const Value& other,
                                             bool) {
  return dunder_compare(evaluator, Value(self()), op, other);
}

std::optional<Value> InstanceObject::get_item(Evaluator& evaluator, const Value& key) {
  return call_special(evaluator, Value(self()), "__getitem__", {key});
}

bool InstanceObject::set_item(Evaluator& evaluator, const Value& key, const Value& value) {
  return call_special(evaluator, Value(self()), "__setitem__", {key, value}).has_value();
}

bool InstanceObject::delete_item(Evaluator& evaluator, const Value& key) {
  return call_special(evaluator, Value(self()), "__delitem__", {key}).has_value();
}

IteratorRef InstanceObject::iterate(Evaluator& evaluator) {
  Value self_value(self());
  if (IteratorRef iterator = dunder_iterate(evaluator, self_value)) return iterator;
  if (find_class_member(*cls_, "__getitem__")) return std::make_shared<SequenceIterator>(self_value);
  return nullptr;
}

std::optional<std::int64_t> InstanceObject::length(Evaluator& evaluator) const {
  return dunder_length(evaluator, self_of(this));
}

std::optional<bool> InstanceObject::contains(Evaluator& evaluator, const Value& item) {
  return dunder_contains(evaluator, Value(self()), item);
}

bool InstanceObject::truthy(Evaluator& evaluator) const { return dunder_bool(evaluator, self_of(this)).value_or(true); }

std::optional<std::size_t> InstanceObject::hash() const {
  if (auto hashed = dunder_hash(*evaluator_, self_of(this))) return *hashed;
  return std::hash<const void*>()(this);
}

bool InstanceObject::equals(const Value& other) const {
  if (other.is_object() && other.object().get() == this) return true;
  return dunder_equals(*evaluator_, self_of(this), other).value_or(false);
}

std::optional<Value> InstanceObject::enter(Evaluator& evaluator) {
  if (!find_class_member(*cls_, "__exit__")) return std::nullopt;
  return call_special(evaluator, Value(self()), "__enter__", {});
}

bool InstanceObject::exit(Evaluator& evaluator, const Value* pending) {
  return dunder_exit(evaluator, Value(self()), pending);
}

std::optional<Value> InstanceObject::descriptor_get(Evaluator& evaluator, const Value& instance, const Value& owner) {
  return call_special(evaluator, Value(self()), "__get__", {instance, owner});
}

}  // namespace interp
