// The expressions of compiled function bodies (compiled_nodes.hpp): local,
// global, attribute and item reads, literals, operators, and/or,
// conditional expressions and calls with positional arguments.

#include <algorithm>
#include <cstddef>
#include <new>
#include <typeinfo>
#include <vector>

#include "interp/python/builtin_types.hpp"
#include "interp/python/builtins.hpp"
#include "interp/python/classes.hpp"
#include "interp/python/compiled_nodes.hpp"
#include "interp/python/fast_arithmetic.hpp"
#include "interp/python/loop_items.hpp"

namespace interp {

namespace ast = lang::ast;

// The expressions' nodes.
struct CompiledExpressions : Compiled {
  // Any expression the compiler does not know: the AST walk evaluates it.
  struct WalkedExpr : Expr {
    using Expr::Expr;
    Value eval(Evaluator& ev, Frame& frame) const override { return ev.eval(node, frame); }
  };
  struct Local : Expr {
    Local(const ast::Expr& node, std::uint32_t slot) : Expr(node), slot(slot) { local_slot = slot; }
    Value eval(Evaluator& ev, Frame& frame) const override {
      if (const auto& value = frame.fast[slot]) return *value;
      return ev.eval(node, frame);  // unbound: the walk raises UnboundLocalError
    }
    const Value* bound(Frame& frame) const override {
      const auto& value = frame.fast[slot];
      return value ? &*value : nullptr;
    }
    std::uint32_t slot;
  };
  struct Global : Expr {
    Global(const ast::Expr& node, const ast::Name& name) : Expr(node), name(name) {}
    Value eval(Evaluator& ev, Frame& frame) const override { return read(ev, frame); }
    Value read(Evaluator& ev, Frame& frame) const {
      if (const Value* value = ev.load_global(name, frame)) return *value;
      return ev.eval(node, frame);  // unbound: the walk raises NameError
    }
    const ast::Name& name;
  };
  struct Literal : Expr {
    Literal(const ast::Expr& node, Value value) : Expr(node), value(std::move(value)) { constant = &this->value; }
    Value eval(Evaluator&, Frame&) const override { return value; }
    Value value;
  };
  // a + b, a < b: both operands, then the operation (a comparison: of one
  // operator; a chain is walked). The commonest on ints and floats are done
  // here (`quick`), the rest by the evaluator's. With `attributes` (an
  // operand is an attribute read: self.x + other.x), the operands are found
  // by found_in_place, else by in_place alone.
  template <class Operator, bool (*quick)(Operator, const Value&, const Value&, Value&),
            Value (Evaluator::*operation)(Operator, const Value&, const Value&), bool attributes>
  struct Operation : Expr {
    Operation(const ast::Expr& node, Operator op, ExprPtr left, ExprPtr right)
        : Expr(node), op(op), left(std::move(left)), right(std::move(right)) {}
    Value eval(Evaluator& ev, Frame& frame) const override {
      Value result;  // one return, so the result is made in place
      compute(ev, frame, result);
      return result;
    }
    bool condition(Evaluator& ev, Frame& frame) const override {
      Value result;
      compute(ev, frame, result);
      return ev.truthy(result);
    }
    // Both operands where they are (in their slots, constants, in an
    // instance's __dict__), and the operation a quick one: done with no
    // operand copied; else evaluate's general way.
    [[gnu::always_inline]] void compute(Evaluator& ev, Frame& frame, Value& result) const {
      const Value* a = find(*left, frame);
      const Value* b = a != nullptr ? find(*right, frame) : nullptr;
      if (b == nullptr || !quick(op, *a, *b, result)) result = evaluate(ev, frame);
    }
    static const Value* find(const Expr& operand, Frame& frame) {
      return attributes ? found_in_place(operand, frame) : in_place(operand, frame);
    }
    // The operands evaluated (each read in place where it can be), then the
    // operation. An operand that is evaluated is made where it is kept (not
    // moved into a holder): this is the path of `f(n - 1) + f(n - 2)` and
    // `v % 2 == 0`.
    [[gnu::noinline]] Value evaluate(Evaluator& ev, Frame& frame) const {
      // The left operand is read in place only when evaluating the right
      // one cannot rebind it (as `x + (x := 5)` would).
      if (!right->simple()) {
        const Value a = left->eval(ev, frame);
        const Value b = right->eval(ev, frame);
        return apply(ev, a, b);
      }
      if (const Value* a = in_place(*left, frame)) {
        Value held;
        return apply(ev, *a, operand(*right, ev, frame, held));
      }
      const Value a = left->eval(ev, frame);
      Value held;
      return apply(ev, a, operand(*right, ev, frame, held));
    }
    Value apply(Evaluator& ev, const Value& a, const Value& b) const {
      Value result;
      if (quick(op, a, b, result)) return result;
      try {
        return (ev.*operation)(op, a, b);
      } catch (PyError& error) {
        locate(error, node.span);
        throw;
      }
    }
    Operator op;
    ExprPtr left, right;
  };
  template <bool attributes>
  using Binary = Operation<ast::BinaryOperator, quick_binary, &Evaluator::binary, attributes>;
  template <bool attributes>
  using Comparison = Operation<ast::CompareOperator, quick_compare, &Evaluator::compare, attributes>;
  // The operation `Kind` of the two operands, found by found_in_place where one is an attribute read.
  template <template <bool> class Kind, class Operator>
  static ExprPtr operation(const ast::Expr& node, Operator op, ExprPtr left, ExprPtr right) {
    if (left->peek != nullptr || right->peek != nullptr)
      return std::make_unique<Kind<true>>(node, op, std::move(left), std::move(right));
    return std::make_unique<Kind<false>>(node, op, std::move(left), std::move(right));
  }

  // obj.name, read: as the walk reads it, an instance's own attribute first
  // through the site's cache entry.
  struct AttributeRead : Expr {
    AttributeRead(const ast::Expr& node, const ast::Attribute& attribute, ExprPtr object)
        : Expr(node), attribute(attribute), object(std::move(object)) {
      peek = &AttributeRead::peek_own;
    }
    // The instance's own attribute in its __dict__, where the site's entry
    // says it is and no property hides it, of an object found in place; null otherwise.
    static const Value* peek_own(const Expr& expr, Frame& frame) {
      const auto& read = static_cast<const AttributeRead&>(expr);
      const Value* value = found_in_place(*read.object, frame);
      if (value == nullptr || !value->is_object()) return nullptr;
      InstanceObject* instance = value->object()->as_instance();
      if (instance == nullptr || !site_holds(read.site, *instance) || !read.site.own_wins) return nullptr;
      return hinted_attribute(read.site, instance->attributes, read.attribute.attr);
    }
    Value eval(Evaluator& ev, Frame& frame) const override {
      try {
        Value held;
        const Value& value = operand(*object, ev, frame, held);
        if (InstanceObject* instance = value.is_object() ? value.object()->as_instance() : nullptr)
          if (const Value* own = site_own_attribute(&site, *instance, attribute.attr)) return *own;
        return ev.get_attribute(value, attribute.attr);
      } catch (PyError& error) {
        locate(error, node.span);
        throw;
      }
    }
    const ast::Attribute& attribute;
    ExprPtr object;
    mutable AttributeSiteCache site{&attribute};
  };
  // obj[key], read (a slice or a tuple of them is a key the walk makes).
  struct Item : Expr {
    Item(const ast::Expr& node, ExprPtr object, ExprPtr key) : Expr(node), object(std::move(object)), key(std::move(key)) {}
    Value eval(Evaluator& ev, Frame& frame) const override {
      try {
        Value held, held_key;
        const Value& value = operand_before(*object, *key, ev, frame, held);
        return ev.get_item(value, operand(*key, ev, frame, held_key));
      } catch (PyError& error) {
        locate(error, node.span);
        throw;
      }
    }
    ExprPtr object, key;
  };
  // A subscript's key that is a tuple (x[i, j], x[1:2, k]): made as the walk makes it.
  struct TupleKey : Expr {
    using Expr::Expr;
    Value eval(Evaluator& ev, Frame& frame) const override { return ev.eval_subscript_key(node, frame); }
  };
  static ExprPtr compile_subscript_key(const ast::Expr& slice) {
    if (std::holds_alternative<ast::Tuple>(slice.node)) return std::make_unique<TupleKey>(slice);
    return compile(slice);
  }
  struct Unary : Expr {
    Unary(const ast::Expr& node, ast::UnaryOperator op, ExprPtr operand) : Expr(node), op(op), operand(std::move(operand)) {}
    Value eval(Evaluator& ev, Frame& frame) const override {
      Value value = operand->eval(ev, frame);
      try {
        return ev.unary(op, value);
      } catch (PyError& error) {
        locate(error, node.span);
        throw;
      }
    }
    ast::UnaryOperator op;
    ExprPtr operand;
  };
  // a and b and c, a or b: the first value that decides.
  struct Boolean : Expr {
    Boolean(const ast::Expr& node, ast::BooleanOperator op, std::vector<ExprPtr> values)
        : Expr(node), op(op), values(std::move(values)) {}
    Value eval(Evaluator& ev, Frame& frame) const override {
      try {
        Value result;
        for (const auto& e : values) {
          result = e->eval(ev, frame);
          bool t = ev.truthy(result);
          if (op == ast::BooleanOperator::and_ ? !t : t) return result;
        }
        return result;
      } catch (PyError& error) {
        locate(error, node.span);
        throw;
      }
    }
    ast::BooleanOperator op;
    std::vector<ExprPtr> values;
  };
  struct Conditional : Expr {
    Conditional(const ast::Expr& node, ExprPtr test, ExprPtr body, ExprPtr orelse)
        : Expr(node), test(std::move(test)), body(std::move(body)), orelse(std::move(orelse)) {}
    Value eval(Evaluator& ev, Frame& frame) const override {
      try {
        return test->condition(ev, frame) ? body->eval(ev, frame) : orelse->eval(ev, frame);
      } catch (PyError& error) {
        locate(error, node.span);
        throw;
      }
    }
    ExprPtr test, body, orelse;
  };

  // f(a, b): positional arguments only, the callee no attribute (methods
  // are walked: call_method).
  struct Call : Expr {
    Call(const ast::Expr& node, const ast::Call& call, ExprPtr callee, std::vector<ExprPtr> arguments)
        : Expr(node),
          call(call),
          callee(std::move(callee)),
          global_callee(dynamic_cast<const Global*>(this->callee.get())),
          arguments(std::move(arguments)) {}
    Value eval(Evaluator& ev, Frame& frame) const override {
      try {
        Value function = global_callee != nullptr ? global_callee->read(ev, frame) : callee->eval(ev, frame);
        Value result;
        if (FunctionObject* plain = function.is_object() ? function.object()->as_function() : nullptr)
          if (ev.call_with_positional(
                  *plain, nullptr, arguments.size(), [&](std::size_t i) { return arguments[i]->eval(ev, frame); },
                  result))
            return result;
        if (arguments.size() == 1 && is_builtin_len(function)) return length(ev, frame, function);
        return call_with_values(ev, node, function, nullptr, arguments, frame);
      } catch (PyError& error) {
        locate(error, node.span);
        throw;
      }
    }
    static bool is_builtin_len(const Value& function) {
      if (!function.is_object() || !is_exactly<NativeFunction>(*function.object())) return false;
      return static_cast<const NativeFunction&>(*function.object()).fast_body() == &builtin_len;
    }
    // len(x): a list's, tuple's or dict's read here, as CPython's specialised
    // call does; any other x's asked of it as the built-in asks.
    Value length(Evaluator& ev, Frame& frame, const Value& len) const {
      Value held;
      const Value& argument = operand(*arguments[0], ev, frame, held);
      if (argument.is_object()) {
        const Object& object = *argument.object();
        if (is_exactly<ListObject>(object) || is_exactly<TupleObject>(object))
          return Value::integer(static_cast<std::int64_t>(static_cast<const SequenceObject&>(object).items.size()));
        if (is_exactly<DictObject>(object))
          return Value::integer(static_cast<std::int64_t>(static_cast<const DictObject&>(object).table.size()));
      }
      return run_fast_body(ev, node, len.object().get(), &builtin_len, &argument);
    }
    const ast::Call& call;
    ExprPtr callee;
    const Global* global_callee;  // the callee when it is a global name (the commonest), read without a virtual call
    std::vector<ExprPtr> arguments;
  };

  // Up to fast_arity arguments made in place: a built-in's fast-body
  // arguments (NativeFastBody), only as many values made as the call has,
  // or a class's (call_with_values).
  class FastArguments {
   public:
    FastArguments() = default;
    ~FastArguments() {
      for (std::size_t i = 0; i < count_; ++i) data()[i].~Value();
    }
    FastArguments(const FastArguments&) = delete;
    FastArguments& operator=(const FastArguments&) = delete;
    void push(Value value) { new (&storage_[count_++ * sizeof(Value)]) Value(std::move(value)); }
    Value* data() { return std::launder(reinterpret_cast<Value*>(storage_)); }

   private:
    alignas(Value) std::byte storage_[NativeFunction::fast_arity * sizeof(Value)];
    std::size_t count_ = 0;
  };

  // A built-in whose fast body takes `self` (when not null) and `arguments`:
  // called with them evaluated into place and its defaults after them.
  static Value call_fast_body(Evaluator& ev, const ast::Expr& node, const NativeFunction& native, const Value* self,
                              const std::vector<ExprPtr>& arguments, Frame& frame) {
    FastArguments values;
    if (self != nullptr) values.push(*self);
    for (const auto& argument : arguments) values.push(argument->eval(ev, frame));
    const std::vector<Parameter>& params = native.signature().parameters;
    for (std::size_t i = arguments.size() + (self != nullptr ? 1 : 0); i < params.size(); ++i)
      values.push(*params[i].default_value);
    return run_fast_body(ev, node, &native, native.fast_body(), values.data());
  }
  // A built-in's fast `body` run on `arguments`, as the call at `node` of
  // `callee` (where its errors point and what they name).
  static Value run_fast_body(Evaluator& ev, const ast::Expr& node, const Object* callee, NativeFastBody body,
                             const Value* arguments) {
    RestoreOnExit restore_call(ev.running_call);
    ev.running_call = {&node, callee};
    return body(ev, arguments);
  }
  // A call of `callee` with `self` (when not null) and the values of
  // `arguments`, as Evaluator::call_with_arguments makes it (a plain
  // function's direct call was not possible): a built-in function's
  // arguments evaluated straight into its bound parameters, a user class's
  // instance made and its __init__ called without a bound method, any other
  // callee called.
  static Value call_with_values(Evaluator& ev, const ast::Expr& node, const Value& callee, const Value* self,
                                const std::vector<ExprPtr>& arguments, Frame& frame) {
    Object* object = callee.has_hooks() ? callee.object().get() : nullptr;
    const std::size_t offset = self != nullptr ? 1 : 0;
    if (object != nullptr && is_exactly<NativeFunction>(*object)) {
      auto& native = static_cast<NativeFunction&>(*object);
      const std::vector<Parameter>& params = native.signature().parameters;
      if (native.fast_takes(arguments.size() + offset)) {
        // The call's one argument for the built-in's one parameter (len(x)):
        // a local or a constant read where it is (nothing the built-in runs
        // can rebind this frame's locals), any other value where it is made.
        if (self == nullptr && arguments.size() == 1 && params.size() == 1) {
          Value held;
          return run_fast_body(ev, node, object, native.fast_body(), &operand(*arguments[0], ev, frame, held));
        }
        return call_fast_body(ev, node, native, self, arguments, frame);
      }
      if (binds_positionally(params, arguments.size() + offset)) {
        Arguments bound;
        bind_positionally(
            params, arguments.size() + offset,
            [&](std::size_t i) { return i < offset ? *self : arguments[i - offset]->eval(ev, frame); }, bound);
        RestoreOnExit restore_call(ev.running_call);
        ev.running_call = {&node, object};
        return native.body()(ev, bound);
      }
    } else if (object != nullptr && is_exactly<TypeObject>(*object) && self == nullptr && arguments.size() == 1) {
      if (TypeObject::OneArgument make = static_cast<TypeObject&>(*object).one_argument()) {
        Value held;
        const Value& argument = operand(*arguments[0], ev, frame, held);
        RestoreOnExit restore_call(ev.running_call);
        ev.running_call = {&node, object};
        return make(ev, argument);
      }
    } else if (object != nullptr && is_exactly<ClassObject>(*object) && self == nullptr &&
               arguments.size() <= NativeFunction::fast_arity) {
      // A user class: its instance made with the arguments evaluated into place, not into a vector.
      FastArguments values;
      for (const auto& argument : arguments) values.push(argument->eval(ev, frame));
      RestoreOnExit restore_call(ev.running_call);
      ev.running_call = {&node, object};
      Value result;
      if (construct(ev, callee.object(), values.data(), arguments.size(), result)) return result;
      CallArgs args;
      args.positional.assign(std::make_move_iterator(values.data()),
                             std::make_move_iterator(values.data() + arguments.size()));
      return ev.call(callee, args);
    }
    CallArgs args;
    args.positional = ev.take_arguments();
    args.positional.reserve(arguments.size() + offset);
    if (self != nullptr) args.positional.push_back(*self);
    for (const auto& argument : arguments) args.positional.push_back(argument->eval(ev, frame));
    RestoreOnExit restore_call(ev.running_call);
    ev.running_call = {&node, object};
    Value result;
    if (object == nullptr || !construct(ev, callee.object(), args.positional.data(), args.positional.size(), result))
      result = ev.call(callee, args);
    ev.give_back_arguments(args.positional);
    return result;
  }
  // A user class whose instances are plain objects made by object.__new__
  // (no metaclass behaviour, __new__ or built-in base) and whose __init__ is
  // a def that takes the `count` values at `positional` straight into its
  // frame, as ClassObject::call makes and initialises one; false, with the
  // values where they were, when it is not one.
  static bool construct(Evaluator& ev, const ObjectRef& callee, Value* positional, std::size_t count, Value& result) {
    const ClassObject* const_cls = callee->as_class();
    if (const_cls == nullptr || const_cls->behaviour || const_cls->makes_exceptions()) return false;
    const ClassMembers& members = const_cls->members();
    if (members.new_ || members.builtin || !members.init) return false;
    FunctionObject* init = members.init->is_object() ? members.init->object()->as_function() : nullptr;
    if (init == nullptr || !init->takes_positional(count + 1)) return false;
    Value keep_alive = *members.init;
    // As new_instance makes a plain one, its class found from the callee rather than from the class itself.
    result = Value(std::make_shared<InstanceObject>(std::static_pointer_cast<TypeObject>(callee), ev));
    Value returned;
    ev.call_with_positional(
        *init, &result, count, [&](std::size_t i) { return std::move(positional[i]); }, returned);
    if (!returned.is_none())
      raise(exc::TypeError(), "__init__() should return None, not '" + type_name(returned) + "'");
    return true;
  }

  // obj.name(a, b): positional arguments only. A `def` of an instance's
  // class is called without making the bound method, a built-in
  // container's method without the attribute lookup, as the walk's
  // Evaluator::call_method does; any other callee is looked up and called.
  // `obj` is read where it is when found_in_place finds it (self.position.add(v)):
  // the calls copy it before any code runs (a method's frame binds it
  // first); the attribute lookup, which may run code, takes a copy.
  struct MethodCall : Expr {
    MethodCall(const ast::Expr& node, const ast::Attribute& attribute, ExprPtr object, std::vector<ExprPtr> arguments)
        : Expr(node),
          attribute(attribute),
          object(std::move(object)),
          arguments(std::move(arguments)),
          may_append(attribute.attr == "append" && this->arguments.size() == 1) {}
    Value eval(Evaluator& ev, Frame& frame) const override {
      try {
        Value held;
        const Value* found = found_in_place(*object, frame);
        const Value& self = found != nullptr ? *found : (held = object->eval(ev, frame));
        if (may_append && self.is_object() && is_exactly<ListObject>(*self.object()))
          return append(ev, frame, self);
        if (InstanceObject* instance = self.is_object() ? self.object()->as_instance() : nullptr) {
          const Value* method = site_method(&site, *instance, attribute.attr);
          if (method != nullptr && own_attribute_in(instance->attributes, attribute.attr) == nullptr) {
            Value callee = *method;  // the function stays alive through the call
            Value result;
            if (ev.call_with_positional(
                    the_function(callee), &self, arguments.size(), [&](std::size_t i) { return arguments[i]->eval(ev, frame); },
                    result))
              return result;
            return call_with_values(ev, node, callee, &self, arguments, frame);
          }
        } else if (const Value* method = container_callee(self)) {
          // The cache may change while the arguments are evaluated (a call
          // inside them may run this node on another type): its parts are
          // taken first. A built-in type's methods live as long as the type.
          if (const NativeFunction* native = container_native) return call_fast_body(ev, node, *native, &self, arguments, frame);
          Value callee = *method;
          return call_with_values(ev, node, callee, &self, arguments, frame);
        }
        // An attribute read in place is in an instance's __dict__, which the lookup's code may change.
        const Value& receiver = found != nullptr && object->peek != nullptr ? (held = self) : self;
        Value callee;
        try {
          callee = ev.get_attribute(receiver, attribute.attr);
        } catch (PyError& error) {
          locate(error, std::get<ast::Call>(node.node).func->span);
          throw;
        }
        return call_with_values(ev, node, callee, nullptr, arguments, frame);
      } catch (PyError& error) {
        locate(error, node.span);
        throw;
      }
    }
    // xs.append(x) on a list (exactly: a subclass may override it), done
    // here as list.append does it, as CPython's specialised call does. The
    // list is held while an argument that may run code is evaluated.
    Value append(Evaluator& ev, Frame& frame, const Value& self) const {
      if (const Value* item = in_place(*arguments[0], frame)) {
        append_to(ev, static_cast<ListObject&>(*self.object()), *item);
      } else {
        ObjectRef list = self.object();
        append_to(ev, static_cast<ListObject&>(*list), arguments[0]->eval(ev, frame));
      }
      return Value::none();
    }
    // The method of a built-in container (container_method) that `self` is,
    // kept for the type last seen here (known by its type_info's name: the
    // built-in types do not change), with the built-in function it is when
    // its fast body takes this call; null when `self` is none.
    const Value* container_callee(const Value& self) const {
      if (!self.is_object()) return nullptr;
      const char* type = typeid(*self.object()).name();
      if (type == container_type) return &container_method_found;
      const ObjectRef* method = container_method(self, attribute.attr);
      if (method == nullptr) return nullptr;
      container_type = type;
      container_method_found = Value(*method);
      const Object& found = **method;
      container_native = is_exactly<NativeFunction>(found) &&
                                 static_cast<const NativeFunction&>(found).fast_takes(arguments.size() + 1)
                             ? &static_cast<const NativeFunction&>(found)
                             : nullptr;
      return &container_method_found;
    }
    const ast::Attribute& attribute;
    ExprPtr object;
    std::vector<ExprPtr> arguments;
    mutable AttributeSiteCache site{&attribute};
    mutable const char* container_type = nullptr;
    mutable Value container_method_found;
    mutable const NativeFunction* container_native = nullptr;
    bool may_append;  // the call is obj.append(x): a list's is done in place
  };

  // [a, b], (a, b): the elements evaluated in order into a new list or
  // tuple, as the walk makes them (a starred element is walked).
  struct Display : Expr {
    Display(const ast::Expr& node, bool tuple, std::vector<ExprPtr> elements)
        : Expr(node), tuple(tuple), elements(std::move(elements)) {}
    Value eval(Evaluator& ev, Frame& frame) const override {
      std::vector<Value> items;
      items.reserve(elements.size());
      for (const auto& element : elements) items.push_back(element->eval(ev, frame));
      return tuple ? make_tuple(std::move(items)) : make_list(std::move(items));
    }
    bool tuple;
    std::vector<ExprPtr> elements;
  };
  // The Display of `elements`, or null where one is starred.
  static ExprPtr display(const ast::Expr& node, bool tuple, const ast::ExprList& elements) {
    std::vector<ExprPtr> compiled;
    for (const auto& element : elements) {
      if (std::holds_alternative<ast::Starred>(element->node)) return nullptr;
      compiled.push_back(compile(*element));
    }
    return std::make_unique<Display>(node, tuple, std::move(compiled));
  }

  // [element for x in xs if c ...], {element ...}, {key: value ...}, run at
  // once in a frame of their own as Evaluator::eval_comprehension runs them:
  // each item stored in its target's slot (or cell, where an inner
  // comprehension or lambda reads it; any other target, x, y, as the walk
  // assigns it), the conditions, the element and the iterables after the
  // first compiled. A list's, tuple's or range's items are taken
  // by position (LoopItems): their iterator is invisible to the program.
  struct Comprehension : Expr {
    enum class Kind { list, set, dict };
    struct Clause {
      NameRef target;                        // a name's, fast or cell
      const ast::Expr* walked_target;        // any other target, or null
      ExprPtr iterable;  // the first clause's, evaluated in the enclosing frame
      std::vector<ExprPtr> conditions;
    };
    Comprehension(const ast::Expr& node, Kind kind, std::vector<Clause> clauses, ExprPtr element, ExprPtr value)
        : Expr(node), kind(kind), clauses(std::move(clauses)), element(std::move(element)), value(std::move(value)) {}
    Value eval(Evaluator& ev, Frame& frame) const override {
      try {
        Value first = clauses.front().iterable->eval(ev, frame);
        Frame inner = comprehension_frame(ev, node, frame);
        Made made;
        if (kind == Kind::dict) made.dict = make_dict();
        if (kind == Kind::set) made.set = make_set();
        run(ev, inner, 0, first, made);
        if (made.dict) return Value(made.dict);
        if (made.set) return Value(made.set);
        return make_list(std::move(made.items));
      } catch (PyError& error) {
        locate(error, node.span);
        throw;
      }
    }
    // What the comprehension makes, item by item.
    struct Made {
      std::vector<Value> items;
      std::shared_ptr<DictObject> dict;
      std::shared_ptr<SetObject> set;
    };
    void run(Evaluator& ev, Frame& inner, std::size_t level, const Value& iterable, Made& made) const {
      const Clause& clause = clauses[level];
      LoopItems items(ev, iterable);
      while (std::optional<Value> item = items.next()) {
        ev.poll_interrupt();
        if (clause.walked_target != nullptr) ev.assign(*clause.walked_target, std::move(*item), inner);
        else if (clause.target.kind == NameRef::Kind::fast) inner.fast[clause.target.index] = std::move(*item);
        else inner.cells[clause.target.index]->value = std::move(*item);
        if (!kept(ev, inner, clause)) continue;
        if (level + 1 < clauses.size()) {
          ev.guard_stack();
          Value next = clauses[level + 1].iterable->eval(ev, inner);
          run(ev, inner, level + 1, next, made);
        } else {
          emit(ev, inner, made);
        }
      }
    }
    static bool kept(Evaluator& ev, Frame& inner, const Clause& clause) {
      for (const auto& condition : clause.conditions)
        if (!condition->condition(ev, inner)) return false;
      return true;
    }
    void emit(Evaluator& ev, Frame& inner, Made& made) const {
      switch (kind) {
        case Kind::list:
          made.items.push_back(element->eval(ev, inner));
          break;
        case Kind::set:
          made.set->table.insert(element->eval(ev, inner), Value());
          break;
        case Kind::dict: {
          Value key = element->eval(ev, inner);
          made.dict->table.insert(key, value->eval(ev, inner));
          break;
        }
      }
    }
    Kind kind;
    std::vector<Clause> clauses;
    ExprPtr element;  // a dict's key
    ExprPtr value;    // a dict's value; null for the others
  };
  // The Comprehension of `generators`.
  static ExprPtr comprehension(const ast::Expr& node, Comprehension::Kind kind,
                               const std::vector<ast::Comprehension>& generators, const ast::Expr& element,
                               const ast::Expr* value) {
    std::vector<Comprehension::Clause> clauses;
    for (const auto& generator : generators) {
      const auto* name = std::get_if<ast::Name>(&generator.target->node);
      NameRef target = name != nullptr ? name_ref(*name) : NameRef{};
      bool slot_or_cell = target.kind == NameRef::Kind::fast || target.kind == NameRef::Kind::cell;
      std::vector<ExprPtr> conditions;
      for (const auto& condition : generator.ifs) conditions.push_back(compile(*condition));
      clauses.push_back({target, slot_or_cell ? nullptr : generator.target.get(), compile(*generator.iter),
                         std::move(conditions)});
    }
    return std::make_unique<Comprehension>(node, kind, std::move(clauses), compile(element),
                                           value != nullptr ? compile(*value) : nullptr);
  }

  static ExprPtr compile_expression(const ast::Expr& expr) {
    if (const ast::Name* local = fast_local_name(expr)) {
      return std::make_unique<Local>(expr, local->resolved_index);
    } else if (const auto* name = std::get_if<ast::Name>(&expr.node)) {
      if (name->resolved_kind != 0 && name_ref(*name).kind == NameRef::Kind::global)
        return std::make_unique<Global>(expr, *name);
    } else if (const auto* constant = std::get_if<ast::Constant>(&expr.node)) {
      if (const auto* i = std::get_if<std::int64_t>(&constant->value)) return std::make_unique<Literal>(expr, Value::integer(*i));
      if (const auto* d = std::get_if<double>(&constant->value)) return std::make_unique<Literal>(expr, Value::floating(*d));
      if (const auto* b = std::get_if<bool>(&constant->value)) return std::make_unique<Literal>(expr, Value::boolean(*b));
      if (std::holds_alternative<ast::NoneLiteral>(constant->value)) return std::make_unique<Literal>(expr, Value::none());
    } else if (const auto* binary = std::get_if<ast::BinOp>(&expr.node)) {
      return operation<Binary>(expr, binary->op, compile(*binary->left), compile(*binary->right));
    } else if (const auto* comparison = std::get_if<ast::Compare>(&expr.node)) {
      if (comparison->ops.size() == 1)
        return operation<Comparison>(expr, comparison->ops[0], compile(*comparison->left),
                                     compile(*comparison->comparators[0]));
    } else if (const auto* attribute = std::get_if<ast::Attribute>(&expr.node)) {
      return std::make_unique<AttributeRead>(expr, *attribute, compile(*attribute->value));
    } else if (const auto* subscript = std::get_if<ast::Subscript>(&expr.node)) {
      return std::make_unique<Item>(expr, compile(*subscript->value), compile_key(*subscript->slice));
    } else if (const auto* unary = std::get_if<ast::UnaryOp>(&expr.node)) {
      return std::make_unique<Unary>(expr, unary->op, compile(*unary->operand));
    } else if (const auto* boolean = std::get_if<ast::BoolOp>(&expr.node)) {
      std::vector<ExprPtr> values;
      for (const auto& value : boolean->values) values.push_back(compile(*value));
      return std::make_unique<Boolean>(expr, boolean->op, std::move(values));
    } else if (const auto* conditional = std::get_if<ast::IfExp>(&expr.node)) {
      return std::make_unique<Conditional>(expr, compile(*conditional->test), compile(*conditional->body),
                                           compile(*conditional->orelse));
    } else if (const auto* list = std::get_if<ast::List>(&expr.node)) {
      if (ExprPtr made = display(expr, false, list->elts)) return made;
    } else if (const auto* tuple = std::get_if<ast::Tuple>(&expr.node)) {
      if (ExprPtr made = display(expr, true, tuple->elts)) return made;
    } else if (const auto* list = std::get_if<ast::ListComp>(&expr.node)) {
      return comprehension(expr, Comprehension::Kind::list, list->generators, *list->elt, nullptr);
    } else if (const auto* set = std::get_if<ast::SetComp>(&expr.node)) {
      return comprehension(expr, Comprehension::Kind::set, set->generators, *set->elt, nullptr);
    } else if (const auto* dict = std::get_if<ast::DictComp>(&expr.node)) {
      return comprehension(expr, Comprehension::Kind::dict, dict->generators, *dict->key, dict->value.get());
    } else if (const auto* call = std::get_if<ast::Call>(&expr.node)) {
      bool positional = call->keywords.empty();
      for (const auto& argument : call->args) positional = positional && !std::holds_alternative<ast::Starred>(argument->node);
      if (positional) {
        std::vector<ExprPtr> arguments;
        for (const auto& argument : call->args) arguments.push_back(compile(*argument));
        if (const auto* method = std::get_if<ast::Attribute>(&call->func->node))
          return std::make_unique<MethodCall>(expr, *method, compile(*method->value), std::move(arguments));
        return std::make_unique<Call>(expr, *call, compile(*call->func), std::move(arguments));
      }
    }
    return std::make_unique<WalkedExpr>(expr);
  }

};

Compiled::ExprPtr Compiled::compile(const ast::Expr& expr) { return CompiledExpressions::compile_expression(expr); }

Compiled::ExprPtr Compiled::compile_key(const ast::Expr& slice) {
  return CompiledExpressions::compile_subscript_key(slice);
}

}  // namespace interp
