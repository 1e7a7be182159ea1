// How the runtime's decision lines write their figures: each one a reader can check
// against the others (a ratio against its latency and base), so never "0.00 ms" for a
// base of tens of µs and never "nan". Pure.
#pragma once

#include <string>

namespace mcm::daemon {

/// A latency, excess or margin given in µs, with three significant digits: in µs below
/// 1 ms ("8.25 µs", "24.3 µs", "812 µs"), in ms from it ("4.39 ms", "27.0 ms", "135 ms").
/// `unknown` for NaN (a path the probe's table has no fit for, an estimate there is
/// none of); "0 µs" for 0 and "-" before negative figures.
std::string latency_text(double us, const std::string& unknown = "unknown");

/// A ratio with one decimal ("52.6x"), three significant digits below 10 ("0.95x");
/// `unknown` when it is NaN or infinite (a base of 0 or none).
std::string ratio_text(double ratio, const std::string& unknown = "unknown");

}  // namespace mcm::daemon
