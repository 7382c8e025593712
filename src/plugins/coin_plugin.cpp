// libringmaster_coin.so (policy/coin.h): the only code that calls COIN-OR Cbc, Clp and Osi. It links those libraries
// and nothing of ringmaster; the core opens it the first time a run solves a program.
#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

#include "policy/coin.h"

namespace rm {
namespace {

// kCoinInf (policy/coin.h) is CoinFinite.hpp's COIN_DBL_MAX: std::numeric_limits<double>::max().

void load(OsiClpSolverInterface& si, const TripletLp& lp) {
  CoinPackedMatrix A(true, lp.rows.data(), lp.cols.data(), lp.vals.data(), static_cast<CoinBigIndex>(lp.vals.size()));
  A.setDimensions(lp.num_rows, lp.num_cols);
  si.messageHandler()->setLogLevel(0);
  si.loadProblem(A, lp.lo.data(), lp.hi.data(), lp.obj.data(), lp.rlo.data(), lp.rhi.data());
  si.setObjSense(lp.obj_sense);
}

bool clp_initial_solve(const TripletLp& lp, std::vector<double>& x) {
  OsiClpSolverInterface si;
  load(si, lp);
  si.initialSolve();
  if (!si.isProvenOptimal()) return false;
  const double* s = si.getColSolution();
  x.assign(s, s + lp.num_cols);
  return true;
}

bool cbc_integer_solve(const TripletLp& lp, std::vector<double>& x) {
  OsiClpSolverInterface si;
  load(si, lp);
  for (int i = 0; i < lp.num_cols; ++i) si.setInteger(i);
  CbcModel model(si);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  model.branchAndBound();
  const double* s = model.bestSolution();
  if (!s) return false;
  x.assign(s, s + lp.num_cols);
  return true;
}

int no_callback(CbcModel*, int) { return 0; }

void cbc_main(int argc, const char** argv) {
  OsiClpSolverInterface solver1;
  CbcModel model(solver1);
  CbcSolverUsefulData data;
  data.noPrinting_ = true;
  CbcMain0(model, data);
  CbcMain1(argc, argv, model, no_callback, data);
}

const CoinKernels kKernels{kCoinKernelsVersion, &clp_initial_solve, &cbc_integer_solve, &cbc_main};

}  // namespace
}  // namespace rm

extern "C" __attribute__((visibility("default"))) const rm::CoinKernels* rm_coin_kernels() { return &rm::kKernels; }
