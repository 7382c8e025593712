// The Slurm backend against a fake Slurm: an in-memory cluster behind the CommandRunner seam that answers the
// commands the backend issues (scontrol, squeue) the way Slurm 22.05 prints them, so that its bookkeeping can
// be checked step by step without a real slurmctld (the real one: tests/slurm/*.sh).
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "core/error.h"
#include "live/live_scheduler.h"
#include "live/slurm/slurm_backend.h"
#include "test_util.h"

namespace rm::live {
namespace {

struct FakeJob {
  std::int64_t id = 0;
  std::string state = "PENDING", reason = "JobHeldUser";
  int gpus = 1, cpus = 1;
  std::string mem = "100M", comment = "rm:model=resnet50;duration=60", nodelist, dependency = "(null)";
  std::vector<std::pair<std::string, std::vector<int>>> alloc;  // what `scontrol -d show job` shows once running
};

FakeJob held(std::int64_t id, int gpus = 1) {  // a held job for ringmaster
  FakeJob j;
  j.id = id;
  j.gpus = gpus;
  return j;
}

struct FakeNode {
  std::string name;
  int cpus = 8, cpus_alloc = 0, gpus = 4;
  long mem = 32000, mem_alloc = 0;
};

struct FakeSlurm {
  std::vector<FakeNode> nodes;
  std::map<std::int64_t, FakeJob> jobs;
  std::vector<std::string> log;  // update/release/hold/requeuehold commands, joined
  std::string select = "CR_CORE";  // SelectTypeParameters (CR_Core_Memory: memory is consumable)
  std::string partition_state = "UP";  // "": the partition is gone

  CommandResult operator()(const std::vector<std::string>& a) {
    CommandResult r;
    r.status = 0;
    std::string line;
    for (const auto& x : a) line += (line.empty() ? "" : " ") + x;
    if (line == "scontrol ping") {
      r.out = "Slurmctld(primary) at localhost is UP\n";
    } else if (line == "scontrol show config") {
      r.out = "Configuration data as of 2026-11-23T14:00:00\nSelectTypeParameters    = " + select + "\n";
    } else if (line == "scontrol show partition rm -o") {
      if (!partition_state.empty())
        r.out = "PartitionName=rm AllowGroups=ALL Nodes=n[1-2] State=" + partition_state + "\n";
      else
        r.status = 1, r.err = "Partition rm not found\n";
    } else if (line == "scontrol show node -o") {
      for (const auto& n : nodes)
        r.out += "NodeName=" + n.name + " CPUAlloc=" + std::to_string(n.cpus_alloc) + " CPUTot=" + std::to_string(n.cpus) +
                 " Gres=gpu:" + std::to_string(n.gpus) + " RealMemory=" + std::to_string(n.mem) +
                 " AllocMem=" + std::to_string(n.mem_alloc) + " State=IDLE Partitions=rm\n";
    } else if (a[0] == "squeue") {
      for (const auto& [id, j] : jobs)
        r.out += std::to_string(id) + "|" + j.state + "|" + j.reason + "|" + j.nodelist + "|N/A|gres:gpu:" +
                 std::to_string(j.gpus) + "|1|" + std::to_string(j.cpus) + "|" + j.mem +
                 "|rm|2026-11-23T14:00:00|N/A|N/A|root|job" + std::to_string(id) + "|" + j.dependency + "|" + j.comment + "|\n";
    } else if (a.size() == 5 && a[1] == "-d") {
      const FakeJob& j = jobs.at(std::stoll(a[4]));
      for (const auto& [n, idx] : j.alloc) {
        std::string ids;
        for (int i : idx) ids += (ids.empty() ? "" : ",") + std::to_string(i);
        r.out += "     Nodes=" + n + " CPU_IDs=0 Mem=100 GRES=gpu:" + std::to_string(idx.size()) + "(IDX:" + ids + ")\n";
      }
    } else if (a[0] == "scontrol") {
      log.push_back(line);
      if (a[1] == "release") {  // one id or a list: `scontrol release 12,13`
        std::stringstream ids(a[2]);
        for (std::string id; std::getline(ids, id, ',');) jobs.at(std::stoll(id)).reason = "None";
      }
      if (a[1] == "update")
        for (const auto& x : a)
          if (x.rfind("NodeList=", 0) == 0) jobs.at(std::stoll(a[2].substr(6))).nodelist = x.substr(9);
      if (a[1] == "hold") jobs.at(std::stoll(a[2])).reason = "JobHeldUser";
    }
    return r;
  }
  void run(std::int64_t id, std::vector<std::pair<std::string, std::vector<int>>> alloc) {
    FakeJob& j = jobs.at(id);
    j.state = "RUNNING";
    j.reason = "None";
    j.alloc = std::move(alloc);
  }
  std::string last(const std::string& verb) const {  // the last command with that verb
    for (auto it = log.rbegin(); it != log.rend(); ++it)
      if (it->find("scontrol " + verb + " ") == 0) return *it;
    return "";
  }
};

struct Harness {
  FakeSlurm slurm;
  SlurmCtl ctl{[this](const std::vector<std::string>& a) { return slurm(a); }};
  std::vector<std::string> lines;
  std::unique_ptr<SlurmBackend> b;
  std::unique_ptr<LiveScheduler> s;  // the generic side: the policy over the backend
  Harness() { slurm.nodes = {{"n1"}, {"n2"}}; }
  void connect(const std::string& policy = "fifo") {
    ServeOptions o;
    o.policy = policy;
    o.partition = "rm";
    o.state_dir = test::temp_dir() + "/state";
    std::filesystem::remove_all(o.state_dir);
    o.log = [this](const std::string& s) { lines.push_back(s); };
    b = std::make_unique<SlurmBackend>(ctl, o);
    s = std::make_unique<LiveScheduler>(*b, policy, o.seed, o.log);
    s->connect(1e9);
  }
  bool logged(const std::string& s) const {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(s) != std::string::npos; });
  }
};

TEST(SlurmBackend, BooksTheGpusSlurmGaveNotThePolicysSpread) {
  // An external job holds GPUs 0-1 of n1 and n2, so A (4 GPUs) can only be split n1:{2,3} + n2:{2,3}. Slurm,
  // starting A after the external job ended, spread it as n1:{0,1,2} + n2:{0}. B (2 GPUs) then has n1:{3} and
  // n2:{1,2,3} free; with the policy's books it would be put on n1:{0,1}, which Slurm has given to A.
  Harness h;
  FakeJob ext = held(1, 4);  // external: running, not held
  ext.state = "RUNNING";
  ext.reason = "None";
  ext.cpus = 2;
  ext.comment = "";
  ext.nodelist = "n[1-2]";
  ext.alloc = {{"n1", {0, 1}}, {"n2", {0, 1}}};  // what `scontrol -d show job 1` says
  h.slurm.jobs[1] = ext;
  h.slurm.jobs[2] = held(2, 4);
  h.connect("fifo+spread-ok");  // a placement that splits A (the default would keep it whole and wait)
  h.s->step(1e9 + 1);
  EXPECT_EQ(h.slurm.last("update"), "scontrol update JobId=2 NodeList=n1,n2 NumNodes=2 StartTime=now");
  EXPECT_EQ(h.slurm.last("release"), "scontrol release 2");
  h.slurm.jobs[1].state = "COMPLETED";
  h.slurm.run(2, {{"n1", {0, 1, 2}}, {"n2", {0}}});
  h.slurm.jobs[3] = held(3, 2);
  h.s->step(1e9 + 2);
  EXPECT_TRUE(h.logged("job 2: Slurm spread its GPUs as n1:3,n2:1, not as the policy did"))
      << ::testing::PrintToString(h.lines) << ::testing::PrintToString(h.slurm.log);
  const std::string b = h.slurm.last("update");
  EXPECT_EQ(b.rfind("scontrol update JobId=3 ", 0), 0u) << b;
  EXPECT_EQ(b.find("NodeList=n1 "), std::string::npos) << "B put where only the policy's books had room: " << b;
}

TEST(SlurmBackend, NodesWithoutCpusOrMemoryForAJobAreNotUsed) {
  // n1's CPUs are all taken (by jobs of other partitions): its free GPUs are nobody's to give; the job goes to n2.
  Harness h;
  h.slurm.nodes[0].cpus_alloc = 8;
  h.slurm.jobs[5] = held(5);
  h.connect();
  h.s->step(1e9 + 1);
  EXPECT_EQ(h.slurm.last("update"), "scontrol update JobId=5 NodeList=n2 NumNodes=1 StartTime=now");
  // A job asking more memory per node than any node has left is not released; the refusal is logged once.
  Harness m;
  m.slurm.nodes[0].mem_alloc = m.slurm.nodes[1].mem_alloc = 16000;
  m.slurm.jobs[6] = held(6);
  m.slurm.jobs[6].mem = "20G";
  m.connect();
  m.s->step(1e9 + 1);
  m.s->step(1e9 + 2);
  EXPECT_TRUE(m.slurm.log.empty()) << m.slurm.log.front();
  EXPECT_EQ(std::count_if(m.lines.begin(), m.lines.end(),
                          [](const std::string& l) { return l.find("job 6: not started: node n") != std::string::npos; }),
            1) << ::testing::PrintToString(m.lines);
  EXPECT_TRUE(m.logged("16000 MB free; it asks 1 CPUs and 20480 MB there"));
  EXPECT_EQ(m.b->jobs().at(0).why.substr(0, 8), "node n1 ");
}

TEST(SlurmBackend, RequestsNoNodeCanEverHoldAreRefusedVisiblyAndCountAsEnded) {
  // 9 GPUs on a 2 x 4-GPU partition, 40 GB on 32 GB nodes: refused at once, their AdminComment set (never the
  // user's comment), not in the queue (--exit-when-done may end), in jobs.csv as unschedulable with the reason.
  Harness h;
  h.slurm.jobs[7] = held(7, 9);
  h.slurm.jobs[8] = held(8);
  h.slurm.jobs[8].mem = "40G";
  h.connect();
  EXPECT_EQ(h.s->step(1e9 + 1), 0);
  EXPECT_EQ(h.slurm.log.at(0), "scontrol update JobId=7 AdminComment=ringmaster: cannot run here: asks for 9 GPUs; "
                               "partition rm has 8 GPUs on 2 nodes (at most 4 per node)");
  EXPECT_EQ(h.slurm.log.at(1).rfind("scontrol update JobId=8 AdminComment=ringmaster: cannot run here: asks for "
                                    "40960 MB per node; the largest node of partition rm has 32000 MB", 0), 0u);
  EXPECT_EQ(h.slurm.log.size(), 2u) << "released or commented again: " << ::testing::PrintToString(h.slurm.log);
  h.s->step(1e9 + 2);
  EXPECT_EQ(h.slurm.log.size(), 2u) << ::testing::PrintToString(h.slurm.log);
  const std::string out = test::temp_dir() + "/refused";
  h.s->write_outputs(out);
  const std::string jobs = test::read_file(out + "/jobs.csv");
  EXPECT_NE(jobs.find("\n7,"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find(",0,unschedulable,,,,,,,PENDING,,,,\n"), std::string::npos) << jobs;  // manager_state last
  EXPECT_NE(test::read_file(out + "/summary.json").find("\"unschedulable\": 2"), std::string::npos);
  EXPECT_TRUE(h.logged("job 7: unschedulable, never started: asks for 9 GPUs"));
}

TEST(SlurmBackend, RefusesToStartWhereJobsWithoutMemoryWouldTakeWholeNodes) {
  Harness h;
  h.slurm.select = "CR_CORE_MEMORY";
  try {
    h.connect();
    FAIL() << "started on a partition without a default memory";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("add DefMemPerGPU=<MB> to the partition's line in slurm.conf"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("all of a node's memory"), std::string::npos) << e.what();
  }
}

TEST(SlurmBackend, ParsesTheGpuIndicesOfARunningJob) {
  const auto g = parse_job_gpu_indices(
      "JobId=69 JobName=8\n   NumNodes=3 NumCPUs=2 NumTasks=2 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
      "     Nodes=n3 CPU_IDs=2 Mem=100 GRES=gpu:1(IDX:3)\n     Nodes=n[4-5] CPU_IDs=0 Mem=100 GRES=gpu:3(IDX:0,2-3)\n"
      "   TresPerJob=gres:gpu:7\n");
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0], (std::pair<std::string, std::vector<int>>{"n3", {3}}));
  EXPECT_EQ(g[1], (std::pair<std::string, std::vector<int>>{"n4", {0, 2, 3}}));
  EXPECT_EQ(g[2].first, "n5");
  EXPECT_TRUE(parse_job_gpu_indices("JobId=1 JobName=x\n   NumNodes=1\n").empty());
}

}  // namespace
}  // namespace rm::live

namespace rm::live {
namespace {

TEST(SlurmBackend, NothingIsReleasedWhileThePartitionIsGoneOrDown) {
  Harness h;
  h.slurm.jobs[1] = held(1);
  h.connect();
  h.slurm.partition_state = "";  // `scontrol delete PartitionName=rm`
  EXPECT_EQ(h.s->step(1e9 + 1), 1);
  h.slurm.partition_state = "DOWN";
  h.s->step(1e9 + 2);
  EXPECT_EQ(h.slurm.last("release"), "") << ::testing::PrintToString(h.slurm.log);
  EXPECT_TRUE(h.logged("partition rm is gone from Slurm: nothing is released until it is back"));
  EXPECT_TRUE(h.logged("partition rm is DOWN: nothing is released until it is back"));
  EXPECT_EQ(h.b->jobs().at(0).why, "partition rm is DOWN");
  EXPECT_NE(h.b->metrics_text(true).find("ringmaster_partition_ok 0\n"), std::string::npos);
  h.slurm.partition_state = "UP";
  h.s->step(1e9 + 3);
  EXPECT_TRUE(h.logged("partition rm is back as it was; scheduling again"));
  EXPECT_EQ(h.slurm.last("release"), "scontrol release 1");
  EXPECT_NE(h.b->metrics_text(true).find("ringmaster_partition_ok 1\n"), std::string::npos);
}

}  // namespace
}  // namespace rm::live
