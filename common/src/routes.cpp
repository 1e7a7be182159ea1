#include "mcm/routes.h"

#include <algorithm>
#include <charconv>

#include "mcm/error.h"

namespace mcm {
namespace {

std::string list_vms(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// The index of the VM written `text` in `where`. Throws ConfigError.
int resolve_vm(const std::string& text, const std::string& where,
               const std::vector<std::string>& names) {
  const int count = static_cast<int>(names.size());
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(),
                                                   [](char c) { return c >= '0' && c <= '9'; });
  if (digits) {
    int index = -1;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
    if (ec != std::errc() || ptr != text.data() + text.size() || index >= count)
      throw ConfigError(where + ": VM index " + text + " is out of range (the allocation has " +
                        std::to_string(count) + " VM" + (count == 1 ? "" : "s") + ": " +
                        (count == 1 ? "0" : "0.." + std::to_string(count - 1)) + ")");
    return index;
  }
  auto it = std::find(names.begin(), names.end(), text);
  if (it == names.end())
    throw ConfigError(where + ": unknown VM '" + text + "' (the allocation has " + list_vms(names) +
                      ")");
  return static_cast<int>(it - names.begin());
}

}  // namespace

RouteSpec parse_route_option(std::string_view text, std::string_view option) {
  const std::string where = std::string(option) + " " + std::string(text);
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == ':') {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  const bool ok = parts.size() == 3 && std::none_of(parts.begin(), parts.end(),
                                                    [](const std::string& p) { return p.empty(); });
  if (!ok) throw ConfigError(where + ": expected FROM:TO:VIA (VM indices or host names)");
  return RouteSpec{parts[0], parts[1], parts[2], where, where, where, where};
}

std::vector<Route> resolve_routes(const std::vector<RouteSpec>& specs,
                                  const std::vector<std::string>& vm_names) {
  std::vector<Route> routes;
  for (size_t i = 0; i < specs.size(); ++i) {
    const RouteSpec& s = specs[i];
    const Route r{resolve_vm(s.from, s.where_from, vm_names),
                  resolve_vm(s.to, s.where_to, vm_names), resolve_vm(s.via, s.where_via, vm_names)};
    if (r.from == r.to)
      throw ConfigError(s.where + ": from and to are the same VM (" + std::to_string(r.from) +
                        "): traffic inside a VM is never relayed");
    if (r.via == r.from || r.via == r.to)
      throw ConfigError(s.where + ": via must be a third VM, not " +
                        (r.via == r.from ? "from" : "to") + " (" + std::to_string(r.via) + ")");
    for (size_t k = 0; k < routes.size(); ++k)
      if (routes[k].from == r.from && routes[k].to == r.to)
        throw ConfigError(s.where + ": a second route from VM " + std::to_string(r.from) +
                          " to VM " + std::to_string(r.to) + " (the first is " + specs[k].where +
                          ")");
    routes.push_back(r);
  }
  return routes;
}

std::string to_string(const Route& route) {
  return std::to_string(route.from) + ":" + std::to_string(route.to) + ":" +
         std::to_string(route.via);
}

}  // namespace mcm
