// The built-in object kinds of the host language: str, tuple, list, dict,
// set, range, slice, Ellipsis, modules, iterators.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string_view>
#include <typeinfo>
#include <unordered_map>

#include "interp/python/value.hpp"

namespace interp {

// Python's hash() and == for values that may be dict keys (raises TypeError
// "unhashable type: 'list'").
std::size_t hash_value(const Value& value);
bool values_equal(const Value& a, const Value& b);

class StrObject : public Object {
 public:
  explicit StrObject(std::string value);
  // `value` whose characters are known to be ASCII or not (a concatenation's).
  StrObject(std::string value, bool ascii) : value_(std::move(value)), ascii_(ascii) {}
  // a + b, made in place.
  StrObject(std::string_view a, std::string_view b, bool ascii) : ascii_(ascii) {
    value_.reserve(a.size() + b.size());
    value_.append(a).append(b);
  }
  const TypeRef& type() const override { return types::str(); }
  std::string repr(Evaluator& evaluator) const override;
  std::string str(Evaluator&) const override { return value_; }
  std::optional<Value> binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                 bool reflected) override;
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override;
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override;
  IteratorRef iterate(Evaluator& evaluator) override;
  std::optional<std::int64_t> length(Evaluator&) const override { return code_point_count(); }
  std::optional<bool> contains(Evaluator& evaluator, const Value& item) override;
  bool truthy(Evaluator&) const override { return !value_.empty(); }
  std::optional<std::size_t> hash() const override { return text_hash(); }
  bool equals(const Value& other) const override;
  // hash() without the virtual call: kept from its first use.
  std::size_t text_hash() const {
    const std::size_t hash = hash_.load(std::memory_order_relaxed);
    return hash != 0 ? hash : first_hash();
  }

  const std::string& value() const { return value_; }
  bool ascii() const { return ascii_; }
  std::int64_t code_point_count() const;
  // The code points as separate UTF-8 strings (for indexing and iteration).
  std::vector<std::string> code_points() const;

 private:
  std::size_t first_hash() const;

  std::string value_;
  bool ascii_;
  // The hash, found at first use (0: not yet); atomic as a str may be shared between threads.
  mutable std::atomic<std::size_t> hash_{0};
};

Value make_str(std::string value);
// a + b of two str values.
Value concatenate(const StrObject& a, const StrObject& b);
// The StrObject that `value` is exactly (not a subclass's instance), or null.
inline const StrObject* exact_str(const Value& value) {
  if (!value.is_object() || !is_exactly<StrObject>(*value.object())) return nullptr;
  return static_cast<const StrObject*>(value.object().get());
}
// The text of a str value, or null when it is not a str.
const std::string* string_of(const Value& value);

// Shared behaviour of tuple and list.
class SequenceObject : public Object {
 public:
  std::vector<Value> items;
  bool remembered_for_teardown = false;  // see Evaluator::remember_store()
  std::optional<std::int64_t> length(Evaluator&) const override {
    return static_cast<std::int64_t>(items.size());
  }
  bool truthy(Evaluator&) const override { return !items.empty(); }
  std::optional<bool> contains(Evaluator& evaluator, const Value& item) override;
  IteratorRef iterate(Evaluator& evaluator) override;
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override;
  bool equals(const Value& other) const override;

 protected:
  std::string join_repr(Evaluator& evaluator, const char* open, const char* close) const;
};

class TupleObject : public SequenceObject {
 public:
  explicit TupleObject(std::vector<Value> values) { items = std::move(values); }
  const TypeRef& type() const override { return types::tuple(); }
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                 bool reflected) override;
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override;
  std::optional<std::size_t> hash() const override;
};

class ListObject : public SequenceObject {
 public:
  explicit ListObject(std::vector<Value> values) { items = std::move(values); }
  const TypeRef& type() const override { return types::list(); }
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                 bool reflected) override;
  std::optional<Value> binary_inplace(Evaluator& evaluator, lang::ast::BinaryOperator op,
                                      const Value& other) override;
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override;
  bool set_item(Evaluator& evaluator, const Value& key, const Value& value) override;
  bool delete_item(Evaluator& evaluator, const Value& key) override;
  std::optional<std::size_t> hash() const override { return std::nullopt; }
};

Value make_tuple(std::vector<Value> items);
Value make_list(std::vector<Value> items);

// An insertion-ordered hash table: the storage of dict and set.
class ValueTable {
 public:
  struct Entry {
    Value key;
    Value value;
    std::size_t hash = 0;
    bool live = true;
  };
  Value* find(const Value& key);
  const Value* find(const Value& key) const;
  // Inserts or overwrites (keeping the first key's position, as Python does).
  void insert(const Value& key, Value value);
  bool erase(const Value& key);
  void clear();
  std::size_t size() const { return live_count_; }
  // Entries in insertion order, including dead ones (skip !live).
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  // Open addressing, probed as CPython's dicts are: each slot is an entry's
  // position, empty, or dead (its entry erased); the slots are a power of
  // two, at most two thirds used (entries_ bounds the used ones).
  static constexpr std::uint32_t empty_slot = UINT32_MAX;
  static constexpr std::uint32_t dead_slot = UINT32_MAX - 1;
  // The slot holding `key`'s entry, or nullopt.
  std::optional<std::size_t> locate_slot(const Value& key, std::size_t hash) const;
  std::optional<std::size_t> locate(const Value& key, std::size_t hash) const {
    auto slot = locate_slot(key, hash);
    return slot ? std::optional<std::size_t>(slots_[*slot]) : std::nullopt;
  }
  void place(std::size_t hash, std::uint32_t position);  // in the first free slot of hash's probe
  void rebuild_slots(std::size_t count);
  void compact();

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slots_;
  std::size_t live_count_ = 0;
  // Moves when entries are added or erased: a lookup whose == ran Python
  // code that changed the table starts again (as CPython's does).
  std::uint64_t changes_ = 0;
};

class DictObject : public Object {
 public:
  ValueTable table;
  bool remembered_for_teardown = false;  // see Evaluator::remember_store()
  const TypeRef& type() const override { return types::dict(); }
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override;
  bool set_item(Evaluator& evaluator, const Value& key, const Value& value) override;
  bool delete_item(Evaluator& evaluator, const Value& key) override;
  IteratorRef iterate(Evaluator& evaluator) override;  // keys
  std::optional<std::int64_t> length(Evaluator&) const override {
    return static_cast<std::int64_t>(table.size());
  }
  std::optional<bool> contains(Evaluator& evaluator, const Value& item) override;
  bool truthy(Evaluator&) const override { return table.size() != 0; }
  std::optional<Value> binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                 bool reflected) override;
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override;
  std::optional<std::size_t> hash() const override { return std::nullopt; }
  bool equals(const Value& other) const override;
};

std::shared_ptr<DictObject> make_dict();

// A set, or a frozenset (`frozen`: no mutating methods, hashable).
class SetObject : public Object {
 public:
  ValueTable table;  // values unused
  bool frozen = false;
  const TypeRef& type() const override { return frozen ? types::frozenset() : types::set(); }
  std::string repr(Evaluator& evaluator) const override;
  IteratorRef iterate(Evaluator& evaluator) override;
  std::optional<std::int64_t> length(Evaluator&) const override {
    return static_cast<std::int64_t>(table.size());
  }
  std::optional<bool> contains(Evaluator& evaluator, const Value& item) override;
  bool truthy(Evaluator&) const override { return table.size() != 0; }
  std::optional<Value> binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                 bool reflected) override;
  std::optional<Value> compare(Evaluator& evaluator, lang::ast::CompareOperator op, const Value& other,
                               bool reflected) override;
  std::optional<std::size_t> hash() const override;
  bool equals(const Value& other) const override;
  bool is_subset_of(const SetObject& other) const;
};

std::shared_ptr<SetObject> make_set();

class RangeObject : public Object {
 public:
  RangeObject(std::int64_t start, std::int64_t stop, std::int64_t step);
  const TypeRef& type() const override { return types::range(); }
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> get_item(Evaluator& evaluator, const Value& key) override;
  IteratorRef iterate(Evaluator& evaluator) override;
  std::optional<std::int64_t> length(Evaluator&) const override { return length_; }
  std::optional<bool> contains(Evaluator& evaluator, const Value& item) override;
  bool truthy(Evaluator&) const override { return length_ != 0; }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool equals(const Value& other) const override;
  std::optional<std::size_t> hash() const override;

  std::int64_t start, stop, step;
  std::int64_t at(std::int64_t i) const { return start + i * step; }
  std::int64_t size() const { return length_; }
  bool contains_integer(std::int64_t v) const;

 private:
  std::int64_t length_;
};

// A slice object `lower:upper:step` (each part may be None).
class SliceObject : public Object {
 public:
  SliceObject(Value lower, Value upper, Value step)
      : lower(std::move(lower)), upper(std::move(upper)), step(std::move(step)) {}
  const TypeRef& type() const override { return types::slice(); }
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool equals(const Value& other) const override;
  std::optional<std::size_t> hash() const override { return std::nullopt; }

  // Python's slice.indices(length): start, stop, step, and how many items.
  struct Bounds {
    std::int64_t start, stop, step, count;
  };
  Bounds bounds(std::int64_t length) const;

  Value lower, upper, step;
};

class EllipsisObject : public Object {
 public:
  const TypeRef& type() const override { return types::ellipsis(); }
  std::string repr(Evaluator&) const override { return "Ellipsis"; }
};
const Value& ellipsis_value();

// The global namespace of a module (its __dict__): the module's members, and
// for a user's module the variables its code assigns; also the builtins.
// A map whose version changes whenever a name is added or removed (never
// when a name is rebound), so that a use of a global name can keep where it
// found the value (Evaluator::load_global) for as long as the version holds.
// Versions are unique across namespaces: an equal version is the same
// namespace, unchanged.
class Namespace {
  using Map = std::unordered_map<std::string, Value>;

 public:
  using iterator = Map::iterator;
  using const_iterator = Map::const_iterator;
  using value_type = Map::value_type;
  Namespace() = default;
  Namespace(const Namespace& other) : map_(other.map_) {}
  Namespace(Namespace&& other) noexcept : map_(std::move(other.map_)) { other.version_ = fresh_version(); }
  Namespace& operator=(const Namespace& other) {
    map_ = other.map_;
    version_ = fresh_version();
    return *this;
  }
  Namespace& operator=(Namespace&& other) noexcept {
    map_ = std::move(other.map_);
    version_ = fresh_version();
    other.version_ = fresh_version();
    return *this;
  }

  iterator begin() { return map_.begin(); }
  iterator end() { return map_.end(); }
  const_iterator begin() const { return map_.begin(); }
  const_iterator end() const { return map_.end(); }
  iterator find(const std::string& name) { return map_.find(name); }
  const_iterator find(const std::string& name) const { return map_.find(name); }
  bool contains(const std::string& name) const { return map_.contains(name); }
  std::size_t count(const std::string& name) const { return map_.count(name); }
  std::size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  Value& at(const std::string& name) { return map_.at(name); }
  const Value& at(const std::string& name) const { return map_.at(name); }

  Value& operator[](const std::string& name) {
    auto [at, inserted] = map_.try_emplace(name);
    if (inserted) version_ = fresh_version();
    return at->second;
  }
  std::size_t erase(const std::string& name) {
    std::size_t erased = map_.erase(name);
    if (erased != 0) version_ = fresh_version();
    return erased;
  }
  void clear() {
    map_.clear();
    version_ = fresh_version();
  }
  void swap(Namespace& other) {
    map_.swap(other.map_);
    version_ = fresh_version();
    other.version_ = fresh_version();
  }
  std::uint64_t version() const { return version_; }

 private:
  static std::uint64_t fresh_version();
  Map map_;
  std::uint64_t version_ = fresh_version();
};

// A module: a built-in one (its members registered by the library), the
// script's `__main__`, or a module imported from a file or from the host's
// loader (then `origin` is its __file__, and the namespace holds __name__,
// __file__, __package__ and, for a package, __path__).
class ModuleObject : public Object {
 public:
  explicit ModuleObject(std::string name) : name_(std::move(name)), members_(std::make_shared<Namespace>()) {}
  const TypeRef& type() const override { return types::module(); }
  std::string repr(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool set_attribute(Evaluator& evaluator, const std::string& name, const Value& value) override;
  std::vector<std::string> attribute_names() const override;  // sorted

  const std::string& name() const { return name_; }
  // Registers a member (a one-line table entry in the module's file).
  void add(const std::string& name, Value value) { (*members_)[name] = std::move(value); }
  void add_function(std::string_view signature, NativeFunctionBody body);
  const Value* find(const std::string& name) const;
  // The namespace, shared with the functions its code defines (their globals).
  Namespace& globals() { return *members_; }
  const std::shared_ptr<Namespace>& shared_globals() const { return members_; }
  // Where a user's module came from (repr): a file, or the host's loader.
  enum class Origin { builtin, file, namespace_package };
  Origin origin = Origin::builtin;
  bool initializing = false;  // its code is running (a circular import sees it partly made)

 private:
  std::string name_;
  std::shared_ptr<Namespace> members_;
};

// An iterator over a materialised list of values (also the generator
// expression object: iterating it twice yields nothing the second time).
class ListIterator : public Iterator {
 public:
  ListIterator(std::vector<Value> values, const TypeRef& type) : values_(std::move(values)), type_(type) {}
  std::optional<Value> next(Evaluator&) override;
  const TypeRef& type() const override { return type_; }

 private:
  std::vector<Value> values_;
  std::size_t position_ = 0;
  const TypeRef& type_;
};

// An iterator computed one item at a time by a function (zip, map, filter,
// enumerate, reversed, ...).
class FunctionIterator : public Iterator {
 public:
  using Step = std::function<std::optional<Value>(Evaluator&)>;
  FunctionIterator(Step step, const TypeRef& type) : step_(std::move(step)), type_(type) {}
  std::optional<Value> next(Evaluator& evaluator) override;
  const TypeRef& type() const override { return type_; }

 private:
  Step step_;
  bool done_ = false;
  const TypeRef& type_;
};

// Named iterator types, for type(x).__name__ and repr.
namespace types {
const TypeRef& generator();
const TypeRef& zip();
const TypeRef& map();
const TypeRef& filter();
const TypeRef& enumerate();
const TypeRef& reversed();
const TypeRef& list_iterator();
}  // namespace types

}  // namespace interp
