#include "mcm/options.h"

#include <algorithm>
#include <utility>

#include "mcm/error.h"

namespace mcm {

void add_read_option(CLI::App& app, const std::string& names,
                     std::function<void(const std::string&)> read) {
  app.add_option_function<std::string>(names, std::move(read))->trigger_on_parse();
}

std::vector<std::string> parse_words(CLI::App& app, std::vector<std::string> words) {
  app.allow_extras();
  // An option takes the next word whatever it is, so CLI11 finds a value missing only
  // when the option is the last word ("--out" or "--out=").
  const std::string last = words.empty() ? "" : words.back();
  std::reverse(words.begin(), words.end());  // CLI11 takes the words from the back
  try {
    app.parse(words);
  } catch (const CLI::ArgumentMismatch&) {
    throw ConfigError(last.substr(0, last.find('=')) + " needs a value");
  } catch (const CLI::ParseError& e) {
    throw ConfigError(e.what());
  }
  return app.remaining();
}

}  // namespace mcm
