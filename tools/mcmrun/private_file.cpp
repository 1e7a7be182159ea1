#include "private_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "command_line.h"

namespace mcmrun {
namespace {

/// $TMPDIR (or /tmp); a UsageError when it is not a directory.
std::string temporary_directory() {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) {
    const char* tmpdir = std::getenv("TMPDIR");
    throw UsageError("no temporary directory for the ranks' placement (TMPDIR=" +
                     std::string(tmpdir != nullptr ? tmpdir : "") + "): " + ec.message());
  }
  return dir.string();
}

/// mkdtemp(3)'s template of the private directory's name.
constexpr const char* kDirectoryTemplate = "mcmrun-XXXXXX";

}  // namespace

std::string PrivateFile::pattern(const std::string& name) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  return (std::filesystem::path(ec ? "/tmp" : dir) / kDirectoryTemplate / name).string();
}

PrivateFile::PrivateFile(const std::string& name, const std::string& text) {
  const std::string dir =
      (std::filesystem::path(temporary_directory()) / kDirectoryTemplate).string();
  std::vector<char> buffer(dir.begin(), dir.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr)
    throw UsageError("cannot make a private directory " + dir +
                     " for the ranks' placement: " + std::strerror(errno));
  directory_ = buffer.data();
  path_ = (std::filesystem::path(directory_) / name).string();
  const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  std::string error;
  if (fd < 0) {
    error = std::strerror(errno);
  } else {
    for (std::size_t done = 0; done < text.size() && error.empty();) {
      const ssize_t n = write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        error = n < 0 ? std::strerror(errno) : "nothing written";
      else
        done += static_cast<std::size_t>(n);
    }
    if (close(fd) != 0 && error.empty()) error = std::strerror(errno);
  }
  if (!error.empty()) {
    const std::string path = path_;
    remove();
    throw UsageError("cannot write " + path + " (the ranks' placement): " + error);
  }
}

PrivateFile::~PrivateFile() {
  remove();
}

void PrivateFile::remove() {
  if (!path_.empty()) unlink(path_.c_str());
  if (!directory_.empty()) rmdir(directory_.c_str());
  path_.clear();
  directory_.clear();
}

}  // namespace mcmrun
