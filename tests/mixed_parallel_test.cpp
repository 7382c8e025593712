// Mixed-parallelism jobs end to end: resolution from data/parallel_models.csv, the job-graph law, the
// luo2025 generator, and the errors for impossible configurations.
#include <map>

#include "core/error.h"
#include "exec/comm_model.h"
#include "test_util.h"
#include "workload/generators.h"

namespace rm::test {
namespace {

std::vector<JobSpec> resolve(const ClusterSpec& c, const std::string& rows) {
  Workload w = read_trace_text("job_id,submit_s,num_gpus,model,iterations,dp,pp,tp\n" + rows, "mp.csv", "canonical");
  resolve_workload(w, ModelCatalogue::builtin(), c, law_resolve_options(), nullptr);
  return w.jobs;
}

ClusterSpec nvlink(int servers) {
  return parse_cluster_yaml("servers:\n  - {count: " + std::to_string(servers) +
                                ", gpus: 8, gpu_mem_gb: 32, nic_gbps: 100, intra_gbps: 1200}\n",
                            "nv.yaml");
}

TEST(MixedParallel, ResolutionDerivesVolumesFromTheLayerShape) {
  // gpt2-xl: 48 layers, hidden 1600, seq 1024, replica batch 8: activation a = 8 x 1024 x 1600 x 2 bytes.
  const auto j = resolve(nvlink(2), "a,0,16,gpt2-xl,100,2,2,4\n").at(0);
  const double a = 8.0 * 1024 * 1600 * 2 / 1e6;
  EXPECT_DOUBLE_EQ(j.tp_mb, 4.0 * 48 / 2 * a);
  EXPECT_DOUBLE_EQ(j.pp_mb, 2 * a);
  EXPECT_NEAR(j.compute_s, 1.963 / 8 * (8 + 1) / 8.0, 1e-12);  // / (P T), 1F1B bubble with m = 8
  EXPECT_DOUBLE_EQ(j.gpu_mem_mb, 30000.0 / 8);
  const JobGraph g = job_graph_of(j);
  EXPECT_EQ(g.size(), 16);
  EXPECT_EQ(parallel_config_of(j).D, 2);
}

TEST(MixedParallel, GraphLawChargesCutCollectivesAtTheNic) {
  const ClusterSpec c = nvlink(2);
  const JobSpec j = resolve(c, "a,0,8,bert-large,100,1,1,8\n").at(0);  // one TP ring of 8
  const JobGraph g = job_graph_of(j);
  std::vector<GpuRef> one, two;
  for (int v = 0; v < 8; ++v) one.push_back({0, v}), two.push_back({v / 4, v % 4});
  const double ring = 2.0 * 7 / 8 * j.tp_mb * 1e6;  // bytes on every TP edge
  EXPECT_NEAR(graph_iteration_time_s(j, g, c, one), j.compute_s + ring / (1200e9 / 8), 1e-12);
  EXPECT_NEAR(graph_iteration_time_s(j, g, c, two), j.compute_s + ring / (100e9 / 8), 1e-12);
  EXPECT_DOUBLE_EQ(graph_cut_bytes(g, two), 2 * ring);  // the ring crosses twice
  const AlphaBounds b = graph_alpha_bounds(j, g, c);
  EXPECT_NEAR(b.min_s, graph_iteration_time_s(j, g, c, one), 1e-12);
  EXPECT_NEAR(b.max_s, graph_iteration_time_s(j, g, c, two), 1e-12);
  // ideal_iteration_time_s (durations -> iterations, SRTF keys) uses alpha^min for such jobs.
  EXPECT_NEAR(ideal_iteration_time_s(j, c), b.min_s, 1e-12);
}

TEST(MixedParallel, ImpossibleConfigurationsNameFileLineAndField) {
  const ClusterSpec c = nvlink(2);
  auto expect_error = [&](const std::string& row, const std::string& where) {
    try {
      resolve(c, row);
      ADD_FAILURE() << "no error for " << row;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    }
  };
  expect_error("a,0,8,gpt2-xl,10,2,2,4\n", "mp.csv:2:dp");          // 2 x 2 x 4 = 16 != 8
  expect_error("a,0,6,gpt2-xl,10,0,1,4\n", "mp.csv:2:num_gpus");    // 6 not a multiple of 4
  expect_error("a,0,4,resnet50,10,1,1,4\n", "mp.csv:2:tp");         // no layer shape for a CNN
}

TEST(MixedParallel, SuchJobsNeedTheGraphLaw) {
  SimConfig cfg;
  cfg.cluster = "luo128";
  cfg.workload = "luo2025";
  cfg.gen.jobs = 40;
  cfg.policy = "fifo";
  cfg.exec = "rate";
  EXPECT_THROW(simulate(cfg), InputError);
  cfg.exec = "auto";  // picks graph
  const auto r = simulate(cfg);
  EXPECT_EQ(r->exec, ExecModel::Graph);
  EXPECT_EQ(r->summary.jobs, 40);
}

TEST(Luo2025, RecurringTemplatesSeededAndAtTheAskedLoad) {
  GenOptions o;
  o.jobs = 3000;
  o.load = 0.7;
  const auto a = generate_luo2025(o), b = generate_luo2025(o);
  EXPECT_EQ(a.text, b.text);
  o.seed = 2;
  EXPECT_NE(generate_luo2025(o).text, a.text);
  Workload w = read_trace_text(a.text, "gen", a.format);
  std::map<std::string, int> keys;
  double gpu_s = 0, last = 0;
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    ++keys[w.jobs[i].recurrence_key];
    gpu_s += w.jobs[i].num_gpus * w.jobs[i].duration_s;
    last = std::max(last, to_seconds(w.jobs[i].submit));
    EXPECT_EQ(w.jobs[i].dp * w.jobs[i].pp * w.jobs[i].tp, w.jobs[i].num_gpus);
  }
  int recurring = 0;
  for (const auto& [k, n] : keys) recurring += n > 1 ? n : 0;
  EXPECT_GT(recurring, 0.85 * o.jobs);  // 90 % recurrences of 40 templates
  EXPECT_NEAR(gpu_s / (128 * last), 0.7, 0.2);  // offered load, up to sampling noise
}

}  // namespace
}  // namespace rm::test
