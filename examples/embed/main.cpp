// Embedding shardlang in a C++ program through its one public header:
// set a variable, define a host function, run a script that uses both,
// capture what it prints, read a result back, and check a broken source.
#include <shardlang/shardlang.hpp>

#include <iostream>
#include <string>

int main() {
  std::string printed;  // the script's print() output, captured by the host
  shardlang::Options options;
  options.output = [&printed](std::string_view text) { printed += text; };
  shardlang::Interpreter interpreter(std::move(options));

  interpreter.set("width", shardlang::Value::integer(6));
  interpreter.def("area", [](const shardlang::Args& args) -> shardlang::HostResult {
    if (args.positional.size() != 2)
      return shardlang::HostResult::error("TypeError", "area() takes 2 arguments");
    return shardlang::Value::integer(args.positional[0].as_int() * args.positional[1].as_int());
  });

  shardlang::Result result = interpreter.run(R"(
height = 7
result = area(width, height)
print('area of', width, 'by', height, 'is', result)
try:
    area(1)
except TypeError as e:
    print('the host function said:', e)
)",
                                             "embedded.shl");
  if (!result) {
    for (const shardlang::Diagnostic& diagnostic : result.diagnostics()) std::cerr << diagnostic.render();
    return 1;
  }
  std::cout << "the script printed:\n" << printed;

  std::optional<shardlang::Value> area = interpreter.get("result");
  std::cout << "result read back: " << (area ? area->repr() : "(missing)") << "\n";

  std::vector<shardlang::Diagnostic> diagnostics = interpreter.check("def broken(:\n    return 1\n", "broken.shl");
  std::cout << "check found " << diagnostics.size() << " diagnostic(s):\n";
  for (const shardlang::Diagnostic& diagnostic : diagnostics) std::cout << diagnostic.render();
  return diagnostics.empty() ? 1 : 0;
}
