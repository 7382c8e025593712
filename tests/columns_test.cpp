// Any CSV through the canonical reader (issue 29; docs/formats.md, "Any CSV"): --columns, --header, --time-unit,
// dates, the lenient reading a cluster log needs (ignored columns listed, models assigned, CPU-only rows skipped,
// shared GPUs rounded up: each counted), deadlines and their metrics, and the docs' lines for public traces.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace rm {
namespace {

const std::string kBin = RM_BINARY;

nlohmann::json summary(const std::string& dir) { return nlohmann::json::parse(test::read_file(dir + "/summary.json")); }

test::ShellOut sim(const std::string& args) { return test::shell(kBin + " simulate " + args + " -q 2>&1"); }

// The contract, as written.
TEST(Columns, TheContractCsvWithAndWithoutItsDeadline) {
  const std::string d = test::temp_dir();
  const std::string t = test::write_file(d, "T.csv",
                                         "jobid,user,submitted,gpus,runtime,deadline,extra\n"
                                         "j1,alice,0,8,3600,7200,x\nj2,bob,60,16,1800,1000,y\nj3,alice,120,4,600,,z\n");
  const std::string cols = "job_id=jobid,submit_s=submitted,num_gpus=gpus,duration_s=runtime";
  auto r = sim("--cluster philly2400 --trace " + t + " --columns " + cols + " --policy fifo --out " + d + "/a");
  ASSERT_EQ(r.code, 0) << r.text;
  auto s = summary(d + "/a");
  EXPECT_EQ(s["ignored_columns"], nlohmann::json({"deadline", "extra"}));
  EXPECT_EQ(s["jobs"], 3);
  EXPECT_EQ(s["models_assigned"], 3.0);  // no model column: the documented default mix, counted
  EXPECT_FALSE(s.contains("deadline_met_ratio"));
  r = sim("--cluster philly2400 --trace " + t + " --columns " + cols + ",deadline_s=deadline --policy fifo --out " + d + "/b");
  ASSERT_EQ(r.code, 0) << r.text;
  s = summary(d + "/b");
  EXPECT_EQ(s["ignored_columns"], nlohmann::json({"extra"}));
  // j1 ends at 3,600 s (deadline 7,200: met); j2 at 60 + 1,800 s (deadline 1,000: 860 s late); j3 has none.
  EXPECT_EQ(s["deadline_jobs"], 2.0);
  EXPECT_EQ(s["deadline_met_ratio"], 0.5);
  EXPECT_DOUBLE_EQ(s["avg_lateness_s"].get<double>(), 430.0);
  EXPECT_DOUBLE_EQ(s["max_lateness_s"].get<double>(), 860.0);
  const std::string jobs = test::read_file(d + "/b/jobs.csv");
  EXPECT_NE(jobs.find(",deadline_s,lateness_s,gpus_min,gpus_max,gpu_seconds,reallocations\n"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find(",1000.000000,860.000000,"), std::string::npos) << jobs;
  // Without --columns the canonical reader stays strict.
  r = sim("--cluster philly2400 --trace " + t + " --policy fifo --out " + d + "/c");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("T.csv:1: cannot tell the trace format from its first line; map its columns with --columns"),
            std::string::npos) << r.text;
  r = sim("--cluster philly2400 --trace " + t + " --format canonical --policy fifo --out " + d + "/c");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("T.csv:1:jobid: unknown column"), std::string::npos) << r.text;
}

// Bad mappings name the option, the column and what the file has.
TEST(Columns, BadMappingsAreClearErrors) {
  const std::string d = test::temp_dir();
  const std::string t = test::write_file(d, "t.csv", "id,at,g,secs\na,0,1,10\n");
  const struct {
    std::string args, needle;
  } cases[] = {
      {"--columns job_id=id,submit_s=at,num_gpus=g,duration_s=seconds", "--columns: duration_s=seconds: no column 'seconds' in the file (it has: id, at, g, secs)"},
      {"--columns job=id", "--columns:job: not a canonical column (job_id, submit_s"},
      {"--columns job_id=id,submit_s=at,num_gpus=g", "iterations: need an iterations or a duration_s column"},
      {"--columns job_id=id,submit_s=at,num_gpus=g/0,duration_s=secs", "'g/0': after / a number > 0"},
      {"--columns job_id=id,submit_s=at,num_gpus=g,duration_s=secs --format philly", "--columns:philly: --columns and --header read a CSV with the canonical reader"},
      {"--columns job_id=id,submit_s=at,num_gpus=g,duration_s=secs --time-unit min", "--time-unit:min: must be s, ms or us"},
      {"--columns submit_s=at,num_gpus=g,duration_s=secs", "job_id: required column missing (map it with --columns job_id=COLUMN)"},
  };
  for (const auto& c : cases) {
    const auto r = sim("--trace " + t + " " + c.args + " --out " + d + "/o");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.text;
    EXPECT_NE(r.text.find(c.needle), std::string::npos) << c.args << "\n" << r.text;
  }
}

// ElasticFlow's own trace (shared/traces/elasticflow-artifact, Philly VC 103959, with deadlines), as docs/formats.md
// reads it.
TEST(Columns, ElasticFlowTraceWithDeadlines) {
  const std::string trace = std::string(RM_SHARED_DIR) + "/traces/elasticflow-artifact/traces_for_ElasticFlow/philly_103959.csv";
  const std::string d = test::temp_dir();
  // 32 GPUs, each job its trace duration: loaded enough that the order decides which deadlines are met.
  const std::string c = test::write_file(d, "c.yaml", "servers:\n  - {count: 4, gpus: 8, gpu_mem_gb: 32, nic_gbps: 100}\n");
  const auto r = sim("--cluster " + c + " --trace " + trace +
                     " --columns submit_s=submit_time,model=model_name,deadline_s=ddl,num_gpus=num_gpu,duration_s=duration"
                     " --unknown-model nearest --perf-model trace --policy fifo --policy edf --out " + d + "/o");
  ASSERT_EQ(r.code, 0) << r.text;
  for (const char* p : {"fifo", "edf"}) {
    auto s = summary(d + "/o/" + p);
    EXPECT_EQ(s["jobs"], 876) << p;  // every row (its README says 875 jobs; the file has 876 rows after the header)
    EXPECT_EQ(s["ignored_columns"], nlohmann::json({"real_iteration", "real_duration", "iteration"})) << p;
    EXPECT_EQ(s["deadline_jobs"], 876.0) << p;
    EXPECT_GT(s["deadline_met_ratio"].get<double>(), 0.0) << p;
  }
  // Earliest deadline first meets more deadlines than FIFO here (0.244 vs 0.216, docs/formats.md).
  EXPECT_GT(summary(d + "/o/edf")["deadline_met_ratio"].get<double>(), summary(d + "/o/fifo")["deadline_met_ratio"].get<double>());
}

// Helios (SenseTime, SC'21) cluster_log.csv, from its published schema: dates, CPU-only jobs, a VC column.
TEST(Columns, HeliosClusterLogSample) {
  const std::string d = test::temp_dir();
  const std::string t = test::write_file(
      d, "cluster_log.csv",
      "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
      "1,u1,vcA,8,48,1,COMPLETED,2020-04-01 00:00:10,2020-04-01 00:00:11,2020-04-01 01:00:11,3600,1\n"
      "2,u2,vcA,0,4,1,COMPLETED,2020-04-01 00:01:00,2020-04-01 00:01:00,2020-04-01 00:02:00,60,0\n"
      "3,u1,vcB,16,96,2,FAILED,2020-04-01 00:05:10,2020-04-01 00:06:00,2020-04-01 00:16:00,600,50\n");
  const auto r = sim("--cluster philly2400 --trace " + t +
                     " --columns submit_s=submit_time,num_gpus=gpu_num,duration_s=duration --policy fifo --out " + d + "/o");
  ASSERT_EQ(r.code, 0) << r.text;
  auto s = summary(d + "/o");
  EXPECT_EQ(s["jobs"], 2);
  EXPECT_EQ(s["cpu_only_skipped"], 1.0);
  EXPECT_EQ(s["models_assigned"], 2.0);
  EXPECT_EQ(s["ignored_columns"], nlohmann::json({"cpu_num", "node_num", "state", "start_time", "end_time", "queue"}));
  // Its user and vc columns are canonical ones: a breakdown per user and per VC.
  EXPECT_EQ(test::read_file(d + "/o/vcs.csv").substr(0, 17), "vc,jobs,gpu_s,gpu");
  EXPECT_NE(test::read_file(d + "/o/vcs.csv").find("\nvcA,1,"), std::string::npos);
  EXPECT_NE(test::read_file(d + "/o/vcs.csv").find("\nvcB,1,"), std::string::npos);
  EXPECT_NE(test::read_file(d + "/o/users.csv").find("\nu1,2,"), std::string::npos);
  const std::string jobs = test::read_file(d + "/o/jobs.csv");
  EXPECT_NE(jobs.find("\n1,0.000000,8,"), std::string::npos) << jobs;    // dates: relative to the first submit
  EXPECT_NE(jobs.find("\n3,300.000000,16,"), std::string::npos) << jobs;
}

// Alibaba PAI 2020 (pai_task_table.csv, no header row), from its published schema: times in seconds, GPUs as percent
// of a GPU (plan_gpu 50 = half a GPU, rounded up to a whole one), durations as end - start.
TEST(Columns, AlibabaPai2020TaskTableSample) {
  const std::string d = test::temp_dir();
  const std::string t = test::write_file(d, "pai_task_table.csv",
                                         "jobA,worker,1,Terminated,1000,4600,600,29.3,100,V100\n"
                                         "jobB,worker,1,Terminated,1060,1660,400,29.3,50,T4\n"
                                         "jobC,tensorflow,1,Terminated,1200,2400,1200,60,800,V100\n");
  const auto r = sim("--cluster philly2400 --trace " + t +
                     " --header job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_model"
                     " --columns job_id=job_name,submit_s=start_time,num_gpus=plan_gpu/100,duration_s=end_time-start_time"
                     " --policy fifo --out " + d + "/o");
  ASSERT_EQ(r.code, 0) << r.text;
  auto s = summary(d + "/o");
  EXPECT_EQ(s["jobs"], 3);
  EXPECT_EQ(s["gpus_rounded_up"], 1.0);
  const std::string jobs = test::read_file(d + "/o/jobs.csv");
  EXPECT_NE(jobs.find("\njobA,1000.000000,1,"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find("\njobB,1060.000000,1,"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find("\njobC,1200.000000,8,"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find("\njobA,1000.000000,1,lstm,45569.6,1000.000000,4600.000000,3600.000000,"), std::string::npos) << jobs;
}

// --time-unit scales submit, duration and deadline; validate takes the same options.
TEST(Columns, TimeUnitAndValidate) {
  const std::string d = test::temp_dir();
  const std::string t = test::write_file(d, "t.csv", "job_id,submit_s,num_gpus,model,duration_s\na,1500,1,resnet50,60000\n");
  const auto r = sim("--trace " + t + " --time-unit ms --policy fifo --out " + d + "/o");
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(test::read_file(d + "/o/jobs.csv").find("\na,1.500000,1,resnet50,"), std::string::npos);
  const std::string u = test::write_file(d, "u.csv", "id,at,g,secs,junk\na,0,1,10,q\n");
  const auto v = test::shell(kBin + " validate --trace " + u + " --columns job_id=id,submit_s=at,num_gpus=g,duration_s=secs 2>&1");
  EXPECT_EQ(v.code, 0) << v.text;
}

}  // namespace
}  // namespace rm
