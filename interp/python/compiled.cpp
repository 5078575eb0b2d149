// Compiled function bodies (compiled.hpp). Each node does what the AST walk
// does for its kind of node (statements.cpp, expressions.cpp), with the same
// evaluator calls in the same order, so that values, errors and the places
// they are reported at stay the same; the walk's code is the reference.

#include "interp/python/compiled.hpp"

#include <algorithm>
#include <cstddef>
#include <new>
#include <typeinfo>
#include <vector>

#include "interp/python/classes.hpp"
#include "interp/python/evaluator.hpp"
#include "interp/python/fast_arithmetic.hpp"
#include "interp/python/loop_items.hpp"
#include "interp/python/paused_body.hpp"

namespace interp {

namespace ast = lang::ast;

struct Compiled {
  using Flow = Evaluator::Flow;

  struct Expr {
    explicit Expr(const ast::Expr& node) : node(node) {}
    virtual ~Expr() = default;
    virtual Value eval(Evaluator& ev, Frame& frame) const = 0;
    // The value in its slot, for an operation that only reads it (as
    // Evaluator::eval_operand): a bound local's; null for the rest.
    virtual const Value* bound(Frame&) const { return nullptr; }
    // Its value's truth, as `if` and `while` test it.
    virtual bool condition(Evaluator& ev, Frame& frame) const { return ev.truthy(eval(ev, frame)); }
    // Whether nothing but reading a slot or a constant evaluates it: no side
    // effect can come between it and what is evaluated after it.
    bool simple() const { return local_slot >= 0 || constant != nullptr; }
    const ast::Expr& node;
    // Set for a local's read (its slot) and a literal (its value), which
    // operand() then reads without a virtual call.
    std::int64_t local_slot = -1;
    const Value* constant = nullptr;
    // Set for an attribute read (AttributeRead::peek_own), which found_in_place
    // then reads where the value is when the site's cache finds it at once.
    const Value* (*peek)(const Expr&, Frame&) = nullptr;
  };
  // The value of `expr` where it is only read: in its slot, or evaluated into `held`.
  static const Value& operand(const Expr& expr, Evaluator& ev, Frame& frame, Value& held) {
    if (expr.constant != nullptr) return *expr.constant;
    if (expr.local_slot >= 0)
      if (const auto& value = frame.fast[static_cast<std::size_t>(expr.local_slot)]) return *value;
    held = expr.eval(ev, frame);
    return held;
  }
  // The value of `first` where `then` is evaluated after it and then both
  // used: read in place only when evaluating `then` cannot rebind it (as
  // `x[(x := y)]` would).
  static const Value& operand_before(const Expr& first, const Expr& then, Evaluator& ev, Frame& frame, Value& held) {
    return then.simple() ? operand(first, ev, frame, held) : (held = first.eval(ev, frame));
  }
  // The value of a constant or a bound local, where it is: null for any
  // other expression (or an unbound local).
  static const Value* in_place(const Expr& expr, Frame& frame) {
    if (expr.constant != nullptr) return expr.constant;
    if (expr.local_slot < 0) return nullptr;
    const auto& value = frame.fast[static_cast<std::size_t>(expr.local_slot)];
    return value ? &*value : nullptr;
  }
  // in_place's value, or an instance's own attribute that its site's cache
  // finds at once (AttributeRead::peek_own), where it is: null for any other
  // expression (or an attribute found another way). Finding one runs no
  // code: what it points at stays while another operand is found the same way.
  static const Value* found_in_place(const Expr& expr, Frame& frame) {
    if (expr.peek != nullptr) return expr.peek(expr, frame);
    return in_place(expr, frame);
  }
  using ExprPtr = std::unique_ptr<Expr>;

  struct Stmt {
    explicit Stmt(const ast::Stmt& node, bool walked = false) : node(node), walked(walked) {}
    virtual ~Stmt() = default;
    // The statement's own work; BodyRun does what Evaluator::exec does around it.
    virtual Flow exec(Evaluator& ev, Frame& frame) const = 0;
    // exec in a generator body run on its caller's stack, which pauses at a
    // yield statement inside and goes back to it (`paused`'s levels from
    // `level` on). Only the statements with such yields inside differ.
    virtual Flow resume(Evaluator& ev, Frame& frame, PausedBody&, std::size_t) const { return exec(ev, frame); }
    const ast::Stmt& node;
    bool walked;             // a statement the compiler does not know: Evaluator::exec runs it whole
    std::size_t yields = 0;  // the yield statements in it, itself included
    std::size_t depth = 0;   // the levels of PausedBody that resume uses below its own
  };
  using StmtPtr = std::unique_ptr<Stmt>;
  using Body = std::vector<StmtPtr>;

  // As eval_expression and exec do: an error is located at the innermost
  // expression or statement it passes that has not located it yet.
  static void locate(PyError& error, const lang::Span& span) {
    ExceptionObject& exception = *error.exception;
    if (!exception.frame_span_set) {
      exception.frame_span = span;
      exception.frame_span_set = true;
    }
  }

  // ---------------------------------------------------------------- expressions

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
    // The operands evaluated (each read in place where it can be), then the operation.
    [[gnu::noinline]] Value evaluate(Evaluator& ev, Frame& frame) const {
      Value result;
      // The left operand is read in place only when evaluating the right
      // one cannot rebind it (as `x + (x := 5)` would).
      Value held_left, held_right;
      const Value& a = operand_before(*left, *right, ev, frame, held_left);
      const Value& b = operand(*right, ev, frame, held_right);
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
  static ExprPtr compile_key(const ast::Expr& slice) {
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
        return call_with_values(ev, node, function, nullptr, arguments, frame);
      } catch (PyError& error) {
        locate(error, node.span);
        throw;
      }
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
    // Exactly a NativeFunction or TypeObject (known by its type_info's name, as container_method does).
    const char* type = object != nullptr ? typeid(*object).name() : nullptr;
    if (type == typeid(NativeFunction).name()) {
      auto& native = static_cast<NativeFunction&>(*object);
      const std::vector<Parameter>& params = native.signature().parameters;
      if (native.fast_takes(arguments.size() + offset)) {
        FastArguments values;
        if (self != nullptr) values.push(*self);
        for (const auto& argument : arguments) values.push(argument->eval(ev, frame));
        for (std::size_t i = arguments.size() + offset; i < params.size(); ++i) values.push(*params[i].default_value);
        RestoreOnExit restore_call(ev.running_call);
        ev.running_call = {&node, object};
        return native.fast_body()(ev, values.data());
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
    } else if (type == typeid(TypeObject).name() && self == nullptr && arguments.size() == 1) {
      if (TypeObject::OneArgument make = static_cast<TypeObject&>(*object).one_argument()) {
        Value argument = arguments[0]->eval(ev, frame);
        RestoreOnExit restore_call(ev.running_call);
        ev.running_call = {&node, object};
        return make(ev, argument);
      }
    } else if (type == typeid(ClassObject).name() && self == nullptr && arguments.size() <= NativeFunction::fast_arity) {
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
        : Expr(node), attribute(attribute), object(std::move(object)), arguments(std::move(arguments)) {}
    Value eval(Evaluator& ev, Frame& frame) const override {
      try {
        Value held;
        const Value* found = found_in_place(*object, frame);
        const Value& self = found != nullptr ? *found : (held = object->eval(ev, frame));
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
          Value callee = *method;  // the cache may change while the arguments are evaluated
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
    // The method of a built-in container (container_method) that `self` is,
    // kept for the type last seen here (known by its type_info's name: the
    // built-in types do not change); null when `self` is none.
    const Value* container_callee(const Value& self) const {
      if (!self.is_object()) return nullptr;
      const char* type = typeid(*self.object()).name();
      if (type == container_type) return &container_method_found;
      const ObjectRef* method = container_method(self, attribute.attr);
      if (method == nullptr) return nullptr;
      container_type = type;
      container_method_found = Value(*method);
      return &container_method_found;
    }
    const ast::Attribute& attribute;
    ExprPtr object;
    std::vector<ExprPtr> arguments;
    mutable AttributeSiteCache site{&attribute};
    mutable const char* container_type = nullptr;
    mutable Value container_method_found;
  };

  static ExprPtr compile(const ast::Expr& expr) {
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

  // ---------------------------------------------------------------- statements

  // What Evaluator::exec does around each statement, for the statements of
  // one body: the running statement set to each in turn and the body's
  // enclosing one restored once, when the body ends (nothing reads it between
  // two statements but a poll); an interrupt or budget polled, as exec polls
  // it, with the enclosing statement running (a timeout in a loop is
  // reported at its header line); an error located at its statement.
  class BodyRun {
   public:
    explicit BodyRun(Evaluator& ev) : ev_(ev), span_(ev.statement_span), statement_(ev.statement) {}
    ~BodyRun() { enclosing(); }
    BodyRun(const BodyRun&) = delete;
    BodyRun& operator=(const BodyRun&) = delete;
    template <class Work>
    Flow run(const Stmt& stmt, Work&& work) {
      if (ev_.step_counted()) {
        enclosing();
        ev_.count_step();
      }
      ev_.statement_span = stmt.node.span;
      ev_.statement = &stmt.node;
      try {
        return work();
      } catch (PyError& error) {
        locate(error, stmt.node.span);
        throw;
      }
    }
    Flow run(const Stmt& stmt, Frame& frame) {
      if (stmt.walked) {
        enclosing();  // Evaluator::exec does it all, from the enclosing statement
        return ev_.exec(stmt.node, frame);
      }
      return run(stmt, [&] { return stmt.exec(ev_, frame); });
    }

   private:
    void enclosing() {
      ev_.statement_span = span_;
      ev_.statement = statement_;
    }
    Evaluator& ev_;
    lang::Span span_;
    const ast::Stmt* statement_;
  };
  static Flow run_body(Evaluator& ev, const Body& body, Frame& frame) {
    return body.empty() ? Flow::normal : run_statements(ev, body, frame);  // an absent `else`: nothing to do
  }
  static Flow run_statements(Evaluator& ev, const Body& body, Frame& frame) {
    BodyRun run(ev);
    for (const auto& stmt : body) {
      Flow flow = run.run(*stmt, frame);
      if (flow != Flow::normal) return flow;
    }
    return Flow::normal;
  }
  // run_body in a generator body run on its caller's stack, its statements
  // at `level` of `paused`. A yield inside pauses the run: it returns
  // Flow::return_ with paused.paused set. Resuming, the run starts again at
  // the statement it paused in, and goes down to the yield.
  static Flow resume_body(Evaluator& ev, const Body& body, Frame& frame, PausedBody& paused, std::size_t level) {
    // An absent `else`: nothing to run (nor to resume: no yield paused in it).
    return body.empty() ? Flow::normal : resume_statements(ev, body, frame, paused, level);
  }
  static Flow resume_statements(Evaluator& ev, const Body& body, Frame& frame, PausedBody& paused, std::size_t level) {
    PausedBody::Level& here = paused.levels[level];
    std::size_t i = 0;
    if (paused.resuming) {
      i = here.index;
      // The yield statement that paused (no levels below it): the run goes on after it.
      if (body[i]->depth == 0) static_cast<const YieldStmt&>(*body[i++]).go_on(paused);
    }
    BodyRun run(ev);
    for (; i < body.size(); ++i) {
      const Stmt& stmt = *body[i];
      Flow flow;
      if (stmt.yields != 0) {
        here.index = static_cast<std::uint32_t>(i);
        flow = run.run(stmt, [&] { return stmt.resume(ev, frame, paused, level); });
      } else {
        flow = run.run(stmt, frame);
      }
      if (flow != Flow::normal) return flow;
    }
    return Flow::normal;
  }
  static std::size_t yields_in(const Body& body) {
    std::size_t count = 0;
    for (const auto& stmt : body) count += stmt->yields;
    return count;
  }
  // The levels of PausedBody a resumed body uses: its own and its statements'.
  static std::size_t levels_of(const Body& body) {
    std::size_t deepest = 0;
    for (const auto& stmt : body)
      if (stmt->yields != 0) deepest = std::max(deepest, stmt->depth);
    return 1 + deepest;
  }
  // Sets a compound statement's yields and depth from its bodies'.
  static void count_yields(Stmt& stmt, const Body& body, const Body& orelse) {
    stmt.yields = yields_in(body) + yields_in(orelse);
    stmt.depth = std::max(levels_of(body), levels_of(orelse));
  }

  struct WalkedStatement : Stmt {
    explicit WalkedStatement(const ast::Stmt& node) : Stmt(node, true) {}
    Flow exec(Evaluator& ev, Frame& frame) const override { return ev.exec(node, frame); }
  };
  struct ExprStmt : Stmt {
    ExprStmt(const ast::Stmt& node, ExprPtr value) : Stmt(node), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      value->eval(ev, frame);  // a function's expression statements are not echoed
      return Flow::normal;
    }
    ExprPtr value;
  };
  // `yield value` as a statement. Walked, where the body runs on a stack of
  // its own; resumed, it pauses the run with the value, and going on from
  // it raises what throw() passed (what send() passed is dropped).
  struct YieldStmt : Stmt {
    YieldStmt(const ast::Stmt& node, const ast::Expr& expression, ExprPtr value)
        : Stmt(node), expression(expression), value(std::move(value)) {
      yields = 1;
    }
    Flow exec(Evaluator& ev, Frame& frame) const override {
      ev.eval(expression, frame);
      return Flow::normal;
    }
    Flow resume(Evaluator& ev, Frame& frame, PausedBody& paused, std::size_t) const override {
      paused.yielded = value ? value->eval(ev, frame) : Value::none();
      paused.paused = true;
      return Flow::return_;
    }
    // Resumed here (resume_body): the yield expression is done.
    void go_on(PausedBody& paused) const {
      paused.resuming = false;
      if (paused.thrown) {
        PyError error{std::exchange(paused.thrown, nullptr)};
        locate(error, expression.span);
        throw error;
      }
    }
    const ast::Expr& expression;
    ExprPtr value;
  };
  struct AssignLocal : Stmt {
    AssignLocal(const ast::Stmt& node, std::uint32_t slot, ExprPtr value) : Stmt(node), slot(slot), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      frame.fast[slot] = value->eval(ev, frame);
      return Flow::normal;
    }
    std::uint32_t slot;
    ExprPtr value;
  };
  struct AugmentLocal : Stmt {
    AugmentLocal(const ast::Stmt& node, const ast::Name& name, ast::BinaryOperator op, ExprPtr value)
        : Stmt(node), name(name), op(op), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      auto& slot = frame.fast[name.resolved_index];
      if (!slot) ev.load_name(name, frame);  // raises UnboundLocalError
      Value held;
      const Value& right = operand(*value, ev, frame, held);
      // Plain numbers have no in-place hooks: x += y is x + y for them.
      Value result;
      if (quick_binary(op, *slot, right, result)) *slot = std::move(result);
      else *slot = ev.inplace(op, *slot, right);
      return Flow::normal;
    }
    const ast::Name& name;
    ast::BinaryOperator op;
    ExprPtr value;
  };
  // obj.name = value, obj[key] = value: the value first, then the target's parts.
  struct AssignAttribute : Stmt {
    AssignAttribute(const ast::Stmt& node, const ast::Attribute& attribute, ExprPtr object, ExprPtr value)
        : Stmt(node), attribute(attribute), object(std::move(object)), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      Value held_value, held;
      const Value& stored = operand_before(*value, *object, ev, frame, held_value);
      const Value& target = operand(*object, ev, frame, held);
      if (InstanceObject* instance = target.is_object() ? target.object()->as_instance() : nullptr)
        if (site_store_attribute(&site, *instance, attribute.attr, stored)) return Flow::normal;
      ev.set_attribute(target, attribute.attr, stored);
      return Flow::normal;
    }
    const ast::Attribute& attribute;
    ExprPtr object, value;
    mutable AttributeSiteCache site{&attribute};
  };
  struct AssignItem : Stmt {
    AssignItem(const ast::Stmt& node, ExprPtr object, ExprPtr key, ExprPtr value)
        : Stmt(node), object(std::move(object)), key(std::move(key)), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      Value stored = value->eval(ev, frame);
      Value held, held_key;
      const Value& container = operand_before(*object, *key, ev, frame, held);
      ev.set_item(container, operand(*key, ev, frame, held_key), stored);
      return Flow::normal;
    }
    ExprPtr object, key, value;
  };
  // obj.name += value, as the walk's AugAssign: an instance's own attribute
  // through the site's entry, else Python's lookup; the operand; the store.
  struct AugmentAttribute : Stmt {
    AugmentAttribute(const ast::Stmt& node, const ast::Attribute& attribute, ast::BinaryOperator op, ExprPtr object,
                     ExprPtr value)
        : Stmt(node), attribute(attribute), op(op), object(std::move(object)), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      Value held;
      const Value& target = operand_before(*object, *value, ev, frame, held);
      InstanceObject* instance = target.is_object() ? target.object()->as_instance() : nullptr;
      const Value* own = instance ? site_own_attribute(&site, *instance, attribute.attr) : nullptr;
      Value current = own ? *own : ev.get_attribute(target, attribute.attr);
      Value operand = value->eval(ev, frame);
      Value result;
      if (!quick_binary(op, current, operand, result)) result = ev.inplace(op, current, operand);
      if (instance == nullptr || !site_store_attribute(&site, *instance, attribute.attr, result))
        ev.set_attribute(target, attribute.attr, result);
      return Flow::normal;
    }
    const ast::Attribute& attribute;
    ast::BinaryOperator op;
    ExprPtr object, value;
    mutable AttributeSiteCache site{&attribute};
  };
  struct AugmentItem : Stmt {
    AugmentItem(const ast::Stmt& node, ast::BinaryOperator op, ExprPtr object, ExprPtr key, ExprPtr value)
        : Stmt(node), op(op), object(std::move(object)), key(std::move(key)), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      Value container = object->eval(ev, frame);
      Value index = key->eval(ev, frame);
      Value current = ev.get_item(container, index);
      Value operand = value->eval(ev, frame);
      ev.set_item(container, index, ev.inplace(op, current, operand));
      return Flow::normal;
    }
    ast::BinaryOperator op;
    ExprPtr object, key, value;
  };
  struct Return : Stmt {
    Return(const ast::Stmt& node, ExprPtr value) : Stmt(node), value(std::move(value)) {}
    Flow exec(Evaluator& ev, Frame& frame) const override {
      frame.return_value = value ? value->eval(ev, frame) : Value::none();
      return Flow::return_;
    }
    ExprPtr value;
  };
  struct If : Stmt {
    If(const ast::Stmt& node, ExprPtr test, Body body, Body orelse)
        : Stmt(node), test(std::move(test)), body(std::move(body)), orelse(std::move(orelse)) {
      count_yields(*this, this->body, this->orelse);
    }
    Flow exec(Evaluator& ev, Frame& frame) const override {
      return run_body(ev, test->condition(ev, frame) ? body : orelse, frame);
    }
    Flow resume(Evaluator& ev, Frame& frame, PausedBody& paused, std::size_t level) const override {
      if (!paused.resuming) paused.levels[level].orelse = !test->condition(ev, frame);
      return resume_body(ev, paused.levels[level].orelse ? orelse : body, frame, paused, level + 1);
    }
    ExprPtr test;
    Body body, orelse;
  };
  struct While : Stmt {
    While(const ast::Stmt& node, ExprPtr test, Body body, Body orelse)
        : Stmt(node), test(std::move(test)), body(std::move(body)), orelse(std::move(orelse)) {
      count_yields(*this, this->body, this->orelse);
    }
    Flow exec(Evaluator& ev, Frame& frame) const override {
      while (true) {
        ev.poll_interrupt();
        if (!test->condition(ev, frame)) return run_body(ev, orelse, frame);
        Flow flow = run_body(ev, body, frame);
        if (flow == Flow::break_) return Flow::normal;
        if (flow == Flow::return_) return flow;
      }
    }
    Flow resume(Evaluator& ev, Frame& frame, PausedBody& paused, std::size_t level) const override {
      PausedBody::Level& here = paused.levels[level];
      if (paused.resuming && here.orelse) return resume_body(ev, orelse, frame, paused, level + 1);
      while (true) {
        if (!paused.resuming) {
          ev.poll_interrupt();
          here.orelse = !test->condition(ev, frame);
          if (here.orelse) return resume_body(ev, orelse, frame, paused, level + 1);
        }
        Flow flow = resume_body(ev, body, frame, paused, level + 1);
        if (flow == Flow::break_) return Flow::normal;
        if (flow == Flow::return_) return flow;
      }
    }
    ExprPtr test;
    Body body, orelse;
  };
  // `for x in ...` with a local x.
  struct ForLocal : Stmt {
    ForLocal(const ast::Stmt& node, std::uint32_t slot, ExprPtr iterable, Body body, Body orelse)
        : Stmt(node), slot(slot), iterable(std::move(iterable)), body(std::move(body)), orelse(std::move(orelse)) {
      count_yields(*this, this->body, this->orelse);
    }
    Flow exec(Evaluator& ev, Frame& frame) const override {
      Value values = iterable->eval(ev, frame);
      LoopItems items(ev, values);
      while (true) {
        ev.poll_interrupt();
        std::optional<Value> item = items.next();
        if (!item) return run_body(ev, orelse, frame);
        frame.fast[slot] = std::move(*item);
        Flow flow = run_body(ev, body, frame);
        if (flow == Flow::break_) return Flow::normal;
        if (flow == Flow::return_) return flow;
      }
    }
    // The loop's items are kept in its level, to go on with when resumed.
    Flow resume(Evaluator& ev, Frame& frame, PausedBody& paused, std::size_t level) const override {
      PausedBody::Level& here = paused.levels[level];
      if (paused.resuming && here.orelse) return resume_body(ev, orelse, frame, paused, level + 1);
      if (!paused.resuming) {
        here.iterable = iterable->eval(ev, frame);
        here.items.emplace(ev, here.iterable);
      }
      while (true) {
        if (!paused.resuming) {
          ev.poll_interrupt();
          std::optional<Value> item = here.items->next();
          here.orelse = !item;
          if (here.orelse) {
            finish(here);
            return resume_body(ev, orelse, frame, paused, level + 1);
          }
          frame.fast[slot] = std::move(*item);
        }
        Flow flow = resume_body(ev, body, frame, paused, level + 1);
        if (flow == Flow::break_ || (flow == Flow::return_ && !paused.paused)) finish(here);
        if (flow == Flow::break_) return Flow::normal;
        if (flow == Flow::return_) return flow;
      }
    }
    // The loop is done with its items: they and the iterable go.
    static void finish(PausedBody::Level& level) {
      level.items.reset();
      level.iterable = Value();
    }
    std::uint32_t slot;
    ExprPtr iterable;
    Body body, orelse;
  };

  static void exec_body(Evaluator& ev, const ast::Body& body, Frame& frame) { ev.exec_body(body, frame); }

  // A generator's body on its caller's stack, from where it paused, as
  // Evaluator::run_generator_body runs one on a stack of its own.
  static bool resume_generator(Evaluator& ev, const FunctionObject& function, const Body& body, Frame& frame,
                               PausedBody& paused) {
    RestoreOnExit restore_frame(ev.current_frame_);
    ev.current_frame_ = &frame;
    paused.paused = false;
    try {
      resume_body(ev, body, frame, paused, 0);
    } catch (PyError& error) {
      error.exception->leave_frame(function.scope->name);
      throw;
    }
    return paused.paused;
  }

  static Body compile_body(const ast::Body& body) {
    Body out;
    out.reserve(body.size());
    for (const auto& stmt : body) out.push_back(compile_statement(*stmt));
    return out;
  }

  static StmtPtr compile_statement(const ast::Stmt& stmt) {
    if (const auto* e = std::get_if<ast::ExprStmt>(&stmt.node)) {
      if (const auto* yield = std::get_if<ast::Yield>(&e->value->node))
        return std::make_unique<YieldStmt>(stmt, *e->value, yield->value ? compile(*yield->value) : nullptr);
      return std::make_unique<ExprStmt>(stmt, compile(*e->value));
    }
    if (const auto* a = std::get_if<ast::Assign>(&stmt.node); a != nullptr && a->targets.size() == 1) {
      const ast::Expr& target = *a->targets[0];
      if (const ast::Name* local = fast_local_name(target))
        return std::make_unique<AssignLocal>(stmt, local->resolved_index, compile(*a->value));
      if (const auto* attribute = std::get_if<ast::Attribute>(&target.node))
        return std::make_unique<AssignAttribute>(stmt, *attribute, compile(*attribute->value), compile(*a->value));
      if (const auto* subscript = std::get_if<ast::Subscript>(&target.node))
        return std::make_unique<AssignItem>(stmt, compile(*subscript->value), compile_key(*subscript->slice),
                                            compile(*a->value));
    }
    if (const auto* a = std::get_if<ast::AugAssign>(&stmt.node)) {
      if (const ast::Name* local = fast_local_name(*a->target))
        return std::make_unique<AugmentLocal>(stmt, *local, a->op, compile(*a->value));
      if (const auto* attribute = std::get_if<ast::Attribute>(&a->target->node))
        return std::make_unique<AugmentAttribute>(stmt, *attribute, a->op, compile(*attribute->value), compile(*a->value));
      if (const auto* subscript = std::get_if<ast::Subscript>(&a->target->node))
        return std::make_unique<AugmentItem>(stmt, a->op, compile(*subscript->value), compile_key(*subscript->slice),
                                             compile(*a->value));
    }
    if (const auto* r = std::get_if<ast::Return>(&stmt.node))
      return std::make_unique<Return>(stmt, r->value ? compile(*r->value) : nullptr);
    if (const auto* i = std::get_if<ast::If>(&stmt.node))
      return std::make_unique<If>(stmt, compile(*i->test), compile_body(i->body), compile_body(i->orelse));
    if (const auto* w = std::get_if<ast::While>(&stmt.node))
      return std::make_unique<While>(stmt, compile(*w->test), compile_body(w->body), compile_body(w->orelse));
    if (const auto* f = std::get_if<ast::For>(&stmt.node))
      if (const ast::Name* target = fast_local_name(*f->target))
        return std::make_unique<ForLocal>(stmt, target->resolved_index, compile(*f->iter), compile_body(f->body),
                                          compile_body(f->orelse));
    return std::make_unique<WalkedStatement>(stmt);
  }
};

struct CompiledBody::Statements {
  Compiled::Body body;
};

CompiledBody::CompiledBody(const ast::Body& body, std::size_t yields)
    : statements_(std::make_unique<Statements>(Statements{Compiled::compile_body(body)})),
      resumable_(yields != 0 && Compiled::yields_in(statements_->body) == yields),
      paused_levels_(Compiled::levels_of(statements_->body)) {}

CompiledBody::~CompiledBody() = default;

void CompiledBody::run(Evaluator& evaluator, Frame& frame) const { Compiled::run_body(evaluator, statements_->body, frame); }

void run_function_body(Evaluator& evaluator, const FunctionObject& function, Frame& frame) {
  const CompiledBody* compiled = function.scope->compiled.get();
  if (compiled && !evaluator.observer && evaluator.mode == Evaluator::Mode::run) compiled->run(evaluator, frame);
  else Compiled::exec_body(evaluator, *function.body, frame);
}

bool runs_on_callers_stack(const Evaluator& evaluator, const FunctionObject& function) {
  const CompiledBody* compiled = function.scope->compiled.get();
  return compiled && compiled->resumable() && !evaluator.observer && evaluator.mode == Evaluator::Mode::run;
}

bool resume_generator_body(Evaluator& evaluator, const FunctionObject& function, Frame& frame, PausedBody& paused) {
  return Compiled::resume_generator(evaluator, function, function.scope->compiled->statements_->body, frame, paused);
}

}  // namespace interp
