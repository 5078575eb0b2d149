// The explanation of a jit tracing-cache miss (cache_misses.hpp), as JAX's
// pe.explain writes it.
#include "interp/transforms/cache_misses.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "interp/ops/runtime.hpp"
#include "interp/python/builtins.hpp"
#include "interp/transforms/trace.hpp"

namespace interp {

// The signatures each function was traced with, and the call sites that
// missed (Runtime::trace_history).
class TraceHistory {
 public:
  struct Traced {
    std::weak_ptr<Object> function;
    std::vector<TraceSignature> signatures;
  };
  std::vector<Traced> traced;
  std::set<std::string> callsites_with_miss;
};

namespace {

// A difference from an earlier signature: (severity, number of differences, text), lower first.
using Difference = std::tuple<int, std::size_t, std::string>;

std::string kind_name(const TreeDef& def) {
  switch (def.kind) {
    case TreeDef::Kind::leaf: return "pytree leaf";
    case TreeDef::Kind::none: return "<class 'NoneType'>";
    case TreeDef::Kind::tuple: return "<class 'tuple'>";
    case TreeDef::Kind::list: return "<class 'list'>";
    case TreeDef::Kind::dict: return "<class 'dict'>";
    case TreeDef::Kind::custom: break;
  }
  return "<class '" + def.node_class.as<TypeObject>()->name() + "'>";
}

bool same_class(const TreeDef& a, const TreeDef& b) {
  return a.kind == b.kind && (a.kind != TreeDef::Kind::custom || a.node_class.is_same(b.node_class));
}

// JAX's equality_errors_pytreedef: where two structures part, and why.
void tree_differences(Evaluator& evaluator, const TreeDef& now, const TreeDef& before, const std::string& path,
                      std::vector<std::string>& out) {
  if (now.kind == TreeDef::Kind::leaf && before.kind == TreeDef::Kind::leaf) return;
  auto line = [&](const std::string& a, const std::string& b, const std::string& why) {
    out.push_back("  * at input path " + path + ", now " + a + " and before " + b + ", so " + why);
  };
  if (!same_class(now, before)) return line(kind_name(now), kind_name(before), "their Python types differ");
  auto count = [](const TreeDef& d) {
    return std::to_string(d.children.size()) + (d.children.size() > 1 ? " children" : " child");
  };
  if (now.kind == TreeDef::Kind::tuple || now.kind == TreeDef::Kind::list) {
    std::string name = now.kind == TreeDef::Kind::tuple ? "tuple" : "list";
    if (now.children.size() != before.children.size())
      return line(name + " of length " + std::to_string(now.children.size()),
                  name + " of length " + std::to_string(before.children.size()), "the lengths do not match");
  }
  if (now.children.size() != before.children.size())
    return line(kind_name(now) + " with " + count(now), kind_name(before) + " with " + count(before),
                "the numbers of children do not match");
  bool keys_differ = now.keys.size() != before.keys.size();
  for (std::size_t i = 0; !keys_differ && i < now.keys.size(); ++i) keys_differ = !values_equal(now.keys[i], before.keys[i]);
  bool aux_differs = now.kind == TreeDef::Kind::custom && !now.aux.is_same(before.aux) && !values_equal(now.aux, before.aux);
  if (keys_differ || aux_differs) {
    auto metadata = [&](const TreeDef& d) {
      if (d.kind != TreeDef::Kind::dict) return evaluator.repr(d.aux);
      std::vector<Value> keys = d.keys;
      return evaluator.repr(make_list(std::move(keys)));
    };
    return line(kind_name(now) + " with pytree metadata " + metadata(now),
                kind_name(before) + " with pytree metadata " + metadata(before), "the pytree node metadata does not match");
  }
  for (std::size_t i = 0; i < now.children.size(); ++i) {
    std::string step = now.kind == TreeDef::Kind::dict ? "[" + evaluator.repr(now.keys[i]) + "]" : "[" + std::to_string(i) + "]";
    if (now.kind == TreeDef::Kind::custom)
      step = i < now.field_names.size() ? "." + now.field_names[i] : "[<flat index " + std::to_string(i) + ">]";
    tree_differences(evaluator, now.children[i], before.children[i], path + step, out);
  }
}

Difference difference(Evaluator& evaluator, const TraceSignature& now, const TraceSignature& before) {
  std::vector<std::string> lines;
  tree_differences(evaluator, now.arguments, before.arguments, "", lines);
  auto joined = [](const std::string& head, const std::vector<std::string>& items) {
    std::string text = head;
    for (const auto& item : items) text += "\n" + item;
    return text;
  };
  if (!lines.empty()) return {1, lines.size(), joined("different input pytree:", lines)};
  bool weak_hint = false;
  for (std::size_t i = 0; i < now.types.size() && i < before.types.size(); ++i) {
    const typecheck::ArrayType& a = now.types[i];
    const typecheck::ArrayType& b = before.types[i];
    if (a.dtype == b.dtype && a.shape == b.shape && a.weak_type == b.weak_type && a.sharding == b.sharding) continue;
    std::string a_text = a.short_str(), b_text = b.short_str();
    if (a.weak_type != b.weak_type) {
      weak_hint = true;
      a_text += std::string("{weak_type=") + (a.weak_type ? "True" : "False") + "}";
      b_text += std::string("{weak_type=") + (b.weak_type ? "True" : "False") + "}";
    }
    lines.push_back("  * at " + now.names[i] + ", now " + a_text + " and before " + b_text);
  }
  if (!lines.empty()) {
    std::string text = joined("different input types:", lines);
    if (weak_hint) text += "https://docs.jax.dev/en/latest/type_promotion.html#weak-types";
    return {3, lines.size(), text};
  }
  return {4, 0, "cache miss explanation unavailable"};
}

// "file.py:5": where a function was defined (its first decorator's line, as
// Python's co_firstlineno), or "" when it has no source.
std::string definition_of(const Value& function) {
  auto* f = function.as<FunctionObject>();
  if (!f || f->definition.empty()) return "";
  std::string file = f->definition.file->name();
  if (auto slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
  return " defined at " + file + ":" + std::to_string(f->definition.file->position(f->definition.begin).line);
}

std::string function_name(Evaluator& evaluator, const Value& function) {
  if (auto name = evaluator.find_attribute(function, "__name__"); name && string_of(*name)) return *string_of(*name);
  return qualified_name(function);
}

}  // namespace

std::string function_source_info(Evaluator& evaluator, const Value& function) {
  std::string definition = definition_of(function);
  return function_name(evaluator, function) + (definition.empty() ? "" : " at" + definition.substr(std::string(" defined at").size()));
}

void note_tracing_cache_miss(Evaluator& evaluator, const Value& function, TraceSignature signature) {
  Runtime& runtime = runtime_of(evaluator);
  if (!runtime.trace_history) runtime.trace_history = std::make_shared<TraceHistory>();
  TraceHistory& history = *runtime.trace_history;
  // Forget the functions that no longer exist (an address may be reused).
  std::erase_if(history.traced, [](const TraceHistory::Traced& t) { return t.function.expired(); });
  auto seen = std::find_if(history.traced.begin(), history.traced.end(), [&](const TraceHistory::Traced& t) {
    return t.function.lock().get() == function.object().get();
  });
  if (runtime.explain_cache_misses && evaluator.log) {
    std::string callsite = source_summary(evaluator);
    std::string text = "TRACING CACHE MISS at " + callsite + ":\n";
    std::string name = function_name(evaluator, function);
    if (seen == history.traced.end()) {
      text += "  never seen function:\n    " + name + " id=" +
              std::to_string(reinterpret_cast<std::uintptr_t>(function.object().get())) + definition_of(function) + "\n";
      if (!history.callsites_with_miss.insert(callsite).second)
        text += "  but seen another function defined on the same line; maybe the function is\n"
                "  being re-defined repeatedly, preventing caching?\n";
    } else {
      Difference closest{5, 0, ""};
      for (const auto& before : seen->signatures) closest = std::min(closest, difference(evaluator, signature, before));
      text += "  for " + name + definition_of(function) + "\n";
      text += "  all previously seen cache keys differ. For the closest previous key:\n";
      text += "  " + std::get<2>(closest) + "\n";
    }
    evaluator.log(text);
  }
  if (seen == history.traced.end()) {
    history.traced.push_back({function.object(), {}});
    seen = history.traced.end() - 1;
  }
  seen->signatures.push_back(std::move(signature));
}

std::vector<std::string> leaf_names(Evaluator& evaluator, const std::string& name, const Value& arg) {
  std::vector<std::string> names;
  TreeDef def;
  tree_flatten(evaluator, arg, def);
  for (const auto& path : def.leaf_paths(evaluator)) names.push_back(name.empty() ? "" : name + path);
  return names;
}

std::string parameter_name(const Value& function, std::size_t position) {
  auto* f = function.as<FunctionObject>();
  if (!f || position >= f->signature.parameters.size() || f->signature.parameters[position].kind == Parameter::Kind::varargs)
    return "";
  return f->signature.parameters[position].name;
}

std::vector<std::string> argument_names(Evaluator& evaluator, const Value& function, const std::vector<Value>& args) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < args.size(); ++i)
    for (auto& name : leaf_names(evaluator, parameter_name(function, i), args[i])) names.push_back(std::move(name));
  return names;
}

}  // namespace interp
