// Reading a program's command line with CLI11 the way MCM's programs do (mcmd,
// mcm-probe): `--opt value` and `--opt=value`; each value handed to the program's own
// reader when it is met, so that messages name the option and the value
// ("--buffer-bytes '12abc': expected an integer ..."); the program's own --help text
// (call app.set_help_flag() before adding -h/--help as a flag of its own).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace mcm {

/// Adds the option `names` ("-o,--out") to `app`; its value goes to `read` when the option
/// is met, so a repeated option is read each time (the last one wins) and the first bad
/// value on the line is the one reported. `read` refuses a value by throwing; the
/// exception leaves parse_words() unchanged.
void add_read_option(CLI::App& app, const std::string& names,
                     std::function<void(const std::string&)> read);

/// Parses `words` (argv without argv[0], in order) with `app` and returns the words no
/// option took (unknown options, stray arguments), in order, for the caller to report in
/// its own words. Throws mcm::ConfigError "<option> needs a value" when the last word is
/// an option without its value, and ConfigError with CLI11's message for anything else
/// CLI11 refuses (a flag given a value it cannot read: "--quick=maybe").
std::vector<std::string> parse_words(CLI::App& app, std::vector<std::string> words);

}  // namespace mcm
