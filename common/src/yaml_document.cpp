#include "yaml_document.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>

#include "mcm/error.h"

namespace mcm::yaml {

std::string position(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return file + ": ";
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) + ": ";
}

void fail(const std::string& file, const YAML::Mark& mark, const std::string& message) {
  throw ConfigError(position(file, mark) + message);
}

std::string read_file(const std::string& path, std::string_view what) {
  auto cannot_read = [&](int error) {
    return ConfigError("cannot read " + std::string(what) + " '" + path +
                       "': " + std::strerror(error));
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw cannot_read(EISDIR);
  std::ifstream in(path);
  if (!in) throw cannot_read(errno);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw cannot_read(errno);
  return text;
}

YAML::Node parse_document(const std::string& text, const std::string& file) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    fail(file, e.mark, e.msg);
  }
  if (documents.empty()) return YAML::Node();
  if (documents.size() > 1) fail(file, documents[1].Mark(), "only one YAML document is allowed");
  return documents[0];
}

void check_keys(const std::string& file, const YAML::Node& map, const std::string& path,
                const std::vector<std::string_view>& allowed,
                const std::vector<std::string_view>& required) {
  std::map<std::string, YAML::Mark> seen;
  for (const auto& entry : map) {  // entry is a value: it->first would dangle
    const YAML::Node& key = entry.first;
    if (!key.IsScalar()) fail(file, key.Mark(), "keys must be plain names");
    const std::string& name = key.Scalar();
    const std::string key_path = path.empty() ? name : path + "." + name;
    if (auto [first, inserted] = seen.emplace(name, key.Mark()); !inserted)
      fail(file, key.Mark(),
           "duplicate key '" + key_path + "' (first given on line " +
               std::to_string(first->second.line + 1) + ")");
    bool known = false;
    for (std::string_view a : allowed) known = known || a == name;
    if (!known)
      fail(file, key.Mark(),
           "unknown key '" + name + "'" + (path.empty() ? "" : " in " + path) +
               " (valid keys: " + join(allowed) + ")");
  }
  for (std::string_view r : required)
    if (!seen.count(std::string(r)))
      fail(file, map.Mark(),
           (path.empty() ? "the file" : path) + " needs the key '" + std::string(r) + "'");
}

long long integer(const std::string& file, const YAML::Node& node, const std::string& path,
                  long long lo, long long hi, const YAML::Mark* at) {
  long long n = 0;
  bool ok = node.IsScalar() && node.Tag() != "!";  // "!": quoted, a string
  if (ok) {
    const std::string& s = node.Scalar();
    const char* begin = s.data() + (!s.empty() && s[0] == '+');
    const char* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(begin, end, n);
    ok = begin != end && ec == std::errc() && ptr == end;
  }
  if (!ok || n < lo || n > hi) {
    const std::string range =
        hi == std::numeric_limits<long long>::max()
            ? "an integer of at least " + std::to_string(lo)
            : "an integer between " + std::to_string(lo) + " and " + std::to_string(hi);
    fail(file, at ? *at : node.Mark(), path + " must be " + range);
  }
  return n;
}

double number(const std::string& file, const YAML::Node& node, const std::string& path, double lo,
              double hi) {
  double x = 0;
  bool ok = node.IsScalar() && node.Tag() != "!";
  if (ok) {
    std::istringstream in(node.Scalar());
    in.imbue(std::locale::classic());
    ok = static_cast<bool>(in >> x) && (in >> std::ws).eof() && std::isfinite(x);
  }
  if (!ok || x < lo || x > hi) {
    std::ostringstream range;
    if (std::isinf(hi))
      range << "a number of at least " << lo;
    else
      range << "a number between " << lo << " and " << hi;
    const std::string got = node.IsScalar() ? " (got '" + node.Scalar() + "')" : "";
    fail(file, node.Mark(), path + " must be " + range.str() + got);
  }
  return x;
}

std::string text(const std::string& file, const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar() || node.Scalar().empty())
    fail(file, node.Mark(), path + " must be a non-empty string");
  return node.Scalar();
}

std::pair<std::string, int> endpoint(const std::string& file, const YAML::Node& node,
                                     const std::string& path) {
  std::string s = yaml::text(file, node, path);
  auto colon = s.rfind(':');
  int port = 0;
  if (colon != std::string::npos && colon > 0) {
    try {
      std::size_t used = 0;
      port = std::stoi(s.substr(colon + 1), &used);
      if (used != s.size() - colon - 1) port = 0;
    } catch (const std::exception&) {
      port = 0;
    }
  }
  if (port < 1 || port > 65535)
    fail(file, node.Mark(), path + " must be ADDRESS:PORT with a port 1..65535 (got '" + s + "')");
  return {s.substr(0, colon), port};
}

void expect_list(const std::string& file, const YAML::Node& node, const std::string& path,
                 std::string_view hint) {
  if (!node.IsSequence()) fail(file, node.Mark(), path + " must be a list" + std::string(hint));
}

void expect_map(const std::string& file, const YAML::Node& node, const std::string& path,
                std::string_view hint) {
  if (!node.IsMap()) fail(file, node.Mark(), path + " must be a map" + std::string(hint));
}

}  // namespace mcm::yaml
