// Static routes: "traffic from VM A to VM B goes through VM C" (relay mode, frames.h rule 3).
//
// Users write routes in the config file (`routes: [{from: A, to: B, via: C}]`) or as
// `mcmrun --route A:B:C`. A VM is a 0-based index into the allocation's hosts (in order
// of the hostfile or --host lists; the index of mcmd-vm<N>.log) or a host name exactly as
// written there; an unsigned integer is always an index. A route is one-directional:
// 0:1:2 says nothing about traffic from 1 to 0. mcmrun resolves names to indices and
// passes `--route FROM:TO:VIA` (indices) to every mcmd.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mcm {

/// A route as written, with where each part came from so that messages can point at it:
/// "--route a:b:c" (all four the same) or "mcm.yaml:4:5: routes[1].via".
struct RouteSpec {
  std::string from, to, via;
  std::string where;  ///< the route as a whole ("mcm.yaml:3:5: routes[1]")
  std::string where_from, where_to, where_via;
};

/// A resolved route: VM indices, all three distinct.
struct Route {
  int from = -1;
  int to = -1;
  int via = -1;

  bool operator==(const Route& o) const { return from == o.from && to == o.to && via == o.via; }
};

/// Parses the value of `option` ("--route"): "FROM:TO:VIA", three non-empty parts.
/// Throws ConfigError "--route 1:2: expected FROM:TO:VIA (VM indices or host names)".
RouteSpec parse_route_option(std::string_view text, std::string_view option = "--route");

/// Resolves `specs` against the VMs of the allocation (`vm_names[i]` is VM i). Throws
/// ConfigError, prefixed by the spec's `where...` and ": ", for an unknown name ("unknown
/// VM 'vm9' (the allocation has vm1, vm2)"), an index out of range, from == to, a via
/// equal to from or to, and a second route for the same (from, to) pair.
std::vector<Route> resolve_routes(const std::vector<RouteSpec>& specs,
                                  const std::vector<std::string>& vm_names);

/// "FROM:TO:VIA" with indices, the form mcmrun passes to mcmd.
std::string to_string(const Route& route);

}  // namespace mcm
