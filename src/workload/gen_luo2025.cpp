// The recurring mixed-parallelism workload for A-SRPT (spec synergy-and-a-srpt.md A.7; our design, the
// paper's is unknown): templates (user, model, dataset, batch, (D, P, T)) with a mean duration; each job
// is a recurrence of a template drawn by popularity, its duration around the template's mean, or (10 %) a
// one-off. Poisson arrivals at the rate that offers `load` x the cluster's GPUs (GPU-seconds on the ideal
// placement). Durations become iterations at resolution, on the ideal placement (docs/formats.md).
#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"
#include "workload/generators.h"

namespace rm {
namespace {

struct Family {
  const char* model;
  double weight;
  std::vector<std::array<int, 3>> configs;  // (D, P, T)
  const char* datasets[3];
};

// Data-parallel CNNs and transformers with tensor / pipeline parallelism; n = D P T <= 64 GPUs, and the
// large models split enough to fit 32 GB GPUs (data/models.csv memory / (P T)).
const std::vector<Family>& families() {
  static const std::vector<Family> f = {
      {"resnet50", 0.2, {{1, 1, 1}, {1, 1, 1}, {2, 1, 1}, {4, 1, 1}, {8, 1, 1}, {16, 1, 1}}, {"imagenet", "places365", "cifar100"}},
      {"vgg16", 0.15, {{1, 1, 1}, {2, 1, 1}, {4, 1, 1}, {8, 1, 1}, {16, 1, 1}, {32, 1, 1}}, {"imagenet", "places365", "cifar100"}},
      {"inception3", 0.15, {{1, 1, 1}, {2, 1, 1}, {4, 1, 1}, {8, 1, 1}}, {"imagenet", "places365", "cifar100"}},
      {"bert-large", 0.18, {{1, 1, 2}, {2, 1, 2}, {4, 2, 1}, {4, 1, 2}, {8, 1, 1}, {2, 2, 2}}, {"wikipedia", "books", "c4"}},
      {"gpt2-xl", 0.14, {{1, 1, 4}, {2, 1, 4}, {2, 2, 2}, {4, 2, 2}, {1, 2, 4}}, {"openwebtext", "c4", "code"}},
      {"gpt3-2.7b", 0.1, {{1, 1, 8}, {2, 2, 4}, {1, 2, 4}, {4, 1, 8}}, {"openwebtext", "c4", "pile"}},
      {"megatron-8.3b", 0.08, {{1, 1, 8}, {1, 2, 8}, {2, 2, 8}, {1, 4, 8}}, {"openwebtext", "c4", "pile"}},
  };
  return f;
}

struct Template {
  std::string user, model, dataset, key;
  int D, P, T;
  double mean_s;
};

double normal(Rng& rng) {  // Box-Muller, one value per call
  const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

Template draw_template(Rng& rng, int users, int index) {
  double r = rng.uniform(), acc = 0;
  const Family* fam = &families().back();
  for (const auto& f : families())
    if ((acc += f.weight) > r) { fam = &f; break; }
  const auto& c = fam->configs[rng.below(fam->configs.size())];
  Template t;
  t.user = fmt::format("u{:02d}", rng.below(users));
  t.model = fam->model;
  t.dataset = fam->datasets[rng.below(3)];
  t.D = c[0], t.P = c[1], t.T = c[2];
  t.mean_s = 600.0 * std::pow(60.0, rng.uniform());  // log-uniform 10 min .. 10 h
  t.key = fmt::format("{}/{}/{}/{}x{}x{}#{}", t.user, t.model, t.dataset, t.D, t.P, t.T, index);
  return t;
}

}  // namespace

GeneratedTrace generate_luo2025(const GenOptions& opt) {
  if (opt.jobs < 1) throw InputError("--jobs", 0, "", "must be >= 1");
  if (!(opt.load > 0)) throw InputError("--load", 0, "", "must be > 0");
  if (opt.gpus < 1) throw InputError("--gpus", 0, "", "must be >= 1");
  if (opt.templates < 1) throw InputError("--templates", 0, "", "must be >= 1");
  Rng rng(mix_seed(opt.seed, 0x4c554f25));
  const int users = 16;
  std::vector<Template> tpl;
  std::vector<double> cum;  // Zipf(1) popularity
  double total = 0, gpu_s = 0;
  for (int i = 0; i < opt.templates; ++i) {
    tpl.push_back(draw_template(rng, users, i));
    total += 1.0 / (i + 1);
    cum.push_back(total);
    gpu_s += tpl.back().D * tpl.back().P * tpl.back().T * tpl.back().mean_s / (i + 1);
  }
  gpu_s /= total;  // mean GPU-seconds of a job (one-offs: about the same on average)
  const double rate = opt.load * opt.gpus / gpu_s;  // jobs per second
  const double sigma = 0.3;
  std::string out = "job_id,submit_s,num_gpus,model,duration_s,user,recurrence_key,dp,pp,tp\n";
  double t = 0;
  for (int i = 0; i < opt.jobs; ++i) {
    t += -std::log(1.0 - rng.uniform()) / rate;
    Template one;
    const Template* x;
    if (rng.uniform() < 0.1) {
      one = draw_template(rng, users, opt.templates + i);
      x = &one;
    } else {
      const double r = rng.uniform() * total;
      x = &tpl[std::lower_bound(cum.begin(), cum.end(), r) - cum.begin()];
    }
    const double dur = x->mean_s * std::exp(sigma * normal(rng) - sigma * sigma / 2);
    fmt::format_to(std::back_inserter(out), "{},{:.3f},{},{},{:.3f},{},{},{},{},{}\n", i, t, x->D * x->P * x->T,
                   x->model, dur, x->user, x->key, x->D, x->P, x->T);
  }
  return {out, "canonical"};
}

}  // namespace rm
