#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "mcm/clock.h"
#include "mcm/records.h"

namespace mcm::records {

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

std::string run_id_from_environment() {
  for (const char* name : {"MCM_RUN_ID", "PMIX_NAMESPACE"})
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return value;
  return "unknown";
}

Writer::Writer(const std::string& path, nlohmann::json header, std::size_t max_bytes)
    : path_(path), max_bytes_(max_bytes) {
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) {
    error_ = path + ": " + std::strerror(errno);
    return;
  }
  header["record"] = "header";
  header["schema"] = kSchema;
  header["version"] = kVersion;
  if (!header.contains("run")) header["run"] = run_id_from_environment();
  if (!header.contains("t")) header["t"] = mcm::wall_seconds();
  write(header);
}

Writer::Writer(Writer&& other) noexcept {
  *this = std::move(other);
}

Writer& Writer::operator=(Writer&& other) noexcept {
  if (this == &other) return *this;
  close();
  path_ = std::move(other.path_);
  file_ = std::exchange(other.file_, nullptr);
  buffer_ = std::move(other.buffer_);
  error_ = std::move(other.error_);
  max_bytes_ = other.max_bytes_;
  bytes_ = other.bytes_;
  records_ = other.records_;
  dropped_ = other.dropped_;
  return *this;
}

Writer::~Writer() {
  close();
}

void Writer::write(const nlohmann::json& record) {
  if (file_ == nullptr) {
    ++dropped_;
    return;
  }
  // Invalid UTF-8 (a host name, a reason built from bytes) is replaced, never thrown.
  std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line += '\n';
  if (bytes_ + line.size() > max_bytes_) {
    ++dropped_;
    return;
  }
  bytes_ += line.size();
  buffer_ += line;
  ++records_;
  if (buffer_.size() >= kFlushBytes) flush();
}

void Writer::flush() {
  if (file_ == nullptr || buffer_.empty()) return;
  const std::size_t n = std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
  const bool ok = n == buffer_.size() && std::fflush(file_) == 0;
  buffer_.clear();
  if (!ok) fail(std::strerror(errno));
}

void Writer::close() {
  if (file_ == nullptr) return;
  // The end record always fits: the limit applies to the others.
  nlohmann::json end = {
      {"record", "end"}, {"t", mcm::wall_seconds()}, {"records", records_}, {"dropped", dropped_}};
  buffer_ += end.dump() + '\n';
  flush();
  if (file_ != nullptr && std::fclose(file_) != 0 && error_.empty())
    error_ = path_ + ": " + std::strerror(errno);
  file_ = nullptr;
}

void Writer::fail(const std::string& why) {
  error_ = path_ + ": " + why;
  std::fclose(file_);
  file_ = nullptr;
}

}  // namespace mcm::records
