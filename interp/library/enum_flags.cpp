// enum.Flag and enum.IntFlag with CPython 3.11's semantics: auto() gives
// powers of two, members combine with | & ^ ~ into pseudo-members (made by
// _missing_, named 'RED|GREEN', kept in _value2member_map_ so that equal
// values are the same object), iterating a value yields its single-bit
// members, `in` tests inclusion. Flag's boundary is STRICT (a value with
// bits no member has is a ValueError); IntFlag's is KEEP (any int), and
// its members combine with ints and behave as ints. A class chooses its
// boundary with boundary=: STRICT, CONFORM (the bits no member has are
// dropped), EJECT (such a value is returned as a plain int) or KEEP.
#include <algorithm>
#include <bit>

#include "interp/library/enum_module.hpp"
#include "interp/python/format.hpp"

namespace interp {

namespace {

using Op = lang::ast::BinaryOperator;

std::int64_t bit_length(std::int64_t v) {
  std::uint64_t magnitude = v < 0 ? -static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);  // abs, as Python's
  return 64 - std::countl_zero(magnitude);
}

bool is_single_bit(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::int64_t own_int(ClassObject& cls, const char* name) {
  const Value* v = own(cls, name);
  return v && v->is_integral() ? v->as_int() : 0;
}

ClassObject& class_of(const Value& member) { return *const_cast<ClassObject*>(type_of(member)->as_class()); }

// The class's _boundary_: "strict" (Flag's), "conform", "eject" or "keep" (IntFlag's).
std::string boundary_of(const ClassObject& cls) {
  const Value* boundary = find_class_member(cls, "_boundary_");
  const std::string* text = boundary ? string_of(*boundary) : nullptr;
  return text ? *text : "strict";
}

// IntFlag: its members are ints and combine with ints (Flag's do with members only).
bool int_valued(const ClassObject& cls) { return builtin_base(cls) == types::integer().get(); }

// enum's bin(num, max_bits): "0b0 0111", sign then the digits.
std::string enum_bin(std::int64_t num, std::int64_t max_bits) {
  std::int64_t ceiling = std::int64_t{1} << bit_length(num);
  std::uint64_t shown = num >= 0 ? static_cast<std::uint64_t>(num + ceiling) : static_cast<std::uint64_t>(~num ^ (ceiling - 1 + ceiling));
  std::string bits;
  for (; shown != 0; shown >>= 1) bits.insert(bits.begin(), static_cast<char>('0' + (shown & 1)));
  if (bits.empty()) bits = "0";
  if (num >= 0) bits[0] = '0';
  std::string sign = "0b" + bits.substr(0, 1), digits = bits.substr(1);
  if (static_cast<std::int64_t>(digits.size()) < max_bits) {
    std::string padded = std::string(static_cast<std::size_t>(max_bits), sign.back()) + digits;
    digits = padded.substr(padded.size() - static_cast<std::size_t>(max_bits));
  }
  return sign + " " + digits;
}

// _iter_member_(value): the members of value's bits, lowest first, or in
// definition order when the members were not defined in increasing order.
std::vector<Value> members_of(ClassObject& cls, std::int64_t value) {
  auto& value_map = own(cls, "_value2member_map_")->as<DictObject>()->table;
  std::vector<Value> out;
  for (std::uint64_t bits = static_cast<std::uint64_t>(value & own_int(cls, "_flag_mask_")); bits != 0; bits &= bits - 1) {
    const Value* found = value_map.find(Value::integer(static_cast<std::int64_t>(bits & -bits)));
    out.push_back(found ? *found : Value::none());
  }
  if (const Value* by_definition = own(cls, "_iter_by_definition_"); by_definition && by_definition->as_bool()) {
    auto order = [](const Value& m) {
      const Value* at = member_of(m) ? find_attribute_in(*member_of(m), "_sort_order_") : nullptr;
      return at ? at->as_int() : 0;
    };
    std::stable_sort(out.begin(), out.end(), [&](const Value& a, const Value& b) { return order(a) < order(b); });
  }
  return out;
}

std::string joined_names(Evaluator& evaluator, const std::vector<Value>& members) {
  std::string out;
  for (const Value& m : members) out += (out.empty() ? "" : "|") + evaluator.str(member_name(m));
  return out;
}

class FlagBehaviour : public EnumBehaviour {
 public:
  std::optional<std::string> class_repr(const ClassObject& cls) override { return "<flag '" + cls.name() + "'>"; }

 protected:
  bool flags() const override { return true; }
  std::int64_t next_value(const std::vector<std::int64_t>& values) const override {
    if (values.empty()) return 1;
    return std::int64_t{1} << bit_length(*std::max_element(values.begin(), values.end()));
  }
  // Flag._missing_: the pseudo-member of a combination of members.
  Value missing(Evaluator& evaluator, ClassObject& cls, const Value& given) override {
    if (!given.is_integral()) return EnumBehaviour::missing(evaluator, cls, given);
    std::int64_t value = given.as_int();
    std::int64_t flag_mask = own_int(cls, "_flag_mask_"), singles = own_int(cls, "_singles_mask_");
    std::int64_t all_bits = own_int(cls, "_all_bits_");
    std::string boundary = boundary_of(cls);
    bool keep = boundary == "keep";
    if (!(~all_bits <= value && value <= all_bits) || (value & (all_bits ^ flag_mask)) != 0) {
      if (boundary == "conform") {
        value &= flag_mask;
      } else if (boundary == "eject") {
        return Value::integer(value);
      } else if (keep) {
        if (value < 0) value += std::max(all_bits + 1, std::int64_t{1} << bit_length(value));
      } else if (boundary == "strict") {
        std::int64_t max_bits = std::max(bit_length(value), bit_length(flag_mask));
        raise(exc::ValueError(), "<flag '" + cls.name() + "'> invalid value " + std::to_string(value) + "\n    given " +
                                     enum_bin(value, max_bits) + "\n  allowed " + enum_bin(flag_mask, max_bits));
      } else {
        raise(exc::ValueError(), "<flag '" + cls.name() + "'> unknown flag boundary " + string_repr(boundary));
      }
    }
    std::optional<std::int64_t> negative;
    if (value < 0) {
      negative = value;
      value = all_bits + 1 + value;
    }
    std::int64_t aliases = value & ~singles, member_value_ = value & singles;
    Value name;
    if (member_value_ != 0 || aliases != 0) {
      std::vector<Value> members = members_of(cls, member_value_);
      std::int64_t combined = 0;
      for (const Value& m : members) combined |= member_of(m) ? member_value(m).as_int() : 0;
      if (aliases != 0) {
        for (const auto& e : own(cls, "_member_map_")->as<DictObject>()->table.entries()) {
          if (!e.live || std::any_of(members.begin(), members.end(), [&](const Value& m) { return m.is_same(e.value); }))
            continue;
          std::int64_t v = member_value(e.value).as_int();
          if (v != 0 && (v & value) == v) {
            members.push_back(e.value);
            combined |= v;
          }
        }
      }
      std::int64_t unknown = value ^ combined;
      if (combined != 0) {
        std::string text = joined_names(evaluator, members);
        if (unknown != 0 && !keep)
          raise(exc::ValueError(), "<flag '" + cls.name() + "'>: no members with value " + std::to_string(unknown));
        if (unknown != 0) text += "|" + std::to_string(unknown);
        name = make_str(text);
      }
    }
    auto& value_map = own(cls, "_value2member_map_")->as<DictObject>()->table;
    Value key = Value::integer(value);
    Value pseudo;
    if (const Value* found = value_map.find(key)) pseudo = *found;
    else value_map.insert(key, pseudo = make_member(evaluator, cls, key, name));
    if (negative) value_map.insert(Value::integer(*negative), pseudo);
    return pseudo;
  }
};

// self | other, & or ^: a member of the class, or an int for an IntFlag; else NotImplemented.
Value combine(Evaluator& evaluator, Op op, const Value& self, const Value& other) {
  ClassObject& cls = class_of(self);
  std::int64_t b;
  if (member_of(other) && type_of(other)->is_subclass_of(cls)) b = member_value(other).as_int();
  else if (int_valued(cls) && other.is_integral()) b = other.as_int();
  else return not_implemented();
  std::int64_t a = member_value(self).as_int();
  std::int64_t r = op == Op::bitor_ ? (a | b) : op == Op::bitand_ ? (a & b) : (a ^ b);
  return evaluator.call(Value(cls.self()), {Value::integer(r)});
}

AttributeList flag_namespace(const Value& strict) {
  AttributeList entries{{"__module__", make_str("enum")}, {"__qualname__", make_str("Flag")}, {"_boundary_", strict}};
  const std::pair<Op, const char*> operators[] = {{Op::bitor_, "or"}, {Op::bitand_, "and"}, {Op::bitxor, "xor"}};
  for (auto [op, name] : operators)
    for (const char* prefix : {"__", "__r"})
      add(entries, prefix + std::string(name) + "__(self, other, /)",
          [op = op](Evaluator& ev, Arguments& a) { return combine(ev, op, a[0], a[1]); });
  add(entries, "__invert__(self, /)", [](Evaluator& ev, Arguments& a) {
    ClassObject& cls = class_of(a[0]);
    std::int64_t value = member_value(a[0]).as_int();
    std::string boundary = boundary_of(cls);
    bool all = boundary == "eject" || boundary == "keep";
    std::int64_t inverted = all ? ~value : (own_int(cls, "_singles_mask_") & ~value);
    return ev.call(Value(cls.self()), {Value::integer(inverted)});
  });
  add(entries, "__contains__(self, other, /)", [](Evaluator&, Arguments& a) {
    ClassObject& cls = class_of(a[0]);
    if (!member_of(a[1]) || !type_of(a[1])->is_subclass_of(cls)) {
      const ClassObject* other = type_of(a[1])->as_class();
      raise(exc::TypeError(), "unsupported operand type(s) for 'in': '" + (other ? other->qualname() : type_name(a[1])) +
                                  "' and '" + cls.qualname() + "'");
    }
    std::int64_t mine = member_value(a[0]).as_int(), theirs = member_value(a[1]).as_int();
    return Value::boolean((theirs & mine) == theirs);
  });
  add(entries, "__iter__(self, /)", [](Evaluator&, Arguments& a) {
    return Value(std::make_shared<ListIterator>(members_of(class_of(a[0]), member_value(a[0]).as_int()), types::list_iterator()));
  });
  add(entries, "__len__(self, /)", [](Evaluator&, Arguments& a) {
    return Value::integer(std::popcount(static_cast<std::uint64_t>(member_value(a[0]).as_int())));
  });
  add(entries, "__bool__(self, /)", [](Evaluator&, Arguments& a) { return Value::boolean(member_value(a[0]).as_int() != 0); });
  add(entries, "__repr__(self, /)", [](Evaluator& ev, Arguments& a) {
    const Value& name = member_name(a[0]);
    std::string shown = name.is_none() ? "" : "." + ev.str(name);
    return make_str("<" + type_of(a[0])->name() + shown + ": " + ev.repr(member_value(a[0])) + ">");
  });
  add(entries, "__str__(self, /)", [](Evaluator& ev, Arguments& a) {
    const Value& name = member_name(a[0]);
    if (name.is_none()) return make_str(type_of(a[0])->name() + "(" + ev.repr(member_value(a[0])) + ")");
    return make_str(type_of(a[0])->name() + "." + ev.str(name));
  });
  return entries;
}

}  // namespace

bool FlagMasks::add(const Value& value) {
  if (!value.is_integral()) return false;
  flag_mask |= value.as_int();
  if (!is_single_bit(value.as_int())) return false;
  singles_mask |= value.as_int();
  return true;
}

void FlagMasks::store(ClassObject& cls) const {
  NamespaceEdit edit = cls.edit_namespace();
  AttributeList& entries = edit.entries;
  set_attribute_in(entries, "_flag_mask_", Value::integer(flag_mask));
  set_attribute_in(entries, "_singles_mask_", Value::integer(singles_mask));
  set_attribute_in(entries, "_all_bits_", Value::integer((std::int64_t{1} << bit_length(flag_mask)) - 1));
  std::vector<std::int64_t> values;
  for (const Value& m : EnumBehaviour::members(cls)) values.push_back(member_value(m).as_int());
  set_attribute_in(entries, "_iter_by_definition_", Value::boolean(!std::is_sorted(values.begin(), values.end())));
}

void install_flags(Evaluator& evaluator, ModuleObject& module, const TypeRef& enum_class, const TypeRef& repr_enum,
                   ClassObject& flag_boundary) {
  auto behaviour = std::make_shared<FlagBehaviour>();
  std::vector<TypeRef> enum_base{enum_class};
  auto flag = std::make_shared<ClassObject>("Flag", "Flag", enum_base, class_mro(enum_base),
                                            flag_namespace(*own(flag_boundary, "STRICT")));
  flag->behaviour = behaviour;
  behaviour->class_made(evaluator, *flag);
  // IntFlag(int, ReprEnum, Flag, boundary=KEEP): int's arithmetic and
  // comparisons, ReprEnum's str() and format() (int's), Flag's | & ^ ~,
  // repr and container protocol.
  AttributeList int_flag_entries{{"__module__", make_str("enum")}, {"__qualname__", make_str("IntFlag")},
                                 {"_boundary_", *own(flag_boundary, "KEEP")}};
  std::vector<TypeRef> int_flag_bases{types::integer(), repr_enum, flag};
  auto int_flag = std::make_shared<ClassObject>("IntFlag", "IntFlag", int_flag_bases, class_mro(int_flag_bases),
                                                std::move(int_flag_entries));
  int_flag->behaviour = behaviour;
  behaviour->class_made(evaluator, *int_flag);
  module.add("Flag", Value(flag));
  module.add("IntFlag", Value(int_flag));
}

}  // namespace interp
