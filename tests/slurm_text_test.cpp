// The Slurm backend's parsing of what Slurm 22.05 prints (samples recorded from the test cluster of
// tests/slurm/local_slurm.sh) and the commands it issues, through a scripted CommandRunner.
#include <gtest/gtest.h>

#include <map>

#include "core/error.h"
#include "live/slurm/slurm_ctl.h"
#include "live/hints.h"
#include "live/slurm/slurm_text.h"

namespace rm::live {
namespace {

const char* kNodeIdle =
    "NodeName=n1 Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=8 CPUTot=8 CPULoad=1.12 AvailableFeatures=(null) "
    "ActiveFeatures=(null) Gres=gpu:4 NodeAddr=127.0.0.1 NodeHostName=vm Port=26918 Version=22.05.8 OS=Linux "
    "6.18.44-fc-v769 #1 SMP PREEMPT_DYNAMIC @0  RealMemory=32000 AllocMem=0 FreeMem=23309 Sockets=8 Boards=1 "
    "State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=rm  "
    "BootTime=2026-11-23T11:33:25 SlurmdStartTime=2026-11-23T14:55:05 LastBusyTime=2026-11-23T14:55:50 "
    "CfgTRES=cpu=8,mem=32000M,billing=8 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s "
    "ExtSensorsWatts=0 ExtSensorsTemp=n/s";
const char* kNodeDrained =
    "NodeName=n4 Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=8 CPUTot=8 CPULoad=1.12 Gres=gpu:4 "
    "RealMemory=32000 AllocMem=0 State=IDLE+DRAIN ThreadsPerCore=1 Partitions=rm,gpu-high Reason=test [root@2026-11-23T14:56:01]";

// squeue -O kSqueueFields: a finished --gpus=6 job over two nodes, held jobs with per-node requests, a
// comment with '|' and spaces in it.
const char* kSqueue =
    "2|COMPLETED|None|n[1-2]|N/A|gres:gpu:6|2|4|4G|rm|2026-11-23T14:55:10|2026-11-23T14:55:30|2026-11-23T14:55:50|root|train|(null)|(null)|\n"
    "4|PENDING|JobHeldUser||gres:gpu:1|N/A|1|1|0|rm|2026-11-23T14:55:20|N/A|N/A|alice|bert large|afterok:2(unfulfilled)|rm:model=resnet50;duration=60;iterations=123456789;tp=1;pp=1|x y|\n"
    "3|PENDING|JobHeldUser||gres:gpu:4|N/A|2|2|0|rm|2026-11-23T14:55:10|N/A|N/A|bob|job.sh|(null)|(null)|\n";

TEST(SlurmText, NodeLinesKeepValuesWithSpaces) {
  const auto kv = parse_kv_line(kNodeIdle);
  EXPECT_EQ(kv.at("OS"), "Linux 6.18.44-fc-v769 #1 SMP PREEMPT_DYNAMIC @0");
  EXPECT_EQ(kv.at("AllocTRES"), "");
  const SlurmNode n = parse_node(kNodeIdle);
  EXPECT_EQ(n.name, "n1");
  EXPECT_EQ(n.cpus, 8);
  EXPECT_DOUBLE_EQ(n.mem_mb, 32000);
  EXPECT_EQ(n.gpus, 4);
  EXPECT_EQ(n.partitions, std::vector<std::string>{"rm"});
  EXPECT_TRUE(n.usable());
  const SlurmNode d = parse_node(kNodeDrained);
  EXPECT_EQ(d.state, "IDLE+DRAIN");
  EXPECT_FALSE(d.usable());
  EXPECT_EQ(d.partitions, (std::vector<std::string>{"rm", "gpu-high"}));
  EXPECT_THROW(parse_node("Arch=x86_64 CPUTot=8"), InputError);
}

TEST(SlurmText, SqueueLinesGiveGpusStatesTimesAndComments) {
  std::vector<SlurmJob> jobs;
  std::string line;
  for (const char* p = kSqueue; *p; ++p) {
    if (*p == '\n') {
      jobs.push_back(parse_squeue_line(line));
      line.clear();
    } else {
      line += *p;
    }
  }
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].id, 2);
  EXPECT_TRUE(jobs[0].finished());
  EXPECT_EQ(jobs[0].nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(jobs[0].gpus, 6);  // per job
  EXPECT_EQ(jobs[0].gpus_per_job, 6);
  EXPECT_DOUBLE_EQ(jobs[0].end_s - jobs[0].start_s, 20);
  EXPECT_DOUBLE_EQ(jobs[0].start_s - jobs[0].submit_s, 20);
  EXPECT_TRUE(jobs[0].comment.empty());
  EXPECT_TRUE(jobs[1].held());
  EXPECT_FALSE(jobs[1].finished());
  EXPECT_EQ(jobs[1].gpus, 1);
  EXPECT_EQ(jobs[1].comment, "rm:model=resnet50;duration=60;iterations=123456789;tp=1;pp=1|x y");
  EXPECT_EQ(jobs[1].dependency, "afterok:2(unfulfilled)");
  EXPECT_EQ(jobs[0].dependency, "");
  // The plugin's mark of a user's own hold is taken off the comment (the hints stay readable) and flagged.
  const SlurmJob held = parse_squeue_line(
      "9|PENDING|JobHeldUser||N/A|gres:gpu:1|1|1|0|rm|N/A|N/A|N/A|u|n|(null)|rm:duration=5;rm-user-hold|");
  EXPECT_TRUE(held.user_held);
  EXPECT_EQ(held.comment, "rm:duration=5");
  const SlurmJob bare = parse_squeue_line("9|PENDING|JobHeldUser||N/A|gres:gpu:1|1|1|0|rm|N/A|N/A|N/A|u|n|(null)|rm-user-hold|");
  EXPECT_TRUE(bare.user_held);
  EXPECT_EQ(bare.comment, "");
  EXPECT_FALSE(jobs[1].user_held);
  EXPECT_EQ(jobs[1].user, "alice");
  EXPECT_EQ(jobs[1].name, "bert large");
  EXPECT_EQ(jobs[0].name, "train");
  EXPECT_LT(jobs[1].start_s, 0);  // N/A
  EXPECT_EQ(jobs[2].gpus, 8);     // 4 per node x 2 nodes
  EXPECT_EQ(jobs[2].gpus_per_node, 4);
  EXPECT_THROW(parse_squeue_line("12|RUNNING|None"), InputError);
  EXPECT_THROW(parse_squeue_line("x|RUNNING|None||N/A|N/A|1|1|0|rm|N/A|N/A|N/A|u|n|(null)|(null)|"), InputError);
  EXPECT_THROW(parse_squeue_line("12|RUNNING|None||N/A|N/A|1|1|0|rm|N/A|N/A|N/A|u|(null)|"), InputError);  // 16 fields
}

TEST(SlurmText, HostListsAndGres) {
  EXPECT_EQ(expand_hostlist("n[1-3,5],m2"), (std::vector<std::string>{"n1", "n2", "n3", "n5", "m2"}));
  EXPECT_EQ(expand_hostlist("gpu[08-10]"), (std::vector<std::string>{"gpu08", "gpu09", "gpu10"}));
  EXPECT_TRUE(expand_hostlist("").empty());
  EXPECT_TRUE(expand_hostlist("(null)").empty());
  EXPECT_THROW(expand_hostlist("n[1-3"), InputError);
  EXPECT_THROW(expand_hostlist("n[3-1]"), InputError);
  EXPECT_EQ(gres_gpus("gpu:4"), 4);
  EXPECT_EQ(gres_gpus("gpu:4(S:0)"), 4);
  EXPECT_EQ(gres_gpus("gpu:g0:1,gpu:g1:1"), 2);
  EXPECT_EQ(gres_gpus("gres:gpu:2"), 2);
  EXPECT_EQ(gres_gpus("gres/gpu=3"), 3);
  EXPECT_EQ(gres_gpus("N/A"), 0);
  EXPECT_EQ(gres_gpus("(null)"), 0);
  EXPECT_LT(parse_slurm_time("Unknown"), 0);
  EXPECT_DOUBLE_EQ(parse_slurm_time("2026-11-23T14:55:50") - parse_slurm_time("2026-11-23T14:55:10"), 40);
}

TEST(SlurmText, HintsAreParsedAndBadOnesNamedByField) {
  const JobHints h = parse_hints("rm:model=bert;duration=600;tp=2;user=alice;key=nightly-bert");
  EXPECT_EQ(h.model, "bert");
  EXPECT_EQ(h.user, "alice");
  EXPECT_EQ(h.key, "nightly-bert");
  EXPECT_DOUBLE_EQ(*h.duration_s, 600);
  EXPECT_EQ(h.tp, 2);
  EXPECT_TRUE(h.errors.empty());
  const JobHints bad = parse_hints("rm:duration=abc;iterations=-5;colour=blue;justtext;key=");
  EXPECT_FALSE(bad.duration_s);
  EXPECT_FALSE(bad.iterations);
  ASSERT_EQ(bad.errors.size(), 5u);
  EXPECT_EQ(bad.errors[4], "key: empty");
  EXPECT_NE(bad.errors[0].find("duration"), std::string::npos);
  EXPECT_NE(bad.errors[1].find("iterations"), std::string::npos);
  EXPECT_NE(bad.errors[2].find("colour"), std::string::npos);
  EXPECT_TRUE(parse_hints("just a note").errors.empty());  // not ours: no hints, no errors
}

// The commands the control layer issues, and its errors naming the command and Slurm's message.
TEST(SlurmCtl, IssuesTheDocumentedCommands) {
  std::vector<std::vector<std::string>> calls;
  SlurmCtl ctl([&](const std::vector<std::string>& argv) {
    calls.push_back(argv);
    CommandResult r;
    r.status = 0;
    if (argv[0] == "sbatch") r.out = "42\n";
    if (argv.size() > 2 && argv[1] == "requeuehold") {
      r.status = 1;
      r.err = "scontrol: error: Invalid job id specified\n";
    }
    return r;
  });
  ctl.place_and_release(7, {"n1", "n3"}, 2);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], (std::vector<std::string>{"scontrol", "update", "JobId=7", "NodeList=n1,n3", "NumNodes=2",
                                                "StartTime=now", "Gres=gpu:2"}));
  EXPECT_EQ(calls[1], (std::vector<std::string>{"scontrol", "release", "7"}));
  EXPECT_EQ(ctl.submit({"-H", "job.sh"}), 42);
  try {
    ctl.requeue_hold(9);
    FAIL();
  } catch (const SlurmError& e) {
    EXPECT_NE(std::string(e.what()).find("scontrol requeuehold 9"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("Invalid job id"), std::string::npos);
  }
}

TEST(SlurmCtl, RunCommandCapturesOutputStatusAndTimeouts) {
  const auto ok = run_command({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(ok.status, 3);
  EXPECT_EQ(ok.out, "out\n");
  EXPECT_EQ(ok.err, "err\n");
  EXPECT_EQ(run_command({"/nonexistent/program"}).status, 127);
  const auto slow = run_command({"sleep", "5"}, 0.2);
  EXPECT_EQ(slow.status, -1);
  EXPECT_NE(slow.err.find("timed out"), std::string::npos);
}

}  // namespace
}  // namespace rm::live
