// List, set and dict comprehensions (run at once, in their own frame) and
// generator expressions (resumed one item per next()), walked; in a def's
// body the compiler makes most comprehensions nodes of their own
// (compiled.cpp's Comprehension), which run them as these do.

#include "interp/python/compiled.hpp"
#include "interp/python/evaluator.hpp"

namespace interp {

namespace ast = lang::ast;

Frame comprehension_frame(Evaluator& evaluator, const ast::Expr& comprehension, const Frame& enclosing) {
  const ScopeInfo& scope = enclosing.resolution->scope(&comprehension);
  Frame inner;
  inner.scope = &scope;
  inner.globals = enclosing.globals;
  inner.program = enclosing.program;
  inner.resolution = enclosing.resolution;
  inner.fast.make(scope.fast_names.size());
  for (std::size_t i = 0; i < scope.own_cells; ++i) inner.cells.push_back(evaluator.new_cell());
  for (std::uint32_t source : scope.free_sources) inner.cells.push_back(enclosing.cells.at(source));
  return inner;
}

Value Evaluator::eval_comprehension(const ast::Expr& expr, Frame& frame) {
  const std::vector<ast::Comprehension>* generators = nullptr;
  std::visit(
      [&](const auto& node) {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<T, ast::ListComp> || std::is_same_v<T, ast::SetComp> ||
                      std::is_same_v<T, ast::DictComp> || std::is_same_v<T, ast::GeneratorExp>)
          generators = &node.generators;
      },
      expr.node);
  Value first = eval(*generators->front().iter, frame);
  Frame inner = comprehension_frame(*this, expr, frame);

  if (auto* generator_node = std::get_if<ast::GeneratorExp>(&expr.node)) {
    auto generator = std::make_shared<GeneratorObject>();
    generator->program = *frame.program;
    generator->node = generator_node;
    generator->frame = std::move(inner);
    generator->frame.program = &generator->program;
    generator->globals = *frame.globals;
    generator->frame.globals = &generator->globals;
    generator->iterators.push_back(iterate(first));  // the first iterable is taken now, as in Python
    return Value(generator);
  }

  std::vector<Value> items;
  std::shared_ptr<DictObject> dict;
  std::shared_ptr<SetObject> set;
  if (std::holds_alternative<ast::DictComp>(expr.node)) dict = make_dict();
  if (std::holds_alternative<ast::SetComp>(expr.node)) set = make_set();

  auto emit = [&]() {
    std::visit(
        [&](const auto& node) {
          using T = std::decay_t<decltype(node)>;
          if constexpr (std::is_same_v<T, ast::DictComp>) {
            Value key = eval(*node.key, inner);
            Value value = eval(*node.value, inner);
            dict->table.insert(key, std::move(value));
          } else if constexpr (std::is_same_v<T, ast::SetComp>) {
            set->table.insert(eval(*node.elt, inner), Value());
          } else if constexpr (std::is_same_v<T, ast::ListComp>) {
            items.push_back(eval(*node.elt, inner));
          }
        },
        expr.node);
  };
  std::function<void(std::size_t, const Value&)> run = [&](std::size_t level, const Value& iterable) {
    const ast::Comprehension& generator = (*generators)[level];
    IteratorRef it = iterate(iterable);
    while (auto item = it->next(*this)) {
      poll_interrupt();
      assign(*generator.target, std::move(*item), inner);
      bool keep = true;
      for (const auto& condition : generator.ifs)
        if (!truthy(eval(*condition, inner))) {
          keep = false;
          break;
        }
      if (!keep) continue;
      if (level + 1 < generators->size()) {
        guard_stack();
        run(level + 1, eval(*(*generators)[level + 1].iter, inner));
      } else {
        emit();
      }
    }
  };
  run(0, first);
  if (dict) return Value(dict);
  if (set) return Value(set);
  return make_list(std::move(items));
}

std::optional<Value> GeneratorObject::next(Evaluator& evaluator) { return evaluator.resume_generator(*this); }

std::optional<Value> Evaluator::resume_generator(GeneratorObject& generator) {
  const auto& generators = generator.node->generators;
  Frame& frame = generator.frame;
  try {
    while (!generator.finished) {
      if (generator.iterators.empty()) {
        generator.finished = true;
        break;
      }
      std::size_t level = generator.iterators.size() - 1;
      poll_interrupt();
      auto item = generator.iterators[level]->next(*this);
      if (!item) {
        generator.iterators.pop_back();
        continue;
      }
      assign(*generators[level].target, std::move(*item), frame);
      bool keep = true;
      for (const auto& condition : generators[level].ifs)
        if (!truthy(eval(*condition, frame))) {
          keep = false;
          break;
        }
      if (!keep) continue;
      if (level + 1 < generators.size()) {
        generator.iterators.push_back(iterate(eval(*generators[level + 1].iter, frame)));
        continue;
      }
      return eval(*generator.node->elt, frame);
    }
  } catch (PyError&) {
    generator.finished = true;  // a generator that raised is exhausted
    generator.iterators.clear();
    throw;
  }
  generator.iterators.clear();
  return std::nullopt;
}

}  // namespace interp
