// The run records: what every MCM process of a run writes into the run's log directory
// for mcm-report (docs/records.md has the format, record by record).
//
// Format
//  1. One file per process, JSON lines: one JSON object per line, each with a "record"
//     field naming its kind. libmcm writes rank-<app rank>.jsonl, mcmd mcmd-vm<VM index>.jsonl
//     (as its log, mcmd-vm<N>.log).
//  2. The first line is the header: {"record": "header", "schema": kSchema, "version":
//     kVersion, "run": the run's id, "program", "t": wall seconds at its start, ...}. A
//     reader refuses a file whose schema is not kSchema or whose version is newer than
//     the one it knows, and a directory whose files name different runs.
//  3. The last line is {"record": "end", "t", "records", "dropped"}: a file without it was
//     cut short (the process died, the disk filled); what it has before the cut is valid.
//  4. Times are wall seconds (mcm/clock.h) of the machine that wrote them.
// Cost: records are built from counters and per-second aggregates, never one per
// message; Writer keeps them in memory and writes kFlushBytes at a time, and stops at
// its byte limit (the end record then counts what it dropped).
#pragma once

#include <cstddef>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace mcm::records {

inline constexpr const char* kSchema = "mcm-run-records";
inline constexpr int kVersion = 1;

/// The run's id, the same in every process of one job: MCM_RUN_ID (mcmrun sets it),
/// else Open MPI's job namespace (PMIX_NAMESPACE), else "unknown".
std::string run_id_from_environment();

/// This machine's host name (gethostname()), for the headers; empty if unknown.
std::string host_name();

/// A record file being written. Not thread-safe. Failing to open or write it never
/// stops the program: error() says why, and later records are dropped.
class Writer {
 public:
  static constexpr std::size_t kFlushBytes = 64 * 1024;
  static constexpr std::size_t kDefaultMaxBytes = 256u * 1024 * 1024;

  Writer() = default;
  /// Creates (truncates) `path` and writes `header` there, completed with the schema,
  /// version, run id and start time (fields the header already has are kept).
  Writer(const std::string& path, nlohmann::json header, std::size_t max_bytes = kDefaultMaxBytes);
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  Writer(Writer&& other) noexcept;
  Writer& operator=(Writer&& other) noexcept;
  ~Writer();

  bool open() const { return file_ != nullptr; }
  /// Empty, or what went wrong ("<path>: <reason>").
  const std::string& error() const { return error_; }
  /// Appends one record; `record` must be an object with a "record" field.
  void write(const nlohmann::json& record);
  /// Hands what is buffered to the file system.
  void flush();
  /// Writes the end record and closes the file (also done by the destructor).
  void close();
  std::size_t written() const { return records_; }
  std::size_t dropped() const { return dropped_; }

 private:
  void fail(const std::string& why);

  std::string path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  std::string error_;
  std::size_t max_bytes_ = kDefaultMaxBytes;
  std::size_t bytes_ = 0;  ///< written or buffered so far
  std::size_t records_ = 0, dropped_ = 0;
};

}  // namespace mcm::records
