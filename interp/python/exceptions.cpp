#include "interp/python/exceptions.hpp"

#include "interp/python/classes.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/python/objects.hpp"

namespace interp {

namespace {
// The text a user exception class's own __str__ or __repr__ gives, if it has one.
std::optional<std::string> class_text(Evaluator& evaluator, const ExceptionObject& exception, const char* method) {
  if (!find_class_member(*exception.type(), method)) return std::nullopt;
  Value result = *call_special(evaluator, Value(const_cast<ExceptionObject&>(exception).self()), method, {});
  if (const std::string* text = string_of(result)) return *text;
  raise(exc::TypeError(), std::string(method) + " returned non-string (type " + type_name(result) + ")");
}
}  // namespace

std::string ExceptionObject::repr(Evaluator& evaluator) const {
  if (auto text = class_text(evaluator, *this, "__repr__")) return *text;
  return builtin_repr(evaluator);
}

std::string ExceptionObject::str(Evaluator& evaluator) const {
  if (auto text = class_text(evaluator, *this, "__str__")) return *text;
  return builtin_str(evaluator);
}

std::string ExceptionObject::builtin_repr(Evaluator& evaluator) const {
  std::string out = cls_->name() + "(";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    out += evaluator.repr(args[i]);
  }
  return out + ")";
}

std::string ExceptionObject::builtin_str(Evaluator& evaluator) const {
  if (args.empty()) return "";
  if (args.size() == 1) {
    // KeyError shows its key as repr, as Python does.
    if (cls_->is_subclass_of(*exc::KeyError())) return evaluator.repr(args[0]);
    return evaluator.str(args[0]);
  }
  return evaluator.repr(make_tuple(args));
}

std::optional<Value> ExceptionObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "args") return make_tuple(args);
  if (name == "__cause__") return cause;
  if (name == "__context__") return context;
  if (name == "__class__") return Value(cls_);
  if (name == "__traceback__") return Value::none();
  if (name == "value" && cls_->is_subclass_of(*exc::StopIteration())) return args.empty() ? Value::none() : args[0];
  return instance_attribute(evaluator, Value(self()), attributes, name);
}

bool ExceptionObject::set_attribute(Evaluator& evaluator, const std::string& name, const Value& value) {
  if (name == "args") {
    args = evaluator.to_vector(value);
  } else if (name == "__cause__") {
    cause = value;
  } else if (name == "__context__") {
    context = value;
  } else {
    set_instance_attribute(evaluator, Value(self()), attributes, name, value);
  }
  return true;
}

std::vector<std::string> ExceptionObject::attribute_names() const { return {"__cause__", "__context__", "args"}; }

namespace exc {

namespace {
TypeRef exception_class(const char* name, const TypeRef& base) {
  TypeRef cls = make_type(name, base);
  TypeObject* raw = cls.get();
  // Calling the class makes an instance holding the arguments.
  cls->set_constructor([raw](Evaluator&, CallArgs& args) -> Value {
    if (!args.keywords.empty())
      raise(TypeError(), raw->name() + "() takes no keyword arguments");
    return Value(std::make_shared<ExceptionObject>(std::static_pointer_cast<TypeObject>(raw->self()), args.positional));
  });
  return cls;
}
}  // namespace

#define SHARDLANG_EXCEPTION(name, base)                         \
  const TypeRef& name() {                                       \
    static const TypeRef cls = exception_class(#name, base);    \
    return cls;                                                 \
  }

SHARDLANG_EXCEPTION(BaseException, types::object())
SHARDLANG_EXCEPTION(Exception, BaseException())
SHARDLANG_EXCEPTION(ArithmeticError, Exception())
SHARDLANG_EXCEPTION(AssertionError, Exception())
SHARDLANG_EXCEPTION(AttributeError, Exception())
SHARDLANG_EXCEPTION(ImportError, Exception())
SHARDLANG_EXCEPTION(LookupError, Exception())
SHARDLANG_EXCEPTION(IndexError, LookupError())
SHARDLANG_EXCEPTION(KeyError, LookupError())
SHARDLANG_EXCEPTION(KeyboardInterrupt, BaseException())
SHARDLANG_EXCEPTION(MemoryError, Exception())
SHARDLANG_EXCEPTION(ModuleNotFoundError, ImportError())
SHARDLANG_EXCEPTION(NameError, Exception())
SHARDLANG_EXCEPTION(FileExistsError, OSError())
SHARDLANG_EXCEPTION(FileNotFoundError, OSError())
SHARDLANG_EXCEPTION(IsADirectoryError, OSError())
SHARDLANG_EXCEPTION(NotADirectoryError, OSError())
SHARDLANG_EXCEPTION(PermissionError, OSError())
SHARDLANG_EXCEPTION(RuntimeError, Exception())
SHARDLANG_EXCEPTION(NotImplementedError, RuntimeError())
SHARDLANG_EXCEPTION(OSError, Exception())
SHARDLANG_EXCEPTION(OverflowError, ArithmeticError())
SHARDLANG_EXCEPTION(RecursionError, RuntimeError())
SHARDLANG_EXCEPTION(StopIteration, Exception())
SHARDLANG_EXCEPTION(GeneratorExit, BaseException())
SHARDLANG_EXCEPTION(SyntaxError, Exception())
SHARDLANG_EXCEPTION(TimeoutError, OSError())
SHARDLANG_EXCEPTION(TypeError, Exception())
SHARDLANG_EXCEPTION(UnboundLocalError, NameError())
SHARDLANG_EXCEPTION(ValueError, Exception())
SHARDLANG_EXCEPTION(ZeroDivisionError, ArithmeticError())

#undef SHARDLANG_EXCEPTION

const std::vector<TypeRef>& all() {
  static const std::vector<TypeRef> classes = {
      BaseException(),     Exception(),     ArithmeticError(),    AssertionError(),      AttributeError(),
      ImportError(),       IndexError(),    KeyError(),           KeyboardInterrupt(),   LookupError(),
      MemoryError(),       ModuleNotFoundError(), NameError(),    NotImplementedError(), OSError(),
      OverflowError(),     RecursionError(), RuntimeError(),      StopIteration(),       GeneratorExit(),
      SyntaxError(),       TimeoutError(),  TypeError(),          UnboundLocalError(),   ValueError(),
      ZeroDivisionError(), FileExistsError(), FileNotFoundError(), IsADirectoryError(), NotADirectoryError(),
      PermissionError()};
  return classes;
}

TypeRef find(const std::string& name) {
  for (const auto& cls : all())
    if (cls->name() == name) return cls;
  return nullptr;
}

}  // namespace exc

std::shared_ptr<ExceptionObject> make_exception(const TypeRef& cls, std::string message) {
  std::vector<Value> args;
  args.push_back(make_str(std::move(message)));
  return std::make_shared<ExceptionObject>(cls, std::move(args));
}

void raise(const TypeRef& cls, std::string message) { throw PyError{make_exception(cls, std::move(message))}; }

void raise_value(const TypeRef& cls, Value argument) {
  throw PyError{std::make_shared<ExceptionObject>(cls, std::vector<Value>{std::move(argument)})};
}

}  // namespace interp
