// COIN-OR's solvers as the policies call them (Synergy-OPT's ILP, Gavel's LPs, Sia's programs through pulp's command
// line), behind a plugin seam: the calls live in libringmaster_coin.so (src/plugins/coin_plugin.cpp), opened the
// first time a run solves something, so that a run without a program does not load Cbc, Clp and Osi (issue 47).
// The data crossing the seam is plain; what each kernel does with COIN-OR is exactly what the policies did inline.
#pragma once
#include <limits>
#include <vector>

namespace rm {

// A linear program as coordinate triplets (CoinPackedMatrix(colordered = true, rows, cols, vals) with its
// dimensions set), column bounds, objective, row bounds (COIN's infinity is the largest double).
struct TripletLp {
  int num_rows = 0, num_cols = 0;
  std::vector<int> rows, cols;
  std::vector<double> vals;
  std::vector<double> lo, hi, obj, rlo, rhi;
  double obj_sense = -1;  // -1: maximise (OsiClpSolverInterface::setObjSense)
};
constexpr double kCoinInf = std::numeric_limits<double>::max();  // COIN_DBL_MAX

struct CoinKernels {
  int version;  // kCoinKernelsVersion of the build that made the plugin
  // OsiClp: loadProblem, initialSolve; true and the column solution when proven optimal.
  bool (*clp_initial_solve)(const TripletLp& lp, std::vector<double>& x);
  // OsiClp with every column integer, CbcModel::branchAndBound (log level 0); true and the best solution if any.
  bool (*cbc_integer_solve)(const TripletLp& lp, std::vector<double>& x);
  // Cbc's stand-alone solver: CbcMain0, then CbcMain1 on argv (printing off), on a fresh OsiClp model.
  void (*cbc_main)(int argc, const char** argv);
};
constexpr int kCoinKernelsVersion = 1;

// The plugin's kernels (std::runtime_error if this build's libringmaster_coin.so cannot be opened).
const CoinKernels& coin();

}  // namespace rm
