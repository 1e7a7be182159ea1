// mcmrun's private file (tools/mcmrun/private_file.h): a new directory of mode 0700 under
// $TMPDIR per file, the file of mode 0600 with the text, both gone with the object; two
// files never share a directory; a temporary directory that is missing is an error that
// names it, and leaves nothing.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "command_line.h"
#include "private_file.h"

namespace {

/// Sets TMPDIR for the scope of a test, back as it was after.
class TmpdirFor {
 public:
  explicit TmpdirFor(const std::string& dir) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpdirFor() {
    if (old_.empty())
      unsetenv("TMPDIR");
    else
      setenv("TMPDIR", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("mcmrun private file: its own directory, only its user's, removed after", "[mcmrun]") {
  const std::filesystem::path base =
      std::filesystem::temp_directory_path() / ("mcm-private-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(base);
  const TmpdirFor tmpdir(base.string());
  std::string path, dir;
  {
    const mcmrun::PrivateFile file("placement.hosts", "vm1\nvm2\n");
    path = file.path();
    dir = file.directory();
    CHECK(std::filesystem::path(dir).parent_path() == base);
    CHECK(std::filesystem::path(dir).filename().string().rfind("mcmrun-", 0) == 0);
    CHECK(std::filesystem::path(path).parent_path() == dir);
    CHECK(mode_of(dir) == 0700);
    CHECK(mode_of(path) == 0600);
    CHECK(text_of(path) == "vm1\nvm2\n");
    const mcmrun::PrivateFile other("placement.hosts", "vm3\n");
    CHECK(other.directory() != dir);
    CHECK(text_of(path) == "vm1\nvm2\n");
  }
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK_FALSE(std::filesystem::exists(dir));
  CHECK(std::filesystem::is_empty(base));
  CHECK(mcmrun::PrivateFile::pattern("placement.hosts") ==
        (base / "mcmrun-XXXXXX" / "placement.hosts").string());
  std::filesystem::remove_all(base);
}

TEST_CASE("mcmrun private file: a missing temporary directory is named in the error", "[mcmrun]") {
  const TmpdirFor tmpdir("/nonexistent-mcm-tmp");
  try {
    mcmrun::PrivateFile file("placement.hosts", "vm1\n");
    FAIL("no error");
  } catch (const mcmrun::UsageError& e) {
    CHECK_THAT(e.what(), Catch::Contains("/nonexistent-mcm-tmp"));
  }
}
