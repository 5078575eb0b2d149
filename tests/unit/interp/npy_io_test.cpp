// np.save / np.load through the public API: files byte-identical to NumPy
// 1.24's np.save, NumPy-written files read back, and paths outside
// Options::allowed_directories refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "shardlang/shardlang.hpp"

namespace {

namespace fs = std::filesystem;

// A .npy file as NumPy 1.24 writes it: the header dict padded with spaces
// and a newline to 128 bytes in all (the headers here are short).
std::string npy_file(const std::string& dict, const std::string& data) {
  std::string header = dict;
  header.append(128 - 10 - dict.size() - 1, ' ');
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(header.size());
  out += '\0';
  return out + header + data;
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class NpyIo : public ::testing::Test {
 protected:
  void SetUp() override {
    directory = fs::temp_directory_path() / ("shardlang_npy_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(directory);
  }
  void TearDown() override { fs::remove_all(directory); }

  shardlang::Result run(const std::string& body, bool allowed = true) {
    shardlang::Options options;
    options.platform = "cpu";
    options.devices = 8;
    options.output = [this](std::string_view text) { output += text; };
    if (allowed) options.allowed_directories.push_back(directory.string());
    options.file_access = true;  // the allowed directories are what limits np.load/np.save here
    shardlang::Interpreter interpreter(options);
    return interpreter.run("import numpy as np\nimport jax.numpy as jnp\nd = '" + directory.string() + "/'\n" + body,
                           "npy.shl");
  }

  fs::path directory;
  std::string output;
};

const std::string f32_data = from_hex("000000000000c03f00004040000090400000c0400000f0400000104100002841");

TEST_F(NpyIo, SaveWritesWhatNumpyWrites) {
  auto result = run(
      "np.save(d + 'a.npy', jnp.arange(8.0).reshape(2, 4) * 1.5)\n"
      "np.save(d + 'b', jnp.array([3, -4, 5]))\n"
      "np.save(d + 'c.npy', jnp.array([[True, False]]))\n");
  ASSERT_TRUE(result.diagnostics().empty()) << result.diagnostics()[0].message;
  EXPECT_EQ(read_file(directory / "a.npy"),
            npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", f32_data));
  EXPECT_EQ(read_file(directory / "b.npy"),
            npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", from_hex("03000000fcffffff05000000")));
  EXPECT_EQ(read_file(directory / "c.npy"),
            npy_file("{'descr': '|b1', 'fortran_order': False, 'shape': (1, 2), }", from_hex("0100")));
}

TEST_F(NpyIo, LoadReadsNumpyFilesAndBfloat16AsVoid) {
  std::ofstream(directory / "a.npy", std::ios::binary)
      << npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", f32_data);
  // bfloat16 1.5 and -2.0 as ml_dtypes saves them: raw two-byte voids.
  std::ofstream(directory / "h.npy", std::ios::binary)
      << npy_file("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }", from_hex("c03f00c0"));
  auto result = run(
      "a = np.load(d + 'a.npy')\n"
      "print(a, a.dtype)\n"
      "h = np.load(d + 'h.npy')\n"
      "print(h, h.dtype)\n");
  ASSERT_TRUE(result.diagnostics().empty()) << result.diagnostics()[0].message;
  EXPECT_EQ(output, "[[ 0.   1.5  3.   4.5]\n [ 6.   7.5  9.  10.5]] float32\n[1.5 -2] bfloat16\n");
}

TEST_F(NpyIo, RoundTripsEveryDtype) {
  auto result = run(
      "x = jnp.arange(8.0).reshape(2, 4) * 1.5\n"
      "for name, a in [('f', x), ('i', jnp.array([3, -4, 5])), ('b', x > 3), ('h', x.astype(jnp.bfloat16)),\n"
      "                ('s', jnp.float32(2.5))]:\n"
      "  np.save(d + name, a)\n"
      "  back = np.load(d + name + '.npy')\n"
      "  print(name, back.dtype, back.shape, np.allclose(back.astype(jnp.float32), a.astype(jnp.float32)))\n");
  ASSERT_TRUE(result.diagnostics().empty()) << result.diagnostics()[0].message;
  EXPECT_EQ(output,
            "f float32 (2, 4) True\ni int32 (3,) True\nb bool (2, 4) True\nh bfloat16 (2, 4) True\ns float32 () True\n");
}

TEST_F(NpyIo, PathsOutsideTheAllowedDirectoriesAreRefused) {
  auto result = run("np.save(d + 'a.npy', jnp.zeros(3))\n", false);
  ASSERT_EQ(result.diagnostics().size(), 1u);
  EXPECT_NE(result.diagnostics()[0].message.find("is outside the directories this host lets scripts read and write"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(directory / "a.npy"));
}

}  // namespace
