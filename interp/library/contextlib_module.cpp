// contextlib (contextmanager, nullcontext, suppress, ExitStack, closing) and
// __future__, with CPython's behaviour and error texts.
#include "interp/library/host_modules.hpp"
#include "interp/python/generators.hpp"

namespace interp {

namespace {

std::shared_ptr<ExceptionObject> exception_of(const Value& pending) {
  return std::static_pointer_cast<ExceptionObject>(pending.object());
}

// Whether the exception is an instance of the class or of one in a tuple.
bool exception_is(const Value& exception, const Value& class_or_tuple) {
  if (auto* cls = class_or_tuple.as<TypeObject>()) return type_of(exception)->is_subclass_of(*cls);
  if (auto* tuple = class_or_tuple.as<TupleObject>()) {
    for (const Value& item : tuple->items)
      if (exception_is(exception, item)) return true;
    return false;
  }
  raise(exc::TypeError(), "catching classes that do not inherit from BaseException is not allowed");
}

// ------------------------------------------------------------ contextmanager

// What a @contextmanager function returns: the generator runs to its yield
// on entry and on to its end on exit; an exception leaving the block is
// thrown in at the yield.
class GeneratorContextManager : public Object {
 public:
  explicit GeneratorContextManager(Value generator) : generator_(std::move(generator)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("_GeneratorContextManager", types::object());
    return type;
  }
  std::optional<Value> enter(Evaluator& evaluator) override {
    if (auto value = generator().resume(evaluator, Value::none(), nullptr)) return value;
    raise(exc::RuntimeError(), "generator didn't yield");
  }
  bool exit(Evaluator& evaluator, const Value* pending) override {
    if (pending == nullptr) {
      if (generator().resume(evaluator, Value::none(), nullptr)) raise(exc::RuntimeError(), "generator didn't stop");
      return false;
    }
    std::shared_ptr<ExceptionObject> thrown = exception_of(*pending);
    try {
      if (generator().resume(evaluator, Value::none(), thrown))
        raise(exc::RuntimeError(), "generator didn't stop after throw()");
    } catch (PyError& error) {
      if (error.exception == thrown) return false;  // the generator let it through: re-raise it
      if (error.exception->cause.is_object() && error.exception->cause.object() == thrown) return false;
      throw;
    }
    return true;  // the generator caught it and finished
  }

 private:
  Generator& generator() {
    auto* generator = generator_.as<Generator>();
    if (generator == nullptr) raise(exc::TypeError(), "'" + type_name(generator_) + "' object is not an iterator");
    return *generator;
  }
  Value generator_;
};

// ------------------------------------------------------------ nullcontext, suppress, closing

class NullContext : public Object {
 public:
  explicit NullContext(Value result) : result_(std::move(result)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("nullcontext", types::object());
    return type;
  }
  std::optional<Value> enter(Evaluator&) override { return result_; }
  bool exit(Evaluator&, const Value*) override { return false; }

 private:
  Value result_;
};

class Suppress : public Object {
 public:
  explicit Suppress(std::vector<Value> exceptions) : exceptions_(std::move(exceptions)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("suppress", types::object());
    return type;
  }
  std::optional<Value> enter(Evaluator&) override { return Value::none(); }
  bool exit(Evaluator&, const Value* pending) override {
    if (pending == nullptr) return false;
    for (const Value& cls : exceptions_)
      if (exception_is(*pending, cls)) return true;
    return false;
  }

 private:
  std::vector<Value> exceptions_;
};

class Closing : public Object {
 public:
  explicit Closing(Value thing) : thing_(std::move(thing)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("closing", types::object());
    return type;
  }
  std::optional<Value> enter(Evaluator&) override { return thing_; }
  bool exit(Evaluator& evaluator, const Value*) override {
    evaluator.call(evaluator.get_attribute(thing_, "close"), std::vector<Value>{});
    return false;
  }

 private:
  Value thing_;
};

// ------------------------------------------------------------ ExitStack

// The exit callbacks of an ExitStack, run last-in first-out: each gets the
// exception pending at its turn and returns whether it swallowed it.
class ExitStack : public Object {
 public:
  using Callback = std::function<bool(Evaluator&, const Value* pending)>;
  const TypeRef& type() const override { return exit_stack_type(); }
  std::optional<Value> enter(Evaluator&) override { return Value(self()); }
  bool exit(Evaluator& evaluator, const Value* pending) override {
    std::optional<Value> current;
    if (pending) current = *pending;
    while (!callbacks.empty()) {
      Callback callback = std::move(callbacks.back());
      callbacks.pop_back();
      try {
        if (callback(evaluator, current ? &*current : nullptr)) current.reset();
      } catch (PyError& error) {
        if (current && !error.exception->context.is_object() && Value(error.exception).object() != current->object())
          error.exception->context = *current;
        current = Value(error.exception);
      }
    }
    if (current && (pending == nullptr || current->object() != pending->object())) throw PyError{exception_of(*current)};
    return pending != nullptr && !current;
  }
  static const TypeRef& exit_stack_type();
  std::vector<Callback> callbacks;
};

// An object's __exit__ (a context manager entered by enter_context, or one
// pushed by push), as an ExitStack callback.
ExitStack::Callback exit_of(const Value& manager) {
  return [manager](Evaluator& evaluator, const Value* pending) { return manager.object()->exit(evaluator, pending); };
}

const TypeRef& ExitStack::exit_stack_type() {
  static const TypeRef type = [] {
    TypeRef t = make_type("ExitStack", types::object());
    t->set_constructor([](Evaluator& evaluator, CallArgs& args) {
      static const Signature signature = Signature::parse("ExitStack()");
      bind_arguments(evaluator, signature, args);
      return Value(std::make_shared<ExitStack>());
    });
    t->add_method("enter_context(self, cm, /)", [](Evaluator& evaluator, Arguments& a) {
      std::optional<Value> entered = a[1].is_object() ? a[1].object()->enter(evaluator) : std::nullopt;
      if (!entered)
        raise(exc::TypeError(), "'" + type_name(a[1]) + "' object does not support the context manager protocol");
      a[0].as<ExitStack>()->callbacks.push_back(exit_of(a[1]));
      return *entered;
    });
    t->add_method("push(self, exit, /)", [](Evaluator&, Arguments& a) {
      Value exit = a[1];
      a[0].as<ExitStack>()->callbacks.push_back([exit](Evaluator& evaluator, const Value* pending) {
        std::vector<Value> arguments{Value::none(), Value::none(), Value::none()};
        if (pending) arguments = {Value(type_of(*pending)), *pending, Value::none()};
        // An object with __exit__ is called through it; any other callable is the exit function itself.
        std::optional<Value> method = evaluator.find_attribute(exit, "__exit__");
        return evaluator.truthy(evaluator.call(method ? *method : exit, std::move(arguments)));
      });
      return exit;
    });
    t->add_method("callback(self, callback, /, *args, **kwds)", [](Evaluator&, Arguments& a) {
      Value function = a[1];
      std::vector<Value> positional = a[2].as<TupleObject>()->items;
      std::vector<std::pair<std::string, Value>> keywords;
      for (const auto& entry : a[3].as<DictObject>()->table.entries())
        if (entry.live) keywords.emplace_back(*string_of(entry.key), entry.value);
      a[0].as<ExitStack>()->callbacks.push_back([function, positional, keywords](Evaluator& evaluator, const Value*) {
        CallArgs call{positional, keywords};
        evaluator.call(function, call);
        return false;
      });
      return function;
    });
    t->add_method("pop_all(self, /)", [](Evaluator&, Arguments& a) {
      auto moved = std::make_shared<ExitStack>();
      moved->callbacks = std::move(a[0].as<ExitStack>()->callbacks);
      a[0].as<ExitStack>()->callbacks.clear();
      return Value(moved);
    });
    t->add_method("close(self, /)", [](Evaluator& evaluator, Arguments& a) {
      a[0].as<ExitStack>()->exit(evaluator, nullptr);
      return Value::none();
    });
    return t;
  }();
  return type;
}

}  // namespace

void install_contextlib(Evaluator&, ModuleObject& module) {
  module.add_function("contextmanager(func, /)", [](Evaluator& evaluator, Arguments& a) {
    Value function = a[0];
    std::string name = evaluator.str(evaluator.get_attribute(function, "__name__"));
    return Value(native(name + "(*args, **kwds)", [function](Evaluator& ev, Arguments& b) {
      CallArgs call;
      call.positional = b[0].as<TupleObject>()->items;
      for (const auto& entry : b[1].as<DictObject>()->table.entries())
        if (entry.live) call.keywords.emplace_back(*string_of(entry.key), entry.value);
      return Value(std::make_shared<GeneratorContextManager>(ev.call(function, call)));
    }));
  });
  module.add_function("nullcontext(enter_result=None)", [](Evaluator&, Arguments& a) {
    return Value(std::make_shared<NullContext>(a[0]));
  });
  module.add_function("suppress(*exceptions)", [](Evaluator&, Arguments& a) {
    return Value(std::make_shared<Suppress>(a[0].as<TupleObject>()->items));
  });
  module.add_function("closing(thing)", [](Evaluator&, Arguments& a) { return Value(std::make_shared<Closing>(a[0])); });
  module.add("ExitStack", Value(ExitStack::exit_stack_type()));
}

// __future__: each feature is already the language's behaviour (annotations
// are not evaluated where they would fail; division is true division).
void install_future(Evaluator&, ModuleObject& module) {
  for (const char* feature : {"annotations", "division", "absolute_import", "print_function", "generator_stop",
                              "nested_scopes", "generators", "with_statement", "unicode_literals"})
    module.add(feature, Value::boolean(true));
}

}  // namespace interp
