// libFuzzer target: lang::parse and lang::input_state on arbitrary bytes.
// Neither may crash, hang, recurse without bound or throw; a failed parse
// has exactly one diagnostic.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "lang/ast.hpp"
#include "lang/parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  lang::ParseResult result = lang::parse(lang::SourceFile::from_text("fuzz.shl", text));
  if (result.ok() == !result.diagnostics.empty()) std::abort();
  if (!result.ok() && result.diagnostics.size() != 1) std::abort();
  if (result.ok()) (void)lang::ast::dump(*result.module);
  (void)lang::input_state(text);
  return 0;
}
