#include "worker_settings.h"

#include <locale>
#include <sstream>
#include <stdexcept>

#include "mcm/whole_integer.h"

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

/// The whole of `text` as an integer (mcm/whole_integer.h), for argument `option`.
long long integer(const std::string& text, const std::string& option) {
  if (const auto n = mcm::whole_integer(text)) return *n;
  throw std::invalid_argument(option + " '" + text + "': not an integer");
}

/// The whole of `text` as a number, as number() wrote it (the classic locale).
double whole_number(const std::string& text, const std::string& option) {
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  double x = 0;
  if (text.empty() || !(in >> x) || in.peek() != std::char_traits<char>::eof())
    throw std::invalid_argument(option + " '" + text + "': not a number");
  return x;
}

}  // namespace

std::vector<std::string> to_args(const WorkerSettings& s) {
  const char* progress[] = {"none", "lines", "bar"};
  std::vector<std::string> args = {"--hosts",          join(s.hosts),
                                   "--sizes",          join(s.sizes),
                                   "--reference-size", std::to_string(s.reference_size),
                                   "--budget",         number(s.budget_seconds),
                                   "--factor",         number(s.factor),
                                   "--flood-rate",     number(s.flood_rate),
                                   "--progress",       progress[static_cast<int>(s.progress)]};
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
        while (std::getline(list, item, ',')) s.sizes.push_back(integer(item, a));
      } else if (a == "--reference-size") {
        s.reference_size = integer(v, a);
      } else if (a == "--budget") {
        s.budget_seconds = whole_number(v, a);
      } else if (a == "--factor") {
        s.factor = whole_number(v, a);
      } else if (a == "--flood-rate") {
        s.flood_rate = whole_number(v, a);
      } else if (a == "--progress") {
        if (v == "bar")
          s.progress = Progress::bar;
        else if (v == "lines")
          s.progress = Progress::lines;
        else if (v == "none")
          s.progress = Progress::none;
        else
          throw std::invalid_argument("--progress '" + v + "': not bar, lines or none");
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
