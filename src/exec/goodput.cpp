#include "exec/goodput.h"

#include <fcntl.h>
#include <unistd.h>

#include <cfloat>
#include <cstdio>
#include <mutex>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/lazy_lib.h"

extern "C" {
// L-BFGS-B 3.0 (Debian's liblbfgsb), Fortran calling convention with gfortran's hidden string lengths.
void setulb_(const int* n, const int* m, double* x, const double* l, const double* u, const int* nbd, double* f,
             double* g, const double* factr, const double* pgtol, double* wa, int* iwa, char* task, const int* iprint,
             char* csave, int* lsave, int* isave, double* dsave, std::size_t task_len, std::size_t csave_len);
}

namespace rm::pollux {
namespace {

// Debian's L-BFGS-B 3.0 writes "ascent direction in projection gd = ..." to Fortran unit 6 (our stdout) when a line
// search would start uphill, whatever iprint says; scipy's copy of the same code writes it only with iprint >= 0
// (we pass -1, as scipy.optimize.minimize does). The message is kept off the run's output: while setulb runs, file
// descriptor 1 points to /dev/null and unit 6 is flushed before it is restored. One at a time (runs of a sweep may
// fit in parallel); C's stdout is flushed first so nothing of ours is lost.
class QuietFortranStdout {
 public:
  QuietFortranStdout() : lock_(mutex()) {
    std::fflush(stdout);
    saved_ = ::dup(1);
    const int null = ::open("/dev/null", O_WRONLY);
    if (saved_ >= 0 && null >= 0) ::dup2(null, 1);
    if (null >= 0) ::close(null);
  }
  ~QuietFortranStdout() {
    // gfortran's FLUSH of a unit, from the libgfortran liblbfgsb loaded (looked up: we do not link it ourselves).
    using Flush = void (*)(int*);
    static const auto flush = reinterpret_cast<Flush>(find_lazy_symbol(RM_SONAME_LBFGSB, "_gfortran_flush_i4"));
    int unit = 6;
    if (flush) flush(&unit);
    if (saved_ >= 0) ::dup2(saved_, 1), ::close(saved_);
  }
  QuietFortranStdout(const QuietFortranStdout&) = delete;
  QuietFortranStdout& operator=(const QuietFortranStdout&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  std::lock_guard<std::mutex> lock_;
  int saved_ = -1;
};

// numpy's sum of a float64 vector (add.reduce: pairwise in blocks of 8 up to 128, halves above).
double pairwise(const double* a, std::size_t n) {
  if (n < 8) {
    double r = 0.;
    for (std::size_t i = 0; i < n; ++i) r += a[i];
    return r;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + static_cast<std::size_t>(j)];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise(a, n2) + pairwise(a + n2, n - n2);
}
double np_mean(const std::vector<double>& v) { return (0.0 + pairwise(v.data(), v.size())) / static_cast<double>(v.size()); }

double network_time(const PerfParams& p, int nodes, int replicas) {
  const double bottleneck = nodes > 1 ? p.alpha_n : replicas > 1 ? p.alpha_r : 1e-8;
  const double retro = nodes > 1 ? p.beta_n : replicas > 1 ? p.beta_r : 1e-8;
  return bottleneck + retro * std::max(static_cast<double>(replicas - 2), 1e-8);
}

// numpy.geomspace(start, stop) (50 points): 10 ** linspace(log10(start), log10(stop)), its ends set exactly.
std::vector<double> geomspace(double start, double stop) {
  constexpr int kNum = 50;
  const double ls = std::log10(start), le = std::log10(stop), delta = le - ls, step = delta / (kNum - 1);
  std::vector<double> y(kNum);
  for (int i = 0; i < kNum; ++i) y[static_cast<std::size_t>(i)] = step == 0 ? (i / double(kNum - 1)) * delta + ls : i * step + ls;
  y[kNum - 1] = le;
  for (double& v : y) v = std::pow(10.0, v);
  y.front() = start;
  y.back() = stop;
  return y;
}

}  // namespace

double GoodputFunction::throughput(int nodes, int replicas, int atomic_bsz, int accum_steps) const {
  const double accum_time = perf_.alpha_c + perf_.beta_c * atomic_bsz;
  const double net = network_time(perf_, nodes, replicas);
  const double optim = std::exp(std::log(std::pow(accum_time, perf_.gamma) + std::pow(net, perf_.gamma)) / perf_.gamma);
  const double total = accum_steps * accum_time + optim;
  const double batch = static_cast<double>(replicas) * atomic_bsz * (accum_steps + 1);
  return batch / total;
}

double GoodputFunction::efficiency(double batch_size) const {
  const double scale = batch_size / init_;
  const double denom = grad_.var / scale + grad_.sqr;
  const double gain = denom > 0 ? (grad_.var + grad_.sqr) / denom : 1.0;
  return gain / scale;
}

double GoodputFunction::evaluate(int nodes, int replicas, int atomic_bsz, int accum_steps) const {
  const double batch = static_cast<double>(replicas) * atomic_bsz * (accum_steps + 1);
  return throughput(nodes, replicas, atomic_bsz, accum_steps) * efficiency(batch);
}

BatchChoice GoodputFunction::optimize(int nodes, int replicas, int max_batch_size, int min_atomic, int max_atomic,
                                      bool accumulation) const {
  if (nodes < 1 || nodes > replicas || init_ > max_batch_size)
    throw InvariantError("goodput: optimize needs 1 <= nodes <= GPUs and init batch <= max batch");
  if (min_atomic <= 0) min_atomic = 1;
  if (max_atomic <= 0) max_atomic = max_batch_size;
  constexpr double kEps = 1e-8;
  const double lo = std::max<double>(init_, static_cast<double>(min_atomic) * replicas);
  BatchChoice best;
  bool first = true;
  for (double batch : geomspace(lo, max_batch_size)) {
    const double local = batch / replicas;
    int accum = 0;
    if (accumulation) {
      accum = static_cast<int>(std::ceil(local / max_atomic - kEps) - 1);
      if (replicas == 1 && local > init_ + kEps) accum = std::max(accum, 1);
    }
    const int atomic = static_cast<int>(std::ceil(local / (accum + 1) - kEps));
    double g = evaluate(nodes, replicas, atomic, accum);
    if (!(min_atomic <= atomic && atomic <= max_atomic)) g = 0.0;
    if (first || g > best.goodput) best = {g, atomic, accum};  // numpy's argmax: the first maximum
    first = false;
  }
  return best;
}

std::vector<double> GoodputFunction::optimize_f32(const std::vector<int>& nodes, const std::vector<int>& replicas,
                                                  int max_batch_size, int min_atomic, int max_atomic) const {
  const std::size_t k = nodes.size();
  if (replicas.size() != k) throw InvariantError("goodput: optimize_f32 needs as many nodes as GPU counts");
  for (std::size_t c = 0; c < k; ++c)
    if (nodes[c] < 1 || nodes[c] > replicas[c] || init_ > max_batch_size)
      throw InvariantError("goodput: optimize needs 1 <= nodes <= GPUs and init batch <= max batch");
  if (min_atomic <= 0) min_atomic = 1;
  if (max_atomic <= 0) max_atomic = max_batch_size;
  constexpr int kNum = 50;
  // geomspace(min_batch_size (float32), max_batch_size): dtype float32 throughout (numpy 1.24 function_base.py).
  std::vector<float> start(k), ls(k), delta(k);
  const float stop = static_cast<float>(max_batch_size), le = std::log10(stop);
  bool any_zero = false;
  for (std::size_t c = 0; c < k; ++c) {
    start[c] = std::max(static_cast<float>(init_), static_cast<float>(min_atomic) * static_cast<float>(replicas[c]));
    ls[c] = std::log10(start[c]);
    delta[c] = le - ls[c];
    any_zero = any_zero || delta[c] / static_cast<float>(kNum - 1) == 0.0f;
  }
  std::vector<double> out(k, 0.0);
  std::vector<bool> first(k, true);
  for (int i = 0; i < kNum; ++i) {
    for (std::size_t c = 0; c < k; ++c) {
      float y;
      if (any_zero) y = (static_cast<float>(i) / static_cast<float>(kNum - 1)) * delta[c];
      else y = static_cast<float>(i) * (delta[c] / static_cast<float>(kNum - 1));
      y = y + ls[c];
      if (i == kNum - 1) y = le;
      float batch = std::pow(10.0f, y);
      if (i == 0) batch = start[c];
      if (i == kNum - 1) batch = stop;
      const float r = static_cast<float>(replicas[c]);
      const float local = batch / r;
      float acc_f = std::ceil(local / static_cast<float>(max_atomic) - 1e-8f) - 1.0f;
      if (replicas[c] == 1 && local > static_cast<float>(init_ + 1e-8)) acc_f = std::max(acc_f, 1.0f);
      const int accum = static_cast<int>(acc_f);
      const int atomic = static_cast<int>(std::ceil(static_cast<double>(local) / (accum + 1) - 1e-8));
      // evaluate(): the batch in float64; the retrogression factor max(GPUs - 2, 1e-8) in float32.
      const double accum_time = perf_.alpha_c + perf_.beta_c * atomic;
      const bool multi = nodes[c] > 1, many = replicas[c] > 1;
      const double bottleneck = multi ? perf_.alpha_n : many ? perf_.alpha_r : 1e-8;
      const double retro = multi ? perf_.beta_n : many ? perf_.beta_r : 1e-8;
      const double net = bottleneck + retro * static_cast<double>(std::max(r - 2.0f, 1e-8f));
      const double optim = std::exp(std::log(std::pow(accum_time, perf_.gamma) + std::pow(net, perf_.gamma)) / perf_.gamma);
      const double total = accum * accum_time + optim;
      const double b = static_cast<double>(replicas[c]) * atomic * (accum + 1);
      double g = b / total * efficiency(b);
      if (!(min_atomic <= atomic && atomic <= max_atomic)) g = 0.0;
      if (first[c] || g > out[c]) out[c] = g;
      first[c] = false;
    }
  }
  return out;
}

SpeedupFunction::SpeedupFunction(GoodputFunction fn, int max_batch_size, int min_atomic, int max_atomic,
                                 bool accumulation)
    : fn_(fn), max_batch_(max_batch_size), min_atomic_(min_atomic), max_atomic_(max_atomic), accumulation_(accumulation) {
  base_ = fn_.optimize(1, 1, max_batch_, min_atomic_, max_atomic_, accumulation_).goodput;
}

double SpeedupFunction::operator()(int nodes, int replicas) const {
  if (nodes == 0 && replicas == 0) return 0.0;
  return fn_.optimize(nodes, replicas, max_batch_, min_atomic_, max_atomic_, accumulation_).goodput / base_;
}

namespace {
// libm's pow, called as numpy's power ufunc calls it: through a pointer the compiler cannot see through, so that
// pow(x, 2.0) is not folded into x * x.
double (*volatile libm_pow)(double, double) = &::pow;
}  // namespace

double fit_objective(const std::array<double, 7>& x, const std::vector<StepSample>& s, std::array<double, 7>* grad) {
  const double ac = x[0], bc = x[1], an = x[2], bn = x[3], ar = x[4], br = x[5], g = x[6];
  const std::size_t n = s.size();
  std::vector<double> e1(n), e2(n), sq1(n), sq2(n), pa(n), pn(n), S(n);
  for (std::size_t i = 0; i < n; ++i) {
    pa[i] = ac + bc * s[i].atomic_bsz;
    const double bottleneck = s[i].nodes > 1 ? an : s[i].replicas > 1 ? ar : 1e-8;
    const double retro = s[i].nodes > 1 ? bn : s[i].replicas > 1 ? br : 1e-8;
    pn[i] = bottleneck + retro * std::max(static_cast<double>(s[i].replicas - 2), 1e-8);
    S[i] = std::pow(pa[i], g) + std::pow(pn[i], g);
    const double log_optim = std::log(S[i]) / g;
    e1[i] = std::log(pa[i]) - std::log(s[i].accum_step_time);
    e2[i] = log_optim - std::log(s[i].optim_step_time);
    sq1[i] = e1[i] * e1[i];
    sq2[i] = e2[i] * e2[i];
  }
  const double err1 = std::sqrt(np_mean(sq1)), err2 = std::sqrt(np_mean(sq2));
  // numpy float64 scalars' ** 2 is pow too (scalarmath), as is every y ** 2 of autograd's vjps below.
  const double reg1 = 1e-3 * libm_pow(g - 1, 2.0);
  const double reg2 = 1e-2 * (libm_pow(bn / an, 2.0) + libm_pow(br / ar, 2.0));
  if (grad) {
    // Reverse mode in autograd's order (its vjps and the order in which backward_pass adds a node's
    // contributions), so that L-BFGS-B sees the authors' gradient to the last bit.
    // The vjp of sqrt reads the mean squared error of autograd's own forward pass, whose `(pred - true) ** 2` is
    // numpy's power ufunc on boxed arrays, i.e. libm's pow(x, 2), not the exact square scipy's plain call takes
    // (ndarray ** 2 is np.square): glibc's pow is within 0.52 ulp, so the two part now and then by one ulp.
    const double nn = static_cast<double>(n);
    std::vector<double> p1(n), p2(n);
    for (std::size_t i = 0; i < n; ++i) p1[i] = libm_pow(e1[i], 2.0), p2[i] = libm_pow(e2[i], 2.0);
    const double g_m1 = (1.0 * 0.5) * std::pow(np_mean(p1), -0.5), g_m2 = (1.0 * 0.5) * std::pow(np_mean(p2), -0.5);
    std::vector<double> g_pa(n), g_pn(n), c_div(n), c_pow_pn(n), c_pow_pa(n), g_bc(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double g_d1 = ((g_m1 / nn) * 2) * e1[i];
      const double g_pl = ((g_m2 / nn) * 2) * e2[i];
      const double log_s = std::log(S[i]);
      const double g_s = (g_pl / g) / S[i];
      c_div[i] = ((-g_pl) * log_s) / libm_pow(g, 2.0);
      g_pn[i] = (g_s * g) * std::pow(pn[i], g - 1);
      c_pow_pn[i] = (g_s * std::log(pn[i])) * std::pow(pn[i], g);
      c_pow_pa[i] = (g_s * std::log(pa[i])) * std::pow(pa[i], g);
      g_pa[i] = (g_s * g) * std::pow(pa[i], g - 1) + g_d1 / pa[i];
      g_bc[i] = s[i].atomic_bsz * g_pa[i];
    }
    auto sum = [](const std::vector<double>& v) { return 0.0 + pairwise(v.data(), v.size()); };
    std::array<double, 7> d{};
    d[0] = sum(g_pa);
    d[1] = sum(g_bc);
    // reg2's terms first, then each GPU count's network contribution, last sample first.
    const double q1 = bn / an, q2 = br / ar, g_q1 = (1e-2 * 2) * q1, g_q2 = (1e-2 * 2) * q2;
    d[2] = ((-g_q1) * bn) / libm_pow(an, 2.0);
    d[3] = g_q1 / an;
    d[4] = ((-g_q2) * br) / libm_pow(ar, 2.0);
    d[5] = g_q2 / ar;
    for (std::size_t k = n; k-- > 0;) {
      const double rr = std::max(static_cast<double>(s[k].replicas - 2), 1e-8);
      if (s[k].nodes > 1) {
        d[2] = d[2] + g_pn[k];
        d[3] = d[3] + rr * g_pn[k];
      } else if (s[k].replicas > 1) {
        d[4] = d[4] + g_pn[k];
        d[5] = d[5] + rr * g_pn[k];
      }
    }
    d[6] = (((1e-3 * 2) * (g - 1) + sum(c_div)) + sum(c_pow_pn)) + sum(c_pow_pa);
    *grad = d;
  }
  return err1 + err2 + reg1 + reg2;
}

PerfParams fit_perf_params(const std::vector<StepSample>& s, double ftol) {
  if (s.empty()) throw InvariantError("goodput: fit_perf_params needs at least one sample");
  std::array<double, 7> x = {1e-1, 1e-2, 1e-1, 1e-2, 1e-1, 1e-2, 1.0 + 1e-3};
  std::array<double, 7> lo = {1e-8, 1e-8, 1e-8, 1e-8, 1e-8, 1e-8, 1.0};
  std::array<double, 7> hi = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, 10.0};
  bool one_bsz = true, multi_node = false, single_node_multi = false, over_two = false;
  std::vector<double> accum;
  for (const auto& p : s) {
    one_bsz = one_bsz && p.atomic_bsz == s.front().atomic_bsz;
    multi_node = multi_node || p.nodes > 1;
    single_node_multi = single_node_multi || (p.nodes == 1 && p.replicas > 1);
    over_two = over_two || p.replicas > 2;
    accum.push_back(p.accum_step_time);
  }
  if (one_bsz) x[0] = hi[0] = lo[0] = np_mean(accum) / 2;
  auto fix = [&](int i) { x[i] = hi[i] = lo[i]; };
  if (!multi_node) fix(2), fix(3);
  if (!single_node_multi) fix(4), fix(5);
  if (!over_two) fix(3), fix(5);
  // scipy.optimize.minimize(method L-BFGS-B, jac given): m 10, factr = ftol / eps, pgtol 1e-5, at most 15,000
  // iterations and evaluations, x0 clipped to the bounds, variables with equal bounds kept (nbd 2).
  const int n = 7, m = 10, iprint = -1;
  const double factr = ftol / DBL_EPSILON, pgtol = 1e-5;
  int nbd[7];
  double l[7], u[7];
  for (int i = 0; i < n; ++i) {
    x[i] = std::min(std::max(x[i], lo[i]), hi[i]);
    l[i] = lo[i];
    u[i] = std::isinf(hi[i]) ? 0.0 : hi[i];
    nbd[i] = std::isinf(hi[i]) ? 1 : 2;
  }
  double f = 0, g[7] = {0};
  std::vector<double> wa(2 * m * n + 5 * n + 11 * m * m + 8 * m);
  std::vector<int> iwa(3 * n);
  char task[60], csave[60];
  int lsave[4] = {0}, isave[44] = {0};
  double dsave[29] = {0};
  auto set = [](char* b, const char* text) {
    std::memset(b, ' ', 60);
    std::memcpy(b, text, std::strlen(text));
  };
  set(task, "START");
  set(csave, "");
  long iterations = 0, evaluations = 0;
  const auto setulb = RM_LAZY(RM_SONAME_LBFGSB, setulb_);  // liblbfgsb, opened at the first fit (core/lazy_lib.h)
  for (;;) {
    {
      const QuietFortranStdout quiet;
      setulb(&n, &m, x.data(), l, u, nbd, &f, g, &factr, &pgtol, wa.data(), iwa.data(), task, &iprint, csave, lsave,
             isave, dsave, 60, 60);
    }
    if (std::strncmp(task, "FG", 2) == 0) {
      std::array<double, 7> d{};
      f = fit_objective(x, s, &d);
      for (int i = 0; i < n; ++i) g[i] = d[i];
      ++evaluations;
    } else if (std::strncmp(task, "NEW_X", 5) == 0) {
      ++iterations;
      if (iterations >= 15000) set(task, "STOP: TOTAL NO. of ITERATIONS REACHED LIMIT");
      else if (evaluations > 15000) set(task, "STOP: TOTAL NO. of f AND g EVALUATIONS EXCEEDS LIMIT");
    } else {
      break;
    }
  }
  PerfParams p{x[0], x[1], x[2], x[3], x[4], x[5], x[6]};
  if (!multi_node) {  // the prior: inter-node at least 1.1 x intra-node
    p.alpha_n = std::max(p.alpha_n, p.alpha_r * 1.1);
    p.beta_n = std::max(p.beta_n, p.beta_r * 1.1);
  }
  return p;
}

}  // namespace rm::pollux
