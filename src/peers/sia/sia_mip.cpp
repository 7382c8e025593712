// peers/sia/sia_mip.h: the program written as pulp writes it and read by Cbc's solver as the cbc program reads it.
#include "peers/sia/sia_mip.h"

#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <OsiClpSolverInterface.hpp>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>

#include "core/error.h"

namespace rm::sia_peer {
namespace {

// pulp.mps_lp: every number as "% .12e".
void num(std::string& out, double v) {
  char b[40];
  std::snprintf(b, sizeof b, "% .12e", v);
  out += b;
}

struct Entry {
  int row;
  double value;
};

// Cbc's stand-alone solver prints; the goldens' shim runs it with msg=False. Its fd 1 goes to /dev/null meanwhile.
class QuietStdout {
 public:
  QuietStdout() {
    std::fflush(stdout);
    saved_ = ::dup(1);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, 1);
      ::close(null);
    }
  }
  ~QuietStdout() {
    std::fflush(stdout);
    if (saved_ >= 0) {
      ::dup2(saved_, 1);
      ::close(saved_);
    }
  }

 private:
  int saved_ = -1;
};

int dummy_callback(CbcModel*, int) { return 0; }

}  // namespace

SiaSolution solve_sia_program(const SiaProgram& p) {
  const int n = p.jobs, c = p.configs, m = n * c, types = static_cast<int>(p.capacity.size());
  // Rows in the order sia.py states its constraints, each row-major (the shim keeps that order).
  std::vector<std::vector<Entry>> col(static_cast<std::size_t>(m));
  std::vector<char> sense;
  std::vector<double> rhs;
  auto row = [&](char s, double r) {
    sense.push_back(s);
    rhs.push_back(r);
    return static_cast<int>(sense.size()) - 1;
  };
  for (int j = 0; j < m; ++j) col[static_cast<std::size_t>(j)].push_back({row('L', 0.0), -1.0});  // X >= 0
  for (int j = 0; j < m; ++j) col[static_cast<std::size_t>(j)].push_back({row('L', 1.0), 1.0});   // X <= 1
  for (int t = 0; t < types; ++t) {  // GPUs of each type <= its GPUs
    const int r = row('L', p.capacity[static_cast<std::size_t>(t)]);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < c; ++k)
        if (p.config_type[static_cast<std::size_t>(k)] == t)
          col[static_cast<std::size_t>(i * c + k)].push_back({r, static_cast<double>(p.config_gpus[static_cast<std::size_t>(k)])});
  }
  for (int t = 0; t < types; ++t) {  // ... >= 0
    const int r = row('L', 0.0);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < c; ++k)
        if (p.config_type[static_cast<std::size_t>(k)] == t)
          col[static_cast<std::size_t>(i * c + k)].push_back({r, -static_cast<double>(p.config_gpus[static_cast<std::size_t>(k)])});
  }
  for (int i = 0; i < n; ++i) {  // one configuration per job
    const int r = row('L', 1.0);
    for (int k = 0; k < c; ++k) col[static_cast<std::size_t>(i * c + k)].push_back({r, 1.0});
  }
  for (const auto& [i, k] : p.pinned) col[static_cast<std::size_t>(i * c + k)].push_back({row('E', 1.0), 1.0});

  std::vector<double> obj(static_cast<std::size_t>(m));
  for (int j = 0; j < m; ++j) obj[static_cast<std::size_t>(j)] = p.A[static_cast<std::size_t>(j)] + (-p.lambda_n);

  // The MPS text of pulp.mps_lp.writeMPS(rename=1).
  std::string mps = std::string("*SENSE:") + (p.minimize ? "Minimize" : "Maximize") + "\nNAME          MODEL\nROWS\n N  OBJ\n";
  char name[64];
  for (std::size_t r = 0; r < sense.size(); ++r) {
    std::snprintf(name, sizeof name, " %c  C%07zu\n", sense[r], r + 1);
    mps += name;
  }
  mps += "COLUMNS\n";
  for (int j = 0; j < m; ++j) {
    char x[24];
    std::snprintf(x, sizeof x, "X%07d", j + 1);
    mps += "    MARK      'MARKER'                 'INTORG'\n";
    for (const auto& e : col[static_cast<std::size_t>(j)]) {
      std::snprintf(name, sizeof name, "    %-8s  C%07d  ", x, e.row + 1);
      mps += name;
      num(mps, e.value);
      mps += '\n';
    }
    if (obj[static_cast<std::size_t>(j)] != 0.0) {
      std::snprintf(name, sizeof name, "    %-8s  %-8s  ", x, "OBJ");
      mps += name;
      num(mps, obj[static_cast<std::size_t>(j)]);
      mps += '\n';
    }
    mps += "    MARK      'MARKER'                 'INTEND'\n";
  }
  mps += "RHS\n";
  for (std::size_t r = 0; r < rhs.size(); ++r) {
    std::snprintf(name, sizeof name, "    RHS       C%07zu  ", r + 1);
    mps += name;
    num(mps, rhs[r] != 0 ? rhs[r] : 0.0);
    mps += '\n';
  }
  mps += "BOUNDS\n";
  for (int j = 0; j < m; ++j) {
    std::snprintf(name, sizeof name, " FR BND       X%07d\n", j + 1);
    mps += name;
  }
  mps += "ENDATA\n";

  static std::mutex mu;  // Cbc's stand-alone solver keeps global state
  std::lock_guard<std::mutex> lock(mu);
  const int fd = ::memfd_create("ringmaster-sia-mip", 0);
  if (fd < 0) throw InvariantError("sia: cannot create the solver's in-memory file");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  for (std::size_t done = 0; done < mps.size();) {
    const ssize_t w = ::write(fd, mps.data() + done, mps.size() - done);
    if (w <= 0) throw InvariantError("sia: cannot write the solver's in-memory file");
    done += static_cast<std::size_t>(w);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  OsiClpSolverInterface solver1;
  CbcModel model(solver1);
  CbcSolverUsefulData data;
  data.noPrinting_ = true;
  std::vector<const char*> argv = {"cbc", path.c_str()};
  if (!p.minimize) argv.push_back("max");
  for (const char* a : {"ratio", p.ratio.c_str(), "branch"}) argv.push_back(a);
  {
    const QuietStdout quiet;
    CbcMain0(model, data);
    CbcMain1(static_cast<int>(argv.size()), argv.data(), model, dummy_callback, data);
  }
  const double* x = model.bestSolution();
  if (!x) x = model.solver()->getColSolution();
  if (!x || model.solver()->getNumCols() != m) throw InvariantError("sia: Cbc returned no solution");
  SiaSolution s;
  s.rows = static_cast<int>(sense.size());
  s.cols = m;
  s.optimal = model.isProvenOptimal() || model.status() == 0;
  s.choice.assign(static_cast<std::size_t>(n), -1);
  double value = 0;
  for (int j = 0; j < m; ++j) {
    const double v = std::nearbyint(x[j]);
    if (v != 0) {
      s.ones.push_back(j);
      value += obj[static_cast<std::size_t>(j)] * v;
      const int i = j / c, k = j % c;
      if (s.choice[static_cast<std::size_t>(i)] < 0) s.choice[static_cast<std::size_t>(i)] = k;  // numpy argmax: first
    }
  }
  s.objective = value + p.lambda_n * n;
  return s;
}

}  // namespace rm::sia_peer
