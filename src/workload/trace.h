// Reading traces in the supported formats, and resolving jobs against the model catalogue.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "core/error.h"
#include "workload/job.h"
#include "workload/model_catalogue.h"

namespace rm {

class TableReader;

struct TraceFormat {
  std::string name;
  std::string help;
};
const std::vector<TraceFormat>& trace_formats();

// How to read any CSV with the canonical reader (docs/formats.md, "Any CSV"): --columns maps canonical columns onto
// the file's (`submit_s=submitted`, or a little arithmetic: `num_gpus=plan_gpu/100`, `duration_s=end-start`,
// `submit_s=t*60`); --header names the columns of a file without a header row; --time-unit scales submit_s,
// duration_s and deadline_s (s, ms, us). With a mapping or a header the reader is lenient where a cluster log
// needs it (unknown columns ignored and listed, a missing model assigned, CPU-only rows skipped), and counts each.
struct ColumnExpr {
  std::string a, b;  // source columns (b: for a - b)
  char op = 0;       // 0 (a itself), '/', '*', '-'
  double k = 1;      // the constant of / and *
  std::string whole; // the mapping's text: a column of the file with exactly this name wins over the expression
};
struct TraceOptions {
  std::map<std::string, ColumnExpr> columns;  // canonical name -> the file's column(s)
  std::vector<std::string> header;            // the column names of a headerless file
  double time_unit_s = 1;
  bool mapped() const { return !columns.empty() || !header.empty(); }
};
// From the option texts ("a=b,c=d", "x,y,z", "s|ms|us"); InputError naming the option.
TraceOptions parse_trace_options(const std::string& columns, const std::string& header, const std::string& time_unit);

// Reads a trace file. format "auto" detects it from the header (docs/formats.md). Every bad row is
// an InputError naming file:line:field; no row is ever skipped silently.
Workload read_trace(const std::string& path, const std::string& format = "auto",
                    std::vector<std::string>* errors = nullptr, const TraceOptions& opt = {});
// The same from text in memory (the bundled default trace); `name` stands for the file in errors.
Workload read_trace_text(const std::string& text, const std::string& name, const std::string& format,
                         std::vector<std::string>* errors = nullptr, const TraceOptions& opt = {});
std::string detect_format(const std::string& first_line, const std::string& path);

// The execution law's iteration times on a job's ideal placement (exec/comm_model.h: ideal_times()). The
// readers need them to turn durations into iterations, but do not call the law themselves: the caller
// passes it in, so that src/workload stays below src/exec.
// Bound to one cluster: what the law needs from the cluster (fastest GPU, biggest server) is found once, so a
// job's ideal times cost O(1), not a walk over the servers.
struct BoundIdealTimes {
  std::function<double(const JobSpec&)> comm_s, iteration_s;
};
struct IdealTimes {
  std::function<BoundIdealTimes(const ClusterSpec&)> bind;
};

// What resolve_workload did to model names the catalogue lacks (reported in summary.json).
struct ModelMapping {
  std::int64_t aliased = 0;   // jobs whose model was renamed by --model-alias
  std::int64_t unknown = 0;   // jobs whose unknown model was replaced by --unknown-model
  std::map<std::string, std::string> replaced;  // unknown name -> the catalogue model used
};

struct ResolveOptions {
  std::uint64_t seed = 1;          // for the model-assignment rule of jobs without a model
  bool skip_unschedulable = false; // report jobs that can never fit instead of failing
  IdealTimes ideal;                // required
  // --model-alias FROM=TO (names compared as the catalogue does) and --unknown-model error|nearest|by-hash:
  // what to do with a model the catalogue lacks (nearest: the closest catalogue name by edit distance; by-hash:
  // a catalogue model picked by a seeded hash of the name; the same name always maps to the same model).
  std::map<std::string, std::string> model_alias;
  std::string unknown_model = "error";
  ModelMapping* mapping = nullptr;
};

// A job that can never run on the cluster, with the reason (file:line:field: message).
struct Unschedulable {
  JobSpec job;
  std::string reason;
  std::string manager_state;  // a live run's: the job's state in the cluster manager (jobs.csv slurm_state)
};

// Fills compute/gradient/memory from the catalogue, derives iterations from durations, checks each job
// fits the cluster, and sorts by (submit, id). Jobs that cannot fit are an InputError unless
// skip_unschedulable, in which case they are moved to `unschedulable`.
void resolve_workload(Workload& w, const ModelCatalogue& cat, const ClusterSpec& cluster,
                      const ResolveOptions& opt, std::vector<Unschedulable>* unschedulable);

// Per-format readers (one file each). They append to `w` via add_job().
void read_canonical(TableReader& t, Workload& w, const TraceOptions& opt = {});
void read_philly(TableReader& t, Workload& w);
void read_tiresias(TableReader& t, Workload& w);  // Tiresias and Muri CSV
void read_gavel(TableReader& t, Workload& w);
void read_synergy(TableReader& t, Workload& w);
void read_wang2020(TableReader& t, Workload& w);
// Pollux/Sia: a job's work comes from its application's measured curves (exec/perf_model.h pollux_iterations),
// filled in by load_workload; the reader sets 1 iteration until then.
void read_pollux(TableReader& t, Workload& w);

// Runs one row's parsing; with w.errors set, a bad row is recorded there instead of thrown.
template <class F>
void per_row(Workload& w, F&& f) {
  if (!w.errors) return f();
  try {
    f();
  } catch (const InputError& e) {
    w.errors->push_back(e.what());
  }
}

// Shared checks: num_gpus >= 1, submit >= 0, iterations/duration > 0 where given.
void add_job(Workload& w, JobSpec job, RawTimes raw, const std::string& qualifier, const TableReader& t);
// An elastic job's range (gpus_min <= num_gpus <= gpus_max, data-parallel only), or InputError naming the field.
void check_elastic(const JobSpec& j, const std::string& file, long line);

}  // namespace rm
