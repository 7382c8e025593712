#include "live/slurm/slurm_ctl.h"

#include <sstream>
#include <thread>

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

bool SlurmCtl::partition_exists(const std::string& partition) { return !this->partition(partition).empty(); }

std::map<std::string, std::string> SlurmCtl::partition(const std::string& partition) {
  const auto r = call({"scontrol", "show", "partition", partition, "-o"}, false);
  if (!r.ok() || r.out.find("PartitionName=" + partition) == std::string::npos) return {};
  return parse_kv_line(lines(r.out).front());
}

std::vector<std::map<std::string, std::string>> SlurmCtl::partitions() {
  std::vector<std::map<std::string, std::string>> out;
  for (const auto& l : lines(call({"scontrol", "show", "partition", "-o"}).out))
    if (l.rfind("PartitionName=", 0) == 0) out.push_back(parse_kv_line(l));
  return out;
}

std::map<std::string, std::string> SlurmCtl::config() {
  std::map<std::string, std::string> out;
  for (const auto& l : lines(call({"scontrol", "show", "config"}).out)) {
    const auto eq = l.find(" = ");
    if (eq == std::string::npos) continue;
    std::string k = l.substr(0, eq);
    while (!k.empty() && k.back() == ' ') k.pop_back();
    out[k] = l.substr(eq + 3);
  }
  return out;
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
  std::vector<std::string> argv = {"squeue", "-h", "-a", "--states=all", "-O", kSqueueFields};
  if (!partition.empty()) argv.insert(argv.begin() + 4, {"-p", partition});
  for (const auto& l : lines(call(argv).out))
    out.push_back(parse_squeue_line(l));
  return out;
}

void SlurmCtl::pin(const Release& r) {
  std::vector<std::string> argv = {"scontrol", "update", "JobId=" + std::to_string(r.id),
                                   "NodeList=" + joined(r.nodes, ","), "NumNodes=" + std::to_string(r.nodes.size()),
                                   "StartTime=now"};
  if (r.gpus_per_node > 0) argv.push_back("Gres=gpu:" + std::to_string(r.gpus_per_node));
  call(argv);
}

void SlurmCtl::place_and_release(std::int64_t id, const std::vector<std::string>& nodes, int gpus_per_node) {
  pin({id, nodes, gpus_per_node});
  call({"scontrol", "release", std::to_string(id)});
}

void SlurmCtl::parallel_for(std::size_t n, const std::function<void(std::size_t)>& f) const {
  const auto width = static_cast<std::size_t>(parallel_);
  for (std::size_t from = 0; from < n; from += width) {
    const std::size_t to = std::min(n, from + width);
    if (to - from == 1) {
      f(from);
      continue;
    }
    std::vector<std::thread> ts;
    for (std::size_t i = from; i < to; ++i) ts.emplace_back(f, i);
    for (auto& t : ts) t.join();
  }
}

std::vector<std::string> SlurmCtl::place_and_release_all(const std::vector<Release>& starts) {
  std::vector<std::string> errors(starts.size());
  // 1. Pin each job to its nodes, up to `parallel_` commands at once.
  parallel_for(starts.size(), [&](std::size_t i) {
    try {
      pin(starts[i]);
    } catch (const SlurmError& e) {
      errors[i] = e.what();
    }
  });
  // 2. Release the pinned ones in one command (`scontrol release 12,13,14`); if it fails, one by one, so that
  // each failure is the job's own.
  std::vector<std::size_t> pinned;
  for (std::size_t i = 0; i < starts.size(); ++i)
    if (errors[i].empty()) pinned.push_back(i);
  if (pinned.empty()) return errors;
  std::string list;
  for (std::size_t i : pinned) list += (list.empty() ? "" : ",") + std::to_string(starts[i].id);
  if (pinned.size() > 1 && call({"scontrol", "release", list}, false).ok()) return errors;
  for (std::size_t i : pinned) {
    try {
      call({"scontrol", "release", std::to_string(starts[i].id)});
    } catch (const SlurmError& e) {
      errors[i] = e.what();
    }
  }
  return errors;
}

void SlurmCtl::requeue_hold(std::int64_t id) { call({"scontrol", "requeuehold", std::to_string(id)}); }

std::vector<std::pair<std::string, std::vector<int>>> SlurmCtl::job_gpus(std::int64_t id) {
  return parse_job_gpu_indices(call({"scontrol", "-d", "show", "job", std::to_string(id)}).out);
}

std::vector<std::vector<std::pair<std::string, std::vector<int>>>> SlurmCtl::job_gpus_all(
    const std::vector<std::int64_t>& ids, std::vector<std::string>& errors) {
  std::vector<std::vector<std::pair<std::string, std::vector<int>>>> out(ids.size());
  errors.assign(ids.size(), "");
  parallel_for(ids.size(), [&](std::size_t k) {
    try {
      out[k] = job_gpus(ids[k]);
    } catch (const SlurmError& e) {
      errors[k] = e.what();
    }
  });
  return out;
}

void SlurmCtl::hold(std::int64_t id) { call({"scontrol", "hold", std::to_string(id)}); }

void SlurmCtl::admin_comment(std::int64_t id, const std::string& text) {
  call({"scontrol", "update", "JobId=" + std::to_string(id), "AdminComment=" + text});
}

void SlurmCtl::cancel(std::int64_t id) { call({"scancel", std::to_string(id)}); }

void SlurmCtl::unpin(std::int64_t id, bool clear_admin_comment, bool release) {
  std::vector<std::string> argv = {"scontrol", "update", "JobId=" + std::to_string(id), "NodeList="};
  if (clear_admin_comment) argv.push_back("AdminComment=");
  call(argv);
  if (release) call({"scontrol", "release", std::to_string(id)});
}

void SlurmCtl::update_comment(std::int64_t id, const std::string& text) {
  call({"scontrol", "update", "JobId=" + std::to_string(id), "Comment=" + text});
}

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
