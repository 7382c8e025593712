// --compat pollux (issue 43 goal 4): the Pollux authors' simulator's deterministic baselines reproduced job by job
// against their published per-job JCTs (shared/goldens/peers/pollux/{tiresias,optimus}-<load>.csv), the contract's
// command, the pieces by hand (pandas' float reading, Python's rounding, the Delaunay interpolation against points
// it must reproduce), and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/error.h"
#include "core/pandas_float.h"
#include "exec/delaunay.h"
#include "exec/pollux_app.h"
#include <nlohmann/json.hpp>
#include "peers/pollux/pollux_sim.h"
#include "run/run_plan.h"
#include "run/simulation.h"
#include "test_util.h"

namespace rm {
namespace {

const std::string kGold = std::string(RM_SHARED_DIR) + "/goldens/peers/pollux";
const std::string kTraces = std::string(RM_SHARED_DIR) + "/traces/pollux";

SimConfig config(const std::string& workload, const std::string& policy) {
  SimConfig c;
  c.compat = "pollux";
  c.cluster = "pollux:16:4";
  c.trace = kTraces + "/" + workload + ".csv";
  c.format = "pollux";
  c.policy = policy;
  c.data_dir = std::string(RM_SHARED_DIR) + "/traces";
  return c;
}

// workload -> job -> JCT (s)
std::map<std::string, std::map<std::string, double>> read_golden(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // workload,job,jct_s
  std::map<std::string, std::map<std::string, double>> out;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    out[f.at(0)][f.at(1)] = std::stod(f.at(2));
  }
  return out;
}

// Every job of every published run of one policy at one load.
int check_load(const std::string& policy, const std::string& load, int& wrong) {
  const auto gold = read_golden(kGold + "/" + policy + "-" + load + ".csv");
  int runs = 0;
  for (const auto& [workload, jcts] : gold) {
    const auto r = simulate(config(workload, policy));
    EXPECT_EQ(r->record.jobs.size(), jcts.size()) << workload;
    for (std::size_t i = 0; i < r->record.jobs.size(); ++i) {
      const std::string& name = r->record.jobs[i].spec->name;
      const ExactTimes& x = r->record.exact_s[i];
      const auto it = jcts.find(name);
      if (it == jcts.end() || x.finish - x.submit != it->second) {
        ++wrong;
        ADD_FAILURE() << policy << " " << workload << " job " << name << ": " << x.finish - x.submit << " s, published "
                      << (it == jcts.end() ? -1 : it->second);
      }
    }
    ++runs;
  }
  return runs;
}

TEST(PeerPollux, TiresiasAtLoadOneJobByJob) {
  int wrong = 0;
  EXPECT_EQ(check_load("tiresias", "1.0", wrong), 8);
  EXPECT_EQ(wrong, 0);
}

TEST(PeerPollux, OptimusAtLoadOneJobByJob) {
  int wrong = 0;
  EXPECT_EQ(check_load("optimus", "1.0", wrong), 8);
  EXPECT_EQ(wrong, 0);
}

// Runs of the authors' simulator we made under settings the published ones do not cover (tests/data/pollux/README.md):
// interference 0.25 (a distributed job on a node another distributed job also uses loses a quarter of its goodput
// for the round) and nodes of 2 GPUs.
TEST(PeerPollux, GeneratedGoldensWithInterferenceAndTwoGpuNodes) {
  const std::string data = std::string(RM_SOURCE_DIR) + "/tests/data/pollux/";
  for (const auto& [file, cluster, policy] :
       {std::tuple<std::string, std::string, std::string>{"optimus-interference0.25-workload-6.csv", "pollux:16:4", "optimus"},
        {"tiresias-n24g2-interference0.25-workload-6.csv", "pollux:24:2", "tiresias"}}) {
    const auto gold = read_golden(data + file).at("workloads/workload-6");
    SimConfig c = config("workloads/workload-6", policy);
    c.cluster = cluster;
    c.interference = 0.25;
    const auto r = simulate(c);
    ASSERT_EQ(r->record.jobs.size(), gold.size()) << file;
    int wrong = 0;
    for (std::size_t i = 0; i < r->record.jobs.size(); ++i) {
      const ExactTimes& x = r->record.exact_s[i];
      const double want = gold.at(r->record.jobs[i].spec->name);
      if (x.finish - x.submit != want) ++wrong;
      EXPECT_EQ(x.finish - x.submit, want) << file << " job " << r->record.jobs[i].spec->name;
    }
    EXPECT_EQ(wrong, 0) << file;
  }
  // Interference slows distributed jobs down: the same runs without it finish sooner on average.
  SimConfig c = config("workloads/workload-6", "optimus");
  const double without = simulate(c)->summary.avg_jct_s;
  c.interference = 0.25;
  EXPECT_GT(simulate(c)->summary.avg_jct_s, without);
}

// The contract's command as written (its paths relative to the repository root, where ctest runs it).
TEST(PeerPollux, TheContractCommand) {
  for (const auto& [policy, mean] : {std::pair<std::string, std::string>{"tiresias", "3469.69375"}, {"optimus", "5301.875"}}) {
    const std::string dir = test::temp_dir();
    const auto out = test::shell(std::string(RM_BINARY) + " simulate -q --compat pollux --cluster pollux:16:4 --trace " +
                                 kTraces + "/workloads/workload-6.csv --format pollux --policy " + policy +
                                 " --data-dir " + RM_SHARED_DIR + "/traces --out " + dir + " 2>&1");
    ASSERT_EQ(out.code, 0) << out.text;
    const std::string jobs = test::read_file(dir + "/jobs.csv");
    const std::string summary = test::read_file(dir + "/summary.json");
    EXPECT_NE(summary.find("\"avg_jct_s\": " + mean), std::string::npos) << summary.substr(0, 600);
    EXPECT_NE(summary.find("\"exec\": \"pollux-rounds+compat=pollux\""), std::string::npos);
    // workload-6's first job, cifar10-0 (submitted at 53 s): published JCT 947 s under tiresias.
    if (policy == "tiresias") {
      EXPECT_NE(jobs.find("\ncifar10-0,53,6,cifar10,0,60,1000,947,"), std::string::npos) << jobs.substr(0, 400);
    }
  }
}

// pandas 1.5 reads 27 % of the traces' numbers one unit in the last place away from the correctly rounded value
// (17 digits accumulated in a double, then one division by a power of ten); the simulator sees pandas' values.
TEST(PeerPollux, NumbersAreReadAsPandasReadsThem) {
  EXPECT_EQ(pandas_float("0.008057421625079974"), 0.0080574216250799);
  EXPECT_NE(std::stod("0.008057421625079974"), 0.0080574216250799);
  EXPECT_EQ(pandas_float(" 6406.0"), 6406.0);
  EXPECT_EQ(pandas_float("1e3"), 1000.0);
  EXPECT_EQ(pandas_float("-2.5"), -2.5);
  EXPECT_FALSE(pandas_float("abc"));
  EXPECT_FALSE(pandas_float("1.5x"));
  EXPECT_FALSE(pandas_float(""));
}

// The Delaunay interpolation by hand: a linear function is reproduced inside the hull (each simplex interpolates
// its vertices' values linearly), a vertex gives its own value, outside the hull is NaN, as scipy's
// LinearNDInterpolator.
TEST(PeerPollux, DelaunayInterpolationIsLinearInsideAndNanOutside) {
  std::vector<double> pts, vals;
  for (int x = 0; x <= 2; ++x)
    for (int y = 0; y <= 2; ++y)
      for (int z = 0; z <= 1; ++z) {
        pts.insert(pts.end(), {double(x), double(y), double(z)});
        vals.insert(vals.end(), {1 + x + 2.0 * y + 3.0 * z, 10.0 - z});
      }
  const DelaunayInterpolator f(pts, 3, vals, 2, "test");
  EXPECT_GE(f.simplices(), 12u);  // 4 unit cubes, each in at least 5 tetrahedra... Qhull gives 6 per cube with Qt
  double out[2];
  const double p[3] = {0.5, 1.25, 0.75};
  f(p, out);
  EXPECT_NEAR(out[0], 1 + 0.5 + 2.5 + 2.25, 1e-12);
  EXPECT_NEAR(out[1], 9.25, 1e-12);
  const double v[3] = {2, 2, 1};
  f(v, out);
  EXPECT_DOUBLE_EQ(out[0], 1 + 2 + 4 + 3);
  const double o[3] = {2.5, 1, 0.5};
  f(o, out);
  EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[1]));
}

// The application tables as the simulator reads them: imagenet's measured placement 1 at local batch 20 is the
// row itself; a placement never measured (7 nodes: 4,4,4,4,4,4,4) comes from the Delaunay mesh and lies between
// its neighbours; progress, gradient statistics and iterations from the validation curves.
TEST(PeerPollux, ApplicationTablesAnswerAsTheSimulator) {
  const PolluxApp& app = pollux_app(kTraces + "/traces", "imagenet");
  EXPECT_EQ(app.max_epochs(), 90);
  EXPECT_EQ(app.init_batch_size(), 200);
  EXPECT_EQ(app.max_batch_size(), 12800);
  const auto [step, sync] = app.throughput({1}, 20);
  EXPECT_EQ(step, *pandas_float("0.14740917682647706"));  // placements.csv line 2, as pandas reads it
  EXPECT_EQ(sync, *pandas_float("0.0012090879917144776"));
  EXPECT_NE(step, 0.14740917682647706);  // one unit in the last place from the correctly rounded value
  const auto rot = app.throughput({2, 1}, 20);  // rotated to 12 before the lookup
  const auto same = app.throughput({1, 2}, 20);
  EXPECT_EQ(rot, same);
  const auto mesh = app.throughput({4, 4, 4, 4, 4, 4, 4}, 100);
  EXPECT_GT(mesh.first, mesh.second);
  EXPECT_GT(mesh.second, 0);
  EXPECT_EQ(app.progress(0), 0.0);
  EXPECT_GT(app.progress(2), app.progress(1));
  const auto [sqr, var] = app.grad_stats(300, 0);  // halfway between 200 and 400
  const auto lo = app.grad_stats(200, 0), hi = app.grad_stats(400, 0);
  EXPECT_DOUBLE_EQ(sqr, (100 * hi.first + 100 * lo.first) / 200);
  EXPECT_DOUBLE_EQ(var, (100 * hi.second + 100 * lo.second) / 200);
  EXPECT_THROW(pollux_app(kTraces + "/traces", "resnet"), InputError);
}

// Bad input: a clear error naming the field, exit 2; never a crash.
TEST(PeerPollux, BadInputIsRefusedByName) {
  const std::string dir = test::temp_dir();
  auto run = [&](const std::string& cluster, const std::string& trace, const std::string& policy) {
    return test::shell(std::string(RM_BINARY) + " simulate -q --compat pollux --cluster " + cluster + " --trace " + trace +
                       " --format pollux --policy " + policy + " --data-dir " + RM_SHARED_DIR + "/traces --out " + dir +
                       "/o 2>&1");
  };
  const std::string w6 = kTraces + "/workloads/workload-6.csv";
  auto r = run("pollux:16:4", w6, "optimu");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("did you mean 'optimus'"), std::string::npos) << r.text;
  r = run("pollux:16:8", w6, "tiresias");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("1 <= G <= 4"), std::string::npos) << r.text;
  r = run("pollux:1:1", w6, "tiresias");  // workload-6 has jobs of more GPUs than one node's one GPU
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("num_replicas"), std::string::npos) << r.text;
  const std::string bad = test::write_file(dir, "w.csv", "name,time,application,num_replicas,batch_size\nj0,0,resnet,1,128\n");
  r = run("pollux:2:4", bad, "tiresias");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("w.csv:2"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("application"), std::string::npos) << r.text;
  const std::string big = test::write_file(dir, "b.csv", "name,time,application,num_replicas,batch_size\nj0,0,cifar10,1,999999\n");
  r = run("pollux:2:4", big, "tiresias");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("batch_size"), std::string::npos) << r.text;
}

}  // namespace
}  // namespace rm

namespace rm {
namespace {

// workload-6's submit time of a job.
double r6_submit(const std::string& name) {
  static std::map<std::string, double> t = [] {
    std::map<std::string, double> m;
    std::ifstream in(kTraces + "/workloads/workload-6.csv");
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
      m[f.at(0)] = std::stod(f.at(1));
    }
    return m;
  }();
  return t.at(name);
}

// Goal 5a, the replay: the allocations of a seeded run of the authors' Pollux (np.random.seed(1), workload-6, 981
// rounds; shared/goldens/peers/pollux/pollux-seeded) fed into our job model, whose Pollux jobs fit their own
// throughput models and re-choose their batches: every round's epoch, progress, restarts, batch size and
// accumulation steps as the log records them, and every JCT.
TEST(PeerPollux, ReplayOfASeededPolluxRunRoundByRound) {
  const std::string dir = test::temp_dir();
  const std::string log = dir + "/w6.log";
  ASSERT_EQ(test::shell("gzip -dc " + kGold + "/pollux-seeded/pollux-w6-seed1.log.gz > " + log).code, 0);
  SimConfig c = config("workloads/workload-6", "tiresias");
  const auto rounds = replay_pollux_log(make_run_plan(c), log);
  std::ifstream in(log);
  std::string line;
  std::size_t k = 0;
  long checked = 0, wrong = 0;
  while (std::getline(in, line) && k < rounds.size()) {
    const auto rec = nlohmann::json::parse(line);
    const PolluxRound& r = rounds[k++];
    ASSERT_EQ(r.t, rec.at("timestamp").get<long>());
    const auto& jobs = rec.at("submitted_jobs");
    ASSERT_EQ(r.jobs.size(), jobs.size()) << r.t;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const auto& j = jobs[i];
      const PolluxRoundJob& o = r.jobs[i];
      const long done = j.at("completion_time").is_null() ? -1 : j.at("completion_time").get<long>();
      const int restarts = j.at("num_restarts").is_null() ? -1 : j.at("num_restarts").get<int>();
      const bool same = o.name == j.at("name").get<std::string>() && o.epoch == j.at("epoch").get<int>() &&
                        o.progress == j.at("progress").get<double>() && o.restarts == restarts &&
                        o.batch_size == j.at("batch_size").get<int>() && o.accum_steps == j.at("accum_steps").get<int>() &&
                        o.completion == done;
      ++checked;
      if (!same && ++wrong <= 5)
        ADD_FAILURE() << "t=" << r.t << " " << o.name << ": ours epoch " << o.epoch << " progress " << o.progress
                      << " batch " << o.batch_size << " accum " << o.accum_steps << " restarts " << o.restarts
                      << " done " << o.completion << "; log " << j.dump();
    }
  }
  EXPECT_EQ(k, rounds.size());
  EXPECT_EQ(wrong, 0) << "of " << checked << " job-rounds";
  std::printf("replay: %zu rounds, %ld job-rounds, %ld differ\n", rounds.size(), checked, wrong);
  // The JCTs of the run (pollux-w6-seed1.csv) from the last round.
  const auto gold = read_golden(kGold + "/pollux-seeded/pollux-w6-seed1.csv").at("workloads/workload-6");
  ASSERT_EQ(rounds.back().jobs.size(), gold.size());
  for (const auto& j : rounds.back().jobs) {
    const long submit = std::lround(r6_submit(j.name));
    EXPECT_EQ(static_cast<double>(j.completion - submit), gold.at(j.name)) << j.name;
  }
  // The sidecar's fitted throughput parameters, round by round, for every job the authors' run had fitted: ours are
  // the same doubles (the issue asks for 1e-6 relative).
  const std::string extra = dir + "/w6.extra.jsonl";
  ASSERT_EQ(test::shell("gzip -dc " + kGold + "/pollux-seeded/pollux-w6-seed1.extra.jsonl.gz > " + extra).code, 0);
  std::ifstream ex(extra);
  std::map<long, const PolluxRound*> by_t;
  for (const auto& r : rounds) by_t[r.t] = &r;
  long fits = 0, fit_wrong = 0;
  double worst = 0;
  while (std::getline(ex, line)) {
    const auto rec = nlohmann::json::parse(line);
    const PolluxRound* r = by_t.at(rec.at("timestamp").get<long>());
    for (const auto& [name, j] : rec.at("jobs").items()) {
      const PolluxRoundJob* o = nullptr;
      for (const auto& x : r->jobs)
        if (x.name == name) o = &x;
      ASSERT_NE(o, nullptr) << name;
      EXPECT_EQ(o->profiled, j.at("num_profiled").get<int>()) << name << " t=" << r->t;
      if (j.at("perf_params").is_null()) {
        EXPECT_FALSE(o->fitted) << name << " t=" << r->t;
        continue;
      }
      ++fits;
      const auto want = j.at("perf_params").get<std::vector<double>>();
      bool same = o->fitted;
      for (int i = 0; i < 7 && same; ++i) {
        worst = std::max(worst, std::fabs(o->perf[i] - want[i]) / std::max(std::fabs(want[i]), 1e-300));
        same = std::fabs(o->perf[i] - want[i]) <= 1e-6 * std::fabs(want[i]);
      }
      if (!same && ++fit_wrong <= 5) {
        std::string ours;
        for (double v : o->perf) ours += std::to_string(v) + " ";
        ADD_FAILURE() << name << " t=" << r->t << " perf_params " << j.at("perf_params").dump() << " ours " << ours;
      }
    }
  }
  // Every one of the 6,572 fitted sets is the authors' to the last bit (the squares of autograd's forward and
  // backward passes are libm's pow, as numpy's power computes them: goodput_test.cpp).
  EXPECT_EQ(fits, 6572);
  EXPECT_EQ(fit_wrong, 0) << "of " << fits;
  EXPECT_EQ(worst, 0.0);
  std::printf("replay: %ld fitted parameter sets compared, %ld beyond 1e-6, worst relative difference %g\n", fits,
              fit_wrong, worst);
}

}  // namespace
}  // namespace rm

