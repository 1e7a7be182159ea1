// Reading an integer from text as MCM's options and arguments do: the whole text or
// nothing (std::stoll reads "12abc" as 12 and " 12" as 12; this refuses both).
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace mcm {

/// `text` as a T when all of it is one decimal integer in T's range; nullopt otherwise.
template <class T = long long>
std::optional<T> whole_integer(std::string_view text) {
  T n{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

}  // namespace mcm
