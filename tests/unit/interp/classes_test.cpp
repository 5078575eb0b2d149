// User classes underneath the `class` statement: C3 linearisation of the
// bases (classes.hpp) and the MRO that is_subclass_of follows.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "interp/python/classes.hpp"
#include "interp/python/exceptions.hpp"

namespace interp {
namespace {

TypeRef make_class(const std::string& name, std::vector<TypeRef> bases) {
  std::vector<TypeObject*> ancestors = class_mro(bases);
  return std::make_shared<ClassObject>(name, name, std::move(bases), std::move(ancestors), AttributeList{});
}

std::string names(const TypeRef& cls) {
  std::string out = cls->name();
  for (const TypeObject* type : cls->ancestors()) out += " " + type->name();
  return out;
}

TEST(ClassMro, SingleInheritanceFollowsTheBaseChain) {
  TypeRef a = make_class("A", {types::object()});
  TypeRef b = make_class("B", {a});
  EXPECT_EQ(names(b), "B A object");
  EXPECT_TRUE(b->is_subclass_of(*a));
  EXPECT_FALSE(a->is_subclass_of(*b));
}

TEST(ClassMro, DiamondIsLinearisedByC3) {
  TypeRef base = make_class("Base", {types::object()});
  TypeRef left = make_class("Left", {base});
  TypeRef right = make_class("Right", {base});
  TypeRef child = make_class("Child", {left, right});
  EXPECT_EQ(names(child), "Child Left Right Base object");
  EXPECT_TRUE(child->is_subclass_of(*right));
}

TEST(ClassMro, InconsistentOrderIsATypeError) {
  TypeRef a = make_class("A", {types::object()});
  TypeRef b = make_class("B", {a});
  try {
    make_class("C", {a, b});
    FAIL() << "expected a TypeError";
  } catch (const PyError& error) {
    EXPECT_EQ(error.exception->type(), exc::TypeError());
  }
}

TEST(ClassMro, ExceptionBasesMakeExceptionClasses) {
  TypeRef app = make_class("AppError", {exc::Exception()});
  TypeRef config = make_class("ConfigError", {app, exc::KeyError()});
  EXPECT_EQ(names(config), "ConfigError AppError KeyError LookupError Exception BaseException object");
  EXPECT_TRUE(static_cast<ClassObject&>(*config).makes_exceptions());
  EXPECT_FALSE(static_cast<ClassObject&>(*make_class("Plain", {types::object()})).makes_exceptions());
}

}  // namespace
}  // namespace interp
