// Trace readers on the real public files in ../shared/traces, and every kind of bad input.
#include "exec/comm_model.h"
#include "cluster/cluster_config.h"
#include "core/error.h"
#include "test_util.h"

namespace rm::test {
namespace {

const std::string kShared = RM_SHARED_DIR;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

Workload load(const std::string& path, const std::string& fmt = "auto", const std::string& cl = "philly2400") {
  Workload w = read_trace(path, fmt);
  resolve_workload(w, ModelCatalogue::builtin(), load_cluster(cl), law_resolve_options(), nullptr);
  return w;
}

TEST(Traces, PhillyJobList) {
  auto w = load(kShared + "/traces/philly-jobs/philly.csv");
  ASSERT_EQ(w.jobs.size(), 82247u);
  EXPECT_EQ(w.jobs.front().submit, 0);
  int max_gpus = 0;
  for (const auto& j : w.jobs) max_gpus = std::max(max_gpus, j.num_gpus);
  EXPECT_EQ(max_gpus, 128);
  // First data row: 2017-10-09 07:01:55, 66 s, 1 GPU; earliest submit 2017-09-04 10:30:41 -> 34 d 20:31:14
  // (Sep 4 -> Oct 9 is 35 days, less 3:28:46).
  for (const auto& j : w.jobs)
    if (j.name == "0") {
      EXPECT_EQ(j.submit, (34LL * 86400 + 20 * 3600 + 31 * 60 + 14) * kUsPerS);
      EXPECT_DOUBLE_EQ(j.duration_s, 66);
      // A 1-GPU job: iterations x compute = the trace's duration.
      EXPECT_NEAR(j.iterations * j.compute_s, 66, 1e-9);
    }
}

TEST(Traces, TiresiasUsesTheTracesOwnIterationTime) {
  auto w = load(kShared + "/traces/tiresias/60_job.csv");
  ASSERT_EQ(w.jobs.size(), 60u);
  // job 0: 1 GPU, 606 iterations, 164 s -> compute 164/606 s per iteration.
  EXPECT_EQ(w.jobs[0].model, "vgg19");
  EXPECT_NEAR(w.jobs[0].compute_s, 164.0 / 606, 1e-12);
}

TEST(Traces, MuriMilliseconds) {
  auto w = load(kShared + "/traces/muri-philly/trace1.csv");
  EXPECT_EQ(w.jobs.size(), 1494u);
  // job 1 submits at 201,694,000 ms.
  for (const auto& j : w.jobs)
    if (j.name == "1") {
      EXPECT_EQ(j.submit, 201694LL * kUsPerS);
    }
}

TEST(Traces, GavelTsv) {
  auto w = load(kShared + "/traces/philly-gavel-vc/seed=0/0e4a51.trace");
  ASSERT_FALSE(w.jobs.empty());
  EXPECT_EQ(w.jobs[0].model, "gavel:transformer");
  EXPECT_EQ(w.jobs[0].batch_size, 128);
  EXPECT_DOUBLE_EQ(w.jobs[0].iterations, 95121);
  EXPECT_NEAR(w.jobs[0].compute_s, 0.183617, 1e-9);
}

TEST(Traces, SynergyReplayAndWang2020) {
  auto s = load(kShared + "/goldens/synergy/static_100job.csv", "auto", "synergy32");
  EXPECT_EQ(s.jobs.size(), 100u);
  auto t = load(kShared + "/goldens/synergy/test_trace.csv", "synergy", "synergy32");
  ASSERT_EQ(t.jobs.size(), 8u);
  EXPECT_EQ(t.jobs[0].model, "synergy:alexnet");
  EXPECT_EQ(t.jobs[0].num_gpus, 4);
  auto p = load(kShared + "/goldens/p1-ada-srsf/jobs_seed1.csv", "auto", "wang2020");
  ASSERT_EQ(p.jobs.size(), 160u);
  for (const auto& j : p.jobs)
    if (j.name == "0") {  // resnet50, 25 + 37 ms, 99.2 MB
      EXPECT_NEAR(j.compute_s, 0.062, 1e-12);
      EXPECT_DOUBLE_EQ(j.grad_mb, 99.2);
      EXPECT_EQ(j.submit, 5004 * 1000);
    }
}

TEST(Traces, BundledDemoTrace) {
  Workload w = read_trace_text(std::string(embedded::get("traces/demo.csv")), "demo.csv", "auto");
  EXPECT_EQ(w.jobs.size(), 60u);
}

// What reading and resolving keep per job is the spec alone: the per-row scratch (raw times, model qualifiers, the
// names' lines) is freed, not just emptied (`= {}` keeps a vector's capacity: 80 B a job at a million jobs), and every
// job names its file through one shared copy of the name.
TEST(Traces, ReadingKeepsNoPerRowScratchAndOneFileName) {
  Workload w = load(kShared + "/traces/philly-jobs/philly.csv");
  EXPECT_EQ(w.raw.capacity(), 0u);
  EXPECT_EQ(w.model_qualifier.capacity(), 0u);
  EXPECT_LE(w.line_of_name.bucket_count(), 1u);
  ASSERT_GT(w.jobs.size(), 2u);
  EXPECT_EQ(w.jobs.front().file.str(), kShared + "/traces/philly-jobs/philly.csv");
  EXPECT_EQ(&w.jobs.front().file.str(), &w.jobs.back().file.str());
}

TEST(Interned, OneCopyPerTextStandingInForAString) {
  const std::string a = "some/trace.csv", b = std::string("some/") + "trace.csv";
  const Interned x = a, y = b, z = "other.csv", none;
  EXPECT_EQ(&x.str(), &y.str());  // equal texts made one after the other: one copy
  EXPECT_NE(&x.str(), &z.str());
  EXPECT_TRUE(x == y);
  EXPECT_FALSE(x == z);
  EXPECT_TRUE(x == a);
  EXPECT_TRUE(z == "other.csv");
  const Interned again = a;  // after another text: a copy of its own, equal
  EXPECT_NE(&again.str(), &x.str());
  EXPECT_TRUE(again == x);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.str(), "");
  const std::string& as_string = x;  // where a const std::string& is asked for (InputError's file)
  EXPECT_EQ(as_string, a);
  EXPECT_EQ("in " + x + ":1", "in some/trace.csv:1");
  EXPECT_STREQ(InputError(x, 3, "num_gpus", "bad").what(), InputError(a, 3, "num_gpus", "bad").what());
}

// ---- bad input: every error names file:line:field -------------------------------------------

class BadInput : public ::testing::Test {
 protected:
  std::string dir = temp_dir();
  std::string canonical(const std::string& body) {
    return write_file(dir, "t.csv", "job_id,submit_s,num_gpus,model,iterations\n" + body);
  }
};

TEST_F(BadInput, MalformedRow) {
  auto p = canonical("a,0,1,resnet50,100\nb,zero,1,resnet50,100\n");
  EXPECT_EQ(error_of([&] { load(p); }), p + ":3:submit_s: 'zero' is not a number");
}

TEST_F(BadInput, ShortRow) {
  auto p = canonical("a,0,1\n");
  EXPECT_EQ(error_of([&] { load(p); }), p + ":2: row has 3 fields, the header has 5");
  auto q = canonical("a,0,1,resnet50,100,extra\n");
  EXPECT_EQ(error_of([&] { load(q); }), q + ":2: row has 6 fields, the header has 5");
}

TEST_F(BadInput, NegativeTime) {
  auto p = canonical("a,-5,1,resnet50,100\n");
  EXPECT_EQ(error_of([&] { load(p); }), p + ":2:submit_s: '-5': a submit time must be >= 0");
}

TEST_F(BadInput, ZeroGpus) {
  auto p = canonical("a,0,0,resnet50,100\n");
  EXPECT_EQ(error_of([&] { load(p); }), p + ":2:num_gpus: must be >= 1, got 0");
}

TEST_F(BadInput, TooManyGpus) {
  auto p = canonical("a,0,1,resnet50,100\nbig,0,64,resnet50,100\n");
  EXPECT_NE(error_of([&] { load(p, "auto", "tiny"); })
                .find(p + ":3:num_gpus: job big asks for 64 GPUs, the cluster has 16"),
            std::string::npos);
  // With skip_unschedulable it is reported, not dropped silently.
  Workload w = read_trace(p);
  std::vector<Unschedulable> u;
  ResolveOptions ro;
  ro.skip_unschedulable = true;
  resolve_workload(w, ModelCatalogue::builtin(), load_cluster("tiny"), law_resolve_options(ro), &u);
  EXPECT_EQ(w.jobs.size(), 1u);
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].job.name, "big");
}

TEST_F(BadInput, UnknownModel) {
  auto p = canonical("a,0,1,resnet50,100\nb,0,1,no-such-net,100\n");
  EXPECT_NE(error_of([&] { load(p); }).find(p + ":3:model: unknown model 'no-such-net'"), std::string::npos);
}

TEST_F(BadInput, UnknownColumnAndMissingIterations) {
  auto p = write_file(dir, "u.csv", "job_id,submit_s,num_gpus,model,iterations,colour\n");
  EXPECT_EQ(error_of([&] { load(p); }), p + ":1:colour: unknown column (map or ignore it with --columns: docs/formats.md)");
  auto q = canonical("a,0,1,resnet50,\n");
  EXPECT_EQ(error_of([&] { load(q); }), q + ":2:iterations: need iterations > 0 or a duration > 0");
}

TEST_F(BadInput, MissingFile) {
  EXPECT_EQ(error_of([&] { load(dir + "/nope.csv"); }), dir + "/nope.csv: no such file");
  EXPECT_EQ(error_of([&] { load(dir); }), dir + ": is a folder, not a trace file");
}

TEST_F(BadInput, PhillyBadTimestamp) {
  auto p = write_file(dir, "p.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66,a\n"
                                    "2017-13-09 07:01:55,66.0,1,66,a\n");
  EXPECT_NE(error_of([&] { load(p, "philly"); }).find(p + ":3:timestamp:"), std::string::npos);
}

TEST_F(BadInput, ValidateModeCollectsEveryBadRow) {
  auto p = canonical("a,0,1,resnet50,100\nb,x,1,resnet50,100\nc,0,0,resnet50,100\nd,0,1,resnet50,100\n");
  std::vector<std::string> errors;
  Workload w = read_trace(p, "auto", &errors);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find(":3:submit_s"), std::string::npos);
  EXPECT_NE(errors[1].find(":4:num_gpus"), std::string::npos);
  EXPECT_EQ(w.jobs.size(), 2u);
}

TEST_F(BadInput, BadYaml) {
  auto p = write_file(dir, "c.yaml", "servers:\n  - {gpus: 4, nic_gbps: fast}\n");
  EXPECT_EQ(error_of([&] { load_cluster(p); }), p + ":2:servers[0].nic_gbps: cannot read 'fast' as a number");
  auto q = write_file(dir, "d.yaml", "servers: [\n");
  EXPECT_NE(error_of([&] { load_cluster(q); }).find(q + ":"), std::string::npos);
  auto r = write_file(dir, "e.yaml", "servers:\n  - {gpus: 4, gpuz: 2}\n");
  EXPECT_EQ(error_of([&] { load_cluster(r); }), r + ":2:servers[0].gpuz: unknown server field");
  auto s = write_file(dir, "f.yaml", "name: x\n");
  EXPECT_EQ(error_of([&] { load_cluster(s); }), s + ":1:servers: missing (a list of server groups)");
}

TEST_F(BadInput, UnknownPolicyAndParameter) {
  EXPECT_EQ(error_of([] { make_scheduler("fifo+telepathy", 1); }),
            "--policy:telepathy: unknown policy or plugin 'telepathy' (see `ringmaster list-policies`)");
  EXPECT_EQ(error_of([] { make_scheduler("2d-las:thresholdz=5", 1); }),
            "--policy:2d-las:thresholdz: unknown parameter of 2d-las");
  EXPECT_NE(error_of([] { make_scheduler("first-fit", 1); }).find("no queue order"), std::string::npos);
  EXPECT_NE(error_of([] { make_scheduler("fifo+srsf", 1); }).find("a second queue order"), std::string::npos);
}

TEST(Clusters, PresetsHaveTheDocumentedSizes) {
  EXPECT_EQ(load_cluster("wang2020").total_gpus(), 64);
  EXPECT_DOUBLE_EQ(load_cluster("wang2020").network.contention_a, 0.2745);
  EXPECT_EQ(load_cluster("synergy128").total_gpus(), 128);
  EXPECT_EQ(load_cluster("synergy128").servers[0].cpus, 24);
  EXPECT_EQ(load_cluster("synergy32").total_gpus(), 32);
  EXPECT_EQ(load_cluster("philly2400").total_gpus(), 2400);
  EXPECT_EQ(load_cluster("philly2400").servers[299].rack, 14);
}

}  // namespace
}  // namespace rm::test
