// The install functions of the host-language modules that live in their own
// files (contextlib, __future__, math, operator, string, itertools, ...);
// modules.cpp's registry calls each with its module object.
#pragma once

#include "interp/python/evaluator.hpp"

namespace interp {

void install_collections(Evaluator& evaluator, ModuleObject& module); // collections_module.cpp
// collections.OrderedDict and defaultdict, which jax.tree_util registers as pytree nodes.
const TypeRef& ordered_dict_type();
const TypeRef& defaultdict_type();
void install_dataclasses(Evaluator& evaluator, ModuleObject& module); // dataclasses_module.cpp
void install_enum(Evaluator& evaluator, ModuleObject& module);        // enum_module.cpp
void install_contextlib(Evaluator& evaluator, ModuleObject& module);  // contextlib_module.cpp
void install_future(Evaluator& evaluator, ModuleObject& module);      // contextlib_module.cpp
void install_itertools(Evaluator& evaluator, ModuleObject& module);   // itertools_module.cpp
void install_math(Evaluator& evaluator, ModuleObject& module);        // math_module.cpp
void install_operator(Evaluator& evaluator, ModuleObject& module);    // operator_module.cpp
void install_string(Evaluator& evaluator, ModuleObject& module);      // operator_module.cpp
void install_re(Evaluator& evaluator, ModuleObject& module);           // re_module.cpp (built with PCRE2)
void install_functools_wrappers(ModuleObject& module);                // functools_module.cpp: wraps, lru_cache, ...
// functools.partial's type (modules.cpp), and the constructor of it or of a
// subclass of it (jax.tree_util.Partial): partial objects of `type`.
const TypeRef& partial_type();
std::function<Value(Evaluator&, CallArgs&)> partial_constructor(const TypeRef& type);

// Files (files_module.cpp): os and os.path, pathlib, the builtin open(); json
// (json_module.cpp). Every file operation asks ImportSystem::require_file_access.
void install_os(Evaluator& evaluator, ModuleObject& module);
void install_pathlib(Evaluator& evaluator, ModuleObject& module);
void install_open(Evaluator& evaluator);
void install_json(Evaluator& evaluator, ModuleObject& module);
// os.fspath: a path's text (str, pathlib.Path, or an object with __fspath__).
std::string fspath(Evaluator& evaluator, const Value& value);
Value open_text_file(Evaluator& evaluator, const Value& file, const std::string& mode, const Value& encoding);

// Named tuples (named_tuples.cpp): collections.namedtuple, typing.NamedTuple,
// and an instance of a fresh named tuple class (functools' CacheInfo).
void install_named_tuple_function(Evaluator& evaluator, ModuleObject& module);
void install_typing_named_tuple(Evaluator& evaluator, ModuleObject& module);
Value make_named_tuple(Evaluator& evaluator, const std::string& module, const std::string& name,
                       const std::vector<std::string>& fields, std::vector<Value> values);
// A named tuple class of module `module` (lax.ConvDimensionNumbers).
Value make_named_tuple_class(Evaluator& evaluator, const std::string& module, const std::string& name,
                             const std::vector<std::string>& fields);
// For pytrees: whether a value is a named tuple instance, and one of the
// same class with other items.
bool is_named_tuple(const Value& value);
Value remake_named_tuple(const Value& like, std::vector<Value> items);
Value named_tuple_of(const TypeRef& cls, std::vector<Value> items);

}  // namespace interp
