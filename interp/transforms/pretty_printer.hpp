// The Wadler-Lindig pretty printer JAX prints jaxprs with
// (jax/_src/pretty_printer.py over jaxlib/_pretty_printer.cc), without the
// colors, annotations and source maps: a document of text, breaks, groups
// and nesting, laid out in a width. A group prints flat (its breaks as their
// text) when the group alone fits in what is left of the line, otherwise
// its breaks are newlines indented by the nesting around them.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace interp::pp {

struct DocNode;
using Doc = std::shared_ptr<const DocNode>;

struct DocNode {
  enum class Kind { text, concat, brk, group, nest };
  Kind kind = Kind::text;
  std::string text;           // text, or what a break prints when flat
  std::vector<Doc> children;  // concat: all; group, nest: one
  int indent = 0;             // nest
};

Doc nil();
Doc text(std::string s);
Doc concat(std::vector<Doc> children);
Doc brk(std::string s = " ");
Doc group(Doc child);
Doc nest(int n, Doc child);
// `docs` separated by `separator`.
Doc join(const Doc& separator, const std::vector<Doc>& docs);

// The document laid out in `width` columns (JAX's Doc.format default: 80).
std::string format(const Doc& doc, int width = 80);

}  // namespace interp::pp
