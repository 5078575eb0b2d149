// Python exceptions: the class hierarchy, exception instances, and the C++
// exception (PyError) that carries an instance up the evaluator's stack.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "interp/python/value.hpp"
#include "lang/source.hpp"

namespace interp {

// One frame of a traceback: the function and where it was when the
// exception passed through.
struct TracebackEntry {
  lang::Span span;
  std::string function;  // "<module>" at module level
};

class ExceptionObject : public Object {
 public:
  ExceptionObject(TypeRef cls, std::vector<Value> arguments) : args(std::move(arguments)), cls_(std::move(cls)) {}
  const TypeRef& type() const override { return cls_; }
  std::string repr(Evaluator& evaluator) const override;
  std::string str(Evaluator& evaluator) const override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  bool set_attribute(Evaluator& evaluator, const std::string& name, const Value& value) override;
  std::vector<std::string> attribute_names() const override;
  // The built-in str and repr, under a class's own __str__/__repr__.
  std::string builtin_str(Evaluator& evaluator) const;
  std::string builtin_repr(Evaluator& evaluator) const;
  std::vector<std::pair<std::string, Value>>* instance_dict() override { return &attributes; }

  std::vector<Value> args;
  // The attributes an instance of a user exception class was given (self.code = ...).
  std::vector<std::pair<std::string, Value>> attributes;
  Value cause;    // __cause__ (raise ... from ...)
  Value context;  // __context__ (raised while handling another)

  // Where it was raised, filled while unwinding: frames innermost first. The
  // first expression that saw the exception in the current frame sets
  // frame_span; leaving a frame moves it into the traceback.
  std::vector<TracebackEntry> traceback;
  lang::Span frame_span;
  bool frame_span_set = false;
  // Leaving the frame of `function`: its position goes into the traceback.
  void leave_frame(const std::string& function) {
    traceback.push_back(TracebackEntry{frame_span, function});
    frame_span_set = false;
  }

  // shardlang's additions to the Python error (check_mode.hpp), shown in its
  // diagnostic: notes (an empty span: a note without a location) and a hint.
  std::vector<std::pair<lang::Span, std::string>> notes;
  std::string hint;
  // The edits the hint proposes, in its order: replace `where` (an empty
  // range: insert at its start) by `replacement`.
  struct Fix {
    std::string title;
    lang::Span where;
    std::string replacement;
  };
  std::vector<Fix> fixes;

  // Clears the unwinding record (a fresh `raise e`).
  void reset_traceback() {
    traceback.clear();
    frame_span = {};
    frame_span_set = false;
  }

 private:
  TypeRef cls_;
};

// Thrown through the evaluator; caught by try/except and at the API boundary.
struct PyError {
  std::shared_ptr<ExceptionObject> exception;
};

// Python's built-in exception classes (immutable, shared).
namespace exc {
const TypeRef& BaseException();
const TypeRef& Exception();
const TypeRef& ArithmeticError();
const TypeRef& AssertionError();
const TypeRef& AttributeError();
const TypeRef& ImportError();
const TypeRef& IndexError();
const TypeRef& KeyError();
const TypeRef& KeyboardInterrupt();
const TypeRef& LookupError();
const TypeRef& MemoryError();
const TypeRef& ModuleNotFoundError();
const TypeRef& NameError();
const TypeRef& OSError();  // and the subclasses the file functions raise:
const TypeRef& FileExistsError();
const TypeRef& FileNotFoundError();
const TypeRef& IsADirectoryError();
const TypeRef& NotADirectoryError();
const TypeRef& PermissionError();
const TypeRef& NotImplementedError();
const TypeRef& OverflowError();
const TypeRef& RecursionError();
const TypeRef& RuntimeError();
const TypeRef& StopIteration();
const TypeRef& GeneratorExit();
const TypeRef& SyntaxError();
const TypeRef& TimeoutError();
const TypeRef& TypeError();
const TypeRef& UnboundLocalError();
const TypeRef& ValueError();
const TypeRef& ZeroDivisionError();

// Every class above, for the builtins namespace.
const std::vector<TypeRef>& all();
// The class with this name, or null.
TypeRef find(const std::string& name);
}  // namespace exc

std::shared_ptr<ExceptionObject> make_exception(const TypeRef& cls, std::string message);
[[noreturn]] void raise(const TypeRef& cls, std::string message);
[[noreturn]] void raise_value(const TypeRef& cls, Value argument);  // KeyError(key)

}  // namespace interp
