// Google Benchmark micro-benchmarks: placement, the contention update of the rate model, and the
// whole engine loop on a synthetic workload. Run: build/bench/ringmaster_bench
#include <benchmark/benchmark.h>

#include "cluster/cluster_config.h"
#include "core/rng.h"
#include "engine/engine.h"
#include "models/rate/rate_model.h"
#include "run/task_run.h"
#include "policy/task/task_registry.h"
#include "workload/generators.h"
#include "exec/comm_model.h"
#include "policy/placement/placements.h"
#include "policy/registry.h"
#include "workload/trace.h"

namespace rm {
namespace {

std::vector<JobSpec> synthetic(int n, std::uint64_t seed, const ClusterSpec& c) {
  Rng rng(seed);
  std::string text = "job_id,submit_s,num_gpus,model,iterations\n";
  double t = 0;
  const char* models[] = {"resnet50", "vgg16", "inception3", "lstm"};
  for (int i = 0; i < n; ++i) {
    t += rng.uniform() * 30;
    text += std::to_string(i) + "," + std::to_string(t) + "," + std::to_string(1 << rng.below(4)) + "," +
            models[rng.below(4)] + "," + std::to_string(100 + rng.below(20000)) + "\n";
  }
  Workload w = read_trace_text(text, "synthetic", "canonical");
  resolve_workload(w, ModelCatalogue::builtin(), c, law_resolve_options(), nullptr);
  return w.jobs;
}

void BM_Placement(benchmark::State& st, const char* name) {
  const ClusterSpec spec = load_cluster("philly2400");
  Cluster cluster(spec);
  // Half the GPUs busy, scattered.
  Rng rng(1);
  for (int s = 0; s < cluster.num_servers(); ++s)
    for (int g = 0; g < 8; ++g)
      if (rng.below(2)) cluster.allocate(1, {{s, g}});
  JobSpec js;
  js.num_gpus = static_cast<int>(st.range(0));
  js.gpu_mem_mb = 1000;
  JobState j;
  j.spec = &js;
  PluginParams p(name, {}, 1);
  std::unique_ptr<Placement> pl = std::string(name) == "first-fit" ? make_first_fit(p)
                                  : std::string(name) == "random"  ? make_random(p)
                                                                   : make_consolidated(p);
  FreeMap free(cluster);
  for (auto _ : st) benchmark::DoNotOptimize(pl->place(j, free));
}
BENCHMARK_CAPTURE(BM_Placement, first_fit, "first-fit")->Arg(1)->Arg(8)->Arg(64);
BENCHMARK_CAPTURE(BM_Placement, consolidated, "consolidated")->Arg(1)->Arg(8)->Arg(64);
BENCHMARK_CAPTURE(BM_Placement, random, "random")->Arg(1)->Arg(8)->Arg(64);

// Start and stop a split job among k others sharing its servers: the contention re-rating.
void BM_ContentionUpdate(benchmark::State& st) {
  const ClusterSpec spec = load_cluster("wang2020");
  const int k = static_cast<int>(st.range(0));
  std::vector<JobSpec> specs(k + 1);
  std::vector<JobState> states(k + 1);
  auto exec = make_rate_model(spec);
  for (int i = 0; i <= k; ++i) {
    specs[i].id = i;
    specs[i].num_gpus = 2;
    specs[i].compute_s = 0.1;
    specs[i].grad_mb = 100;
    states[i].spec = &specs[i];
    states[i].remaining = 1e9;
    states[i].status = JobStatus::Running;
    states[i].gpus = {{0, i % 4}, {1 + i % 15, i / 15 % 4}};
    if (i < k) exec->start(states[i], 0);
  }
  Time t = 1;
  for (auto _ : st) {
    exec->start(states[k], t);
    exec->stop(states[k], t + 1);
    t += 2;
  }
}
BENCHMARK(BM_ContentionUpdate)->Arg(1)->Arg(8)->Arg(32);

// The whole engine (event loop + scheduler + rate model) on n synthetic jobs.
void BM_Engine(benchmark::State& st, const char* policy) {
  const ClusterSpec spec = load_cluster("philly2400");
  const auto jobs = synthetic(static_cast<int>(st.range(0)), 3, spec);
  std::int64_t events = 0;
  for (auto _ : st) {
    auto sched = make_scheduler(policy, 1);
    Engine e(spec, jobs, *sched, make_rate_model(spec));
    e.run();
    events += e.events();
  }
  st.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_Engine, fifo, "fifo")->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Engine, srsf, "srsf")->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rm

// The task model on one generated Wang et al. job set (160 jobs, 64 GPUs): Arg = scale (10 is the
// authors' setting, 100 has 10x the iterations). Second arg: 1 = --compat wang2020 (1-ms steps).
void BM_TaskEngine(benchmark::State& st) {
  const auto cluster = rm::load_cluster("wang2020");
  rm::GenOptions g;
  g.seed = 1;
  g.scale = static_cast<double>(st.range(0));
  const auto gt = rm::generate_wang2020(g);
  rm::Workload w = rm::read_trace_text(gt.text, "gen", gt.format);
  rm::resolve_workload(w, rm::ModelCatalogue::builtin(), cluster, rm::law_resolve_options(), nullptr);
  rm::TaskOptions opt;
  opt.compat = st.range(1) == 1;
  for (auto _ : st) {
    auto policy = rm::task::make_task_policy("ssf-lwf2-srsf-1-true", 1);
    auto e = rm::run_task_model(cluster, w.jobs, std::make_unique<rm::TaskModel>(cluster, w.jobs, policy, opt));
    benchmark::DoNotOptimize(e->avg_jct_ms());
  }
}
BENCHMARK(BM_TaskEngine)->Args({10, 0})->Args({10, 1})->Args({100, 0})->Args({100, 1})->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
