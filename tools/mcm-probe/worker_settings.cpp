#include "worker_settings.h"

#include <sstream>

namespace probe {
namespace {

template <class T>
std::string join(const std::vector<T>& items) {
  std::ostringstream out;
  for (std::size_t i = 0; i < items.size(); ++i) out << (i ? "," : "") << items[i];
  return out.str();
}

std::string number(double x) {
  std::ostringstream out;
  out.imbue(std::locale::classic());
  out.precision(17);
  out << x;
  return out.str();
}

}  // namespace

std::vector<std::string> to_args(const WorkerSettings& s) {
  const char* progress[] = {"none", "lines", "bar"};
  std::vector<std::string> args = {
      "--hosts", join(s.hosts), "--sizes", join(s.sizes), "--reference-size",
      std::to_string(s.reference_size), "--budget", number(s.budget_seconds), "--factor",
      number(s.factor), "--flood-rate", number(s.flood_rate), "--progress",
      progress[static_cast<int>(s.progress)]};
  if (s.quick) args.push_back("--quick");
  return args;
}

std::optional<WorkerSettings> from_args(const std::vector<std::string>& args, std::string& error) {
  WorkerSettings s;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "--quick") {
        s.quick = true;
        continue;
      }
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
      const std::string& v = args[++i];
      std::stringstream list(v);
      std::string item;
      if (a == "--hosts") {
        while (std::getline(list, item, ',')) s.hosts.push_back(item);
      } else if (a == "--sizes") {
        while (std::getline(list, item, ',')) s.sizes.push_back(std::stoll(item));
      } else if (a == "--reference-size") {
        s.reference_size = std::stoll(v);
      } else if (a == "--budget") {
        s.budget_seconds = std::stod(v);
      } else if (a == "--factor") {
        s.factor = std::stod(v);
      } else if (a == "--flood-rate") {
        s.flood_rate = std::stod(v);
      } else if (a == "--progress") {
        s.progress = v == "bar" ? Progress::bar : v == "none" ? Progress::none : Progress::lines;
      } else {
        throw std::invalid_argument("unknown argument " + a);
      }
    }
  } catch (const std::exception& e) {
    error = e.what();
    return std::nullopt;
  }
  if (s.hosts.size() < 2 || s.sizes.empty()) {
    error = "--hosts needs 2 hosts or more and --sizes one size or more";
    return std::nullopt;
  }
  return s;
}

}  // namespace probe
