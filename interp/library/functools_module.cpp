// functools beyond partial and reduce (modules.cpp): wraps and
// update_wrapper, lru_cache and cache, cached_property, with CPython's
// behaviour.
#include "interp/library/host_modules.hpp"
#include "interp/python/classes.hpp"

namespace interp {

namespace {

// functools.WRAPPER_ASSIGNMENTS, then __dict__ is merged and __wrapped__ set.
void update_wrapper(Evaluator& evaluator, const Value& wrapper, const Value& wrapped) {
  if (!wrapper.is_object()) return;
  for (const char* name : {"__module__", "__name__", "__qualname__", "__doc__"})
    if (auto value = evaluator.find_attribute(wrapped, name)) wrapper.object()->set_attribute(evaluator, name, *value);
  if (auto* function = wrapped.as<FunctionObject>())
    for (const auto& [name, value] : function->attributes)
      if (name.rfind("__", 0) != 0) wrapper.object()->set_attribute(evaluator, name, value);
  wrapper.object()->set_attribute(evaluator, "__wrapped__", wrapped);
}

// What lru_cache(maxsize) and cache wrap a function in.
class CachedFunction : public Object {
 public:
  CachedFunction(Value function, std::int64_t maxsize) : function_(std::move(function)), maxsize_(maxsize) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("functools._lru_cache_wrapper", types::object());
    return type;
  }
  bool callable() const override { return true; }
  Value call(Evaluator& evaluator, CallArgs& args) override {
    std::vector<Value> key_items = args.positional;
    if (!args.keywords.empty()) {
      key_items.push_back(keyword_mark());
      for (const auto& [name, value] : args.keywords) {
        key_items.push_back(make_str(name));
        key_items.push_back(value);
      }
    }
    Value key = make_tuple(std::move(key_items));
    if (maxsize_ != 0) {
      if (Value* found = cache_.find(key)) {
        ++hits_;
        Value result = *found;
        if (maxsize_ > 0) {  // most recently used goes last
          cache_.erase(key);
          cache_.insert(key, result);
        }
        return result;
      }
    }
    ++misses_;
    Value result = evaluator.call(function_, args);
    if (maxsize_ != 0) {
      cache_.insert(key, result);
      if (maxsize_ > 0 && static_cast<std::int64_t>(cache_.size()) > maxsize_)
        for (const auto& entry : cache_.entries())
          if (entry.live) {
            Value oldest = entry.key;
            cache_.erase(oldest);
            break;
          }
    }
    return result;
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "__wrapped__") return function_;
    if (name == "cache_clear")
      return Value(native("cache_clear()", [self = self()](Evaluator&, Arguments&) {
        auto& cached = static_cast<CachedFunction&>(*self);
        cached.cache_.clear();
        cached.hits_ = cached.misses_ = 0;
        return Value::none();
      }));
    if (name == "cache_info")
      return Value(native("cache_info()", [self = self()](Evaluator& ev, Arguments&) {
        auto& cached = static_cast<CachedFunction&>(*self);
        Value maxsize = cached.maxsize_ < 0 ? Value::none() : Value::integer(cached.maxsize_);
        return make_named_tuple(ev, "functools", "CacheInfo", {"hits", "misses", "maxsize", "currsize"},
                                {Value::integer(cached.hits_), Value::integer(cached.misses_), maxsize,
                                 Value::integer(static_cast<std::int64_t>(cached.cache_.size()))});
      }));
    if (name == "__name__" || name == "__qualname__" || name == "__doc__" || name == "__module__")
      return evaluator.get_attribute(function_, name);
    return Object::get_attribute(evaluator, name);
  }
  // A cached method binds to its instance as a function does.
  std::optional<Value> descriptor_get(Evaluator&, const Value& instance, const Value&) override {
    if (instance.is_none()) return std::nullopt;
    return Value(std::make_shared<BoundMethod>(instance, self()));
  }

 private:
  static const Value& keyword_mark() {
    static const Value mark = make_str("\x01functools keyword mark");
    return mark;
  }
  Value function_;
  std::int64_t maxsize_;  // -1: unbounded
  ValueTable cache_;
  std::int64_t hits_ = 0, misses_ = 0;
};

class CachedProperty : public Object {
 public:
  CachedProperty(Value function, std::string name) : function_(std::move(function)), name_(std::move(name)) {}
  const TypeRef& type() const override {
    static const TypeRef type = make_type("cached_property", types::object());
    return type;
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "func") return function_;
    if (name == "attrname") return make_str(name_);
    return Object::get_attribute(evaluator, name);
  }
  std::optional<Value> descriptor_get(Evaluator& evaluator, const Value& instance, const Value&) override {
    if (instance.is_none()) return Value(self());
    Value value = evaluator.call(function_, {instance});
    // Stored straight into the instance's __dict__ (as CPython does, past a frozen __setattr__).
    if (auto* attributes = instance.is_object() ? instance.object()->instance_dict() : nullptr)
      set_attribute_in(*attributes, name_, value);
    else raise(exc::TypeError(), "No '__dict__' attribute on '" + type_name(instance) + "' instance to cache '" + name_ + "' property.");
    return value;
  }

 private:
  Value function_;
  std::string name_;
};

}  // namespace

void install_functools_wrappers(ModuleObject& module) {
  module.add_function("update_wrapper(wrapper, wrapped)", [](Evaluator& ev, Arguments& a) {
    update_wrapper(ev, a[0], a[1]);
    return a[0];
  });
  module.add_function("wraps(wrapped)", [](Evaluator&, Arguments& a) {
    Value wrapped = a[0];
    return Value(native("update_wrapper(wrapper, /)", [wrapped](Evaluator& ev, Arguments& b) {
      update_wrapper(ev, b[0], wrapped);
      return b[0];
    }));
  });
  auto cached = [](Evaluator&, const Value& function, std::int64_t maxsize) {
    if (!function.is_object() || !function.object()->callable())
      raise(exc::TypeError(), "Expected first argument to be an integer, a callable, or None");
    return Value(std::make_shared<CachedFunction>(function, maxsize));
  };
  module.add_function("lru_cache(maxsize=128, typed=False)", [cached](Evaluator& ev, Arguments& a) {
    // @lru_cache (the function itself) or @lru_cache(maxsize=...).
    if (a[0].is_object() && a[0].object()->callable()) return cached(ev, a[0], 128);
    std::int64_t maxsize = -1;
    if (!a[0].is_none()) {
      if (!a[0].is_integral()) raise(exc::TypeError(), "Expected first argument to be an integer, a callable, or None");
      maxsize = std::max<std::int64_t>(a[0].as_int(), 0);
    }
    return Value(native("decorating_function(user_function, /)", [cached, maxsize](Evaluator& ev, Arguments& b) {
      return cached(ev, b[0], maxsize);
    }));
  });
  module.add_function("cache(user_function, /)", [cached](Evaluator& ev, Arguments& a) { return cached(ev, a[0], -1); });
  module.add_function("cached_property(func)", [](Evaluator& ev, Arguments& a) {
    return Value(std::make_shared<CachedProperty>(a[0], ev.str(ev.get_attribute(a[0], "__name__"))));
  });
}

}  // namespace interp
