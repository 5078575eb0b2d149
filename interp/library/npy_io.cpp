// np.save / np.load of .npy files (format version 1.0, NumPy's
// numpy/lib/format.py), only under the directories the host allows
// (Options::allowed_directories, given by the public API when it makes an
// evaluator; the CLI allows its working directory).
//
// dtypes: float32 '<f4', int32 '<i4', int8 '|i1', uint32 '<u4', float16
// '<f2', bool '|b1'. bfloat16 is written as NumPy with ml_dtypes writes it:
// ml_dtypes' bfloat16 has no type code, so its descr is the raw two-byte
// void '<V2'; np.load reads '<V2' / '|V2' back as bfloat16.
#include "interp/library/npy_io.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "devices/host_values.hpp"
#include "interp/python/builtins.hpp"
#include "interp/ops/runtime.hpp"

namespace interp {

using typecheck::DType;

namespace {

std::optional<std::string_view> descr_of(DType dtype) {
  switch (dtype) {
    case DType::float32: return "<f4";
    case DType::int32: return "<i4";
    case DType::int8: return "|i1";
    case DType::uint32: return "<u4";
    case DType::float16: return "<f2";
    case DType::bool_: return "|b1";
    case DType::bfloat16: return "<V2";
    default: return std::nullopt;
  }
}

std::optional<DType> dtype_of_descr(std::string_view descr) {
  for (DType dtype : {DType::float32, DType::int32, DType::int8, DType::uint32, DType::float16, DType::bool_, DType::bfloat16})
    if (descr_of(dtype) == descr) return dtype;
  if (descr == "|V2") return DType::bfloat16;
  return std::nullopt;
}

// The path, made absolute, when it lies under an allowed directory.
std::filesystem::path allowed_path(const std::vector<std::string>& allowed_directories, const std::string& name,
                                   std::string_view api) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path path = fs::weakly_canonical(fs::absolute(fs::path(name), error), error);
  if (!error)
    for (const auto& directory : allowed_directories) {
      fs::path root = fs::weakly_canonical(fs::absolute(fs::path(directory), error), error);
      if (error) continue;
      auto [root_end, path_at] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
      if (root_end == root.end()) return path;
    }
  raise(exc::ValueError(), std::string(api) + ": '" + name +
                               "' is outside the directories this host lets scripts read and write");
}

std::string shape_text(const typecheck::Shape& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

void save(Evaluator& evaluator, const std::vector<std::string>& allowed_directories, const Value& file,
          const Value& array_value) {
  const std::string* name = string_of(file);
  if (!name) raise(exc::TypeError(), "np.save: file must be a str path");
  std::string target = *name;
  if (!target.ends_with(".npy")) target += ".npy";  // as NumPy does
  auto path = allowed_path(allowed_directories, target, "np.save");
  ArrayRef array = to_array(evaluator, array_value);
  auto descr = descr_of(array->aval.dtype);
  if (!descr) raise(exc::TypeError(), "np.save: unsupported dtype " + std::string(typecheck::long_name(array->aval.dtype)));
  if (evaluator.mode == Evaluator::Mode::check || array->abstract()) return;
  std::string header = "{'descr': '" + std::string(*descr) + "', 'fortran_order': False, 'shape': " +
                       shape_text(array->aval.shape) + ", }";
  // Magic (6) + version (2) + length (2) + header, padded with spaces and
  // ended by '\n' to a multiple of 64 bytes.
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  auto global = global_value(evaluator, *array);
  std::ofstream out(path, std::ios::binary);
  std::string prefix = "\x93NUMPY\x01";
  prefix += '\0';
  prefix += static_cast<char>(header.size() & 0xff);
  prefix += static_cast<char>((header.size() >> 8) & 0xff);
  out << prefix << header;
  auto bytes = devices::element_bytes(global);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) raise(exc::ValueError(), "np.save: cannot write '" + target + "'");
}

// The value of `key` in the header dict text ("'shape': (2, 4), ").
std::string header_field(const std::string& header, const std::string& key) {
  auto at = header.find("'" + key + "':");
  if (at == std::string::npos) return "";
  at += key.size() + 3;
  while (at < header.size() && header[at] == ' ') ++at;
  if (at < header.size() && header[at] == '(') return header.substr(at, header.find(')', at) + 1 - at);
  if (at < header.size() && header[at] == '\'') return header.substr(at + 1, header.find('\'', at + 1) - at - 1);
  return header.substr(at, header.find_first_of(",}", at) - at);
}

Value load(Evaluator& evaluator, const std::vector<std::string>& allowed_directories, const Value& file) {
  const std::string* name = string_of(file);
  if (!name) raise(exc::TypeError(), "np.load: file must be a str path");
  auto path = allowed_path(allowed_directories, *name, "np.load");
  std::ifstream in(path, std::ios::binary);
  if (!in) raise(exc::ValueError(), "np.load: no such file: '" + *name + "'");
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto bad = [&]() { raise(exc::ValueError(), "np.load: '" + *name + "' is not a .npy file this version reads"); };
  if (contents.size() < 10 || contents.compare(0, 6, "\x93NUMPY") != 0) bad();
  int major = static_cast<unsigned char>(contents[6]);
  std::size_t length_bytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3) bad();
  std::size_t header_length = 0;
  for (std::size_t i = 0; i < length_bytes; ++i)
    header_length |= static_cast<std::size_t>(static_cast<unsigned char>(contents[8 + i])) << (8 * i);
  std::size_t data_at = 8 + length_bytes + header_length;
  if (data_at > contents.size()) bad();
  std::string header = contents.substr(8 + length_bytes, header_length);
  auto dtype = dtype_of_descr(header_field(header, "descr"));
  if (!dtype) raise(exc::TypeError(), "np.load: unsupported dtype '" + header_field(header, "descr") + "'");
  if (header_field(header, "fortran_order") != "False") raise(exc::NotImplementedError(), "np.load: Fortran-ordered arrays");
  typecheck::Shape shape;
  std::string shape_field = header_field(header, "shape");
  std::istringstream numbers(shape_field.size() >= 2 ? shape_field.substr(1, shape_field.size() - 2) : "");
  for (std::string item; std::getline(numbers, item, ',');) {
    if (item.find_first_not_of(' ') == std::string::npos) continue;
    try {
      shape.push_back(std::stoll(item));
    } catch (const std::exception&) {
      bad();
    }
    if (shape.back() < 0) bad();
  }
  auto count = static_cast<std::size_t>(devices::element_count(shape));
  auto element = static_cast<std::size_t>(typecheck::byte_size(*dtype));
  if (contents.size() - data_at != count * element) bad();
  typecheck::ArrayType aval;
  aval.dtype = *dtype;
  aval.shape = shape;
  aval.sharding = typecheck::Sharding::replicated(nullptr, shape.size());
  return Value(host_array(evaluator, aval, [&]() {
    auto data = std::as_bytes(std::span<const char>(contents.data() + data_at, count * element));
    auto made = devices::from_element_bytes(runtime_of(evaluator).ledger(), *dtype, shape, data);
    if (!made) raise_devices_error(made.error());
    return *made;
  }));
}

}  // namespace

void install_npy_io(Evaluator& evaluator, std::vector<std::string> allowed_directories) {
  auto numpy = evaluator.module("numpy");
  numpy->add_function("save(file, arr, allow_pickle=True, fix_imports=True)",
                      [allowed_directories](Evaluator& ev, Arguments& a) {
                        save(ev, allowed_directories, a[0], a[1]);
                        return Value();
                      });
  numpy->add_function("load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding='ASCII')",
                      [allowed_directories](Evaluator& ev, Arguments& a) { return load(ev, allowed_directories, a[0]); });
}

}  // namespace interp
