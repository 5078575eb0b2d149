// The import system (imports.hpp): finding a module by its dotted name,
// running it once, and CPython's rules and messages for relative names,
// `from ... import` and the errors.
#include "interp/python/imports.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "interp/python/evaluator.hpp"
#include "lang/parser.hpp"

namespace interp {

namespace fs = std::filesystem;

// Where a module was found: its source (a file, or the host's loader), or
// the directories of a namespace package.
struct ImportSystem::Found {
  std::string file;                // __file__; empty for a namespace package
  std::optional<std::string> text; // the host's source; read from `file` when empty
  bool package = false;
  std::vector<std::string> path;   // a package's __path__
};

namespace {

// The suffixes of importable source files, in the order they are tried.
constexpr const char* suffixes[] = {".py", ".shl"};

bool is_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

bool is_folder(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

// An entry of the search path as a directory: "" is the working directory;
// the result is absolute, as CPython's module __file__ is.
fs::path directory_of(const std::string& entry) {
  std::error_code error;
  fs::path path = fs::absolute(entry.empty() ? fs::path(".") : fs::path(entry), error);
  if (error) path = entry;
  return path.lexically_normal();
}

std::string text_of(const fs::path& path) {
  std::string text = path.string();
  if (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

std::optional<std::string> read_text(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

std::string parent_of(const std::string& name) {
  auto dot = name.rfind('.');
  return dot == std::string::npos ? std::string() : name.substr(0, dot);
}

[[noreturn]] void raise_with_notes(const TypeRef& cls, const std::string& message, const std::vector<std::string>& notes) {
  auto exception = std::make_shared<ExceptionObject>(cls, std::vector<Value>{make_str(message)});
  for (const auto& note : notes) exception->notes.emplace_back(lang::Span{}, note);
  throw PyError{std::move(exception)};
}

}  // namespace

ImportSystem::ImportSystem(Evaluator& evaluator)
    : evaluator_(evaluator), path_(std::make_shared<ListObject>(std::vector<Value>{})), modules_(make_dict()) {
  path_->items.push_back(make_str(""));
  auto sys = evaluator.module("sys");
  sys->add("path", Value(path_));
  sys->add("modules", Value(modules_));
  modules_->table.insert(make_str("sys"), Value(sys));
  modules_->table.insert(make_str("__main__"), Value(evaluator.main_module));
}

void ImportSystem::set_script_directory(const std::string& directory) {
  if (path_->items.empty()) path_->items.push_back(make_str(directory));
  else path_->items[0] = make_str(directory);
}

void ImportSystem::add_search_directories(const std::vector<std::string>& directories) {
  for (const auto& directory : directories) path_->items.push_back(make_str(directory));
}

void ImportSystem::require_file_access(const std::string& what) const {
  if (!file_access)
    raise(exc::PermissionError(), what + ": file access is off in this interpreter (the embedding program did not turn it on)");
}

const Value* ImportSystem::cached(const std::string& name) const { return modules_->table.find(make_str(name)); }

Value ImportSystem::import(const std::string& name) {
  if (const Value* module = cached(name)) {
    if (module->is_none()) raise(exc::ModuleNotFoundError(), "import of " + name + " halted; None in sys.modules");
    return *module;
  }
  std::string parent = parent_of(name);
  if (!parent.empty()) {
    import(parent);
    // The parent's code may have imported this module already.
    if (const Value* module = cached(name)) return *module;
  }
  if (auto builtin = evaluator_.modules.find(name); builtin != evaluator_.modules.end()) {
    Value module(builtin->second);
    modules_->table.insert(make_str(name), module);
    return module;
  }
  std::vector<std::string> searched;
  if (loader) {
    std::optional<ModuleSource> served;
    try {
      served = loader(name);
    } catch (const std::exception& error) {
      raise(exc::ImportError(), "the host's module loader failed for '" + name + "': " + error.what());
    }
    if (served) {
      Found found{served->file.empty() ? "<" + name + ">" : served->file, std::move(served->text), served->package, {}};
      return load(name, std::move(found));
    }
    searched.push_back("the host's module loader");
  }
  std::vector<std::string> path = search_path(name);
  std::optional<Found> found = file_access ? find(name, path, searched) : std::nullopt;
  if (!found) not_found(name, searched);
  return load(name, std::move(*found));
}

// sys.path for a top-level name; the parent package's __path__ for a submodule.
std::vector<std::string> ImportSystem::search_path(const std::string& name) {
  std::string parent = parent_of(name);
  Value entries(path_);
  if (!parent.empty()) {
    // A built-in module has no directories: its submodules are all built in.
    if (auto* module = cached(parent)->as<ModuleObject>(); module && module->origin == ModuleObject::Origin::builtin)
      return {};
    auto found = evaluator_.find_attribute(*cached(parent), "__path__");
    if (!found) raise(exc::ModuleNotFoundError(), "No module named '" + name + "'; '" + parent + "' is not a package");
    entries = *found;
  }
  std::vector<std::string> path;
  for (const Value& entry : evaluator_.to_vector(entries))
    if (const std::string* text = string_of(entry)) path.push_back(*text);
  return path;
}

std::optional<ImportSystem::Found> ImportSystem::find(const std::string& name, const std::vector<std::string>& path,
                                                      std::vector<std::string>& searched) const {
  std::string tail = name.substr(name.rfind('.') + 1);
  std::vector<std::string> portions;  // of a namespace package
  for (const auto& entry : path) {
    fs::path directory = directory_of(entry);
    searched.push_back(text_of(directory));
    fs::path package = directory / tail;
    if (is_folder(package)) {
      for (const char* suffix : suffixes) {
        fs::path init = package / (std::string("__init__") + suffix);
        if (is_file(init)) return Found{text_of(init), std::nullopt, true, {text_of(package)}};
      }
    }
    for (const char* suffix : suffixes) {
      fs::path file = directory / (tail + suffix);
      if (is_file(file)) return Found{text_of(file), std::nullopt, false, {}};
    }
    if (is_folder(package)) portions.push_back(text_of(package));
  }
  if (!portions.empty()) return Found{{}, std::nullopt, true, std::move(portions)};
  return std::nullopt;
}

void ImportSystem::not_found(const std::string& name, const std::vector<std::string>& searched) const {
  std::string tail = name.substr(name.rfind('.') + 1);
  std::vector<std::string> notes;
  if (!searched.empty()) {
    std::string places;
    for (const auto& place : searched) places += (places.empty() ? "" : ", ") + place;
    notes.push_back("looked for " + tail + ".py, " + tail + ".shl and a package " + tail + "/ in: " + places);
  }
  if (!file_access)
    notes.push_back("file access is off in this interpreter: only the built-in modules" +
                    std::string(loader ? " and the host's module loader" : "") + " are searched");
  raise_with_notes(exc::ModuleNotFoundError(), "No module named '" + name + "'", notes);
}

std::shared_ptr<ModuleObject> ImportSystem::new_module(const std::string& name, const Found& found) {
  auto module = evaluator_.new_user_module(name);
  Namespace& names = module->globals();
  names["__name__"] = make_str(name);
  names["__doc__"] = Value::none();
  names["__package__"] = make_str(found.package ? name : parent_of(name));
  if (found.package) {
    std::vector<Value> path;
    for (const auto& directory : found.path) path.push_back(make_str(directory));
    names["__path__"] = make_list(std::move(path));
  }
  if (found.file.empty()) {
    module->origin = ModuleObject::Origin::namespace_package;
  } else {
    module->origin = ModuleObject::Origin::file;
    names["__file__"] = make_str(found.file);
  }
  return module;
}

// The module's source parsed and resolved; a syntax error is raised as
// SyntaxError located in the module's file.
std::shared_ptr<const Program> ImportSystem::compile(const ModuleObject& module, const Found& found) {
  std::optional<std::string> text = found.text ? found.text : read_text(found.file);
  if (!text) raise(exc::ImportError(), "cannot read '" + found.file + "' (the source of module '" + module.name() + "')");
  auto file = lang::SourceFile::from_text(found.file, std::move(*text));
  lang::ParseResult parsed = lang::parse(file);
  std::vector<lang::Diagnostic> errors = parsed.diagnostics;
  auto program = std::make_shared<Program>();
  if (parsed.ok()) {
    program->module = parsed.module;
    program->resolution = Resolution::analyze(*parsed.module, errors);
  }
  programs_.push_back(program);
  if (errors.empty()) return program;
  // Keep the file alive for the error's location, then raise it there.
  auto holder = std::make_shared<Program>();
  holder->module = std::make_shared<lang::ast::Module>();
  holder->module->source = file;
  programs_.push_back(holder);
  const lang::Diagnostic& first = errors.front();
  lang::Span span = file->span(file->offset(first.where.begin), file->offset(first.where.end));
  auto exception = std::make_shared<ExceptionObject>(exc::SyntaxError(), std::vector<Value>{make_str(first.message)});
  exception->traceback.push_back(TracebackEntry{span, "<module>"});
  exception->hint = first.hint;
  throw PyError{std::move(exception)};
}

Value ImportSystem::load(const std::string& name, Found found) {
  std::shared_ptr<ModuleObject> module = new_module(name, found);
  Value value(module);
  Value key = make_str(name);
  if (!found.file.empty()) {
    std::shared_ptr<const Program> program = compile(*module, found);
    modules_->table.insert(key, value);
    module->initializing = true;
    try {
      evaluator_.execute(program, *module);
    } catch (PyError&) {
      module->initializing = false;
      modules_->table.erase(key);
      throw;
    }
    module->initializing = false;
  } else {
    modules_->table.insert(key, value);
  }
  // The module in sys.modules (its code may have replaced itself there),
  // bound in its parent package.
  if (const Value* registered = cached(name)) value = *registered;
  std::string parent = parent_of(name);
  if (!parent.empty())
    if (const Value* package = cached(parent); package && package->is_object())
      package->object()->set_attribute(evaluator_, name.substr(parent.size() + 1), value);
  return value;
}

std::string ImportSystem::resolve(const std::string& name, int level, const Frame& frame) const {
  if (level == 0) return name;
  const Namespace& globals = **frame.globals;
  std::string package;
  auto found = globals.find("__package__");
  if (found != globals.end() && string_of(found->second)) {
    package = *string_of(found->second);
  } else if (auto module_name = globals.find("__name__"); module_name != globals.end() && string_of(module_name->second)) {
    package = globals.count("__path__") ? *string_of(module_name->second) : parent_of(*string_of(module_name->second));
  }
  if (package.empty()) raise(exc::ImportError(), "attempted relative import with no known parent package");
  std::string base = package;
  for (int i = 1; i < level; ++i) {
    auto dot = base.rfind('.');
    if (dot == std::string::npos) raise(exc::ImportError(), "attempted relative import beyond top-level package");
    base.resize(dot);
  }
  return name.empty() ? base : base + "." + name;
}

Value ImportSystem::import_from(const Value& module, const std::string& module_name, const std::string& name) {
  if (auto value = evaluator_.find_attribute(module, name)) return *value;
  // A submodule not imported yet: `from pkg import mod`.
  if (evaluator_.find_attribute(module, "__path__")) {
    std::string full = module_name + "." + name;
    try {
      import(full);
    } catch (PyError& error) {
      // Only "this very submodule is missing" becomes the ImportError below.
      auto* exception = error.exception.get();
      bool missing = exception->type() == exc::ModuleNotFoundError() && !exception->args.empty() &&
                     string_of(exception->args[0]) && *string_of(exception->args[0]) == "No module named '" + full + "'";
      if (!missing) throw;
    }
    if (auto value = evaluator_.find_attribute(module, name)) return *value;
    if (const Value* imported = cached(full)) return *imported;
  }
  auto* object = module.as<ModuleObject>();
  std::string where = "unknown location";
  if (auto file = evaluator_.find_attribute(module, "__file__"); file && string_of(*file)) where = *string_of(*file);
  if (object && object->initializing)
    raise(exc::ImportError(), "cannot import name '" + name + "' from partially initialized module '" + module_name +
                                  "' (most likely due to a circular import) (" + where + ")");
  raise(exc::ImportError(), "cannot import name '" + name + "' from '" + module_name + "' (" + where + ")");
}

std::vector<std::string> ImportSystem::star_names(const Value& module) {
  std::vector<std::string> names;
  if (auto all = evaluator_.find_attribute(module, "__all__")) {
    for (const Value& item : evaluator_.to_vector(*all)) {
      const std::string* text = string_of(item);
      if (!text) raise(exc::TypeError(), "Item in " + evaluator_.repr(module) + ".__all__ must be str, not " + type_name(item));
      names.push_back(*text);
    }
    return names;
  }
  if (!module.is_object()) return names;
  for (const auto& name : module.object()->attribute_names())
    if (!name.empty() && name[0] != '_') names.push_back(name);
  return names;
}

}  // namespace interp
