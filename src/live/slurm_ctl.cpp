#include "live/slurm_ctl.h"

#include <sstream>

namespace rm::live {

namespace {
std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}
std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l))
    if (!l.empty() && l.find_first_not_of(" \t\r") != std::string::npos) out.push_back(l);
  return out;
}
}  // namespace

CommandResult SlurmCtl::call(const std::vector<std::string>& argv, bool must_succeed) {
  CommandResult r = run_(argv);
  if (must_succeed && !r.ok()) {
    std::string msg = r.err.empty() ? r.out : r.err;
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    throw SlurmError("`" + joined(argv, " ") + "` failed (status " + std::to_string(r.status) + "): " + msg);
  }
  return r;
}

void SlurmCtl::ping() {
  const auto r = call({"scontrol", "ping"}, false);
  if (!r.ok() || r.out.find("UP") == std::string::npos)
    throw SlurmError("cannot reach slurmctld (`scontrol ping`): " + (r.err.empty() ? r.out : r.err));
}

bool SlurmCtl::partition_exists(const std::string& partition) {
  const auto r = call({"scontrol", "show", "partition", partition, "-o"}, false);
  return r.ok() && r.out.find("PartitionName=" + partition) != std::string::npos;
}

std::vector<SlurmNode> SlurmCtl::nodes(const std::string& partition) {
  std::vector<SlurmNode> out;
  for (const auto& l : lines(call({"scontrol", "show", "node", "-o"}).out)) {
    SlurmNode n = parse_node(l);
    for (const auto& p : n.partitions)
      if (p == partition) {
        out.push_back(std::move(n));
        break;
      }
  }
  return out;
}

std::vector<SlurmJob> SlurmCtl::jobs(const std::string& partition) {
  std::vector<SlurmJob> out;
  for (const auto& l : lines(call({"squeue", "-h", "-a", "--states=all", "-p", partition, "-O", kSqueueFields}).out))
    out.push_back(parse_squeue_line(l));
  return out;
}

void SlurmCtl::place_and_release(std::int64_t id, const std::vector<std::string>& nodes, int gpus_per_node) {
  std::vector<std::string> argv = {"scontrol", "update", "JobId=" + std::to_string(id), "NodeList=" + joined(nodes, ","),
                                   "NumNodes=" + std::to_string(nodes.size()), "StartTime=now"};
  if (gpus_per_node > 0) argv.push_back("Gres=gpu:" + std::to_string(gpus_per_node));
  call(argv);
  call({"scontrol", "release", std::to_string(id)});
}

void SlurmCtl::requeue_hold(std::int64_t id) { call({"scontrol", "requeuehold", std::to_string(id)}); }

std::vector<std::pair<std::string, std::vector<int>>> SlurmCtl::job_gpus(std::int64_t id) {
  return parse_job_gpu_indices(call({"scontrol", "-d", "show", "job", std::to_string(id)}).out);
}

void SlurmCtl::hold(std::int64_t id) { call({"scontrol", "hold", std::to_string(id)}); }

void SlurmCtl::cancel(std::int64_t id) { call({"scancel", std::to_string(id)}); }

std::int64_t SlurmCtl::submit(const std::vector<std::string>& sbatch_args) {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  argv.insert(argv.end(), sbatch_args.begin(), sbatch_args.end());
  const auto r = call(argv);
  std::string s = r.out.substr(0, r.out.find_first_of(";\n"));
  try {
    return std::stoll(s);
  } catch (...) {
    throw SlurmError("sbatch printed no job id: '" + r.out + "'");
  }
}

}  // namespace rm::live
