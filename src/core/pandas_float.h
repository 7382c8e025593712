// A decimal number read as pandas 1.5's CSV reader reads it by default (float_precision None = "high", its
// precise_xstrtod in pandas/_libs/src/parser/tokenizer.c): up to 17 significant digits accumulated in a double,
// d = d * 10 + digit, then one multiplication or division by an exact power of ten. That is not always the
// correctly rounded value strtod gives (the 17th digit and the scaling each round), and a reproduction of a
// Python simulator that reads its tables with pandas must see the same doubles. Used by the Pollux peer
// (peers/pollux/) and the Pollux application tables (exec/pollux_app.h).
#pragma once
#include <optional>
#include <string_view>

namespace rm {

// The value pandas reads from `text` (surrounding spaces allowed), or nullopt if it is not a plain decimal
// number (digits, one optional point, an optional exponent).
std::optional<double> pandas_float(std::string_view text);

}  // namespace rm
