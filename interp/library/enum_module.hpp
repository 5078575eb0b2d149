// What enum_module.cpp (Enum, IntEnum, auto, unique) and enum_flags.cpp
// (Flag, IntFlag) share: EnumType's behaviour and the members' parts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interp/library/host_modules.hpp"
#include "interp/python/classes.hpp"

namespace interp {

// An entry of the class's own namespace (not its bases'), or null.
const Value* own(const ClassObject& cls, const char* name);
// The attributes of a member of an enum class (an instance with _name_), or null.
AttributeList* member_of(const Value& value);
const Value& member_value(const Value& member);
const Value& member_name(const Value& member);  // None for a Flag's unnamed pseudo-member
// A new member of `cls` (not yet in its maps).
Value make_member(Evaluator& evaluator, ClassObject& cls, Value value, Value name);
// Whether a class-body entry stays a class attribute (methods, descriptors,
// private and dunder names) rather than becoming a member.
bool is_descriptor_or_private(const std::string& name, const Value& value);

// A Flag class's masks, gathered as its members are made.
struct FlagMasks {
  std::int64_t flag_mask = 0, singles_mask = 0;
  // Records a member's value; whether it is one bit (a canonical member, listed in _member_names_).
  bool add(const Value& value);
  // _flag_mask_, _singles_mask_, _all_bits_ and the iteration order into the class.
  void store(ClassObject& cls) const;
};

// EnumType: the body's plain values become members; the class is a container of them.
class EnumBehaviour : public ClassBehaviour {
 public:
  Value class_body_store(Evaluator& evaluator, const AttributeList& entries, const std::string& name,
                         Value value) override;
  void class_made(Evaluator& evaluator, ClassObject& cls) override;
  void class_prepare(Evaluator& evaluator, const std::vector<TypeRef>& bases, AttributeList& entries) override;
  std::optional<Value> construct(Evaluator& evaluator, ClassObject& cls, CallArgs& args) override;
  IteratorRef class_iterate(Evaluator& evaluator, ClassObject& cls) override;
  std::optional<Value> class_get_item(Evaluator& evaluator, ClassObject& cls, const Value& key) override;
  std::optional<std::int64_t> class_length(Evaluator& evaluator, const ClassObject& cls) override;
  std::optional<bool> class_contains(Evaluator& evaluator, ClassObject& cls, const Value& item) override;
  std::optional<std::string> class_repr(const ClassObject& cls) override;
  bool takes_builtin_mixin() const override { return true; }
  // boundary= (a Flag's _boundary_: FlagBoundary's STRICT, CONFORM, EJECT or KEEP).
  bool class_keyword(AttributeList& entries, const std::string& name, const Value& value) override {
    if (name != "boundary") return false;
    set_attribute_in(entries, "_boundary_", value);
    return true;
  }

  // The canonical members, in definition order.
  static std::vector<Value> members(ClassObject& cls);

 protected:
  virtual bool flags() const { return false; }
  // auto()'s value after the members' values so far (_generate_next_value_).
  virtual std::int64_t next_value(const std::vector<std::int64_t>& values) const;
  // auto()'s value for the member `name` (an int from next_value; StrEnum's: the name in lower case).
  virtual Value auto_value(const std::string& name, const std::vector<std::int64_t>& values) const {
    (void)name;
    return Value::integer(next_value(values));
  }
  // cls(value) when no member has the value (_missing_): ValueError.
  virtual Value missing(Evaluator& evaluator, ClassObject& cls, const Value& value);
};

// A native method into a namespace.
void add(AttributeList& entries, std::string_view signature, NativeFunctionBody body);

// Flag, a subclass of `enum_class`, and IntFlag = (int, `repr_enum`, Flag)
// (enum_flags.cpp). Their boundaries are `flag_boundary`'s members
// (FlagBoundary: STRICT, ...).
void install_flags(Evaluator& evaluator, ModuleObject& module, const TypeRef& enum_class, const TypeRef& repr_enum,
                   ClassObject& flag_boundary);

}  // namespace interp
