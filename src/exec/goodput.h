// Pollux's goodput model (Qiao et al., OSDI'21; adaptdl osdi21-artifact c793c70, simulator/goodput.py and
// speedup.py), the model an elastic scheduler optimises: a job's throughput at (nodes, GPUs, atomic batch,
// accumulation steps) from seven parameters (compute linear in the local batch; network by the most significant
// link, intra- or inter-node, with a retrogression per GPU beyond 2; compute and network overlapped as a
// gamma-norm), its statistical efficiency at a batch from the gradient noise, their product the goodput, the best
// batch configuration among 50 geometric candidates, the speedup over one GPU, and the fit of the seven
// parameters to observed step times (RMSLE + regularisation, minimised by L-BFGS-B: Debian's liblbfgsb, the same
// Fortran 3.0 code scipy wraps, driven as scipy.optimize.minimize drives it). Same arithmetic as numpy where it
// decides a result (geomspace, the eps of the floor/ceil rounding, the first maximum).
#pragma once
#include <array>
#include <vector>

namespace rm::pollux {

struct PerfParams {
  double alpha_c = 0, beta_c = 0;  // compute: alpha_c + beta_c x atomic batch (per accumulation step)
  double alpha_n = 0, beta_n = 0;  // inter-node network: alpha_n + beta_n x max(GPUs - 2, 1e-8)
  double alpha_r = 0, beta_r = 0;  // intra-node network, the same form
  double gamma = 1;                // overlap: (compute^gamma + network^gamma)^(1/gamma), gamma in [1, 10]
  std::array<double, 7> as_array() const { return {alpha_c, beta_c, alpha_n, beta_n, alpha_r, beta_r, gamma}; }
};

struct GradParams {
  double sqr = 0, var = 0;  // the gradient's squared norm and variance (per init batch)
};

struct BatchChoice {
  double goodput = 0;
  int atomic_bsz = 0, accum_steps = 0;
};

class GoodputFunction {
 public:
  GoodputFunction(PerfParams perf, GradParams grad, int init_batch_size)
      : perf_(perf), grad_(grad), init_(init_batch_size) {}
  // Samples (batch) per second.
  double throughput(int nodes, int replicas, int atomic_bsz, int accum_steps) const;
  // Progress per sample relative to the init batch: (PGNS + init) / (PGNS + batch) (1 if the noise is degenerate).
  double efficiency(double batch_size) const;
  double evaluate(int nodes, int replicas, int atomic_bsz, int accum_steps) const;
  // The best of 50 batch sizes geometric between max(init, min atomic x GPUs) and max_batch_size, each split into an
  // atomic batch and accumulation steps (with `accumulation`; one GPU above the init batch accumulates at least
  // once); candidates outside [min_atomic, max_atomic] count 0; the first best wins. max_atomic 0: max_batch_size.
  BatchChoice optimize(int nodes, int replicas, int max_batch_size, int min_atomic, int max_atomic,
                       bool accumulation) const;
  const PerfParams& perf() const { return perf_; }
  // optimize() over several configurations at once as numpy does it when they come as float32 arrays (Sia's policy,
  // sia.py _compute_goodputs_v2: nodes and GPUs astype(np.float32), accumulation on, batch tuning on): the 50
  // candidate batches per configuration by float32 geomspace (float32 log10 and powf; numpy's linspace takes its
  // step-zero branch for every column when any column has start == stop), the local batch and accumulation steps in
  // float32, the atomic batch in float64, the retrogression's max(GPUs - 2, 1e-8) in float32. The best goodput of
  // each configuration (float64, before Sia casts it to float32).
  std::vector<double> optimize_f32(const std::vector<int>& nodes, const std::vector<int>& replicas, int max_batch_size,
                                   int min_atomic, int max_atomic) const;

 private:
  PerfParams perf_;
  GradParams grad_;
  int init_;
};

// Goodput over that of one GPU (speedup.py), both at their best batch; (0, 0) is 0.
class SpeedupFunction {
 public:
  SpeedupFunction(GoodputFunction fn, int max_batch_size, int min_atomic, int max_atomic, bool accumulation);
  double operator()(int nodes, int replicas) const;
  // Speedups over the goodput at (nodes, replicas) instead of one GPU (Pollux's fair-share normalisation).
  void rebase(int nodes, int replicas) { base_ = fn_.optimize(nodes, replicas, max_batch_, min_atomic_, max_atomic_, accumulation_).goodput; }

 private:
  GoodputFunction fn_;
  int max_batch_, min_atomic_, max_atomic_;
  bool accumulation_;
  double base_ = 0;
};

// One observation of a job's profile: per-step compute (accumulation) time and whole step (optimizer) time.
struct StepSample {
  int nodes = 1, replicas = 1, atomic_bsz = 1;
  double accum_step_time = 0, optim_step_time = 0;
};

// fit_perf_params: the seven parameters that best explain the samples (in the order observed). Parameters the
// samples cannot inform are held at their bounds (alpha_c at half the mean compute time with one atomic batch
// seen; inter-node terms without multi-node samples; intra-node without single-node multi-GPU ones; retrogression
// without samples of more than 2 GPUs); without multi-node samples alpha_n, beta_n are raised to 1.1 x alpha_r,
// beta_r.
// `ftol`: scipy's L-BFGS-B ftol (its default; Sia's goodput.py passes tol=1e-5, which sets it to 1e-5).
PerfParams fit_perf_params(const std::vector<StepSample>& samples, double ftol = 2.2204460492503131e-09);

// The objective fit_perf_params minimises and its gradient (exposed for tests).
double fit_objective(const std::array<double, 7>& p, const std::vector<StepSample>& s, std::array<double, 7>* grad);

}  // namespace rm::pollux
