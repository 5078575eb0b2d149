// The methods and constructors of the built-in types (int, float, bool, str,
// list, tuple, dict, set, range, slice, type), installed into each type when
// it is first made (value.cpp), and the helpers their files share.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "interp/python/classes.hpp"
#include "interp/python/evaluator.hpp"

namespace interp {

// Installs the constructor and methods of the built-in type `name`
// (builtin_types.cpp). Must not call back into types::<this type>().
void install_builtin_type(const std::string& name, TypeObject& type);

// One type each: str (str_methods.cpp); list, tuple, dict, set, range and
// slice (container_methods.cpp).
void install_str_type(TypeObject& type);
void install_list_type(TypeObject& type);
void install_tuple_type(TypeObject& type);
void install_dict_type(TypeObject& type);
void install_set_type(TypeObject& type, bool frozen);  // set or frozenset
void install_range_type(TypeObject& type);
void install_slice_type(TypeObject& type);

// A type's constructor: arguments bound by a Python signature, then the body.
std::function<Value(Evaluator&, CallArgs&)> constructor(std::string_view signature, NativeFunctionBody body);

// The str an argument must be; else TypeError "<what> must be str, not T".
const std::string& text_of(const Value& value, const char* what);

// The object of a method's self: a T (is_exactly: no dynamic_cast), or an
// instance of a subclass of T's type.
template <class T>
T& object_of(const Value& value) {
  Object& object = *value.object();
  if (is_exactly<T>(object)) return static_cast<T&>(object);
  return *value.as<T>();
}
inline ListObject& list_of(const Value& value) { return object_of<ListObject>(value); }
inline DictObject& dict_of(const Value& value) { return object_of<DictObject>(value); }
inline SetObject& set_of(const Value& value) { return object_of<SetObject>(value); }

// list.append(item).
inline void append_to(Evaluator& evaluator, ListObject& list, Value item) {
  evaluator.remember_store(list, item);
  // An empty list's first append makes room for four, as CPython's does:
  // short lists built item by item are common, and each growth is an allocation.
  if (list.items.capacity() == 0) list.items.reserve(4);
  list.items.push_back(std::move(item));
}

// `self` as the built-in type's object, for its dunder `method` (a slot
// wrapper, in CPython's words).
template <class T>
auto dunder_receiver(const TypeObject& type) {
  return [name = type.name()](const Value& self, const char* method) -> T& {
    if (auto* object = self.as<T>()) return *object;
    raise(exc::TypeError(), std::string("descriptor '") + method + "' requires a '" + name + "' object but received a '" +
                                type_name(self) + "'");
  };
}

// __eq__, __ne__, __lt__, __le__, __gt__ and __ge__ of a built-in type (str,
// list, tuple, dict, set): its own comparison, whatever a subclass
// overrides, and NotImplemented where it has none with the other operand.
template <class T>
void add_comparison_dunders(TypeObject& type) {
  auto receiver = dunder_receiver<T>(type);
  using Cmp = lang::ast::CompareOperator;
  for (Cmp op : {Cmp::eq, Cmp::not_eq_, Cmp::lt, Cmp::lt_e, Cmp::gt, Cmp::gt_e}) {
    const char* method = compare_dunder_name(op);
    type.add_method(std::string(method) + "(self, value, /)", [receiver, op, method](Evaluator& ev, Arguments& a) {
      return receiver(a[0], method).T::compare(ev, op, a[1], false).value_or(not_implemented());
    });
  }
}

// __hash__ of a hashable built-in type (str, tuple, frozenset): hash() of
// its value, whatever a subclass overrides.
template <class T>
void add_hash_dunder(TypeObject& type) {
  auto receiver = dunder_receiver<T>(type);
  type.add_method("__hash__(self, /)", [receiver](Evaluator&, Arguments& a) {
    return Value::integer(static_cast<std::int64_t>(*receiver(a[0], "__hash__").T::hash() & 0x7fffffffffffffffULL));
  });
}

// The dunders that a subclass's methods reach through super() or the type
// (super().__getitem__(key), dict.__setitem__(self, k, v)): the built-in
// type's own hooks, whatever the subclass overrides. `items`: __getitem__;
// `mutable_items`: __setitem__ and __delitem__ too.
template <class T>
void add_protocol_dunders(TypeObject& type, bool items, bool mutable_items) {
  auto receiver = dunder_receiver<T>(type);
  add_comparison_dunders<T>(type);
  type.add_method("__repr__(self, /)", [receiver](Evaluator& ev, Arguments& a) {
    return make_str(receiver(a[0], "__repr__").T::repr(ev));
  });
  type.add_method("__len__(self, /)", [receiver](Evaluator& ev, Arguments& a) {
    return Value::integer(*receiver(a[0], "__len__").T::length(ev));
  });
  type.add_method("__iter__(self, /)", [receiver](Evaluator& ev, Arguments& a) {
    return Value(ObjectRef(receiver(a[0], "__iter__").T::iterate(ev)));
  });
  type.add_method("__contains__(self, key, /)", [receiver](Evaluator& ev, Arguments& a) {
    return Value::boolean(receiver(a[0], "__contains__").T::contains(ev, a[1]).value_or(false));
  });
  if (items)
    type.add_method("__getitem__(self, key, /)", [receiver](Evaluator& ev, Arguments& a) {
      return *receiver(a[0], "__getitem__").T::get_item(ev, a[1]);
    });
  if (mutable_items) {
    type.add_method("__setitem__(self, key, value, /)", [receiver](Evaluator& ev, Arguments& a) {
      receiver(a[0], "__setitem__").T::set_item(ev, a[1], a[2]);
      return Value::none();
    });
    type.add_method("__delitem__(self, key, /)", [receiver](Evaluator& ev, Arguments& a) {
      receiver(a[0], "__delitem__").T::delete_item(ev, a[1]);
      return Value::none();
    });
  }
}

// Python's list.sort: stable, with an optional key, reverse keeping stability
// (container_methods.cpp; sorted() too).
void sort_values(Evaluator& evaluator, std::vector<Value>& items, const Value& key, bool reverse);

// int(d) of a float: ValueError for NaN, OverflowError out of 64 bits.
std::int64_t float_to_int(double d);
// Python's round-half-even of a double to an integer (round()).
std::int64_t round_half_even(double d);

}  // namespace interp
