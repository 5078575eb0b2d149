// Files, for reading a config: the built-in open() (text files, UTF-8, with
// `with`), os and os.path (posixpath's string rules), pathlib.Path, and
// os.PathLike. Every operation that touches the filesystem asks the import
// system first (ImportSystem::require_file_access: the host's switch).
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "interp/library/host_modules.hpp"
#include "interp/python/format.hpp"
#include "interp/python/imports.hpp"

namespace interp {

namespace fs = std::filesystem;

namespace {

// ------------------------------------------------------------ errors

// Python's OSError for an errno: the subclass it maps to, the message
// "[Errno 2] No such file or directory: 'name'" and the attributes.
[[noreturn]] void raise_os_error(int code, const std::string& filename) {
  TypeRef cls = exc::OSError();
  if (code == ENOENT) cls = exc::FileNotFoundError();
  else if (code == EACCES || code == EPERM) cls = exc::PermissionError();
  else if (code == EISDIR) cls = exc::IsADirectoryError();
  else if (code == ENOTDIR) cls = exc::NotADirectoryError();
  else if (code == EEXIST) cls = exc::FileExistsError();
  std::string reason = std::strerror(code);
  auto exception = make_exception(cls, "[Errno " + std::to_string(code) + "] " + reason + ": " + string_repr(filename));
  exception->attributes.emplace_back("errno", Value::integer(code));
  exception->attributes.emplace_back("strerror", make_str(reason));
  exception->attributes.emplace_back("filename", make_str(filename));
  throw PyError{std::move(exception)};
}

void require_files(Evaluator& evaluator, const std::string& what) { evaluator.imports->require_file_access(what); }

// ------------------------------------------------------------ path text (posixpath)

std::string path_join(std::string path, const std::string& part) {
  if (!part.empty() && part[0] == '/') return part;
  if (path.empty() || path.back() == '/') return path + part;
  return path + "/" + part;
}

std::string path_basename(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string path_dirname(const std::string& path) {
  std::string head = path.substr(0, path.rfind('/') + 1);
  if (!head.empty() && head.find_first_not_of('/') != std::string::npos)
    head.erase(head.find_last_not_of('/') + 1);
  return head;
}

std::pair<std::string, std::string> path_splitext(const std::string& path) {
  std::size_t separator = path.rfind('/');
  std::size_t dot = path.rfind('.');
  std::size_t name_start = separator == std::string::npos ? 0 : separator + 1;
  if (dot != std::string::npos && dot >= name_start)
    for (std::size_t i = name_start; i < dot; ++i)
      if (path[i] != '.') return {path.substr(0, dot), path.substr(dot)};
  return {path, ""};
}

std::string path_normpath(const std::string& path) {
  if (path.empty()) return ".";
  bool absolute = path[0] == '/';
  std::vector<std::string> parts;
  for (std::size_t begin = 0; begin <= path.size();) {
    std::size_t end = std::min(path.find('/', begin), path.size());
    std::string part = path.substr(begin, end - begin);
    begin = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == ".." && ((!parts.empty() && parts.back() != "..") || absolute)) {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out = absolute ? "/" : "";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "/" : "") + parts[i];
  return out.empty() ? "." : out;
}

std::string working_directory() {
  std::error_code error;
  fs::path cwd = fs::current_path(error);
  if (error) raise_os_error(error.value(), ".");
  return cwd.string();
}

// ------------------------------------------------------------ pathlib.Path

// pathlib's normal form: no empty or "." parts, no trailing slash, "." for nothing.
std::string pure_path(const std::string& text) {
  bool absolute = !text.empty() && text[0] == '/';
  std::string out = absolute ? "/" : "";
  for (std::size_t begin = 0; begin <= text.size();) {
    std::size_t end = std::min(text.find('/', begin), text.size());
    std::string part = text.substr(begin, end - begin);
    begin = end + 1;
    if (part.empty() || part == ".") continue;
    out += (out.empty() || out == "/" ? "" : "/") + part;
  }
  return out.empty() ? "." : out;
}

const TypeRef& path_like_type();
const TypeRef& path_type();
const TypeRef& posix_path_type();

class PathObject : public Object {
 public:
  explicit PathObject(std::string text) : text_(pure_path(text)) {}
  const TypeRef& type() const override { return posix_path_type(); }
  std::string repr(Evaluator&) const override { return "PosixPath(" + string_repr(text_) + ")"; }
  std::string str(Evaluator&) const override { return text_; }
  std::optional<std::size_t> hash() const override { return std::hash<std::string>()(text_); }
  bool equals(const Value& other) const override {
    auto* path = other.as<PathObject>();
    return path && path->text_ == text_;
  }
  std::optional<Value> compare(Evaluator&, lang::ast::CompareOperator op, const Value& other, bool) override;
  std::optional<Value> binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                 bool reflected) override;
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override;
  std::vector<std::string> attribute_names() const override;

  const std::string& text() const { return text_; }
  std::string name() const { return text_ == "/" || text_ == "." ? "" : path_basename(text_); }
  std::string suffix() const {
    std::string n = name();
    std::size_t dot = n.rfind('.');
    return dot == std::string::npos || dot == 0 || dot + 1 == n.size() ? "" : n.substr(dot);
  }
  std::string parent() const {
    if (text_ == "/" || text_ == ".") return text_;
    std::size_t slash = text_.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : text_.substr(0, slash);
  }

 private:
  std::string text_;
};

Value make_path(std::string text) { return Value(std::make_shared<PathObject>(std::move(text))); }

}  // namespace

// os.fspath: a str, a Path, or an object with __fspath__ returning str.
std::string fspath(Evaluator& evaluator, const Value& value) {
  if (const std::string* text = string_of(value)) return *text;
  if (auto* path = value.as<PathObject>()) return path->text();
  if (value.is_object() && !value.as<TypeObject>())
    if (auto method = evaluator.find_attribute(value, "__fspath__")) {
      Value result = evaluator.call(*method, std::vector<Value>{});
      if (const std::string* text = string_of(result)) return *text;
      raise(exc::TypeError(), "expected " + type_name(value) + ".__fspath__() to return str or bytes, not " +
                                  type_name(result));
    }
  raise(exc::TypeError(), "expected str, bytes or os.PathLike object, not " + type_name(value));
}

namespace {

std::optional<Value> PathObject::compare(Evaluator&, lang::ast::CompareOperator op, const Value& other, bool) {
  auto* path = other.as<PathObject>();
  if (!path) return std::nullopt;
  using Op = lang::ast::CompareOperator;
  switch (op) {
    case Op::eq: return Value::boolean(text_ == path->text_);
    case Op::not_eq_: return Value::boolean(text_ != path->text_);
    case Op::lt: return Value::boolean(text_ < path->text_);
    case Op::lt_e: return Value::boolean(text_ <= path->text_);
    case Op::gt: return Value::boolean(text_ > path->text_);
    case Op::gt_e: return Value::boolean(text_ >= path->text_);
    default: return std::nullopt;
  }
}

std::optional<Value> PathObject::binary_op(Evaluator& evaluator, lang::ast::BinaryOperator op, const Value& other,
                                           bool reflected) {
  if (op != lang::ast::BinaryOperator::div) return std::nullopt;
  if (!string_of(other) && !other.as<PathObject>()) return std::nullopt;
  std::string part = fspath(evaluator, other);
  return make_path(reflected ? path_join(part, text_) : path_join(text_, part));
}

std::optional<Value> PathObject::get_attribute(Evaluator& evaluator, const std::string& name) {
  if (name == "name") return make_str(this->name());
  if (name == "suffix") return make_str(suffix());
  if (name == "stem") {
    std::string n = this->name();
    return make_str(n.substr(0, n.size() - suffix().size()));
  }
  if (name == "parent") return make_path(parent());
  if (name == "parts") {
    std::vector<Value> parts;
    if (text_[0] == '/') parts.push_back(make_str("/"));
    for (std::size_t begin = text_[0] == '/' ? 1 : 0; begin < text_.size() && text_ != ".";) {
      std::size_t end = std::min(text_.find('/', begin), text_.size());
      parts.push_back(make_str(text_.substr(begin, end - begin)));
      begin = end + 1;
    }
    return make_tuple(std::move(parts));
  }
  return Object::get_attribute(evaluator, name);
}

std::vector<std::string> PathObject::attribute_names() const {
  std::vector<std::string> names = Object::attribute_names();
  for (const char* n : {"name", "parent", "parts", "stem", "suffix"}) names.push_back(n);
  std::sort(names.begin(), names.end());
  return names;
}

const std::string& path_text(const Value& self) { return self.as<PathObject>()->text(); }

// ------------------------------------------------------------ text files

const TypeRef& text_file_type();

// A text file opened by open() or Path.open(): UTF-8, universal newlines on
// reading (the whole file is read when it is opened), written through stdio.
class TextFile : public Object {
 public:
  TextFile(std::string name, std::string mode) : name_(std::move(name)), mode_(std::move(mode)) {}
  ~TextFile() override {
    if (out_) std::fclose(out_);
  }
  const TypeRef& type() const override { return text_file_type(); }
  std::string repr(Evaluator&) const override {
    if (closed_) return "<_io.TextIOWrapper name=" + string_repr(name_) + " closed>";
    return "<_io.TextIOWrapper name=" + string_repr(name_) + " mode=" + string_repr(mode_) + " encoding='UTF-8'>";
  }
  std::optional<Value> enter(Evaluator&) override {
    check_open();
    return Value(self());
  }
  bool exit(Evaluator&, const Value*) override {
    close();
    return false;
  }
  IteratorRef iterate(Evaluator&) override {
    check_open();
    auto file = std::static_pointer_cast<TextFile>(self());
    return std::make_shared<FunctionIterator>(
        [file](Evaluator&) -> std::optional<Value> {
          std::string line = file->read_line(-1);
          if (line.empty()) return std::nullopt;
          return make_str(std::move(line));
        },
        types::iterator());
  }
  std::optional<Value> get_attribute(Evaluator& evaluator, const std::string& name) override {
    if (name == "name") return make_str(name_);
    if (name == "mode") return make_str(mode_);
    if (name == "closed") return Value::boolean(closed_);
    if (name == "encoding") return make_str("UTF-8");
    return Object::get_attribute(evaluator, name);
  }

  void open(const std::string& mode_letter) {
    if (mode_letter == "r") {
      std::error_code error;
      if (fs::is_directory(name_, error)) raise_os_error(EISDIR, name_);
      std::FILE* in = std::fopen(name_.c_str(), "rb");
      if (!in) raise_os_error(errno, name_);
      std::string raw;
      char buffer[65536];
      std::size_t got;
      while ((got = std::fread(buffer, 1, sizeof buffer, in)) > 0) raw.append(buffer, got);
      std::fclose(in);
      // Universal newlines: \r\n and \r read as \n.
      content_.reserve(raw.size());
      for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '\r') {
          content_ += '\n';
          if (i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
        } else {
          content_ += raw[i];
        }
      }
      readable_ = true;
      return;
    }
    const char* c_mode = mode_letter == "w" ? "wb" : mode_letter == "a" ? "ab" : "wbx";
    out_ = std::fopen(name_.c_str(), c_mode);
    if (!out_) raise_os_error(errno, name_);
    writable_ = true;
  }
  void check_open() const {
    if (closed_) raise(exc::ValueError(), "I/O operation on closed file.");
  }
  void check_readable() const {
    check_open();
    if (!readable_) raise(exc::OSError(), "not readable");
  }
  void check_writable() const {
    check_open();
    if (!writable_) raise(exc::OSError(), "not writable");
  }
  // Up to `size` code points (all when negative).
  std::string read(std::int64_t size) {
    check_readable();
    std::size_t end = content_.size();
    if (size >= 0) end = advance(position_, size);
    std::string out = content_.substr(position_, end - position_);
    position_ = end;
    return out;
  }
  std::string read_line(std::int64_t size) {
    check_readable();
    std::size_t newline = content_.find('\n', position_);
    std::size_t end = newline == std::string::npos ? content_.size() : newline + 1;
    if (size >= 0) end = std::min(end, advance(position_, size));
    std::string out = content_.substr(position_, end - position_);
    position_ = end;
    return out;
  }
  void write(const std::string& text) {
    check_writable();
    if (std::fwrite(text.data(), 1, text.size(), out_) != text.size()) raise_os_error(errno, name_);
  }
  void flush() {
    check_open();
    if (out_) std::fflush(out_);
  }
  void close() {
    if (out_) {
      int failed = std::fclose(out_);
      out_ = nullptr;
      if (failed != 0) raise_os_error(errno, name_);
    }
    closed_ = true;
    content_.clear();
  }

 private:
  std::size_t advance(std::size_t from, std::int64_t code_points) const {
    std::size_t at = from;
    for (std::int64_t n = 0; at < content_.size() && n < code_points; ++n) {
      ++at;
      while (at < content_.size() && (static_cast<unsigned char>(content_[at]) & 0xC0) == 0x80) ++at;
    }
    return at;
  }

  std::string name_;
  std::string mode_;
  bool readable_ = false;
  bool writable_ = false;
  bool closed_ = false;
  std::string content_;
  std::size_t position_ = 0;
  std::FILE* out_ = nullptr;
};

TextFile& file_of(const Value& self) { return *self.as<TextFile>(); }

void check_encoding(const Value& encoding) {
  if (encoding.is_none()) return;
  const std::string* name = string_of(encoding);
  if (!name) raise(exc::TypeError(), "open() argument 'encoding' must be str or None, not " + type_name(encoding));
  std::string lower;
  for (char c : *name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower != "utf-8" && lower != "utf8" && lower != "utf_8")
    raise(exc::ValueError(), "shardlang reads and writes UTF-8 text only, not encoding=" + string_repr(*name));
}

}  // namespace

// open(file, mode): the one way files are opened (the builtin, Path.open).
Value open_text_file(Evaluator& evaluator, const Value& file, const std::string& mode, const Value& encoding) {
  require_files(evaluator, "open()");
  std::string letter;
  bool valid = !mode.empty();
  for (char c : mode) {
    if (c == 'r' || c == 'w' || c == 'a' || c == 'x') {
      valid = valid && letter.empty();
      letter = c;
    } else if (c == 'b') {
      raise(exc::ValueError(), "binary mode (mode=" + string_repr(mode) +
                                   ") is not supported in shardlang: open() reads and writes text files");
    } else if (c == '+') {
      raise(exc::ValueError(), "mode " + string_repr(mode) +
                                   " is not supported in shardlang: a file is opened to read or to write, not both");
    } else if (c != 't') {
      valid = false;
    }
  }
  if (!valid || letter.empty()) raise(exc::ValueError(), "invalid mode: " + string_repr(mode));
  check_encoding(encoding);
  auto opened = std::make_shared<TextFile>(fspath(evaluator, file), mode);
  opened->open(letter);
  return Value(opened);
}

namespace {

const TypeRef& text_file_type() {
  static const TypeRef type = [] {
    TypeRef t = make_type("TextIOWrapper", types::object());
    t->add_method("read(self, size=-1, /)", [](Evaluator& ev, Arguments& a) {
      return make_str(file_of(a[0]).read(a[1].is_none() ? -1 : ev.index_of(a[1])));
    });
    t->add_method("readline(self, size=-1, /)", [](Evaluator& ev, Arguments& a) {
      return make_str(file_of(a[0]).read_line(a[1].is_none() ? -1 : ev.index_of(a[1])));
    });
    t->add_method("readlines(self, hint=-1, /)", [](Evaluator&, Arguments& a) {
      std::vector<Value> lines;
      for (std::string line; !(line = file_of(a[0]).read_line(-1)).empty();) lines.push_back(make_str(line));
      return make_list(std::move(lines));
    });
    t->add_method("write(self, text, /)", [](Evaluator&, Arguments& a) {
      auto* text = a[1].as<StrObject>();
      if (!text) raise(exc::TypeError(), "write() argument must be str, not " + type_name(a[1]));
      file_of(a[0]).write(text->value());
      return Value::integer(text->code_point_count());
    });
    t->add_method("writelines(self, lines, /)", [](Evaluator& ev, Arguments& a) {
      for (const Value& line : ev.to_vector(a[1])) {
        const std::string* text = string_of(line);
        if (!text) raise(exc::TypeError(), "write() argument must be str, not " + type_name(line));
        file_of(a[0]).write(*text);
      }
      return Value::none();
    });
    t->add_method("flush(self, /)", [](Evaluator&, Arguments& a) {
      file_of(a[0]).flush();
      return Value::none();
    });
    t->add_method("close(self, /)", [](Evaluator&, Arguments& a) {
      file_of(a[0]).close();
      return Value::none();
    });
    t->add_method("__enter__(self, /)", [](Evaluator& ev, Arguments& a) { return *file_of(a[0]).enter(ev); });
    t->add_method("__exit__(self, /, *args)", [](Evaluator& ev, Arguments& a) {
      file_of(a[0]).exit(ev, nullptr);
      return Value::none();
    });
    return t;
  }();
  return type;
}

// ------------------------------------------------------------ pathlib

bool exists_as(Evaluator& evaluator, const std::string& path, fs::file_type kind, const char* what) {
  require_files(evaluator, what);
  std::error_code error;
  fs::file_status status = fs::status(path, error);
  if (error || status.type() == fs::file_type::not_found) return false;
  return kind == fs::file_type::unknown || status.type() == kind;
}

std::vector<std::string> directory_entries(Evaluator& evaluator, const std::string& path, const char* what) {
  require_files(evaluator, what);
  std::error_code error;
  std::vector<std::string> names;
  fs::directory_iterator it(path.empty() ? "." : path, error);
  if (error) raise_os_error(error.value(), path);
  for (const auto& entry : it) names.push_back(entry.path().filename().string());
  return names;
}

void make_directories(Evaluator& evaluator, const std::string& path, bool parents, bool exist_ok, const char* what) {
  require_files(evaluator, what);
  std::error_code error;
  if (fs::is_directory(path, error)) {
    if (exist_ok) return;
    raise_os_error(EEXIST, path);
  }
  if (parents) fs::create_directories(path, error);
  else fs::create_directory(path, error);
  if (error) raise_os_error(error.value(), path);
}

void remove_file(Evaluator& evaluator, const std::string& path, bool missing_ok, const char* what) {
  require_files(evaluator, what);
  if (std::remove(path.c_str()) != 0 && !(missing_ok && errno == ENOENT)) raise_os_error(errno, path);
}

std::string read_whole(Evaluator& evaluator, const std::string& path, const Value& encoding) {
  Value file = open_text_file(evaluator, make_str(path), "r", encoding);
  std::string text = file_of(file).read(-1);
  file_of(file).close();
  return text;
}

void install_path_methods(TypeObject& t) {
  t.add_method("__fspath__(self, /)", [](Evaluator&, Arguments& a) { return make_str(path_text(a[0])); });
  t.add_method("as_posix(self, /)", [](Evaluator&, Arguments& a) { return make_str(path_text(a[0])); });
  t.add_method("is_absolute(self, /)", [](Evaluator&, Arguments& a) { return Value::boolean(path_text(a[0])[0] == '/'); });
  t.add_method("joinpath(self, /, *others)", [](Evaluator& ev, Arguments& a) {
    std::string text = path_text(a[0]);
    for (const Value& part : a[1].as<TupleObject>()->items) text = path_join(text, fspath(ev, part));
    return make_path(text);
  });
  t.add_method("with_name(self, name, /)", [](Evaluator& ev, Arguments& a) {
    auto* self = a[0].as<PathObject>();
    std::string name = fspath(ev, a[1]);
    if (self->name().empty()) raise(exc::ValueError(), ev.repr(a[0]) + " has an empty name");
    if (name.empty() || name.find('/') != std::string::npos || name == ".") raise(exc::ValueError(), "Invalid name " + string_repr(name));
    return make_path(path_join(self->parent(), name));
  });
  t.add_method("with_suffix(self, suffix, /)", [](Evaluator& ev, Arguments& a) {
    auto* self = a[0].as<PathObject>();
    std::string suffix = fspath(ev, a[1]);
    if ((!suffix.empty() && (suffix[0] != '.' || suffix.size() == 1)) || suffix.find('/') != std::string::npos)
      raise(exc::ValueError(), "Invalid suffix " + string_repr(suffix));
    std::string name = self->name();
    if (name.empty()) raise(exc::ValueError(), ev.repr(a[0]) + " has an empty name");
    return make_path(path_join(self->parent(), name.substr(0, name.size() - self->suffix().size()) + suffix));
  });
  t.add_method("absolute(self, /)", [](Evaluator&, Arguments& a) {
    const std::string& text = path_text(a[0]);
    return make_path(text[0] == '/' ? text : path_join(working_directory(), text));
  });
  t.add_method("resolve(self, /, strict=False)", [](Evaluator&, Arguments& a) {
    std::error_code error;
    fs::path resolved = fs::weakly_canonical(fs::absolute(path_text(a[0])), error);
    return make_path(error ? path_normpath(path_join(working_directory(), path_text(a[0]))) : resolved.string());
  });
  t.add_method("exists(self, /)", [](Evaluator& ev, Arguments& a) {
    return Value::boolean(exists_as(ev, path_text(a[0]), fs::file_type::unknown, "Path.exists()"));
  });
  t.add_method("is_file(self, /)", [](Evaluator& ev, Arguments& a) {
    return Value::boolean(exists_as(ev, path_text(a[0]), fs::file_type::regular, "Path.is_file()"));
  });
  t.add_method("is_dir(self, /)", [](Evaluator& ev, Arguments& a) {
    return Value::boolean(exists_as(ev, path_text(a[0]), fs::file_type::directory, "Path.is_dir()"));
  });
  t.add_method("open(self, /, mode='r', buffering=-1, encoding=None, errors=None, newline=None)",
               [](Evaluator& ev, Arguments& a) {
    const std::string* mode = string_of(a[1]);
    if (!mode) raise(exc::TypeError(), "open() argument 'mode' must be str, not " + type_name(a[1]));
    return open_text_file(ev, a[0], *mode, a[3]);
  });
  t.add_method("read_text(self, /, encoding=None, errors=None)", [](Evaluator& ev, Arguments& a) {
    return make_str(read_whole(ev, path_text(a[0]), a[1]));
  });
  t.add_method("write_text(self, /, data, encoding=None, errors=None, newline=None)", [](Evaluator& ev, Arguments& a) {
    auto* data = a[1].as<StrObject>();
    if (!data) raise(exc::TypeError(), "data must be str, not " + type_name(a[1]));
    Value file = open_text_file(ev, a[0], "w", a[2]);
    file_of(file).write(data->value());
    file_of(file).close();
    return Value::integer(data->code_point_count());
  });
  t.add_method("mkdir(self, /, mode=511, parents=False, exist_ok=False)", [](Evaluator& ev, Arguments& a) {
    make_directories(ev, path_text(a[0]), ev.truthy(a[2]), ev.truthy(a[3]), "Path.mkdir()");
    return Value::none();
  });
  t.add_method("unlink(self, /, missing_ok=False)", [](Evaluator& ev, Arguments& a) {
    remove_file(ev, path_text(a[0]), ev.truthy(a[1]), "Path.unlink()");
    return Value::none();
  });
  t.add_method("iterdir(self, /)", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> paths;
    for (const auto& name : directory_entries(ev, path_text(a[0]), "Path.iterdir()"))
      paths.push_back(make_path(path_join(path_text(a[0]), name)));
    return Value(std::make_shared<ListIterator>(std::move(paths), types::iterator()));
  });
}

// os.PathLike <- PurePath <- Path <- PosixPath, as isinstance sees them.
const TypeRef& path_like_type() {
  static const TypeRef type = make_type("PathLike", types::object());
  return type;
}

// Path(*segments): the segments joined as `/` joins them.
Value construct_path(Evaluator& evaluator, CallArgs& args) {
  if (!args.keywords.empty()) raise(exc::TypeError(), "Path() takes no keyword arguments");
  std::string text;
  for (const Value& part : args.positional) text = path_join(text, fspath(evaluator, part));
  return make_path(text);
}

const TypeRef& path_type() {
  static const TypeRef type = [] {
    TypeRef t = make_type("Path", make_type("PurePath", path_like_type()));
    t->set_constructor(construct_path);
    return t;
  }();
  return type;
}

const TypeRef& posix_path_type() {
  static const TypeRef type = [] {
    TypeRef t = make_type("PosixPath", path_type());
    t->set_constructor(construct_path);
    install_path_methods(*t);
    return t;
  }();
  return type;
}

// ------------------------------------------------------------ os, os.path

Value path_string(Evaluator& evaluator, const Arguments& a, std::size_t i) { return make_str(fspath(evaluator, a[i])); }

void install_os_path(ModuleObject& module) {
  module.add_function("join(a, /, *p)", [](Evaluator& ev, Arguments& a) {
    std::string path = fspath(ev, a[0]);
    for (const Value& part : a[1].as<TupleObject>()->items) path = path_join(path, fspath(ev, part));
    return make_str(path);
  });
  module.add_function("basename(p, /)", [](Evaluator& ev, Arguments& a) { return make_str(path_basename(fspath(ev, a[0]))); });
  module.add_function("dirname(p, /)", [](Evaluator& ev, Arguments& a) { return make_str(path_dirname(fspath(ev, a[0]))); });
  module.add_function("split(p, /)", [](Evaluator& ev, Arguments& a) {
    std::string path = fspath(ev, a[0]);
    return make_tuple({make_str(path_dirname(path)), make_str(path_basename(path))});
  });
  module.add_function("splitext(p, /)", [](Evaluator& ev, Arguments& a) {
    auto [root, extension] = path_splitext(fspath(ev, a[0]));
    return make_tuple({make_str(root), make_str(extension)});
  });
  module.add_function("normpath(path, /)", [](Evaluator& ev, Arguments& a) { return make_str(path_normpath(fspath(ev, a[0]))); });
  module.add_function("abspath(path, /)", [](Evaluator& ev, Arguments& a) {
    std::string path = fspath(ev, a[0]);
    return make_str(path_normpath(path[0] == '/' ? path : path_join(working_directory(), path)));
  });
  module.add_function("isabs(s, /)", [](Evaluator& ev, Arguments& a) {
    std::string path = fspath(ev, a[0]);
    return Value::boolean(!path.empty() && path[0] == '/');
  });
  module.add_function("exists(path, /)", [](Evaluator& ev, Arguments& a) {
    return Value::boolean(exists_as(ev, fspath(ev, a[0]), fs::file_type::unknown, "os.path.exists()"));
  });
  module.add_function("isfile(path, /)", [](Evaluator& ev, Arguments& a) {
    return Value::boolean(exists_as(ev, fspath(ev, a[0]), fs::file_type::regular, "os.path.isfile()"));
  });
  module.add_function("isdir(s, /)", [](Evaluator& ev, Arguments& a) {
    return Value::boolean(exists_as(ev, fspath(ev, a[0]), fs::file_type::directory, "os.path.isdir()"));
  });
  module.add("sep", make_str("/"));
}

}  // namespace

void install_os(Evaluator& evaluator, ModuleObject& module) {
  install_os_path(*evaluator.module("os.path"));
  module.add("PathLike", Value(path_like_type()));
  module.add("sep", make_str("/"));
  module.add("pathsep", make_str(":"));
  module.add("linesep", make_str("\n"));
  module.add("curdir", make_str("."));
  module.add("pardir", make_str(".."));
  module.add_function("fspath(path)", [](Evaluator& ev, Arguments& a) { return path_string(ev, a, 0); });
  module.add_function("getcwd()", [](Evaluator&, Arguments&) { return make_str(working_directory()); });
  // The host's environment is the host's, as its files are: behind the same switch.
  module.add_function("getenv(key, default=None)", [](Evaluator& ev, Arguments& a) {
    const std::string* key = string_of(a[0]);
    if (key == nullptr) raise(exc::TypeError(), "str expected, not " + type_name(a[0]));
    require_files(ev, "os.getenv()");
    const char* value = std::getenv(key->c_str());
    return value != nullptr ? make_str(value) : a[1];
  });
  module.add_function("listdir(path='.')", [](Evaluator& ev, Arguments& a) {
    std::vector<Value> names;
    for (auto& name : directory_entries(ev, fspath(ev, a[0]), "os.listdir()")) names.push_back(make_str(std::move(name)));
    return make_list(std::move(names));
  });
  module.add_function("makedirs(name, mode=511, exist_ok=False)", [](Evaluator& ev, Arguments& a) {
    make_directories(ev, fspath(ev, a[0]), true, ev.truthy(a[2]), "os.makedirs()");
    return Value::none();
  });
  module.add_function("remove(path)", [](Evaluator& ev, Arguments& a) {
    remove_file(ev, fspath(ev, a[0]), false, "os.remove()");
    return Value::none();
  });
}

void install_pathlib(Evaluator&, ModuleObject& module) {
  module.add("Path", Value(path_type()));
  module.add("PosixPath", Value(posix_path_type()));
  module.add("PurePath", Value(path_type()->base()));
}

void install_open(Evaluator& evaluator) {
  evaluator.builtins["open"] = Value(native(
      "open(file, mode='r', buffering=-1, encoding=None, errors=None, newline=None)", [](Evaluator& ev, Arguments& a) {
        const std::string* mode = string_of(a[1]);
        if (!mode) raise(exc::TypeError(), "open() argument 'mode' must be str, not " + type_name(a[1]));
        return open_text_file(ev, a[0], *mode, a[3]);
      }));
}

}  // namespace interp
