#include "interp/python/exceptions.hpp"

#include "interp/python/evaluator.hpp"
#include "interp/python/objects.hpp"

namespace interp {

std::string ExceptionObject::repr(Evaluator& evaluator) const {
  std::string out = cls_->name() + "(";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    out += evaluator.repr(args[i]);
  }
  return out + ")";
}

std::string ExceptionObject::str(Evaluator& evaluator) const {
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
  return Object::get_attribute(evaluator, name);
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
SHARDLANG_EXCEPTION(RuntimeError, Exception())
SHARDLANG_EXCEPTION(NotImplementedError, RuntimeError())
SHARDLANG_EXCEPTION(OSError, Exception())
SHARDLANG_EXCEPTION(OverflowError, ArithmeticError())
SHARDLANG_EXCEPTION(RecursionError, RuntimeError())
SHARDLANG_EXCEPTION(StopIteration, Exception())
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
      OverflowError(),     RecursionError(),  RuntimeError(),     StopIteration(),       SyntaxError(),
      TimeoutError(),      TypeError(),     UnboundLocalError(),  ValueError(),          ZeroDivisionError()};
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
