#include "workload/trace.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "workload/limits.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"

namespace rm {

const std::vector<TraceFormat>& trace_formats() {
  static const std::vector<TraceFormat> f = {
      {"canonical", "ringmaster CSV: job_id,submit_s,num_gpus,model,iterations|duration_s[,...] (docs/formats.md)"},
      {"philly", "Philly job list: timestamp,duration,num_gpus,gpu_time,cluster (shared/traces/philly-jobs)"},
      {"tiresias", "Tiresias/Muri CSV: job_id,num_gpu,submit_time,iterations,model_name,duration,... (Muri: ms)"},
      {"gavel", "Gavel TSV, 7 or 10 columns, no header (shared/traces/philly-gavel-vc)"},
      {"synergy", "Synergy replay CSV, no header: job_id,model,arrival_s,iterations,gpus"},
      {"wang2020", "Wang et al. 2020 job sets: job_id,arrival_ms,model,num_gpus,iterations,fw_ms,bw_ms,..."},
      {"pollux", "Pollux/Sia workloads: name,time,application,num_replicas,batch_size (shared/traces/{pollux,sia}/workloads)"},
  };
  return f;
}

std::string detect_format(const std::string& first, const std::string& path) {
  auto has = [&](const char* s) { return first.find(s) != std::string::npos; };
  if (first.find('\t') != std::string::npos) return "gavel";
  if (has("timestamp") && has("duration") && has("num_gpus")) return "philly";
  if (has("num_gpu") && has("submit_time")) return "tiresias";
  if (has("arrival_ms") && has("fw_ms")) return "wang2020";
  if (has("submit_s") && has("num_gpus")) return "canonical";
  if (has("application") && has("num_replicas") && has("batch_size")) return "pollux";
  const auto f = split_simple(first, ',');
  if (f.size() == 5) return "synergy";
  throw InputError(path, 1, "", "cannot tell the trace format from its first line; map its columns with --columns (docs/formats.md, \"Any "
                                    "CSV\") or pass --format (" +
                                    [] {
                                      std::string s;
                                      for (const auto& f : trace_formats()) s += (s.empty() ? "" : "|") + f.name;
                                      return s;
                                    }() + ")");
}

namespace {

Workload read_with(TableReader& t, const std::string& format, std::vector<std::string>* errors,
                   const TraceOptions& opt) {
  Workload w;
  w.errors = errors;
  w.source = t.file();
  w.format = format;
  // One job per line at most: reserving that many keeps a large trace from being copied as the lists grow.
  const std::size_t rows = t.line_count();
  w.jobs.reserve(rows);
  w.raw.reserve(rows);
  w.model_qualifier.reserve(rows);
  if (opt.mapped() && format != "canonical")
    throw InputError("--columns", 0, format,
                     "--columns and --header read a CSV with the canonical reader: leave --format auto or canonical");
  if (format == "canonical") read_canonical(t, w, opt);
  else if (format == "philly") read_philly(t, w);
  else if (format == "tiresias" || format == "muri") read_tiresias(t, w);
  else if (format == "gavel") read_gavel(t, w);
  else if (format == "synergy") read_synergy(t, w);
  else if (format == "wang2020") read_wang2020(t, w);
  else if (format == "pollux") read_pollux(t, w);
  else throw InputError("--format: unknown trace format '" + format + "'");
  if (w.jobs.empty() && !(errors && !errors->empty())) throw InputError(t.file(), t.line(), "", "the trace has no jobs");
  w.line_of_name = decltype(w.line_of_name)();  // only for reading (`= {}` would keep its buckets)
  return w;
}

char sep_for(const std::string& format) { return format == "gavel" ? '\t' : ','; }

}  // namespace

Workload read_trace(const std::string& path, const std::string& format, std::vector<std::string>* errors,
                    const TraceOptions& opt) {
  const std::string text = TableReader::load(path);
  return read_trace_text(text, path, format, errors, opt);
}

Workload read_trace_text(const std::string& text, const std::string& name, const std::string& format,
                         std::vector<std::string>* errors, const TraceOptions& opt) {
  if (trim(text).empty()) throw InputError(name, 0, "", "empty file");
  // A mapped CSV is the canonical reader's, whatever its header looks like.
  const std::string fmt = format == "auto" ? (opt.mapped() || opt.time_unit_s != 1
                                                  ? std::string("canonical")
                                                  : detect_format(TableReader::first_line_of(text), name))
                                           : format;
  TableReader t(name, sep_for(fmt), &text);
  return read_with(t, fmt, errors, opt);
}

void check_elastic(const JobSpec& j, const std::string& file, long line) {
  if (j.gpus_min < 1) throw InputError(file, line, "gpus_min", "must be >= 1, got " + std::to_string(j.gpus_min));
  if (j.gpus_min > j.num_gpus)
    throw InputError(file, line, "gpus_min",
                     fmt::format("{} is more than num_gpus {} (an elastic job asks for num_gpus, within [gpus_min, "
                                 "gpus_max])", j.gpus_min, j.num_gpus));
  if (j.gpus_max < j.num_gpus)
    throw InputError(file, line, "gpus_max", fmt::format("{} is less than num_gpus {}", j.gpus_max, j.num_gpus));
  if (j.gpus_max > limits::kMaxGpusPerJob)
    throw InputError(file, line, "gpus_max", fmt::format("{} is out of range (at most {})", j.gpus_max,
                                                         limits::kMaxGpusPerJob));
  if (j.pp > 1 || j.tp > 1 || j.dp > 0)
    throw InputError(file, line, j.dp > 0 ? "dp" : j.pp > 1 ? "pp" : "tp",
                     "an elastic job is data-parallel (no dp, pp or tp): its width is its count of replicas");
}

void add_job(Workload& w, JobSpec job, RawTimes raw, const std::string& qualifier, const TableReader& t) {
  job.file = t.file();
  job.line = t.line();
  // The valid ranges of workload/limits.h (docs/formats.md).
  if (job.num_gpus < 1)
    throw InputError(t.file(), t.line(), "num_gpus", "must be >= 1, got " + std::to_string(job.num_gpus));
  if (job.num_gpus > limits::kMaxGpusPerJob)
    throw InputError(t.file(), t.line(), "num_gpus", fmt::format("{} is out of range (at most {})", job.num_gpus,
                                                                 limits::kMaxGpusPerJob));
  if (job.submit < 0) throw InputError(t.file(), t.line(), "submit", "negative submit time");
  if (job.submit > from_seconds(limits::kMaxSubmitS))
    throw InputError(t.file(), t.line(), "submit",
                     fmt::format("{:g} s is out of range (at most {:g} s, 317 years)", to_seconds(job.submit),
                                 limits::kMaxSubmitS));
  if (!(job.iterations >= 0) || (job.iterations == 0 && !(job.duration_s > 0)))
    throw InputError(t.file(), t.line(), "iterations", "need iterations > 0 or a duration > 0");
  if (job.iterations > limits::kMaxIterations)
    throw InputError(t.file(), t.line(), "iterations",
                     fmt::format("{:g} is out of range (at most {:g})", job.iterations, limits::kMaxIterations));
  if (job.duration_s < 0) throw InputError(t.file(), t.line(), "duration", "negative duration");
  if (job.duration_s > limits::kMaxDurationS)
    throw InputError(t.file(), t.line(), "duration",
                     fmt::format("{:g} s is out of range (at most {:g} s)", job.duration_s, limits::kMaxDurationS));
  if (job.batch_size < 0) throw InputError(t.file(), t.line(), "batch_size", "negative batch size");
  for (const auto& [v, name] : {std::pair{raw.iter_time_s, "iteration_time"}, {raw.compute_s, "compute"},
                                {raw.forward_s, "forward"}})
    if (!(v >= 0 && v <= limits::kMaxPerIterationS))
      throw InputError(t.file(), t.line(), name, fmt::format("{:g} s per iteration is out of range [0, {:g}]", v,
                                                             limits::kMaxPerIterationS));
  for (const auto& [v, name] : {std::pair{raw.grad_mb, "grad_mb"}, {raw.gpu_mem_mb, "gpu_mem_mb"}})
    if (!(v == -1 || (v >= 0 && v <= limits::kMaxMegabytes)))
      throw InputError(t.file(), t.line(), name, fmt::format("{:g} MB is out of range [0, {:g}]", v, limits::kMaxMegabytes));
  if (!job.name.empty()) {
    const auto [it, fresh] = w.line_of_name.emplace(job.name, t.line());
    if (!fresh)
      throw InputError(t.file(), t.line(), "job_id",
                       "duplicate job id '" + job.name + "' (first at line " + std::to_string(it->second) + ")");
  }
  job.id = static_cast<JobId>(w.jobs.size());
  if (job.name.empty()) job.name = std::to_string(job.id);
  w.jobs.push_back(std::move(job));
  w.raw.push_back(raw);
  w.model_qualifier.push_back(qualifier);
}

}  // namespace rm
