// One application of Pollux's simulator (adaptdl osdi21-artifact c793c70, simulator/applications.py;
// shared/goldens/peers/pollux/README.md section 4), read from shared/traces/pollux/traces/<app>/ as pandas reads it
// (core/pandas_float.h): the validation curves per batch size (progress, iterations, gradient statistics by epoch),
// the step and sync times measured per placement and local batch, and the scalability table. Answers exactly as the
// authors' code does: the true step time of a placement (measured: linear in the local batch; else Pollux's Delaunay
// interpolation over (nodes capped at 16, GPUs, local batch), exec/delaunay.h), the gradient statistics at a batch
// and epoch (linear between the measured batch sizes), the progress at an epoch boundary, the iterations by an epoch.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace rm {

class DelaunayInterpolator;

class PolluxApp {
 public:
  struct Curve {  // validation-<batch>.csv, by epoch
    std::vector<double> progress, iteration, grad_sqr, grad_var;
  };
  // `dir` = .../pollux/traces/<name>; max_epochs and max_local_bsz as the simulator's APPLICATIONS table sets them
  // (0: from the tables); `gpu`: the GPU type of Sia's tables (placements-<gpu>.csv, scalability-<gpu>.csv; "":
  // Pollux's placements.csv). Throws InputError naming the file, line and field.
  PolluxApp(const std::string& dir, const std::string& name, int max_epochs, int max_local_bsz,
            const std::string& gpu = "");
  ~PolluxApp();
  PolluxApp(const PolluxApp&) = delete;
  PolluxApp& operator=(const PolluxApp&) = delete;

  const std::string& name() const { return name_; }
  int init_batch_size() const { return init_bsz_; }
  int max_batch_size() const { return max_bsz_; }
  int min_local_bsz() const { return min_local_; }
  int max_local_bsz() const { return max_local_; }
  int max_epochs() const { return max_epochs_; }
  int completion_epoch() const { return max_epochs_ - 1; }  // no target metric in the artifact's table

  // Cumulative progress at the start of `epoch`: the least over the measured batch sizes (get_progress).
  double progress(int epoch) const;
  // Iterations done after `epoch`, linear between the measured batch sizes (get_iteration).
  double iteration(int batch, int epoch) const;
  // (grad_sqr, grad_var) during `epoch` at `batch` (get_grad_stats).
  std::pair<double, double> grad_stats(int batch, int epoch) const;
  // (step_time, sync_time) of one step at a placement (GPUs per node; zeros dropped) and local batch
  // (get_throughput), memoised. Throws InputError if the authors' code would fail there (outside the measured
  // local batches of a measured placement, or outside the interpolation's hull).
  std::pair<double, double> throughput(const std::vector<int>& placement, int local_bsz) const;
  // Sia's get_max_local_bsz: the largest local batch measured at the placement (its smallest rotation), else the
  // largest of the scalability rows with at least its nodes and GPUs; InputError if there is none.
  int max_local_bsz_at(const std::vector<int>& placement) const;
  // The largest local batch measured at any placement of `replicas` GPUs; 0 if none (Sia's memory correction).
  int max_measured_local(int replicas) const;
  // Sia's one-GPU throughput of the application on this type (S:cluster.py compute_throughputs): the largest local
  // batch over the largest step time among the measured one-GPU rows (each maximum taken on its own).
  double one_gpu_throughput() const;

 private:
  struct Row {
    std::int64_t placement = 0;
    int nodes = 0, replicas = 0, local_bsz = 0;
    double step = 0, sync = 0;
  };
  std::pair<int, int> bracket(int batch) const;  // _validated_batch_sizes
  std::pair<double, double> measured(std::int64_t id, int local_bsz) const;
  const DelaunayInterpolator& mesh() const;

  std::string dir_, name_, placements_file_ = "placements.csv";
  std::map<int, Curve> curves_;
  std::vector<Row> placements_, scalability_;
  int init_bsz_ = 0, max_bsz_ = 0, min_local_ = 0, max_local_ = 0, max_epochs_ = 0;
  mutable std::mutex mu_;  // the memo and the mesh (runs of a sweep share an application)
  mutable std::unique_ptr<DelaunayInterpolator> mesh_;
  mutable std::map<std::pair<std::vector<int>, int>, std::pair<double, double>> memo_;
};

// The six applications of the artifact's APPLICATIONS table (bert 2 epochs, cifar10 100, ncf 10, imagenet 90,
// deepspeech2 80, yolov3 50 with local batches of at most 8), read from `traces_dir` (.../pollux/traces), or
// InputError for another name.
const PolluxApp& pollux_app(const std::string& traces_dir, const std::string& name);

// The same applications as Sia's simulator reads them on one GPU type (siasosp23/artifacts aaf7a0d,
// sia-simulator/applications.py: bert 2 epochs, cifar10 100, ncf 10, imagenet 90, deepspeech2 80, yolov3 50, no
// local-batch cap but deepspeech2's 57 on rtx), from `traces_dir` (.../sia/traces) and `gpu` (aws, dgx-ext, rtx, ...).
const PolluxApp& sia_app(const std::string& traces_dir, const std::string& gpu, const std::string& name);

}  // namespace rm
