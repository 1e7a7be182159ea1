// A fresh directory under /tmp for one test, removed with everything in it when the test
// ends (also when it fails).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace mcm::test {

struct TempDir {
  TempDir() {
    char name[] = "/tmp/mcm_unit_test_XXXXXX";
    path = mkdtemp(name) != nullptr ? name : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  /// Writes `text` to the file `name` in the directory.
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path + "/" + name) << text;
  }
  bool has(const std::string& name) const { return std::filesystem::exists(path + "/" + name); }
  std::string path;  ///< empty when the directory could not be made
};

}  // namespace mcm::test
