// policy/pulp_cbc.h: pulp's MPS text, Cbc's stand-alone solver on it, pulp's reading of the solution file.
#include "policy/pulp_cbc.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>

#include "core/error.h"
#include "policy/coin.h"

namespace rm::sia {
namespace {

// pulp.mps_lp: every number as "% .12e".
void num(std::string& out, double v) {
  char b[40];
  std::snprintf(b, sizeof b, "% .12e", v);
  out += b;
}

// The stand-alone solver prints whatever its log level; the shim runs it with msg=False. Fd 1 goes to /dev/null
// meanwhile (the caller holds the solver's mutex).
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
  QuietStdout(const QuietStdout&) = delete;
  QuietStdout& operator=(const QuietStdout&) = delete;

 private:
  int saved_ = -1;
};

// An in-memory file with a path the solver can open.
class MemFile {
 public:
  explicit MemFile(const char* name) : fd_(::memfd_create(name, 0)) {
    if (fd_ < 0) throw InvariantError("sia: cannot create the solver's in-memory file");
  }
  ~MemFile() { ::close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }
  void write(const std::string& text) const {
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t w = ::pwrite(fd_, text.data() + done, text.size() - done, static_cast<off_t>(done));
      if (w <= 0) throw InvariantError("sia: cannot write the solver's in-memory file");
      done += static_cast<std::size_t>(w);
    }
  }
  std::string read() const {
    std::string out;
    char buf[65536];
    for (off_t at = 0;;) {
      const ssize_t r = ::pread(fd_, buf, sizeof buf, at);
      if (r <= 0) break;
      out.append(buf, static_cast<std::size_t>(r));
      at += r;
    }
    return out;
  }

 private:
  int fd_;
};

std::string mps_text(const LpModel& m) {
  std::string mps = std::string("*SENSE:") + (m.maximize ? "Maximize" : "Minimize") + "\nNAME          MODEL\nROWS\n N  OBJ\n";
  char line[96];
  for (std::size_t r = 0; r < m.sense.size(); ++r) {
    std::snprintf(line, sizeof line, " %c  C%07zu\n", m.sense[r], r);
    mps += line;
  }
  mps += "COLUMNS\n";
  for (std::size_t j = 0; j < m.cols.size(); ++j) {
    char x[24];
    std::snprintf(x, sizeof x, "X%07zu", j);
    if (m.mip) mps += "    MARK      'MARKER'                 'INTORG'\n";
    for (const auto& e : m.cols[j]) {
      std::snprintf(line, sizeof line, "    %-8s  C%07d  ", x, e.row);
      mps += line;
      num(mps, e.value);
      mps += '\n';
    }
    if (m.obj[j] != 0.0) {
      std::snprintf(line, sizeof line, "    %-8s  %-8s  ", x, "OBJ");
      mps += line;
      num(mps, m.obj[j]);
      mps += '\n';
    }
    if (m.mip) mps += "    MARK      'MARKER'                 'INTEND'\n";
  }
  mps += "RHS\n";
  for (std::size_t r = 0; r < m.rhs.size(); ++r) {
    std::snprintf(line, sizeof line, "    RHS       C%07zu  ", r);
    mps += line;
    num(mps, m.rhs[r] != 0 ? m.rhs[r] : 0.0);
    mps += '\n';
  }
  mps += "BOUNDS\n";
  for (std::size_t j = 0; j < m.cols.size(); ++j) {
    std::snprintf(line, sizeof line, " FR BND       X%07zu\n", j);
    mps += line;
  }
  mps += "ENDATA\n";
  return mps;
}

}  // namespace

LpResult solve_like_pulp(const LpModel& m) {
  if (m.obj.size() != m.cols.size() || m.sense.size() != m.rhs.size())
    throw InvariantError("sia: a program with mismatched columns or rows");
  const std::string mps = mps_text(m);
  static std::mutex mu;  // Cbc's stand-alone solver keeps global state; fd 1 is redirected
  std::lock_guard<std::mutex> lock(mu);
  const MemFile model_file("ringmaster-sia-mps"), solution_file("ringmaster-sia-sol");
  model_file.write(mps);
  const std::string model_path = model_file.path(), solution_path = solution_file.path();
  std::vector<const char*> argv = {"cbc", model_path.c_str()};
  if (m.maximize) argv.push_back("max");
  if (!m.ratio.empty()) argv.push_back("ratio"), argv.push_back(m.ratio.c_str());
  argv.push_back(m.mip ? "branch" : "initialSolve");
  for (const char* a : {"printingOptions", "all", "solution"}) argv.push_back(a);
  argv.push_back(solution_path.c_str());
  const CoinKernels& cbc = coin();  // opened before stdout is redirected
  {
    const QuietStdout quiet;
    cbc.cbc_main(static_cast<int>(argv.size()), argv.data());
  }
  // pulp's readsol_MPS: the status word, then "index name value reduced-cost" lines (a leading "**" marks an
  // infeasibility), rows first, then columns.
  const std::string text = solution_file.read();
  std::istringstream in(text);
  std::string first;
  std::getline(in, first);
  LpResult r;
  r.optimal = first.rfind("Optimal", 0) == 0;
  r.x.assign(m.cols.size(), 0.0);
  std::size_t found = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() <= 2) break;
    std::istringstream ls(line);
    std::string a, name, value;
    ls >> a;
    if (a == "**") ls >> a;
    ls >> name >> value;
    if (name.size() == 8 && name[0] == 'X') {
      const std::size_t j = std::strtoul(name.c_str() + 1, nullptr, 10);
      if (j < r.x.size()) r.x[j] = std::strtod(value.c_str(), nullptr), ++found;
    }
  }
  if (found != m.cols.size())
    throw InvariantError("sia: Cbc's solution file has " + std::to_string(found) + " of " +
                         std::to_string(m.cols.size()) + " columns (first line: '" + first + "')");
  return r;
}

}  // namespace rm::sia
