#include "interp/python/objects.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <typeinfo>

#include "interp/python/classes.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/python/exceptions.hpp"
#include "interp/python/format.hpp"

namespace interp {

namespace ast = lang::ast;

// ------------------------------------------------------------ hashing, equality

std::size_t hash_value(const Value& value) {
  if (const StrObject* text = exact_str(value)) return text->text_hash();  // the commonest key
  if (value.is_number_instance()) {
    auto h = value.object()->hash();
    if (!h) raise(exc::TypeError(), "unhashable type: '" + type_name(value) + "'");
    return *h;
  }
  switch (value.kind()) {
    case Value::Kind::none: return 0x9e3779b9u;
    case Value::Kind::boolean:
    case Value::Kind::integer: return std::hash<std::int64_t>()(value.as_int());
    case Value::Kind::floating: {
      double d = value.as_float();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18)
        return std::hash<std::int64_t>()(static_cast<std::int64_t>(d));  // hash(1.0) == hash(1)
      return std::hash<double>()(d);
    }
    case Value::Kind::object: {
      auto h = value.object()->hash();
      if (!h) raise(exc::TypeError(), "unhashable type: '" + type_name(value) + "'");
      return *h;
    }
  }
  return 0;
}

namespace {
bool int_equals_float(std::int64_t i, double d) {
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) >= 9.3e18) return false;
  return static_cast<std::int64_t>(d) == i;
}
}  // namespace

bool values_equal(const Value& a, const Value& b) {
  if (a.is_number_instance() || b.is_number_instance())  // a subclass's __eq__, else the numbers'
    return a.is_number_instance() ? a.object()->equals(b) : b.object()->equals(a);
  if (a.is_number() && b.is_number()) {
    if (a.is_integral() && b.is_integral()) return a.as_int() == b.as_int();
    if (a.is_float() && b.is_float()) return a.as_float() == b.as_float();
    return a.is_float() ? int_equals_float(b.as_int(), a.as_float()) : int_equals_float(a.as_int(), b.as_float());
  }
  if (a.is_none() || b.is_none()) return a.is_none() && b.is_none();
  if (a.is_object() && b.is_object()) return a.object() == b.object() || a.object()->equals(b);
  // A number and an object: the object's == (an IntEnum member equals its value).
  return a.is_object() ? a.object()->equals(b) : b.object()->equals(a);
}

namespace {

// An index into a sequence of `length`, Python's way (negative from the end).
std::int64_t checked_index(Evaluator& evaluator, const Value& key, std::int64_t length, const char* what) {
  std::int64_t i = key.is_integral() ? key.as_int() : evaluator.index_of(key);
  if (i < 0) i += length;
  if (i < 0 || i >= length) raise(exc::IndexError(), std::string(what) + " index out of range");
  return i;
}

template <class Container>
Container slice_of(const Container& items, const SliceObject& slice) {
  auto b = slice.bounds(static_cast<std::int64_t>(items.size()));
  Container out;
  out.reserve(static_cast<std::size_t>(b.count));
  for (std::int64_t k = 0, i = b.start; k < b.count; ++k, i += b.step) out.push_back(items[static_cast<std::size_t>(i)]);
  return out;
}

// The repetition count of `seq * n`, refusing results too large to hold.
std::int64_t repeat_count(const Value& n, std::size_t item_count = 1) {
  std::int64_t count = n.as_int() < 0 ? 0 : n.as_int();
  constexpr std::uint64_t limit = std::uint64_t{1} << 32;
  if (item_count > 0 && static_cast<std::uint64_t>(count) > limit / item_count) raise(exc::MemoryError(), "");
  return count;
}

// Lexicographic comparison of two sequences, as Python compares lists and tuples.
Value compare_sequences(Evaluator& evaluator, ast::CompareOperator op, const std::vector<Value>& a,
                        const std::vector<Value>& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && values_equal(a[i], b[i])) ++i;
  if (i < a.size() && i < b.size()) {
    if (op == ast::CompareOperator::eq) return Value::boolean(false);
    if (op == ast::CompareOperator::not_eq_) return Value::boolean(true);
    return Value::boolean(evaluator.compare_bool(op, a[i], b[i]));
  }
  auto n = static_cast<std::int64_t>(a.size()), m = static_cast<std::int64_t>(b.size());
  switch (op) {
    case ast::CompareOperator::eq: return Value::boolean(n == m);
    case ast::CompareOperator::not_eq_: return Value::boolean(n != m);
    case ast::CompareOperator::lt: return Value::boolean(n < m);
    case ast::CompareOperator::lt_e: return Value::boolean(n <= m);
    case ast::CompareOperator::gt: return Value::boolean(n > m);
    case ast::CompareOperator::gt_e: return Value::boolean(n >= m);
    default: return Value::boolean(false);
  }
}

[[noreturn]] void bad_index_type(const char* what, const Value& key) {
  raise(exc::TypeError(), std::string(what) + " indices must be integers or slices, not " + type_name(key));
}

// An int, or an instance whose class defines __index__ (an IntEnum member).
bool is_index(Evaluator& evaluator, const Value& key) {
  return key.is_integral() || (key.as<InstanceObject>() && evaluator.find_attribute(key, "__index__"));
}

}  // namespace

// ------------------------------------------------------------ str

StrObject::StrObject(std::string value) : value_(std::move(value)) {
  ascii_ = std::all_of(value_.begin(), value_.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

Value make_str(std::string value) { return Value(std::make_shared<StrObject>(std::move(value))); }

Value concatenate(const StrObject& a, const StrObject& b) {
  return Value(std::make_shared<StrObject>(std::string_view(a.value()), std::string_view(b.value()), a.ascii() && b.ascii()));
}

const std::string* string_of(const Value& value) {
  if (!value.is_object()) return nullptr;
  if (const StrObject* exact = exact_str(value)) return &exact->value();  // mostly a str itself
  auto* s = value.as<StrObject>();
  return s ? &s->value() : nullptr;
}

std::int64_t StrObject::code_point_count() const {
  if (ascii_) return static_cast<std::int64_t>(value_.size());
  return std::count_if(value_.begin(), value_.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

std::vector<std::string> StrObject::code_points() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < value_.size();) {
    std::size_t j = i + 1;
    while (j < value_.size() && (static_cast<unsigned char>(value_[j]) & 0xC0) == 0x80) ++j;
    out.push_back(value_.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string StrObject::repr(Evaluator&) const { return string_repr(value_); }

std::optional<Value> StrObject::binary_op(Evaluator& evaluator, ast::BinaryOperator op, const Value& other, bool reflected) {
  if (op == ast::BinaryOperator::add && !reflected) {
    if (const StrObject* s = exact_str(other)) return concatenate(*this, *s);
    if (auto* s = string_of(other)) return make_str(value_ + *s);
  }
  if (op == ast::BinaryOperator::mod && !reflected) return make_str(percent_format(evaluator, value_, other));
  if (op == ast::BinaryOperator::mult && other.is_integral()) {
    std::int64_t n = repeat_count(other, value_.size());
    std::string out;
    out.reserve(value_.size() * static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) out += value_;
    return make_str(std::move(out));
  }
  return std::nullopt;
}

std::optional<Value> StrObject::compare(Evaluator&, ast::CompareOperator op, const Value& other, bool reflected) {
  const std::string* s = string_of(other);
  if (!s) return std::nullopt;
  int c = value_.compare(*s);  // `op` is already swapped when reflected
  switch (op) {
    case ast::CompareOperator::eq: return Value::boolean(c == 0);
    case ast::CompareOperator::not_eq_: return Value::boolean(c != 0);
    case ast::CompareOperator::lt: return Value::boolean(c < 0);
    case ast::CompareOperator::lt_e: return Value::boolean(c <= 0);
    case ast::CompareOperator::gt: return Value::boolean(c > 0);
    case ast::CompareOperator::gt_e: return Value::boolean(c >= 0);
    default: return std::nullopt;
  }
}

std::optional<Value> StrObject::get_item(Evaluator& evaluator, const Value& key) {
  if (auto* slice = key.as<SliceObject>()) {
    if (ascii_) {
      auto b = slice->bounds(static_cast<std::int64_t>(value_.size()));
      std::string out;
      for (std::int64_t k = 0, i = b.start; k < b.count; ++k, i += b.step) out += value_[static_cast<std::size_t>(i)];
      return make_str(std::move(out));
    }
    std::string out;
    for (const auto& cp : slice_of(code_points(), *slice)) out += cp;
    return make_str(std::move(out));
  }
  if (!key.is_integral()) raise(exc::TypeError(), "string indices must be integers, not '" + type_name(key) + "'");
  std::int64_t i = checked_index(evaluator, key, code_point_count(), "string");
  if (ascii_) return make_str(std::string(1, value_[static_cast<std::size_t>(i)]));
  return make_str(code_points()[static_cast<std::size_t>(i)]);
}

IteratorRef StrObject::iterate(Evaluator&) {
  std::vector<Value> chars;
  for (auto& cp : code_points()) chars.push_back(make_str(std::move(cp)));
  return std::make_shared<ListIterator>(std::move(chars), types::list_iterator());
}

std::optional<bool> StrObject::contains(Evaluator&, const Value& item) {
  const std::string* s = string_of(item);
  if (!s) raise(exc::TypeError(), "'in <string>' requires string as left operand, not " + type_name(item));
  return value_.find(*s) != std::string::npos;
}

namespace {
// A str's hash: eight bytes at a time, each mixed in by a multiply (as
// wyhash and splitmix64 do), then the whole avalanched; a few times faster
// than std::hash's for the short names and words most keys are.
std::size_t text_hash_of(const std::string& text) {
  constexpr std::uint64_t k1 = 0xbf58476d1ce4e5b9ULL, k2 = 0x94d049bb133111ebULL;
  const char* bytes = text.data();
  const std::size_t size = text.size();
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ (size * k2);
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes + i, sizeof word);
    h = (h ^ word) * k1;
    h ^= h >> 31;
  }
  if (i < size) {
    std::uint64_t word = 0;
    for (std::size_t j = 0; i + j < size; ++j) word |= std::uint64_t{static_cast<unsigned char>(bytes[i + j])} << (8 * j);
    h = (h ^ word) * k1;
    h ^= h >> 31;
  }
  h = (h ^ (h >> 30)) * k2;
  h ^= h >> 27;
  return h != 0 ? h : 1;  // 0 is kept for "not found yet"
}
}  // namespace

std::size_t StrObject::first_hash() const {
  const std::size_t hash = text_hash_of(value_);
  hash_.store(hash, std::memory_order_relaxed);
  return hash;
}

bool StrObject::equals(const Value& other) const {
  const std::string* s = string_of(other);
  return s && *s == value_;
}

// ------------------------------------------------------------ tuple, list

std::optional<bool> SequenceObject::contains(Evaluator&, const Value& item) {
  return std::any_of(items.begin(), items.end(), [&](const Value& v) { return v.is_same(item) || values_equal(v, item); });
}

IteratorRef SequenceObject::iterate(Evaluator&) {
  // Index-based, so items appended while iterating are seen, as in Python.
  auto self_ref = std::static_pointer_cast<SequenceObject>(self());
  std::size_t position = 0;
  return std::make_shared<FunctionIterator>(
      [self_ref, position](Evaluator&) mutable -> std::optional<Value> {
        if (position >= self_ref->items.size()) return std::nullopt;
        return self_ref->items[position++];
      },
      types::list_iterator());
}

namespace {
// Tuples compare with tuples (a named tuple among them), lists with lists.
bool same_sequence_kind(const SequenceObject& a, const SequenceObject& b) {
  return (dynamic_cast<const TupleObject*>(&a) != nullptr) == (dynamic_cast<const TupleObject*>(&b) != nullptr);
}
}  // namespace

std::optional<Value> SequenceObject::compare(Evaluator& evaluator, ast::CompareOperator op, const Value& other,
                                             bool reflected) {
  auto* seq = other.as<SequenceObject>();
  if (!seq || !same_sequence_kind(*this, *seq)) return std::nullopt;
  return compare_sequences(evaluator, op, items, seq->items);  // `op` is already swapped when reflected
}

bool SequenceObject::equals(const Value& other) const {
  auto* seq = other.as<SequenceObject>();
  if (!seq || !same_sequence_kind(*this, *seq) || seq->items.size() != items.size()) return false;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (!items[i].is_same(seq->items[i]) && !values_equal(items[i], seq->items[i])) return false;
  return true;
}

std::string SequenceObject::join_repr(Evaluator& evaluator, const char* open, const char* close) const {
  std::string out = open;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += evaluator.repr(items[i]);
  }
  return out + close;
}

Value make_tuple(std::vector<Value> items) { return Value(std::make_shared<TupleObject>(std::move(items))); }
Value make_list(std::vector<Value> items) { return Value(std::make_shared<ListObject>(std::move(items))); }

std::string TupleObject::repr(Evaluator& evaluator) const {
  if (items.size() == 1) return "(" + evaluator.repr(items[0]) + ",)";
  return join_repr(evaluator, "(", ")");
}

namespace {

// `sequence + other` (same kind only) and `sequence * n`, shared by tuple and
// list; `make` builds the result of the sequence's own kind.
template <class Sequence, class Make>
std::optional<Value> concatenate_or_repeat(const std::vector<Value>& items, ast::BinaryOperator op,
                                           const Value& other, bool reflected, Make make) {
  if (op == ast::BinaryOperator::add && !reflected) {
    if (auto* right = other.as<Sequence>()) {
      std::vector<Value> out = items;
      out.insert(out.end(), right->items.begin(), right->items.end());
      return make(std::move(out));
    }
  }
  if (op == ast::BinaryOperator::mult && other.is_integral()) {
    std::vector<Value> out;
    for (std::int64_t i = 0, n = repeat_count(other, items.size()); i < n; ++i) out.insert(out.end(), items.begin(), items.end());
    return make(std::move(out));
  }
  return std::nullopt;
}

}  // namespace

std::optional<Value> TupleObject::binary_op(Evaluator&, ast::BinaryOperator op, const Value& other, bool reflected) {
  return concatenate_or_repeat<TupleObject>(items, op, other, reflected,
                                            [](std::vector<Value> out) { return make_tuple(std::move(out)); });
}

std::optional<Value> TupleObject::get_item(Evaluator& evaluator, const Value& key) {
  if (key.is_int() && !key.has_hooks()) {  // the common index first: a plain int within bounds
    std::int64_t i = key.as_int(), n = static_cast<std::int64_t>(items.size());
    if (i < 0) i += n;
    if (i >= 0 && i < n) return items[static_cast<std::size_t>(i)];
  }
  if (auto* slice = key.as<SliceObject>()) return make_tuple(slice_of(items, *slice));
  if (!is_index(evaluator, key)) bad_index_type("tuple", key);
  return items[static_cast<std::size_t>(checked_index(evaluator, key, static_cast<std::int64_t>(items.size()), "tuple"))];
}

std::optional<std::size_t> TupleObject::hash() const {
  std::size_t h = 0x345678;
  for (const auto& item : items) h = h * 1000003 ^ hash_value(item);
  return h;
}

std::string ListObject::repr(Evaluator& evaluator) const {
  if (!evaluator.enter_repr(this)) return "[...]";
  std::string out = join_repr(evaluator, "[", "]");
  evaluator.leave_repr(this);
  return out;
}

std::optional<Value> ListObject::binary_op(Evaluator&, ast::BinaryOperator op, const Value& other, bool reflected) {
  return concatenate_or_repeat<ListObject>(items, op, other, reflected,
                                           [](std::vector<Value> out) { return make_list(std::move(out)); });
}

std::optional<Value> ListObject::binary_inplace(Evaluator& evaluator, ast::BinaryOperator op, const Value& other) {
  if (op == ast::BinaryOperator::add) {
    std::vector<Value> extra = evaluator.to_vector(other);  // list += any iterable
    for (const Value& item : extra) evaluator.remember_store(*this, item);
    items.insert(items.end(), extra.begin(), extra.end());
    return Value(self());
  }
  if (op == ast::BinaryOperator::mult && other.is_integral()) {
    std::vector<Value> once = items;
    items.clear();
    for (std::int64_t i = 0, n = repeat_count(other, once.size()); i < n; ++i) items.insert(items.end(), once.begin(), once.end());
    return Value(self());
  }
  return std::nullopt;
}

std::optional<Value> ListObject::get_item(Evaluator& evaluator, const Value& key) {
  if (key.is_int() && !key.has_hooks()) {  // the common index first: a plain int within bounds
    std::int64_t i = key.as_int(), n = static_cast<std::int64_t>(items.size());
    if (i < 0) i += n;
    if (i >= 0 && i < n) return items[static_cast<std::size_t>(i)];
  }
  if (auto* slice = key.as<SliceObject>()) return make_list(slice_of(items, *slice));
  if (!is_index(evaluator, key)) bad_index_type("list", key);
  return items[static_cast<std::size_t>(checked_index(evaluator, key, static_cast<std::int64_t>(items.size()), "list"))];
}

bool ListObject::set_item(Evaluator& evaluator, const Value& key, const Value& value) {
  if (auto* slice = key.as<SliceObject>()) {
    std::vector<Value> replacement = evaluator.to_vector(value);
    for (const Value& item : replacement) evaluator.remember_store(*this, item);
    auto b = slice->bounds(static_cast<std::int64_t>(items.size()));
    if (b.step == 1) {
      auto first = items.begin() + b.start;
      auto last = items.begin() + std::max(b.start, b.stop);
      items.erase(first, last);
      items.insert(items.begin() + b.start, replacement.begin(), replacement.end());
      return true;
    }
    if (static_cast<std::int64_t>(replacement.size()) != b.count)
      raise(exc::ValueError(), "attempt to assign sequence of size " + std::to_string(replacement.size()) +
                                   " to extended slice of size " + std::to_string(b.count));
    for (std::int64_t k = 0, i = b.start; k < b.count; ++k, i += b.step)
      items[static_cast<std::size_t>(i)] = replacement[static_cast<std::size_t>(k)];
    return true;
  }
  if (!is_index(evaluator, key)) bad_index_type("list", key);
  std::int64_t i = key.as_int() < 0 ? key.as_int() + static_cast<std::int64_t>(items.size()) : key.as_int();
  if (i < 0 || i >= static_cast<std::int64_t>(items.size())) raise(exc::IndexError(), "list assignment index out of range");
  evaluator.remember_store(*this, value);
  items[static_cast<std::size_t>(i)] = value;
  return true;
}

bool ListObject::delete_item(Evaluator& evaluator, const Value& key) {
  if (auto* slice = key.as<SliceObject>()) {
    auto b = slice->bounds(static_cast<std::int64_t>(items.size()));
    std::vector<bool> doomed(items.size(), false);
    for (std::int64_t k = 0, i = b.start; k < b.count; ++k, i += b.step) doomed[static_cast<std::size_t>(i)] = true;
    std::vector<Value> kept;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (!doomed[i]) kept.push_back(std::move(items[i]));
    items = std::move(kept);
    return true;
  }
  if (!is_index(evaluator, key)) bad_index_type("list", key);
  std::int64_t i = key.as_int() < 0 ? key.as_int() + static_cast<std::int64_t>(items.size()) : key.as_int();
  if (i < 0 || i >= static_cast<std::int64_t>(items.size())) raise(exc::IndexError(), "list assignment index out of range");
  (void)evaluator;
  items.erase(items.begin() + i);
  return true;
}

// ------------------------------------------------------------ ValueTable

namespace {
// The probe sequence of CPython's dicts: every slot is reached, and the
// hash's high bits matter as well as its low ones.
struct Probe {
  std::size_t mask, slot, perturb;
  Probe(std::size_t hash, std::size_t size) : mask(size - 1), slot(hash & mask), perturb(hash) {}
  void next() {
    perturb >>= 5;
    slot = (slot * 5 + perturb + 1) & mask;
  }
};
}  // namespace

namespace {
// Whether an entry's `stored` key is `key`: the same value, or an equal one
// (Python's ==, which may run an __eq__). Two str, a table's commonest keys,
// are compared here without a virtual call.
bool same_key(const Value& stored, const Value& key) {
  if (!stored.is_object() || !key.is_object()) return stored.is_same(key) || values_equal(stored, key);
  if (stored.object() == key.object()) return true;
  const StrObject* a = exact_str(stored);
  const StrObject* b = a != nullptr ? exact_str(key) : nullptr;
  if (b != nullptr) return a->value() == b->value();
  return values_equal(stored, key);
}
}  // namespace

std::optional<std::size_t> ValueTable::locate_slot(const Value& key, std::size_t hash) const {
  if (slots_.empty()) return std::nullopt;
  const std::uint64_t changes = changes_;
  for (Probe probe(hash, slots_.size());; probe.next()) {
    const std::uint32_t position = slots_[probe.slot];
    if (position == empty_slot) return std::nullopt;
    if (position == dead_slot) continue;
    const Entry& e = entries_[position];
    if (e.hash == hash && same_key(e.key, key)) return probe.slot;
    if (changes != changes_) return locate_slot(key, hash);
  }
}

void ValueTable::place(std::size_t hash, std::uint32_t position) {
  Probe probe(hash, slots_.size());
  while (slots_[probe.slot] < dead_slot) probe.next();
  slots_[probe.slot] = position;
}

void ValueTable::rebuild_slots(std::size_t count) {
  std::size_t size = 8;
  while (size * 2 < count * 3) size *= 2;
  slots_.assign(size, empty_slot);
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].live) place(entries_[i].hash, static_cast<std::uint32_t>(i));
}

Value* ValueTable::find(const Value& key) {
  auto at = locate(key, hash_value(key));
  return at ? &entries_[*at].value : nullptr;
}

const Value* ValueTable::find(const Value& key) const {
  auto at = locate(key, hash_value(key));
  return at ? &entries_[*at].value : nullptr;
}

void ValueTable::insert(const Value& key, Value value) {
  std::size_t h = hash_value(key);
  if (auto at = locate(key, h)) {
    entries_[*at].value = std::move(value);
    return;
  }
  ++changes_;
  // Room for twice the live entries, so a table grows by doubling.
  if ((entries_.size() + 1) * 3 > slots_.size() * 2)
    rebuild_slots(std::max(2 * (live_count_ + 1), entries_.size() + 1));
  place(h, static_cast<std::uint32_t>(entries_.size()));
  entries_.push_back(Entry{key, std::move(value), h, true});
  ++live_count_;
}

bool ValueTable::erase(const Value& key) {
  std::optional<std::size_t> slot = locate_slot(key, hash_value(key));
  if (!slot) return false;
  Entry& e = entries_[slots_[*slot]];
  e.live = false;
  e.key = Value();
  e.value = Value();
  slots_[*slot] = dead_slot;
  ++changes_;
  --live_count_;
  if (entries_.size() > 16 && live_count_ < entries_.size() / 2) compact();
  return true;
}

void ValueTable::clear() {
  entries_.clear();
  slots_.clear();
  live_count_ = 0;
  ++changes_;
}

void ValueTable::compact() {
  std::vector<Entry> kept;
  kept.reserve(live_count_);
  for (auto& e : entries_)
    if (e.live) kept.push_back(std::move(e));
  entries_ = std::move(kept);
  rebuild_slots(2 * live_count_);
}

namespace {
// Iterates a table's live entries; changing its size meanwhile is an error, as in Python.
IteratorRef table_iterator(const ObjectRef& owner, const ValueTable& table, const char* what,
                           std::function<Value(const ValueTable::Entry&)> project) {
  std::size_t position = 0;
  std::size_t size = table.size();
  return std::make_shared<FunctionIterator>(
      [owner, &table, what, project, position, size](Evaluator&) mutable -> std::optional<Value> {
        if (table.size() != size) raise(exc::RuntimeError(), std::string(what) + " changed size during iteration");
        const auto& entries = table.entries();
        while (position < entries.size() && !entries[position].live) ++position;
        if (position >= entries.size()) return std::nullopt;
        return project(entries[position++]);
      },
      types::list_iterator());
}
}  // namespace

// ------------------------------------------------------------ dict

std::shared_ptr<DictObject> make_dict() { return std::make_shared<DictObject>(); }

std::string DictObject::repr(Evaluator& evaluator) const {
  if (!evaluator.enter_repr(this)) return "{...}";
  std::string out = "{";
  bool first = true;
  for (const auto& e : table.entries()) {
    if (!e.live) continue;
    if (!first) out += ", ";
    first = false;
    out += evaluator.repr(e.key) + ": " + evaluator.repr(e.value);
  }
  evaluator.leave_repr(this);
  return out + "}";
}

std::optional<Value> DictObject::get_item(Evaluator& evaluator, const Value& key) {
  if (Value* v = table.find(key)) return *v;
  // A subclass's __missing__ answers for a key the dict lacks.
  if (type() != types::dict())
    if (auto made = call_special(evaluator, Value(self()), "__missing__", {key})) return made;
  raise_value(exc::KeyError(), key);
}

bool DictObject::set_item(Evaluator& evaluator, const Value& key, const Value& value) {
  evaluator.remember_store(*this, value);
  table.insert(key, value);
  return true;
}

bool DictObject::delete_item(Evaluator&, const Value& key) {
  if (!table.erase(key)) raise_value(exc::KeyError(), key);
  return true;
}

IteratorRef DictObject::iterate(Evaluator&) {
  return table_iterator(self(), table, "dictionary", [](const ValueTable::Entry& e) { return e.key; });
}

std::optional<bool> DictObject::contains(Evaluator&, const Value& item) { return table.find(item) != nullptr; }

std::optional<Value> DictObject::binary_op(Evaluator&, ast::BinaryOperator op, const Value& other, bool reflected) {
  auto* d = other.as<DictObject>();
  if (op != ast::BinaryOperator::bitor_ || !d) return std::nullopt;
  auto out = make_dict();
  const DictObject& first = reflected ? *d : *this;
  const DictObject& second = reflected ? *this : *d;
  for (const auto& e : first.table.entries())
    if (e.live) out->table.insert(e.key, e.value);
  for (const auto& e : second.table.entries())
    if (e.live) out->table.insert(e.key, e.value);
  return Value(out);
}

std::optional<Value> DictObject::compare(Evaluator&, ast::CompareOperator op, const Value& other, bool) {
  if (!other.as<DictObject>()) return std::nullopt;
  // dict's own == (not a subclass's __eq__, which its compare asks first)
  if (op == ast::CompareOperator::eq) return Value::boolean(DictObject::equals(other));
  if (op == ast::CompareOperator::not_eq_) return Value::boolean(!DictObject::equals(other));
  return std::nullopt;
}

bool DictObject::equals(const Value& other) const {
  auto* d = other.as<DictObject>();
  if (!d || d->table.size() != table.size()) return false;
  for (const auto& e : table.entries()) {
    if (!e.live) continue;
    const Value* v = d->table.find(e.key);
    if (!v || !(v->is_same(e.value) || values_equal(*v, e.value))) return false;
  }
  return true;
}

// ------------------------------------------------------------ set

std::shared_ptr<SetObject> make_set() { return std::make_shared<SetObject>(); }

std::string SetObject::repr(Evaluator& evaluator) const {
  if (table.size() == 0) return frozen ? "frozenset()" : "set()";
  std::string out = frozen ? "frozenset({" : "{";
  bool first = true;
  for (const auto& e : table.entries()) {
    if (!e.live) continue;
    if (!first) out += ", ";
    first = false;
    out += evaluator.repr(e.key);
  }
  return out + (frozen ? "})" : "}");
}

// A frozenset's hash does not depend on the order of its items (CPython's
// shuffle of each item's hash, summed); a set has none.
std::optional<std::size_t> SetObject::hash() const {
  if (!frozen) return std::nullopt;
  std::size_t h = 0;
  for (const auto& e : table.entries())
    if (e.live) {
      std::size_t item = hash_value(e.key);
      h ^= ((item ^ 89869747UL) ^ (item << 16)) * 3644798167UL;
    }
  return h ^ (table.size() + 1) * 1927868237UL;
}

IteratorRef SetObject::iterate(Evaluator&) {
  return table_iterator(self(), table, "Set", [](const ValueTable::Entry& e) { return e.key; });
}

std::optional<bool> SetObject::contains(Evaluator&, const Value& item) { return table.find(item) != nullptr; }

bool SetObject::is_subset_of(const SetObject& other) const {
  for (const auto& e : table.entries())
    if (e.live && !other.table.find(e.key)) return false;
  return true;
}

std::optional<Value> SetObject::binary_op(Evaluator&, ast::BinaryOperator op, const Value& other, bool reflected) {
  auto* s = other.as<SetObject>();
  if (!s) return std::nullopt;
  const SetObject& a = reflected ? *s : *this;
  const SetObject& b = reflected ? *this : *s;
  auto out = make_set();
  out->frozen = a.frozen;  // the left operand's type, as in Python
  auto add_if = [&](const SetObject& from, auto keep) {
    for (const auto& e : from.table.entries())
      if (e.live && keep(e.key)) out->table.insert(e.key, Value());
  };
  auto in_b = [&](const Value& k) { return b.table.find(k) != nullptr; };
  auto in_a = [&](const Value& k) { return a.table.find(k) != nullptr; };
  switch (op) {
    case ast::BinaryOperator::bitor_:
      add_if(a, [](const Value&) { return true; });
      add_if(b, [](const Value&) { return true; });
      break;
    case ast::BinaryOperator::bitand_: add_if(a, in_b); break;
    case ast::BinaryOperator::sub: add_if(a, [&](const Value& k) { return !in_b(k); }); break;
    case ast::BinaryOperator::bitxor:
      add_if(a, [&](const Value& k) { return !in_b(k); });
      add_if(b, [&](const Value& k) { return !in_a(k); });
      break;
    default: return std::nullopt;
  }
  return Value(out);
}

std::optional<Value> SetObject::compare(Evaluator&, ast::CompareOperator op, const Value& other, bool) {
  auto* s = other.as<SetObject>();
  if (!s) return std::nullopt;
  const SetObject& a = *this;  // `op` is already swapped when reflected
  const SetObject& b = *s;
  switch (op) {
    case ast::CompareOperator::eq: return Value::boolean(a.table.size() == b.table.size() && a.is_subset_of(b));
    case ast::CompareOperator::not_eq_: return Value::boolean(!(a.table.size() == b.table.size() && a.is_subset_of(b)));
    case ast::CompareOperator::lt_e: return Value::boolean(a.is_subset_of(b));
    case ast::CompareOperator::lt: return Value::boolean(a.table.size() < b.table.size() && a.is_subset_of(b));
    case ast::CompareOperator::gt_e: return Value::boolean(b.is_subset_of(a));
    case ast::CompareOperator::gt: return Value::boolean(b.table.size() < a.table.size() && b.is_subset_of(a));
    default: return std::nullopt;
  }
}

bool SetObject::equals(const Value& other) const {
  auto* s = other.as<SetObject>();
  return s && s->table.size() == table.size() && is_subset_of(*s);
}

// ------------------------------------------------------------ range

RangeObject::RangeObject(std::int64_t start_, std::int64_t stop_, std::int64_t step_)
    : start(start_), stop(stop_), step(step_) {
  if (step > 0 && start < stop) {
    length_ = static_cast<std::int64_t>((static_cast<unsigned long long>(stop) - static_cast<unsigned long long>(start) - 1) /
                                        static_cast<unsigned long long>(step) + 1);
  } else if (step < 0 && start > stop) {
    length_ = static_cast<std::int64_t>((static_cast<unsigned long long>(start) - static_cast<unsigned long long>(stop) - 1) /
                                        (0ULL - static_cast<unsigned long long>(step)) + 1);
  } else {
    length_ = 0;
  }
}

std::string RangeObject::repr(Evaluator&) const {
  std::string out = "range(" + std::to_string(start) + ", " + std::to_string(stop);
  if (step != 1) out += ", " + std::to_string(step);
  return out + ")";
}

std::optional<Value> RangeObject::get_item(Evaluator& evaluator, const Value& key) {
  if (auto* slice = key.as<SliceObject>()) {
    auto b = slice->bounds(length_);
    return Value(std::make_shared<RangeObject>(at(b.start), at(b.start) + b.count * step * b.step, step * b.step));
  }
  if (!key.is_integral()) raise(exc::TypeError(), "range indices must be integers or slices, not " + type_name(key));
  std::int64_t i = key.as_int() < 0 ? key.as_int() + length_ : key.as_int();
  if (i < 0 || i >= length_) raise(exc::IndexError(), "range object index out of range");
  (void)evaluator;
  return Value::integer(at(i));
}

IteratorRef RangeObject::iterate(Evaluator&) {
  std::int64_t i = 0;
  auto self_ref = std::static_pointer_cast<RangeObject>(self());
  return std::make_shared<FunctionIterator>(
      [self_ref, i](Evaluator&) mutable -> std::optional<Value> {
        if (i >= self_ref->length_) return std::nullopt;
        return Value::integer(self_ref->at(i++));
      },
      types::list_iterator());
}

std::optional<bool> RangeObject::contains(Evaluator&, const Value& item) {
  if (!item.is_integral()) {
    if (!item.is_float()) return false;
    double d = item.as_float();
    if (d != std::floor(d)) return false;
    return contains_integer(static_cast<std::int64_t>(d));
  }
  return contains_integer(item.as_int());
}

bool RangeObject::contains_integer(std::int64_t v) const {
  if (length_ == 0) return false;
  if (step > 0 ? (v < start || v >= stop) : (v > start || v <= stop)) return false;
  return (v - start) % step == 0;
}

std::optional<Value> RangeObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "start") return Value::integer(start);
  if (name == "stop") return Value::integer(stop);
  if (name == "step") return Value::integer(step);
  return Object::get_attribute(evaluator, name);
}

bool RangeObject::equals(const Value& other) const {
  auto* r = other.as<RangeObject>();
  if (!r || r->length_ != length_) return false;
  if (length_ == 0) return true;
  return r->start == start && (length_ == 1 || r->step == step);
}

std::optional<std::size_t> RangeObject::hash() const {
  return std::hash<std::int64_t>()(start) * 31 + std::hash<std::int64_t>()(length_);
}

// ------------------------------------------------------------ slice

std::string SliceObject::repr(Evaluator& evaluator) const {
  return "slice(" + evaluator.repr(lower) + ", " + evaluator.repr(upper) + ", " + evaluator.repr(step) + ")";
}

std::optional<Value> SliceObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "start") return lower;
  if (name == "stop") return upper;
  if (name == "step") return step;
  return Object::get_attribute(evaluator, name);
}

bool SliceObject::equals(const Value& other) const {
  auto* s = other.as<SliceObject>();
  return s && values_equal(s->lower, lower) && values_equal(s->upper, upper) && values_equal(s->step, step);
}

SliceObject::Bounds SliceObject::bounds(std::int64_t length) const {
  auto as_index = [](const Value& v) -> std::int64_t {
    if (!v.is_integral())
      raise(exc::TypeError(), "slice indices must be integers or None or have an __index__ method");
    return v.as_int();
  };
  std::int64_t s = step.is_none() ? 1 : as_index(step);
  if (s == 0) raise(exc::ValueError(), "slice step cannot be zero");
  std::int64_t lo, hi;
  if (s > 0) {
    lo = 0;
    hi = length;
  } else {
    lo = -1;
    hi = length - 1;
  }
  auto clamp = [&](const Value& v, std::int64_t fallback) {
    if (v.is_none()) return fallback;
    std::int64_t i = as_index(v);
    if (i < 0) {
      i += length;
      if (i < lo) i = lo;
    } else if (i > hi) {
      i = hi;
    }
    return i;
  };
  std::int64_t first = clamp(lower, s > 0 ? lo : hi);
  std::int64_t last = clamp(upper, s > 0 ? hi : lo);
  std::int64_t count = 0;
  if (s > 0 && first < last) count = (last - first - 1) / s + 1;
  if (s < 0 && first > last) count = (first - last - 1) / (-s) + 1;
  return Bounds{first, last, s, count};
}

const Value& ellipsis_value() {
  static const Value ellipsis(std::make_shared<EllipsisObject>());
  return ellipsis;
}

// ------------------------------------------------------------ module

std::string ModuleObject::repr(Evaluator& evaluator) const {
  const Value* file = find("__file__");
  if (origin == Origin::file && file && string_of(*file)) return "<module '" + name_ + "' from '" + *string_of(*file) + "'>";
  if (origin == Origin::namespace_package)
    if (const Value* path = find("__path__")) return "<module '" + name_ + "' (namespace) from " + evaluator.repr(*path) + ">";
  return "<module '" + name_ + "' (built-in)>";
}

std::optional<Value> ModuleObject::get_attribute(Evaluator&, const std::string& name) {
  if (const Value* v = find(name)) return *v;
  if (name == "__name__") return make_str(name_);
  return std::nullopt;
}

bool ModuleObject::set_attribute(Evaluator&, const std::string& name, const Value& value) {
  (*members_)[name] = value;
  return true;
}

std::vector<std::string> ModuleObject::attribute_names() const {
  std::vector<std::string> names;
  names.reserve(members_->size());
  for (const auto& [name, value] : *members_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

void ModuleObject::add_function(std::string_view signature, NativeFunctionBody body) {
  auto function = std::make_shared<NativeFunction>(Signature::parse(signature), std::move(body), name_);
  std::string name = function->name();
  (*members_)[name] = Value(std::move(function));
}

std::uint64_t Namespace::fresh_version() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

const Value* ModuleObject::find(const std::string& name) const {
  auto found = members_->find(name);
  return found == members_->end() ? nullptr : &found->second;
}

// ------------------------------------------------------------ iterators

std::optional<Value> ListIterator::next(Evaluator&) {
  if (position_ >= values_.size()) {
    values_.clear();
    return std::nullopt;
  }
  return std::move(values_[position_++]);
}

std::optional<Value> FunctionIterator::next(Evaluator& evaluator) {
  if (done_) return std::nullopt;
  auto v = step_(evaluator);
  if (!v) {
    done_ = true;
    step_ = nullptr;  // release what the iterator held
  }
  return v;
}

}  // namespace interp
