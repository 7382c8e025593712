// A linear or 0/1 program solved exactly as the Sia goldens' shim has pulp solve it (scripts/sia-goldens/cvxpy,
// docs/sia.md): written as pulp.mps_lp.writeMPS(rename=1) writes it (columns X0000000.. in order, rows C0000000.. in
// the order given, every number "% .12e", free columns), read by Cbc's own MPS reader, solved by Cbc's stand-alone
// solver with pulp's command line (`[max] [ratio R] branch|initialSolve printingOptions all solution FILE`, one
// thread), and the values read back from that solution file as pulp reads them (8 significant digits). Both files
// live in memory (memfd); Cbc's output is discarded, as pulp's msg=False does.
#pragma once
#include <string>
#include <vector>

namespace rm::sia {

struct LpModel {
  struct Entry {
    int row;
    double value;
  };
  bool maximize = false, mip = false;
  std::string ratio;                     // Cbc's `ratio` (relative gap); empty: not given
  std::vector<double> obj;               // per column
  std::vector<std::vector<Entry>> cols;  // per column: its rows in increasing order
  std::vector<char> sense;               // per row: 'L' (<=) or 'E' (==)
  std::vector<double> rhs;               // per row
  int add_row(char s, double r) {
    sense.push_back(s);
    rhs.push_back(r);
    return static_cast<int>(sense.size()) - 1;
  }
};

struct LpResult {
  bool optimal = false;       // the solution file's first word is "Optimal"
  std::vector<double> x;      // per column, as the solution file prints it
};

LpResult solve_like_pulp(const LpModel& m);

}  // namespace rm::sia
