#include "run/round_runner.h"

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "engine/engine.h"
#include "run/simulation.h"
#include "exec/comm_model.h"
#include "exec/perf_model.h"
#include "workload/table_reader.h"
#include "policy/params.h"
#include "policy/registry.h"
#include "workload/cpu_profile_map.h"
#include "models/round/round_model.h"
#include "models/round/round_workloads.h"
#include "workload/parse_util.h"
#include "run/loaders.h"

namespace rm {

synergy::RoundResult run_rounds(int servers, int gpus_per_server, const synergy::Vec& per_server,
                                const synergy::ProfileSet& profiles, synergy::JobSource& source,
                                const synergy::RoundOptions& opt) {
  synergy::RoundFeed feed(source);
  std::unique_ptr<synergy::RoundModel> model = synergy::make_round_model(per_server, profiles, feed, opt);
  synergy::RoundModel& m = *model;
  Engine engine(synergy::round_cluster(servers, gpus_per_server, per_server), feed, nullptr, std::move(model));
  engine.run();
  return m.result();
}

bool is_synergy_workload(const std::string& name) { return name == "synergy-philly" || name == "synergy-synthetic"; }

RoundPolicy round_policy(const PolicySpec& spec, std::uint64_t seed) {
  if (const std::string why = exec_refusal(spec, ExecModel::Round); !why.empty())
    throw InputError("--policy", 0, spec.text, "cannot run with --exec round: " + why);
  RoundPolicy p;
  p.order = std::shared_ptr<QueueOrder>(make_order(*spec.part(Point::Order), seed));
  make_placement(*spec.part(Point::Placement), seed);  // its parameters are checked like anywhere else
  const PartSpec fair{Point::Allocation, "fair", {}};
  const PartSpec* a = spec.part(Point::Allocation);
  p.allocation = std::shared_ptr<Allocation>(make_allocation(a ? *a : fair, seed));
  p.consolidated = spec.part(Point::Placement)->name == "consolidated";
  p.placement_named = !spec.part(Point::Placement)->defaulted;
  p.full_sort = spec.has(Point::Flag, "full-sort");
  return p;
}

namespace {

synergy::GenParams gen_params(const InputSpec& cfg, const std::array<int, 3>& split) {
  synergy::GenParams gp;
  gp.jobs_per_hour = cfg.load > 0 ? cfg.load : cfg.gen.load;
  gp.split = split;
  gp.seed = cfg.seed;
  if (!cfg.job_list.empty()) {
    Workload w = read_trace(cfg.job_list, "auto");
    std::vector<std::pair<double, int>> dg;
    for (const auto& j : w.jobs) dg.push_back({j.duration_s, j.num_gpus});
    gp.job_list_gpus = synergy::job_list_from(dg, cfg.multigpu);
    if (gp.job_list_gpus.empty()) throw InputError(cfg.job_list, 0, "", "no job passes the 31.6 min - 6.9 day filter");
  }
  return gp;
}

std::unique_ptr<synergy::JobSource> generator(const InputSpec& cfg, const std::array<int, 3>& split,
                                              const synergy::ProfileSet& profiles) {
  const auto gp = gen_params(cfg, split);
  return cfg.workload == "synergy-philly" ? synergy::philly_derived_source(gp, profiles)
                                          : synergy::synthetic_source(gp, profiles);
}

}  // namespace

namespace {

// A Synergy replay CSV: --format synergy, or auto on a file of 5-field rows that is not a bundled trace.
bool is_synergy_replay(const InputSpec& cfg) {
  const bool mapped = !cfg.columns.empty() || !cfg.header.empty();  // any CSV through the canonical reader
  if (cfg.format == "synergy" && mapped)
    throw InputError(!cfg.columns.empty() ? "--columns" : "--header", 0, "",
                     "reads a CSV with the canonical reader; --format synergy is Synergy's own replay format: drop "
                     "one of them");
  const bool replay =
      cfg.format == "synergy" ||
      (!mapped && cfg.format == "auto" && cfg.trace.rfind("builtin:", 0) != 0 &&
       detect_format(TableReader::first_line_of(TableReader::load(cfg.trace)), cfg.trace) == "synergy");
  if (replay && cfg.load > 0)
    throw InputError("--load", 0, "", "a Synergy replay CSV's arrivals are its own: use --arrival-scale to scale them");
  return replay;
}

struct ProfileRuleCount {
  std::int64_t jobs = 0, hashed = 0;
};

// Any other trace (Philly, canonical, Tiresias, Gavel, ...): read and resolved as for the job-level engine,
// then each job gets a Synergy profile by the rule of workload/cpu_profile_map.h, and as many iterations of that
// profile as fill its ideal duration on the cluster (iterations x ideal iteration time): at the
// GPU-proportional share a job runs exactly as long as the trace says.
std::vector<synergy::JobInit> jobs_from_trace(const InputSpec& cfg, SimResult& r, const synergy::ProfileSet& profiles,
                                              ProfileRuleCount& count) {
  r.workload = load_workload(cfg, r.cluster, &r.unschedulable, cfg.errors, &r.models);
  if (cfg.errors && !cfg.errors->empty()) return {};
  std::vector<synergy::JobInit> out;
  out.reserve(r.workload.jobs.size());
  const IdealLaw law(r.cluster);
  for (const auto& j : r.workload.jobs) {
    const auto pc = synergy::profile_for(profiles, j.model, cfg.seed);
    ++count.jobs;
    count.hashed += pc.by_hash;
    const double duration = j.iterations * law.iteration_s(j);
    synergy::JobInit ji;
    ji.id = static_cast<std::int64_t>(j.id);
    ji.name = j.name;
    ji.model = pc.profile->model;
    ji.arrival = to_seconds(j.submit);
    ji.N = duration / pc.profile->iter_time_s;
    ji.g = j.num_gpus;
    ji.file = j.file;
    ji.line = j.line;
    out.push_back(std::move(ji));
  }
  std::vector<JobSpec>().swap(r.workload.jobs);  // its memory back: the records are made after the run
  return out;
}

}  // namespace

int cpu_ratio_of(const ClusterSpec& c, int given) {
  if (given != 0) return given;
  const ServerSpec& s0 = c.servers.at(0);
  const double per = s0.gpus > 0 ? static_cast<double>(s0.cpus) / s0.gpus : 0;
  const int ratio = static_cast<int>(std::lround(per));
  if (ratio < 3 || ratio > 6)
    throw InputError("--cpu-ratio", 0, "", "the cluster has " + std::to_string(per) +
                                               " CPUs per GPU; give --cpu-ratio 3..6 to pick a profile set");
  return ratio;
}

std::string synergy_workload_csv(const SimConfig& cfg, int jobs) {
  const auto profiles = synergy::ProfileSet::load(cfg.cpu_ratio == 0 ? 3 : cfg.cpu_ratio, cfg.profiles);
  auto src = generator(cfg, parse_split(cfg.split), profiles);
  std::string out;
  for (int k = 0; k < jobs; ++k) {
    const auto j = src->next();
    out += std::to_string(j->id) + "," + j->model + "," + std::to_string(static_cast<long long>(j->arrival)) + "," +
           std::to_string(static_cast<long long>(j->N)) + "," + std::to_string(j->g) + "\n";
  }
  return out;
}

namespace {

// The round model's cluster: identical servers with CPUs, DRAM and storage; their capacity vector P.
synergy::Vec round_capacity(const ClusterSpec& c) {
  const auto& servers = c.servers;
  for (const auto& s : servers)
    if (s.gpus != servers[0].gpus || s.cpus != servers[0].cpus || s.dram_gb != servers[0].dram_gb ||
        s.storage_mbps != servers[0].storage_mbps)
      throw InputError(c.name, 0, "servers", "the round model needs identical servers");
  const ServerSpec& s0 = servers[0];
  if (s0.cpus <= 0 || s0.dram_gb <= 0 || s0.storage_mbps <= 0)
    throw InputError(c.name, 0, "servers", "the round model needs cpus, dram_gb and storage_mbps > 0");
  return {static_cast<double>(s0.gpus), static_cast<double>(s0.cpus), s0.dram_gb, s0.storage_mbps,
          s0.nic_gbps > 0 ? s0.nic_gbps : 40.0};
}

synergy::RoundOptions round_options(const RunPlan& plan, const RoundPolicy& pol) {
  synergy::RoundOptions o;
  o.order_plugin = pol.order;
  o.order = pol.order->name();
  o.allocation = pol.allocation;
  o.full_sort = pol.full_sort;
  o.matrix_speed = plan.matrix_speed;
  o.compat = plan.compat == Compat::Synergy;
  o.consolidated = pol.consolidated && (pol.placement_named || !o.compat);  // the authors place first-fit
  o.is_static = plan.run.is_static;
  o.round_s = plan.run.round_s == 0 ? 300 : plan.run.round_s;  // 0: Synergy's and Blox's 300 s
  if (!(o.round_s > 0) || !std::isfinite(o.round_s))
    throw InputError("--round", 0, std::to_string(plan.run.round_s),
                     "the lease length must be a positive number of seconds");
  if (o.compat && o.round_s != 300)
    throw InputError("--round", 0, std::to_string(plan.run.round_s), "--compat synergy runs the authors' 300-s rounds");
  o.progress = plan.run.progress;
  return o;
}

// The jobs: a synergy-* generator, a Synergy replay CSV or any other trace (by the profile rule). Sets the
// measured window. Null for a dry run (`validate`), after every job's checks.
std::unique_ptr<synergy::JobSource> round_source(const RunPlan& plan, SimResult& r, const synergy::ProfileSet& profiles,
                                                 synergy::RoundOptions& o, ProfileRuleCount& rule) {
  using namespace synergy;
  if (!plan.inputs.workload.empty()) {
    if (plan.run.dry_run) return nullptr;
    const auto [lo, hi] = plan.measure_ids.value_or(std::pair<std::int64_t, std::int64_t>{4000, 4999});
    o.window_lo = lo;
    o.window_hi = hi;
    return generator(plan.inputs, plan.split, profiles);
  }
  std::vector<JobInit> jobs;
  if (is_synergy_replay(plan.inputs)) {
    jobs = read_replay(plan.inputs.trace, plan.inputs.errors);
    const long keep = plan.inputs.max_jobs;  // --max-jobs
    if (keep > 0 && static_cast<long>(jobs.size()) > keep) jobs.resize(static_cast<std::size_t>(keep));
    if (plan.inputs.arrival_scale != 1)  // --arrival-scale, as on every other trace
      for (auto& ji : jobs) ji.arrival *= plan.inputs.arrival_scale;
  } else {
    jobs = jobs_from_trace(plan.inputs, r, profiles, rule);
    o.synergy_gpu_counts = false;
  }
  if (plan.run.dry_run) {  // `validate`: every job's arrival checks, up front
    const int servers = static_cast<int>(r.cluster.servers.size()), gpus = r.cluster.servers[0].gpus;
    for (const auto& ji : jobs) check_job(ji, servers, gpus, profiles, o.synergy_gpu_counts);
    return nullptr;
  }
  if (plan.measure_ids) {
    o.window_lo = plan.measure_ids->first;
    o.window_hi = plan.measure_ids->second;
  }
  return replay_source(std::move(jobs));
}

// The measured jobs become the run's records (jobs.csv); the others are counted in the summary.
void record_rounds(synergy::RoundResult& rr, const synergy::RoundOptions& o, const std::string& file, SimResult& r) {
  std::int64_t finished = 0;
  double last_finish = 0;
  const auto measured = [&](const auto& j) { return j.finished && j.id >= o.window_lo && j.id <= o.window_hi; };
  // One walk that frees the model's jobs a chunk at a time behind it: the records of a million jobs are made while
  // those jobs go (the reserve keeps every spec where its record points).
  const auto n_measured = static_cast<std::size_t>(std::count_if(rr.jobs.begin(), rr.jobs.end(), measured));
  r.workload.jobs.reserve(r.workload.jobs.size() + n_measured);
  r.record.jobs.reserve(r.record.jobs.size() + n_measured);
  const bool sigma_speedup = o.allocation && o.allocation->round_traits().sigma_speedup;
  constexpr std::size_t chunk = Chunked<synergy::Job>::chunk_size;
  for (std::size_t i = 0; i < rr.jobs.size(); ++i) {
    if (i > 0 && i % chunk == 0) {
      rr.jobs.drop_chunk(i / chunk - 1);
      // Chunks come from the heap once a freed block has raised malloc's mmap threshold: their pages back to the
      // system every 64 chunks (about 80 MB), for the records made next.
      if ((i / chunk) % 64 == 0) ::malloc_trim(0);
    }
    const synergy::Job& j = rr.jobs[i];
    finished += j.finished;
    if (j.finished) last_finish = std::max(last_finish, j.finish_time);
    if (!measured(j)) continue;
    JobSpec& sp = r.workload.jobs.emplace_back();
    sp.id = static_cast<JobId>(r.workload.jobs.size() - 1);
    sp.name = j.name;
    sp.submit = from_seconds(j.arrival);
    sp.num_gpus = j.g;
    sp.model = j.prof->model;
    sp.iterations = j.N;
    sp.file = file;
    JobRecord jr;
    jr.spec = &sp;
    jr.first_start = from_seconds(j.first_start);
    jr.finish = from_seconds(j.finish_time);
    jr.run_us = from_seconds(j.run_s);
    jr.preemptions = static_cast<int>(std::max<std::int64_t>(0, j.leases - 1));
    // Alone on an idle cluster: its best case where the mechanism gives it (sigma), else the proportional share.
    jr.ideal_us = from_seconds(j.N * j.t / (sigma_speedup ? j.sigma0 : 1.0));
    jr.servers = j.max_servers;
    jr.gpu_type = gpu_type_index(r.record, r.cluster.servers.front().gpu_type);
    r.record.jobs.push_back(jr);
  }
  r.record.total_gpus = r.cluster.total_gpus();
  r.record.busy_gpu_us = from_seconds(rr.busy_gpu_s);
  r.record.events = rr.events;
  for (const auto& s : rr.series) r.record.series.push_back({from_seconds(s.t), s.queued, s.running, s.busy_gpus});
  r.record.decision_us = std::move(rr.decision_us);
  auto rule_keys = std::move(r.record.extra);
  r.record.extra = {{"avg_jct_h", rr.mean_h},
                    {"p99_jct_h", rr.p99_h},
                    {"p999_jct_h", rr.p999_h},
                    {"measured_jobs", static_cast<double>(rr.measured_jct.size())},
                    {"generated_jobs", static_cast<double>(rr.jobs.size())},
                    {"finished_jobs", static_cast<double>(finished)},
                    {"unfinished_jobs", static_cast<double>(static_cast<std::int64_t>(rr.jobs.size()) - finished)},
                    {"makespan_h", last_finish / 3600},
                    {"rounds", static_cast<double>(rr.rounds)},
                    {"sim_hours", rr.end_time / 3600}};
  r.record.extra.insert(r.record.extra.end(), rule_keys.begin(), rule_keys.end());
  // Utilisation and makespan over the whole run (not only the measured jobs).
  r.summary = summarize(r.record, r.unschedulable.size());  // non-Synergy traces may skip some
  r.summary.gpu_util = rr.end_time > 0 ? rr.busy_gpu_s / (r.cluster.total_gpus() * rr.end_time) : 0;
  r.summary.makespan_s = last_finish;
}

}  // namespace

std::unique_ptr<SimResult> run_round_model(const RunPlan& plan, std::unique_ptr<SimResult> r) {
  using namespace synergy;
  const RoundPolicy pol = round_policy(plan.policy, plan.inputs.seed);
  const Vec P = round_capacity(r->cluster);
  const ProfileSet profiles = ProfileSet::load(cpu_ratio_of(r->cluster, plan.run.cpu_ratio), plan.run.profiles);
  RoundOptions o = round_options(plan, pol);
  ProfileRuleCount profile_rule;
  std::unique_ptr<JobSource> src = round_source(plan, *r, profiles, o, profile_rule);
  if (!src) return r;  // a dry run
  if (profile_rule.jobs > 0) {
    r->record.extra.push_back({"profiles_by_name", static_cast<double>(profile_rule.jobs - profile_rule.hashed)});
    r->record.extra.push_back({"profiles_by_hash", static_cast<double>(profile_rule.hashed)});
  }
  if (is_measured_perf_model(plan.run.perf_model)) {  // the measured slowdown of each lease's placement
    PerfModel* perf = r->perf.get();
    const int per = r->cluster.servers[0].gpus;
    o.placement_factor = [perf, per](const Job& j) {
      JobSpec s;
      s.id = j.key;
      s.model = j.prof->model;
      s.num_gpus = static_cast<int>(j.gpus.size());
      std::vector<GpuRef> refs;
      for (int g : j.gpus) refs.push_back({g / per, g % per});
      return perf->placement_factor(s, span_of(refs), 0).value_or(1.0);
    };
  }
  const int servers = static_cast<int>(r->cluster.servers.size());
  RoundResult rr = run_rounds(servers, r->cluster.servers[0].gpus, P, profiles, *src, o);
  src.reset();
  ::malloc_trim(0);  // the engine's job states and specs, freed in small blocks, back to the system before the records
  record_rounds(rr, o, plan.inputs.workload.empty() ? plan.inputs.trace : "workload:" + plan.inputs.workload, *r);
  return r;
}

}  // namespace rm
