// The pretty printer (pretty_printer.hpp), as jaxlib/_pretty_printer.cc lays
// a document out: an agenda of (indent, mode, doc); a group is flat when the
// group alone fits in the rest of the line.
#include "interp/transforms/pretty_printer.hpp"

#include <stack>

namespace interp::pp {

namespace {

Doc node(DocNode::Kind kind, std::string s = {}, std::vector<Doc> children = {}, int indent = 0) {
  auto out = std::make_shared<DocNode>();
  out->kind = kind;
  out->text = std::move(s);
  out->children = std::move(children);
  out->indent = indent;
  return out;
}

// Whether `doc` printed flat takes at most `width` columns.
bool fits(const Doc& doc, long width) {
  std::stack<const DocNode*> agenda;
  agenda.push(doc.get());
  while (width >= 0 && !agenda.empty()) {
    const DocNode* d = agenda.top();
    agenda.pop();
    switch (d->kind) {
      case DocNode::Kind::text:
      case DocNode::Kind::brk:
        width -= static_cast<long>(d->text.size());
        break;
      case DocNode::Kind::concat:
        for (auto it = d->children.rbegin(); it != d->children.rend(); ++it) agenda.push(it->get());
        break;
      case DocNode::Kind::group:
      case DocNode::Kind::nest:
        agenda.push(d->children[0].get());
        break;
    }
  }
  return width >= 0;
}

}  // namespace

Doc nil() { return node(DocNode::Kind::concat); }
Doc text(std::string s) { return node(DocNode::Kind::text, std::move(s)); }
Doc concat(std::vector<Doc> children) { return node(DocNode::Kind::concat, {}, std::move(children)); }
Doc brk(std::string s) { return node(DocNode::Kind::brk, std::move(s)); }
Doc group(Doc child) { return node(DocNode::Kind::group, {}, {std::move(child)}); }
Doc nest(int n, Doc child) { return node(DocNode::Kind::nest, {}, {std::move(child)}, n); }

Doc join(const Doc& separator, const std::vector<Doc>& docs) {
  std::vector<Doc> items;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    if (i) items.push_back(separator);
    items.push_back(docs[i]);
  }
  return items.size() == 1 ? items[0] : concat(std::move(items));
}

std::string format(const Doc& doc, int width) {
  struct Agendum {
    int indent;
    bool flat;
    const DocNode* doc;
  };
  std::stack<Agendum> agenda;
  agenda.push({0, false, doc.get()});
  std::string out;
  long column = 0;
  while (!agenda.empty()) {
    Agendum a = agenda.top();
    agenda.pop();
    const DocNode& d = *a.doc;
    switch (d.kind) {
      case DocNode::Kind::text:
        out += d.text;
        column += static_cast<long>(d.text.size());
        break;
      case DocNode::Kind::concat:
        for (auto it = d.children.rbegin(); it != d.children.rend(); ++it) agenda.push({a.indent, a.flat, it->get()});
        break;
      case DocNode::Kind::brk:
        if (a.flat) {
          out += d.text;
          column += static_cast<long>(d.text.size());
        } else {
          out += "\n" + std::string(static_cast<std::size_t>(a.indent), ' ');
          column = a.indent;
        }
        break;
      case DocNode::Kind::group:
        agenda.push({a.indent, fits(d.children[0], width - column), d.children[0].get()});
        break;
      case DocNode::Kind::nest:
        agenda.push({a.indent + d.indent, a.flat, d.children[0].get()});
        break;
    }
  }
  return out;
}

}  // namespace interp::pp
