// The import system (language.md "import"): Python's import semantics over
// three sources, asked in order for each dotted name:
//
//   1. the built-in modules (Evaluator::modules: jax, numpy, functools, ...);
//   2. the host's module loader (the embedding API's Options::module_loader),
//      asked for the full dotted name;
//   3. the directories of the search path: `sys.path` for a top-level name
//      (the script's directory, then the host's and the user's entries), the
//      parent package's `__path__` for a submodule; in each, a package
//      `name/__init__.py` (or `.shl`), then `name.py`, then `name.shl`, and a
//      directory without `__init__` as a portion of a namespace package.
//
// Each module runs once, registered in `sys.modules` before its code runs (so
// a circular import sees the partly initialised module, as in CPython), and
// is removed again when its code fails. File access can be switched off by
// the host: then only the first two sources are asked, and every library
// function that touches a file (open, pathlib, json.load) refuses
// (require_file_access).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/python/objects.hpp"
#include "interp/python/scope.hpp"

namespace interp {

class Evaluator;
struct Frame;

// A module's source as the host's loader serves it.
struct ModuleSource {
  std::string text;
  std::string file;      // its __file__ and the name in tracebacks
  bool package = false;  // a package: its submodules are asked for as "name.sub"
};
using ModuleLoader = std::function<std::optional<ModuleSource>(const std::string& name)>;

class ImportSystem {
 public:
  // Makes the `sys` module's `path` (one entry, "": the working directory,
  // until set_script_directory) and `modules`.
  explicit ImportSystem(Evaluator& evaluator);

  bool file_access = true;
  ModuleLoader loader;

  // sys.path[0]: the directory of the script being run ("": the working
  // directory, as in Python's REPL and -c).
  void set_script_directory(const std::string& directory);
  // Appends directories to sys.path (-I, SHARDLANG_PATH, Options::module_path).
  void add_search_directories(const std::vector<std::string>& directories);

  // The module of an absolute dotted name, its parents imported first
  // (`import a.b.c` imports a, a.b and a.b.c). Raises ModuleNotFoundError,
  // naming the module and where it looked, or the error its code raised.
  Value import(const std::string& name);
  // The absolute name of `from <dots><name> import ...` run in `frame`.
  std::string resolve(const std::string& name, int level, const Frame& frame) const;
  // `from module import name`: the attribute, else the submodule
  // `module_name.name`; ImportError as CPython words it.
  Value import_from(const Value& module, const std::string& module_name, const std::string& name);
  // The names `from module import *` binds: __all__, else the public names.
  std::vector<std::string> star_names(const Value& module);

  // Raises PermissionError when file access is off; `what` names the
  // operation ("open()").
  void require_file_access(const std::string& what) const;

 private:
  struct Found;
  std::optional<Found> find(const std::string& name, const std::vector<std::string>& path,
                            std::vector<std::string>& searched) const;
  Value load(const std::string& name, Found found);
  std::shared_ptr<ModuleObject> new_module(const std::string& name, const Found& found);
  std::shared_ptr<const Program> compile(const ModuleObject& module, const Found& found);
  [[noreturn]] void not_found(const std::string& name, const std::vector<std::string>& searched) const;
  const Value* cached(const std::string& name) const;
  std::vector<std::string> search_path(const std::string& name);

  Evaluator& evaluator_;
  std::shared_ptr<ListObject> path_;     // sys.path
  std::shared_ptr<DictObject> modules_;  // sys.modules
  // The programs of the modules loaded: spans into their files (tracebacks,
  // where an array got its sharding) outlive the import.
  std::vector<std::shared_ptr<const Program>> programs_;
};

}  // namespace interp
