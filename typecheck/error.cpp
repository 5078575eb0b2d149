#include "typecheck/error.hpp"

namespace typecheck {

std::string_view python_class_name(ErrorClass error_class) {
  // ORDER ErrorClass
  switch (error_class) {
    case ErrorClass::ValueError: return "ValueError";
    case ErrorClass::TypeError: return "TypeError";
    case ErrorClass::ShardingTypeError: return "ShardingTypeError";
    case ErrorClass::DuplicateSpecError: return "DuplicateSpecError";
    case ErrorClass::AssertionError: return "AssertionError";
    case ErrorClass::NotImplementedError: return "NotImplementedError";
    case ErrorClass::NameError: return "NameError";
    case ErrorClass::IndexError: return "IndexError";
    case ErrorClass::KeyError: return "KeyError";
    case ErrorClass::RuntimeError: return "RuntimeError";
  }
  return "ValueError";
}

std::string Error::str() const {
  std::string text(python_class_name(error_class));
  text += ": ";
  text += message;
  return text;
}

}  // namespace typecheck
