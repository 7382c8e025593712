// Pollux's job model on the engine (--job-model pollux | pollux-tuned; models/rate/pollux_job_model.h, issue 43): a
// job trains its application's epochs at its goodput and completes at its last one; under `pollux` its batch is
// re-chosen by its fitted goodput model and the engine's pollux reads those fitted models; the options it needs are
// refused by name when missing.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "exec/pollux_app.h"
#include "exec/pollux_trainer.h"
#include "test_util.h"

namespace rm {
namespace {

const std::string kBin = "ASAN_OPTIONS=detect_leaks=0 " + std::string(RM_BINARY);
const std::string kTraces = std::string(RM_SHARED_DIR) + "/traces";

// The CSV rows of `csv` (header first), split at commas.
std::vector<std::vector<std::string>> table(const std::string& csv) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::istringstream l(line);
    for (std::string x; std::getline(l, x, ',');) f.push_back(x);
    out.push_back(f);
  }
  return out;
}
std::size_t col(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

test::ShellOut run(const std::string& dir, const std::string& trace, const std::string& policy, const std::string& model,
                   const std::string& out, const std::string& extra = "") {
  const std::string cluster = test::write_file(dir, "c.yaml", "servers:\n  - {count: 2, gpus: 4, gpu_type: t4, gpu_mem_gb: 16}\n");
  const std::string t = test::write_file(dir, "t.csv", trace);
  return test::shell(kBin + " simulate --cluster " + cluster + " --trace " + t + " --format pollux --data-dir " + kTraces +
                     " --perf-model measured:pollux --job-model " + model + " --policy " + policy + " --start-delay 0 " +
                     extra + " --out " + out + " -q 2>&1");
}

// One cifar10 job on 2 GPUs of one server with the trace's batch (pollux-tuned): it runs each epoch e at the goodput
// of its batch there, gain(batch, e) / (step + accumulation x compute), the step time measured for 2 GPUs on one
// node at its local batch; its JCT is the sum over the application's epochs of the epoch's progress over that
// goodput (each epoch's end rounded up to the microsecond), and it never changes batch.
TEST(PolluxJobModel, ATunedJobTrainsEveryEpochAtItsGoodput) {
  const std::string dir = test::temp_dir();
  const auto r = run(dir, "name,time,application,num_replicas,batch_size\nc,10,cifar10,2,256\n", "fifo", "pollux-tuned", dir + "/o");
  ASSERT_EQ(r.code, 0) << r.text;
  const PolluxApp& app = pollux_app(kTraces + "/pollux/traces", "cifar10");
  pollux::Trainer t;
  t.app = &app;
  t.target_batch = 256;
  const std::vector<int> placement = {2};
  t.update_local_bsz(placement);
  EXPECT_EQ(t.batch(2), 256);
  double expect = 0;
  for (int e = 0; e < app.max_epochs(); ++e) {
    const auto [step, sync] = app.throughput(placement, t.atomic);
    const auto [sqr, var] = app.grad_stats(256, e);
    const double scale = 256.0 / app.init_batch_size();
    const double gain = (var + sqr) / (var / scale + sqr);
    expect += (app.progress(e + 1) - app.progress(e)) / (gain / (step + (step - sync) * t.accum));
  }
  const auto jobs = table(test::read_file(dir + "/o/jobs.csv"));
  ASSERT_EQ(jobs.size(), 2u);
  const double jct = std::stod(jobs[1][col(jobs[0], "jct_s")]);
  EXPECT_NEAR(jct, expect, 1e-3) << "one microsecond per epoch and per re-tuning at most";
  EXPECT_GT(expect, 1000.0);
  // pollux_jobs.csv: the start, then one row per epoch, the batch 256 throughout, the last epoch 100.
  const auto log = table(test::read_file(dir + "/o/pollux_jobs.csv"));
  ASSERT_EQ(static_cast<int>(log.size()), app.max_epochs() + 2) << "header, start, each later epoch, the end";
  for (std::size_t i = 1; i + 1 < log.size(); ++i) EXPECT_EQ(log[i][col(log[0], "batch_size")], "256") << i;
  EXPECT_EQ(log.back()[col(log[0], "epoch")], std::to_string(app.max_epochs()));
  const std::string summary = test::read_file(dir + "/o/summary.json");
  EXPECT_NE(summary.find("\"exec\": \"rate+pollux-tuned-jobs\""), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"pollux_batch_changes\": 0"), std::string::npos) << summary;
}

// The same job under `pollux`: it starts at the smallest batch its GPUs allow (its model not yet fitted), fits its
// throughput model to the steps it observes and re-chooses a larger batch by goodput; it finishes sooner than at the
// trace's batch here, and the same run twice writes the same bytes.
TEST(PolluxJobModel, AnAdaptiveJobRechoosesItsBatchByGoodput) {
  const std::string dir = test::temp_dir();
  const std::string trace = "name,time,application,num_replicas,batch_size\nc,10,cifar10,2,256\n";
  ASSERT_EQ(run(dir, trace, "fifo", "pollux-tuned", dir + "/tuned").code, 0);
  for (const char* o : {"/a", "/b"}) {
    const auto r = run(dir, trace, "fifo", "pollux", dir + o);
    ASSERT_EQ(r.code, 0) << r.text;
  }
  EXPECT_EQ(test::read_file(dir + "/a/jobs.csv"), test::read_file(dir + "/b/jobs.csv"));
  EXPECT_EQ(test::read_file(dir + "/a/pollux_jobs.csv"), test::read_file(dir + "/b/pollux_jobs.csv"));
  const auto log = table(test::read_file(dir + "/a/pollux_jobs.csv"));
  const std::size_t b = col(log[0], "batch_size");
  const PolluxApp& app = pollux_app(kTraces + "/pollux/traces", "cifar10");
  EXPECT_EQ(std::stoi(log[1][b]), std::max(app.init_batch_size(), 2 * app.min_local_bsz())) << "before its first fit";
  int most = 0;
  for (std::size_t i = 1; i + 1 < log.size(); ++i) most = std::max(most, std::stoi(log[i][b]));
  EXPECT_GT(most, std::stoi(log[1][b]));
  EXPECT_LE(most, app.max_batch_size());
  const auto jct = [&](const std::string& o) {
    const auto j = table(test::read_file(dir + o + "/jobs.csv"));
    return std::stod(j[1][col(j[0], "jct_s")]);
  };
  EXPECT_LT(jct("/a"), jct("/tuned"));
  EXPECT_EQ(test::read_file(dir + "/a/summary.json").find("\"pollux_batch_changes\": 0,"), std::string::npos);
}

// The engine's pollux over Pollux's jobs: it reads each job's fitted model (a new job counts GPUs over its fair share,
// as in Pollux), grows the bert jobs beyond what they asked, keeps ncf on one GPU, and every job finishes;
// deterministic. (Rounds of 600 s: Pollux's search is slow on a search space this small, as pymoo's is.)
TEST(PolluxJobModel, PolluxReadsTheJobsFittedModels) {
  const std::string dir = test::temp_dir();
  const std::string trace = "name,time,application,num_replicas,batch_size\nb1,0,bert,1,12\nb2,30,bert,1,12\nn1,60,ncf,1,256\n";
  for (const char* o : {"/a", "/b"}) {
    const auto r = run(dir, trace, "pollux:round=600", "pollux", dir + o, "--seed 3");
    ASSERT_EQ(r.code, 0) << r.text;
  }
  const std::string jobs = test::read_file(dir + "/a/jobs.csv");
  EXPECT_EQ(jobs, test::read_file(dir + "/b/jobs.csv"));
  const auto t = table(jobs);
  ASSERT_EQ(t.size(), 4u);
  int grown = 0;
  for (std::size_t i = 1; i < t.size(); ++i) {
    EXPECT_EQ(t[i][col(t[0], "status")], "finished") << jobs;
    const int hi = std::stoi(t[i][col(t[0], "gpus_max")]);
    grown += hi > std::stoi(t[i][col(t[0], "num_gpus")]);
    if (t[i][col(t[0], "job_id")] == "n1") {
      EXPECT_EQ(hi, 1) << "ncf: one GPU in Pollux's world";
    }
  }
  EXPECT_GT(grown, 0) << jobs;
  const std::string summary = test::read_file(dir + "/a/summary.json");
  EXPECT_NE(summary.find("\"exec\": \"rate+pollux-jobs\""), std::string::npos) << summary;
  EXPECT_EQ(summary.find("\"pollux_job_fits\": 0,"), std::string::npos) << summary;
}

// A lone cifar10 job whose trace batch (128) makes 4 GPUs at cifar10's least local batch (32): under `pollux` its batch
// may grow, so its GPUs may too, and Pollux's policy takes it to all 8 as its profile doubles; under `pollux-tuned`
// its range stays its trace's (at most 4) and the policy, with no fitted model to read, weighs it by the performance
// model (more than one GPU all the same).
TEST(PolluxJobModel, AnAdaptiveJobMayOutgrowItsTracesBatch) {
  const std::string dir = test::temp_dir();
  const std::string trace = "name,time,application,num_replicas,batch_size\nc,0,cifar10,1,128\n";
  int most[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const std::string out = dir + (k == 0 ? "/adaptive" : "/tuned");
    const auto r = run(dir, trace, "pollux:round=300", k == 0 ? "pollux" : "pollux-tuned", out, "--seed 3");
    ASSERT_EQ(r.code, 0) << r.text;
    const auto t = table(test::read_file(out + "/jobs.csv"));
    most[k] = std::stoi(t[1][col(t[0], "gpus_max")]);
  }
  EXPECT_EQ(most[0], 8);
  EXPECT_GT(most[1], 1);
  EXPECT_LE(most[1], 4);
}

// What the job model needs, refused by name (exit 2): a canonical trace, another performance model, another
// execution model, an unknown job model, a compat mode.
TEST(PolluxJobModel, MissingPrerequisitesAreRefusedByName) {
  const std::string dir = test::temp_dir();
  const std::string pollux = test::write_file(dir, "p.csv", "name,time,application,num_replicas,batch_size\nc,0,cifar10,1,128\n");
  const std::string canon = test::write_file(dir, "k.csv", "job_id,submit_s,num_gpus,model,iterations\na,0,1,resnet50,100\n");
  const std::string base = kBin + " simulate --data-dir " + kTraces + " --out " + dir + "/o -q ";
  const struct {
    std::string args, says;
  } cases[] = {
      {"--cluster pollux-64 --trace " + canon + " --perf-model measured:pollux --job-model pollux", "--format pollux"},
      {"--cluster pollux-64 --trace " + pollux + " --format pollux --job-model pollux", "--perf-model measured:pollux"},
      {"--cluster pollux-64 --trace " + pollux + " --format pollux --perf-model measured:pollux --exec graph --job-model pollux",
       "--exec rate"},
      {"--cluster pollux-64 --trace " + pollux + " --format pollux --perf-model measured:pollux --job-model goodput",
       "unknown job model"},
      {"--cluster pollux-64 --trace " + pollux + " --format pollux --perf-model measured:pollux --job-model pollux --policy sjf-bco",
       "keep their own law"},
      {"--trace " + pollux + " --format pollux --compat pollux --cluster pollux:16:4 --policy tiresias --job-model pollux",
       "the peer's own jobs"},
  };
  for (const auto& c : cases) {
    const auto r = test::shell(base + c.args + " 2>&1");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.text;
    EXPECT_NE(r.text.find("--job-model"), std::string::npos) << r.text;
    EXPECT_NE(r.text.find(c.says), std::string::npos) << c.args << "\n" << r.text;
  }
}

}  // namespace
}  // namespace rm
