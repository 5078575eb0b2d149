// The `shardlang` Python module (pybind11): the public embedding API
// (include/shardlang/shardlang.hpp, and nothing else of the interpreter) as
// Python objects. NumPy arrays cross through the buffer protocol: in, each
// block is copied once into its shard; out, an array held by one buffer is a
// read-only view of it (as np.asarray of a jax.Array is read-only), any
// other is assembled once. bfloat16 is ml_dtypes.bfloat16 where ml_dtypes is
// installed, else its raw bits as uint16. Errors are shardlang.Error
// exceptions carrying the diagnostics; Ctrl-C interrupts a running script.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <shardlang/shardlang.hpp>

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

// ------------------------------------------------------------ errors

// shardlang.Error: `diagnostics` (every one), `diagnostic` (the last error:
// the uncaught one), `exception_type` ("NameError"); str() is the rendered
// text, as the command line prints it.
PyObject* error_class = nullptr;

[[noreturn]] void raise_error(const shardlang::Result& result) {
  std::string text;
  py::list diagnostics;
  py::object last_error = py::none();
  for (const shardlang::Diagnostic& diagnostic : result.diagnostics()) {
    text += diagnostic.render();
    diagnostics.append(py::cast(diagnostic));
    if (diagnostic.severity == shardlang::Severity::error) last_error = py::cast(diagnostic);
  }
  if (!text.empty() && text.back() == '\n') text.pop_back();
  py::object error = py::reinterpret_borrow<py::object>(error_class)(text);
  error.attr("diagnostics") = diagnostics;
  error.attr("diagnostic") = last_error;
  error.attr("exception_type") = result.exception_type();
  PyErr_SetObject(error_class, error.ptr());
  throw py::error_already_set();
}

// ------------------------------------------------------------ dtypes

// ml_dtypes.bfloat16's NumPy dtype, or None when ml_dtypes is absent.
py::object bfloat16_dtype() {
  try {
    return py::module_::import("ml_dtypes").attr("bfloat16");
  } catch (py::error_already_set&) {
    return py::none();
  }
}

py::dtype numpy_dtype(shardlang::DType dtype) {
  switch (dtype) {
    case shardlang::DType::bool_: return py::dtype("bool");
    case shardlang::DType::int8: return py::dtype("int8");
    case shardlang::DType::int32: return py::dtype("int32");
    case shardlang::DType::uint32: return py::dtype("uint32");
    case shardlang::DType::float16: return py::dtype("float16");
    case shardlang::DType::bfloat16: {
      py::object bfloat16 = bfloat16_dtype();
      return bfloat16.is_none() ? py::dtype("uint16") : py::dtype::from_args(bfloat16);
    }
    case shardlang::DType::float32: return py::dtype("float32");
  }
  return py::dtype("float32");
}

// The shardlang dtype a NumPy dtype maps to, as jnp.asarray maps it with
// 64-bit types disabled (int64 -> int32, float64 -> float32); nothing for a
// dtype shardlang has no type for.
std::optional<shardlang::DType> shardlang_dtype(const py::dtype& dtype) {
  char kind = dtype.kind();
  auto size = dtype.itemsize();
  if (py::str(dtype.attr("name")).cast<std::string>() == "bfloat16") return shardlang::DType::bfloat16;
  if (kind == 'b') return shardlang::DType::bool_;
  if (kind == 'i' && size == 1) return shardlang::DType::int8;
  if (kind == 'i' && (size == 4 || size == 8)) return shardlang::DType::int32;
  if (kind == 'u' && (size == 4 || size == 8)) return shardlang::DType::uint32;
  if (kind == 'f' && size == 2) return shardlang::DType::float16;
  if (kind == 'f' && (size == 4 || size == 8)) return shardlang::DType::float32;
  return std::nullopt;
}

// ------------------------------------------------------------ values

// A value the host cannot represent (a function, a mesh): handed back to
// the interpreter it came from as it is.
struct OpaqueValue {
  shardlang::Value value;
};

py::object array_to_python(const shardlang::Array& array) {
  py::dtype dtype = numpy_dtype(array.dtype());
  std::vector<py::ssize_t> shape(array.shape().begin(), array.shape().end());
  std::span<const std::byte> bytes = array.bytes();
  if (!bytes.empty() || array.size() == 0) {
    // A view of the one buffer; the capsule keeps the array alive.
    auto* kept = new shardlang::Array(array);
    py::capsule owner(kept, [](void* pointer) { delete static_cast<shardlang::Array*>(pointer); });
    py::array view(dtype, shape, {}, bytes.empty() ? nullptr : bytes.data(), owner);
    view.attr("setflags")(py::arg("write") = false);
    return view;
  }
  py::array out(dtype, shape);
  {
    py::gil_scoped_release release;
    array.read(out.mutable_data(), array.byte_size());
  }
  return out;
}

py::object to_python(const shardlang::Value& value) {
  switch (value.kind()) {
    case shardlang::Value::Kind::none: return py::none();
    case shardlang::Value::Kind::boolean: return py::bool_(value.as_bool());
    case shardlang::Value::Kind::integer: return py::int_(value.as_int());
    case shardlang::Value::Kind::number: return py::float_(value.as_double());
    case shardlang::Value::Kind::string: return py::str(value.as_string());
    case shardlang::Value::Kind::list:
    case shardlang::Value::Kind::tuple: {
      py::list items;
      for (const auto& item : value.items()) items.append(to_python(item));
      if (value.kind() == shardlang::Value::Kind::list) return items;
      return py::tuple(items);
    }
    case shardlang::Value::Kind::array: return array_to_python(value.as_array());
    case shardlang::Value::Kind::other: return py::cast(OpaqueValue{value});
  }
  return py::none();
}

// spec=: P(...)'s arguments as a sequence: None, 'X' or a tuple of axes each.
std::optional<shardlang::PartitionSpec> spec_argument(const py::object& spec) {
  if (spec.is_none()) return std::nullopt;
  shardlang::PartitionSpec out;
  for (const py::handle& entry : spec) {
    if (entry.is_none()) {
      out.emplace_back();
    } else if (py::isinstance<py::str>(entry)) {
      out.push_back({entry.cast<std::string>()});
    } else {
      out.push_back(entry.cast<std::vector<std::string>>());
    }
  }
  return out;
}

class PyInterpreter;
shardlang::Value to_value(PyInterpreter& interpreter, const py::handle& object, int depth = 0);

// A Python object the C++ side holds (a callback, a host function): shared
// by a shared_ptr, so that the C++ side copies it without touching Python's
// reference counts, and released with the GIL taken, on whichever thread
// the last holder goes.
struct Held {
  explicit Held(py::object object) : object(std::move(object)) {}
  ~Held() {
    py::gil_scoped_acquire acquire;
    object = py::object();
  }
  py::object object;
};

// Options::module_loader from a Python callable: name -> None (not served
// here), the source as a str, or a tuple (source, file[, package]). What it
// raises is reported as unraisable and the search goes on.
shardlang::ModuleLoader python_module_loader(py::object loader) {
  auto held = std::make_shared<Held>(std::move(loader));
  return [held](std::string_view name) -> std::optional<shardlang::ModuleSource> {
    py::gil_scoped_acquire acquire;
    try {
      py::object served = held->object(py::str(name.data(), name.size()));
      if (served.is_none()) return std::nullopt;
      shardlang::ModuleSource module;
      if (py::isinstance<py::str>(served)) {
        module.source = served.cast<std::string>();
        return module;
      }
      auto parts = served.cast<py::tuple>();
      if (parts.size() < 2 || parts.size() > 3)
        throw py::value_error("module_loader returns None, a str or a tuple (source, file[, package])");
      module.source = parts[0].cast<std::string>();
      module.file = parts[1].cast<std::string>();
      module.package = parts.size() == 3 && parts[2].cast<bool>();
      return module;
    } catch (py::error_already_set& error) {
      error.discard_as_unraisable("shardlang module_loader");
    } catch (const py::builtin_exception& error) {  // a wrong answer's cast or value error
      error.set_error();
      py::error_already_set().discard_as_unraisable("shardlang module_loader");
    }
    return std::nullopt;
  };
}

class PyInterpreter {
 public:
  PyInterpreter(const std::string& platform, int devices, const std::string& chip, py::object output,
                py::object display, std::vector<std::string> allowed_directories, std::vector<std::string> argv,
                bool profile, std::vector<std::string> module_path, py::object module_loader, bool file_access)
  {
    shardlang::Options options;
    options.platform = platform;
    options.devices = devices;
    options.chip = chip;
    options.allowed_directories = std::move(allowed_directories);
    options.script_arguments = std::move(argv);
    options.profile = profile;
    options.module_path = std::move(module_path);
    options.file_access = file_access;
    if (!module_loader.is_none()) options.module_loader = python_module_loader(std::move(module_loader));
    auto write = std::make_shared<Held>(output.is_none() ? py::module_::import("sys").attr("stdout").attr("write")
                                                         : std::move(output));
    options.output = [write](std::string_view text) {
      py::gil_scoped_acquire acquire;
      try {
        write->object(py::str(text.data(), text.size()));
      } catch (py::error_already_set& error) {
        error.discard_as_unraisable("shardlang output callback");
      }
    };
    if (!display.is_none()) {
      auto show = std::make_shared<Held>(std::move(display));
      options.display = [show](const shardlang::Display& shown) {
        py::gil_scoped_acquire acquire;
        try {
          show->object(shown.kind == shardlang::Display::Kind::value ? "value" : "picture", shown.text,
                       shown.html.empty() ? py::object(py::none()) : py::object(py::str(shown.html)));
        } catch (py::error_already_set& error) {
          error.discard_as_unraisable("shardlang display callback");
        }
      };
    }
    interpreter_ = std::make_unique<shardlang::Interpreter>(std::move(options));
  }

  void run(const std::string& source, const std::string& name, bool interactive) {
    shardlang::Result result = interruptible([&]() {
      return interactive ? interpreter_->run_interactive(source, name) : interpreter_->run(source, name);
    });
    if (!result) raise_error(result);
  }

  void run_file(const std::string& path) {
    shardlang::Result result = interruptible([&]() { return interpreter_->run_file(path); });
    if (!result) raise_error(result);
  }

  std::vector<shardlang::Diagnostic> check(const std::string& source, const std::string& name) {
    std::vector<shardlang::Diagnostic> diagnostics;
    interruptible([&]() {
      diagnostics = interpreter_->check(source, name);
      return shardlang::Result();
    });
    return diagnostics;
  }

  py::object get(const std::string& name) {
    std::optional<shardlang::Value> value = interpreter_->get(name);
    if (!value) throw py::key_error(name);
    return to_python(*value);
  }

  void set(const std::string& name, const py::object& value, const py::object& spec, const py::object& dtype) {
    interpreter_->set(name, convert(value, spec, dtype));
  }

  ~PyInterpreter() {
    // The interpreter frees its values on a thread of its own, where the
    // Held objects take the GIL to let go of theirs.
    py::gil_scoped_release release;
    interpreter_.reset();
  }
  PyInterpreter(const PyInterpreter&) = delete;
  PyInterpreter& operator=(const PyInterpreter&) = delete;

  void define(const std::string& name, py::function function) {
    auto callable = std::make_shared<Held>(std::move(function));
    interpreter_->def(name, [this, callable](const shardlang::Args& args) -> shardlang::HostResult {
      py::gil_scoped_acquire acquire;
      try {
        py::tuple positional(args.positional.size());
        for (std::size_t i = 0; i < args.positional.size(); ++i) positional[i] = to_python(args.positional[i]);
        py::dict keywords;
        for (const auto& [key, value] : args.keywords) keywords[py::str(key)] = to_python(value);
        py::object result = callable->object(*positional, **keywords);
        return to_value(*this, result);
      } catch (py::error_already_set& error) {
        std::string type = py::str(error.type().attr("__name__"));
        std::string message = py::str(error.value());
        return shardlang::HostResult::error(type, message);
      }
    });
  }

  std::string type_of(const std::string& expression) {
    shardlang::Interpreter::TypeOf type = interpreter_->type_of(expression);
    if (!type.result) raise_error(type.result);
    return type.type;
  }

  // Python value -> shardlang value; NumPy arrays become arrays on this
  // interpreter's devices.
  shardlang::Value convert(const py::handle& value, const py::object& spec, const py::object& dtype) {
    if (!spec.is_none() || !dtype.is_none()) return shardlang::Value::array(make_array(value, spec, dtype));
    return to_value(*this, value);
  }

  shardlang::Array make_array(const py::handle& value, const py::object& spec_object, const py::object& dtype_object) {
    std::optional<shardlang::PartitionSpec> spec = spec_argument(spec_object);
    py::array array = py::array::ensure(value);
    if (!array) throw py::type_error("expected an array-like value, got " + std::string(py::str(py::type::of(value))));
    std::optional<shardlang::DType> dtype;
    if (!dtype_object.is_none()) {
      // 'bfloat16', np.float32, np.dtype('int8'), ml_dtypes.bfloat16
      std::string name = py::isinstance<py::str>(dtype_object)
                             ? dtype_object.cast<std::string>()
                             : py::str(py::dtype::from_args(dtype_object).attr("name")).cast<std::string>();
      dtype = shardlang::parse_dtype(name);
      if (!dtype) throw py::type_error("shardlang has no dtype " + name);
      bool raw_bits = array.dtype().kind() == 'u' && array.itemsize() == 2 &&
                      (*dtype == shardlang::DType::bfloat16 || *dtype == shardlang::DType::float16);
      if (!raw_bits && shardlang_dtype(array.dtype()) != dtype)
        array = py::reinterpret_steal<py::array>(array.attr("astype")(numpy_dtype(*dtype)).release());
    } else {
      dtype = shardlang_dtype(array.dtype());
      if (!dtype)
        throw py::type_error("shardlang has no dtype for NumPy's " + std::string(py::str(array.dtype())) +
                             " (bool, int8, int32, uint32, float16, bfloat16, float32; a uint16 array with "
                             "dtype='bfloat16' is taken as bfloat16 bits)");
      if (static_cast<std::size_t>(array.itemsize()) != shardlang::dtype_size(*dtype))  // int64, float64
        array = py::reinterpret_steal<py::array>(array.attr("astype")(numpy_dtype(*dtype)).release());
    }
    shardlang::HostArray host;
    host.dtype = *dtype;
    host.data = array.data();
    for (py::ssize_t d = 0; d < array.ndim(); ++d) {
      host.shape.push_back(array.shape(d));
      host.strides.push_back(array.strides(d));
    }
    shardlang::ArrayResult made;
    {
      py::gil_scoped_release release;
      made = interpreter_->make_array(host, spec);
    }
    if (!made.result) raise_error(made.result);
    return made.array;
  }

  shardlang::Interpreter& interpreter() { return *interpreter_; }

 private:
  // Runs `work` with the GIL released; a SIGINT that Python sees meanwhile
  // (Ctrl-C, a notebook's interrupt) interrupts the script, and when the
  // script ends on KeyboardInterrupt, Python's KeyboardInterrupt is raised.
  template <class Work>
  shardlang::Result interruptible(Work work) {
    std::optional<py::error_already_set> interrupted;
    shardlang::Result result;
    {
      py::gil_scoped_release release;
      auto running = std::async(std::launch::async, work);
      while (running.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
        py::gil_scoped_acquire acquire;
        if (PyErr_CheckSignals() != 0) {
          interrupted.emplace();  // takes the pending KeyboardInterrupt
          interpreter_->interrupt();
        }
      }
      result = running.get();
    }
    if (interrupted && result.exception_type() == "KeyboardInterrupt") {
      interrupted->restore();
      throw py::error_already_set();
    }
    return result;  // the script caught the KeyboardInterrupt: so is Python's
  }

  std::unique_ptr<shardlang::Interpreter> interpreter_;
};

shardlang::Value to_value(PyInterpreter& interpreter, const py::handle& object, int depth) {
  if (depth > 200) throw py::value_error("value nested too deeply");
  if (object.is_none()) return shardlang::Value::none();
  if (py::isinstance<py::bool_>(object)) return shardlang::Value::boolean(object.cast<bool>());
  if (py::isinstance<py::int_>(object)) return shardlang::Value::integer(object.cast<std::int64_t>());
  if (py::isinstance<py::float_>(object)) return shardlang::Value::number(object.cast<double>());
  if (py::isinstance<py::str>(object)) return shardlang::Value::string(object.cast<std::string>());
  if (py::isinstance<OpaqueValue>(object)) return object.cast<const OpaqueValue&>().value;
  if (py::isinstance<py::list>(object) || py::isinstance<py::tuple>(object)) {
    std::vector<shardlang::Value> items;
    for (const py::handle& item : object) items.push_back(to_value(interpreter, item, depth + 1));
    return py::isinstance<py::list>(object) ? shardlang::Value::list(std::move(items))
                                            : shardlang::Value::tuple(std::move(items));
  }
  if (py::isinstance<py::buffer>(object) || py::hasattr(object, "__array_interface__"))
    return shardlang::Value::array(interpreter.make_array(object, py::none(), py::none()));
  throw py::type_error("shardlang cannot take a value of type " + std::string(py::str(py::type::of(object).attr("__name__"))));
}

std::string severity_name(shardlang::Severity severity) {
  switch (severity) {
    case shardlang::Severity::error: return "error";
    case shardlang::Severity::warning: return "warning";
    case shardlang::Severity::note: return "note";
  }
  return "error";
}

}  // namespace

PYBIND11_MODULE(_shardlang, module) {
  module.doc() = "shardlang: a JAX-like language with sharded types, run on a simulated TPU mesh";
  module.attr("__version__") = shardlang::Interpreter::version();
  error_class = PyErr_NewExceptionWithDoc(
      "shardlang.Error",
      "A shardlang error: `diagnostics` (every diagnostic), `diagnostic` (the uncaught one), `exception_type`.",
      PyExc_Exception, nullptr);
  module.attr("Error") = py::reinterpret_borrow<py::object>(error_class);

  py::class_<shardlang::DiagnosticNote>(module, "Note")
      .def_property_readonly("file", [](const shardlang::DiagnosticNote& n) { return n.where.file; })
      .def_property_readonly("line", [](const shardlang::DiagnosticNote& n) { return n.where.line; })
      .def_property_readonly("column", [](const shardlang::DiagnosticNote& n) { return n.where.column; })
      .def_readonly("message", &shardlang::DiagnosticNote::message)
      .def("__repr__", [](const shardlang::DiagnosticNote& n) {
        return "<Note " + n.where.file + ":" + std::to_string(n.where.line) + ":" + std::to_string(n.where.column) +
               ": " + n.message + ">";
      });

  py::class_<shardlang::Diagnostic>(module, "Diagnostic")
      .def_property_readonly("severity", [](const shardlang::Diagnostic& d) { return severity_name(d.severity); })
      .def_readonly("code", &shardlang::Diagnostic::code)
      .def_property_readonly("file", [](const shardlang::Diagnostic& d) { return d.where.file; })
      .def_property_readonly("line", [](const shardlang::Diagnostic& d) { return d.where.line; })
      .def_property_readonly("column", [](const shardlang::Diagnostic& d) { return d.where.column; })
      .def_property_readonly("end_line", [](const shardlang::Diagnostic& d) { return d.where.end_line; })
      .def_property_readonly("end_column", [](const shardlang::Diagnostic& d) { return d.where.end_column; })
      .def_readonly("message", &shardlang::Diagnostic::message)
      .def_readonly("hint", &shardlang::Diagnostic::hint)
      .def_readonly("notes", &shardlang::Diagnostic::notes)
      .def_readonly("traceback", &shardlang::Diagnostic::traceback)
      .def_readonly("source_line", &shardlang::Diagnostic::source_line)
      .def("render", &shardlang::Diagnostic::render, py::arg("color") = false,
           "The text form the command line prints: traceback, location, source line with a caret, notes, hint.")
      .def("render_json", &shardlang::Diagnostic::render_json)
      .def("__str__", [](const shardlang::Diagnostic& d) { return d.render(); })
      .def("__repr__", [](const shardlang::Diagnostic& d) {
        return "<Diagnostic " + severity_name(d.severity) + " " + d.code + " at " + d.where.file + ":" +
               std::to_string(d.where.line) + ":" + std::to_string(d.where.column) + ": " + d.message + ">";
      });

  py::class_<OpaqueValue>(module, "Value", "A shardlang value Python has no type for (a function, a mesh).")
      .def("__repr__", [](const OpaqueValue& v) { return v.value.repr(); });

  py::class_<PyInterpreter>(module, "Interpreter")
      .def(py::init<const std::string&, int, const std::string&, py::object, py::object, std::vector<std::string>,
                    std::vector<std::string>, bool, std::vector<std::string>, py::object, bool>(),
           py::kw_only(), py::arg("platform") = "tpu", py::arg("devices") = 8, py::arg("chip") = "v5e",
           py::arg("output") = py::none(), py::arg("display") = py::none(),
           py::arg("allowed_directories") = std::vector<std::string>{}, py::arg("argv") = std::vector<std::string>{},
           py::arg("profile") = false, py::arg("module_path") = std::vector<std::string>{},
           py::arg("module_loader") = py::none(), py::arg("file_access") = true,
           "An interpreter with its own simulated devices. `output(text)` receives what print writes (default: "
           "sys.stdout); `display(kind, text, html)` receives echoed values (kind 'value') and pictures (kind "
           "'picture', with an HTML form) when set. Imports search the script's directory, then `module_path`; "
           "`module_loader(name)` may serve a module first (None, its source, or (source, file[, package])). "
           "`file_access=False` keeps scripts off the file system (imports, open, pathlib, os, np.load).")
      .def("run", &PyInterpreter::run, py::arg("source"), py::arg("name") = "<string>", py::arg("interactive") = false,
           "Runs source in the interpreter's global namespace; raises shardlang.Error. `interactive` echoes the "
           "value of each top-level expression, as the REPL does.")
      .def("run_file", &PyInterpreter::run_file, py::arg("path"))
      .def("check", &PyInterpreter::check, py::arg("source"), py::arg("name") = "<string>",
           "Types and shardings only, in a fresh namespace: the list of diagnostics (empty when clean).")
      .def("get", &PyInterpreter::get, py::arg("name"),
           "A global's value: None, bool, int, float, str, list, tuple, a NumPy array (read-only when it shares "
           "the interpreter's buffer), or a shardlang.Value. KeyError when there is none.")
      .def("set", &PyInterpreter::set, py::arg("name"), py::arg("value"), py::kw_only(), py::arg("spec") = py::none(),
           py::arg("dtype") = py::none(),
           "Binds a global. Arrays (NumPy, anything with the buffer protocol) are placed as jnp.asarray places "
           "them, or with spec=('X', None) as jax.device_put(x, NamedSharding(context mesh, P('X', None))).")
      .def("define", &PyInterpreter::define, py::arg("name"), py::arg("function"),
           "Makes a Python function callable from scripts; its exceptions are raised in the script.")
      .def("type_of", &PyInterpreter::type_of, py::arg("expression"),
           "The REPL's :type: an array's type with its sharding ('float32[8@X,2]'), else the Python type name.")
      .def("names", [](PyInterpreter& self) { return self.interpreter().global_names(); })
      .def("members", [](PyInterpreter& self, const std::string& expression) { return self.interpreter().member_names(expression); },
           py::arg("expression"))
      .def_static("is_complete", &shardlang::Interpreter::is_complete, py::arg("source"))
      .def("interrupt", [](PyInterpreter& self) { self.interpreter().interrupt(); })
      .def("profile_report", [](PyInterpreter& self, std::size_t rows) { return self.interpreter().profile_report(rows); },
           py::arg("max_rows") = 20)
      .def("estimated_seconds", [](PyInterpreter& self) { return self.interpreter().estimated_seconds(); });
}
