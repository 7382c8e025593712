#include "metrics/metrics.h"

#include "core/py_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "workload/parse_util.h"

namespace rm {

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return quantile_sorted(v, q);
}

double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const double pos = q * (v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

namespace {

// The jobs the performance model gives an ideal for: GPU-seconds held and needed at their ideal, the excess of
// elastic jobs that held more GPUs than they asked for, of those spread over more servers than they need (with
// `max_server_gpus` GPUs a server; 0: not split) and of the others, and each one's stretch, ascending.
struct StretchTally {
  double held = 0, ideal = 0, wider = 0, spread = 0, other = 0;
  std::vector<double> stretch;
};

StretchTally tally(const RunRecord& r, int max_server_gpus) {
  StretchTally t;
  for (const auto& j : r.jobs) {
    if (j.ideal_us == kNever || j.ideal_us <= 0) continue;
    t.stretch.push_back(static_cast<double>(j.run_us) / static_cast<double>(j.ideal_us));
    const double g = j.spec->num_gpus, h = j.held_gpu_s(), i = to_seconds(j.ideal_us) * g;
    t.held += h;
    t.ideal += i;
    const int need = max_server_gpus > 0 ? (j.spec->num_gpus + max_server_gpus - 1) / max_server_gpus : 1;
    (j.gpus_max > j.spec->num_gpus ? t.wider : j.servers > need ? t.spread : t.other) += h - i;
  }
  std::sort(t.stretch.begin(), t.stretch.end());
  return t;
}

// gpu_time_inflation (GPU-seconds held over GPU-seconds needed at the ideal) and the stretch quantiles; no keys
// when no job has an ideal.
void add_stretch(const RunRecord& e, Summary& s) {
  const StretchTally t = tally(e, 0);
  if (t.stretch.empty()) return;
  s.extra.push_back({"gpu_time_inflation", t.held / t.ideal});
  s.extra.push_back({"stretch_p50", quantile_sorted(t.stretch, 0.5)});
  s.extra.push_back({"stretch_p99", quantile_sorted(t.stretch, 0.99)});
}

}  // namespace

std::string stretch_warning(const RunRecord& r, int max_server_gpus, const std::string& placement) {
  const StretchTally t = tally(r, max_server_gpus);
  if (!(t.ideal > 0) || t.held / t.ideal <= 1.5) return "";
  std::string cause;
  const bool packs_free = placement == "spread-ok" || placement.starts_with("consolidated");
  if (t.wider > t.spread && t.wider > t.other)
    cause = "mostly because elastic jobs ran on more GPUs than they asked for (a policy's choice: a shorter run for "
            "more GPU-time where the speed-up is sublinear)";
  else if (t.spread < t.other)
    cause = "mostly from contention between jobs sharing servers' NICs under --perf-model analytic; --perf-model "
            "trace runs every job at its trace duration";
  else if (!packs_free)
    cause = "mostly because placements spread jobs over more servers than they need (" + placement +
            "); the default placement consolidated (the default when --policy names none) keeps each job's shape: "
            "it waits for one server, or for the fewest servers an idle cluster gives it";
  else
    cause = "mostly because jobs started on free GPUs scattered over more servers than they need (" + placement +
            " takes the fewest servers free now); consolidated without relax= keeps each job's shape (it waits for "
            "them), and --perf-model measured:<source> charges measured penalties instead of the analytic law "
            "(docs/perf-model.md)";
  return fmt::format("warning: jobs held {:.2f}x the GPU-time they need at their best placement (gpu_time_inflation), ",
                     t.held / t.ideal) +
         cause;
}

std::vector<double> ftf_rho(const RunRecord& e) {
  std::vector<double> rho(e.jobs.size(), std::numeric_limits<double>::quiet_NaN());
  if (e.total_gpus <= 0 || !e.exact_s.empty()) return rho;
  std::vector<Time> submits, finishes;
  for (const auto& j : e.jobs) {
    submits.push_back(j.spec->submit);
    if (j.finish != kNever) finishes.push_back(j.finish);
  }
  std::sort(submits.begin(), submits.end());
  std::sort(finishes.begin(), finishes.end());
  for (std::size_t i = 0; i < e.jobs.size(); ++i) {
    const auto& j = e.jobs[i];
    if (j.finish == kNever || j.ideal_us == kNever || j.ideal_us <= 0) continue;
    const Time t = j.spec->submit;
    // In the system at its arrival: arrived by then (itself included), not yet finished.
    const double n = static_cast<double>(std::upper_bound(submits.begin(), submits.end(), t) - submits.begin()) -
                     static_cast<double>(std::upper_bound(finishes.begin(), finishes.end(), t) - finishes.begin());
    const double share = to_seconds(j.ideal_us) * std::max(1.0, std::max(1.0, n) * j.spec->num_gpus / e.total_gpus);
    rho[i] = to_seconds(j.finish - t) / share;
  }
  return rho;
}

namespace {
// Fairness and queueing (issue 29; docs/formats.md): finish-time fairness rho (mean, max), queueing delay quantiles,
// and Jain's index of the users' GPU-time shares (where jobs name at least two users).
void add_fairness(const RunRecord& e, Summary& s) {
  s.ftf_rho = ftf_rho(e);  // kept for jobs.csv, users.csv and vcs.csv
  const std::vector<double>& rho = s.ftf_rho;
  double sum = 0, mx = 0;
  long n = 0;
  for (double r : rho)
    if (!std::isnan(r)) sum += r, mx = std::max(mx, r), ++n;
  if (n > 0) {
    s.extra.push_back({"ftf_rho_mean", sum / n});
    s.extra.push_back({"ftf_rho_max", mx});
  }
  std::vector<double> queue;
  std::map<std::string, double> gpu_s;
  for (std::size_t i = 0; i < e.jobs.size(); ++i) {
    const auto& j = e.jobs[i];
    if (j.finish == kNever) continue;
    queue.push_back(e.exact_s.empty() ? to_seconds(j.finish - j.spec->submit - j.run_us)
                                      : e.exact_s[i].finish - e.exact_s[i].submit - e.exact_s[i].run);
    if (!j.spec->user.empty()) gpu_s[j.spec->user] += j.held_gpu_s();
  }
  if (!queue.empty()) {
    std::sort(queue.begin(), queue.end());
    s.extra.push_back({"queue_p50_s", quantile_sorted(queue, 0.5)});
    s.extra.push_back({"queue_p99_s", quantile_sorted(queue, 0.99)});
    s.extra.push_back({"queue_p999_s", quantile_sorted(queue, 0.999)});
  }
  if (gpu_s.size() >= 2) {
    double a = 0, b = 0;
    for (const auto& [u, x] : gpu_s) a += x, b += x * x;
    s.extra.push_back({"users", static_cast<double>(gpu_s.size())});
    s.extra.push_back({"jain_user_gpu_share", b > 0 ? a * a / (static_cast<double>(gpu_s.size()) * b) : 1.0});
  }
}

// Jobs with a deadline (the trace's deadline_s, absolute on its submit clock): how many met it (finished by it),
// and how late the others were (lateness = max(0, finish - deadline), averaged over every job with a deadline).
void add_deadlines(const RunRecord& e, Summary& s) {
  long with = 0, met = 0;
  double late = 0, max_late = 0;
  for (const auto& j : e.jobs) {
    if (j.spec->deadline_s < 0 || j.finish == kNever) continue;
    ++with;
    const double l = std::max(0.0, to_seconds(j.finish) - j.spec->deadline_s);
    if (l <= 1e-9) ++met;
    late += l;
    max_late = std::max(max_late, l);
  }
  if (with == 0) return;
  s.extra.push_back({"deadline_jobs", static_cast<double>(with)});
  s.extra.push_back({"deadline_met_ratio", static_cast<double>(met) / with});
  s.extra.push_back({"avg_lateness_s", late / with});
  s.extra.push_back({"max_lateness_s", max_late});
}
}  // namespace

Summary summarize(const RunRecord& e, std::size_t unschedulable) {
  Summary s;
  std::vector<double> jct;
  double queue = 0;
  Time first_submit = kNever, last_finish = 0;
  double exact_first = std::numeric_limits<double>::infinity(), exact_last = 0;
  for (std::size_t i = 0; i < e.jobs.size(); ++i) {
    const auto& j = e.jobs[i];
    if (j.finish == kNever) continue;  // unfinished (a peer's run that stopped early): no JCT
    if (!e.exact_s.empty()) {  // a float-seconds peer: its own doubles
      const ExactTimes& x = e.exact_s[i];
      jct.push_back(x.finish - x.submit);
      queue += x.finish - x.submit - x.run;
      exact_first = std::min(exact_first, x.submit);
      exact_last = std::max(exact_last, x.finish);
    } else {
      jct.push_back(to_seconds(j.finish - j.spec->submit));
      queue += to_seconds(j.finish - j.spec->submit - j.run_us);
    }
    first_submit = std::min(first_submit, j.spec->submit);
    last_finish = std::max(last_finish, j.finish);
  }
  s.jobs = static_cast<std::int64_t>(jct.size());
  s.unschedulable = static_cast<std::int64_t>(unschedulable);
  if (!jct.empty()) {
    double sum = 0;
    for (double x : jct) sum += x;
    // A float-seconds peer prints numpy's mean over its jobs in id order (Gavel's get_average_jct): the same sum.
    if (!e.exact_s.empty()) sum = numpy_pairwise_sum(jct.data(), static_cast<long>(jct.size()));
    s.avg_jct_s = sum / jct.size();
    std::sort(jct.begin(), jct.end());
    s.p50_jct_s = quantile_sorted(jct, 0.50);
    s.p95_jct_s = quantile_sorted(jct, 0.95);
    s.p99_jct_s = quantile_sorted(jct, 0.99);
    s.max_jct_s = jct.back();
    s.avg_queue_s = queue / jct.size();
    s.makespan_s = e.exact_s.empty() ? to_seconds(last_finish - first_submit) : exact_last - exact_first;
    const double capacity = static_cast<double>(e.total_gpus) * to_seconds(last_finish - first_submit);
    s.gpu_util = capacity > 0 ? static_cast<double>(e.busy_gpu_us) / 1e6 / capacity : 0;
  }
  s.preemptions = e.preemptions;
  s.events = e.events;
  s.extra = e.extra;
  add_stretch(e, s);
  add_deadlines(e, s);
  add_fairness(e, s);
  s.timing = e.timing;
  if (!e.decision_us.empty()) {
    std::vector<double> d(e.decision_us.begin(), e.decision_us.end());
    std::vector<double> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    s.timing.insert(s.timing.begin(), {{"decisions", static_cast<double>(d.size())},
                                       {"decision_p50_us", quantile_sorted(sorted, 0.5)},
                                       {"decision_p99_us", quantile_sorted(sorted, 0.99)},
                                       {"decision_max_us", sorted.back()}});
    sorted = std::vector<double>();  // freed (`= {}` keeps the capacity)
    // How a pass's cost grows with the queue: the p99 of the passes with at least 1k, 10k, 100k jobs waiting.
    std::vector<std::pair<std::string, double>> by_queue;
    if (e.decision_waiting.size() == d.size())
      for (const auto& [at_least, key] : {std::pair{1000, "decision_p99_us_1k_waiting"},
                                          {10000, "decision_p99_us_10k_waiting"},
                                          {100000, "decision_p99_us_100k_waiting"}}) {
        std::vector<double> some;
        for (std::size_t i = 0; i < d.size(); ++i)
          if (e.decision_waiting[i] >= at_least) some.push_back(d[i]);
        if (!some.empty()) by_queue.emplace_back(key, quantile(some, 0.99));
      }
    s.timing.insert(s.timing.begin() + 4, by_queue.begin(), by_queue.end());
  }
  return s;
}

namespace {

std::ofstream open_out(const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw InputError(path, 0, "", "cannot write");
  return f;
}

// The jobs' ftf_rho: the one summarize() kept where it is given and fits, else computed into `own`.
const std::vector<double>& rho_or_own(const RunRecord& e, const std::vector<double>* given, std::vector<double>& own) {
  if (given && given->size() == e.jobs.size()) return *given;
  own = ftf_rho(e);
  return own;
}

// The CSV writers append to one buffer per file, allocating nothing per field (issue 47: a temporary std::string per
// field was 18 % of writing jobs.csv), and hand it to the stream a megabyte at a time.
// An output file's bytes before they go to the stream: fmt's memory buffer (its appender writes in place; a
// back_inserter into std::string went through a 256-byte bounce buffer).
struct OutBuf {
  fmt::memory_buffer m;
  OutBuf& operator+=(char c) {
    m.push_back(c);
    return *this;
  }
  OutBuf& operator+=(std::string_view s) {
    m.append(s.data(), s.data() + s.size());
    return *this;
  }
  std::size_t size() const { return m.size(); }
  void write_to(std::ostream& f) {
    f.write(m.data(), static_cast<std::streamsize>(m.size()));
    m.clear();
  }
};

// fmt::format_to onto the buffer's end (the format checked at compile time, as fmt's own).
template <typename... T>
void put(OutBuf& b, fmt::format_string<T...> fs, T&&... a) {
  fmt::format_to(fmt::appender(b.m), fs, std::forward<T>(a)...);
}

// A time as fmt's "{:.6f}" of its seconds prints it (nothing for kNever): from the integer microseconds where the
// double's rounding cannot differ (|t| < 1e15 us: its error stays under half a microsecond), else by fmt.
void put_secs(OutBuf& b, Time t) {
  if (t == kNever) return;
  if (t > -1000000000000000LL && t < 1000000000000000LL) {
    const std::uint64_t a = t < 0 ? static_cast<std::uint64_t>(-t) : static_cast<std::uint64_t>(t);
    char buf[32];  // "-", whole seconds, ".", six digits: written by hand (fmt parses its format at every call)
    char* p = buf;
    if (t < 0) *p++ = '-';
    p = std::to_chars(p, buf + sizeof buf, a / 1000000).ptr;
    *p++ = '.';
    for (std::uint64_t f = a % 1000000, d = 100000; d > 0; d /= 10) *p++ = static_cast<char>('0' + (f / d) % 10);
    b += std::string_view(buf, static_cast<std::size_t>(p - buf));
  } else {
    put(b, "{:.6f}", to_seconds(t));
  }
}

// An integer, and a double as fmt's "{:.6f}" and "{:.6g}" print it, by std::to_chars: the same bytes (checked on 6M
// doubles, exact ties, huge and tiny values, NaN and infinities included), without parsing a format at every field.
void put_int(OutBuf& b, long long v) {
  char buf[24];
  b += std::string_view(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
}
void put_double(OutBuf& b, double v, std::chars_format form) {
  char buf[400];  // fixed, 6 decimals, of the largest double: 309 digits
  b += std::string_view(buf, static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v, form, 6).ptr - buf));
}
void put_f6(OutBuf& b, double v) { put_double(b, v, std::chars_format::fixed); }
void put_g6(OutBuf& b, double v) { put_double(b, v, std::chars_format::general); }
// ",a,b,...": integer columns after the row's last one.
template <typename... I>
void put_ints(OutBuf& b, I... v) {
  ((b += ',', put_int(b, v)), ...);
}

// csv_field(s) appended: quoted (with doubled quotes) only when it holds a comma, quote or newline.
void put_field(OutBuf& b, const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) {
    b += s;
    return;
  }
  b += '"';
  for (char c : s) {
    if (c == '"') b += '"';
    b += c;
  }
  b += '"';
}

// A jobs.csv row's first columns (job_id,submit_s,num_gpus,model,iterations) of a job with microsecond times.
void put_spec(OutBuf& b, const JobSpec& sp) {
  put_field(b, sp.name);
  b += ',';
  put_secs(b, sp.submit);
  put_ints(b, sp.num_gpus);
  b += ',';
  put_field(b, sp.model);
  b += ',';
  put_g6(b, sp.iterations);
}

// A finished job's columns from first_start_s to preempt_overhead_s, each after a comma.
void put_run(OutBuf& b, const JobRecord& j, const char* status, const std::string* gpu_type, double rho) {
  const JobSpec& sp = *j.spec;
  for (const Time t : {j.first_start, j.finish, j.finish - sp.submit, j.finish - sp.submit - j.run_us, j.run_us}) {
    b += ',';
    put_secs(b, t);
  }
  put_ints(b, j.preemptions);
  b += ',';
  b += status;
  b += ',';
  if (j.ideal_us != kNever && j.ideal_us > 0) {
    put_secs(b, j.ideal_us);
    b += ',';
    put_f6(b, static_cast<double>(j.run_us) / static_cast<double>(j.ideal_us));
  } else {
    b += ',';
  }
  b += ',';
  if (j.servers > 0) put_int(b, j.servers);
  b += ',';
  if (gpu_type) put_field(b, *gpu_type);
  b += ',';
  if (!std::isnan(rho)) put_f6(b, rho);
  b += ',';
  put_secs(b, j.overhead_us);
}

// The buffer to the stream once it holds this much (a whole trace's jobs.csv is tens of MB).
constexpr std::size_t kFlushBytes = 1 << 20;

}  // namespace

void write_jobs_csv(std::ostream& f, const RunRecord& e, const std::vector<Unschedulable>& unsched,
                    const std::vector<double>* given_rho) {
  // Traces with deadlines get two more columns: the deadline and the job's lateness (max(0, finish - deadline)).
  bool deadlines = false;
  for (const auto& j : e.jobs) deadlines = deadlines || j.spec->deadline_s >= 0;
  for (const auto& u : unsched) deadlines = deadlines || u.job.deadline_s >= 0;
  bool states = !e.manager_states.empty();
  for (const auto& u : unsched) states = states || !u.manager_state.empty();
  OutBuf b;
  b.m.reserve(kFlushBytes + 4096);
  // gpus_min, gpus_max, gpu_seconds, reallocations (issue 43), last: the columns are only ever appended to.
  // (Times as the row's other times: microseconds to 6 decimals, a float-seconds peer's at full precision.)
  const auto elastic = [&](const JobRecord& j, double run_s, bool exact) {
    const int n = j.spec->num_gpus;
    const double gpu_s = j.gpu_seconds >= 0 ? j.gpu_seconds : n * run_s;
    const int lo = j.gpus_min > 0 ? j.gpus_min : n, hi = j.gpus_max > 0 ? j.gpus_max : n;
    const int moves = j.reallocations >= 0 ? j.reallocations : j.preemptions;
    if (exact) {
      put(b, ",{},{},{},{}", lo, hi, gpu_s, moves);
      return;
    }
    put_ints(b, lo, hi);
    b += ',';
    put_f6(b, gpu_s);
    put_ints(b, moves);
  };
  // The row's end: deadline and lateness, the live state, then the elastic columns (empty without a job record).
  const auto tail = [&](const JobSpec& sp, Time finish, const std::string* state, const JobRecord* j, double run_s,
                        bool exact) {
    if (deadlines) {
      if (sp.deadline_s < 0) b += ",,";
      else {
        b += ',';
        put_f6(b, sp.deadline_s);
        b += ',';
        if (finish != kNever) put_f6(b, std::max(0.0, to_seconds(finish) - sp.deadline_s));
      }
    }
    if (states) {
      b += ',';
      if (state) put_field(b, *state);
    }
    if (j) elastic(*j, run_s, exact);
    else b += ",,,,";
    b += '\n';
  };
  // A live run's job that ended in any state but COMPLETED failed.
  const auto status = [&](std::size_t i) -> const char* {
    return i < e.manager_states.size() && !e.manager_states[i].empty() && e.manager_states[i] != "COMPLETED" ? "failed"
                                                                                                  : "finished";
  };
  const auto state_of = [&](std::size_t i) -> const std::string* {
    return i < e.manager_states.size() ? &e.manager_states[i] : nullptr;
  };
  const auto flush = [&](bool always) {
    if (always || b.size() >= kFlushBytes) b.write_to(f);
  };
  std::vector<double> own;
  const std::vector<double>& rho = rho_or_own(e, given_rho, own);
  b += "job_id,submit_s,num_gpus,model,iterations,first_start_s,finish_s,jct_s,queue_s,run_s,preemptions,status,"
       "ideal_s,stretch,servers,gpu_type,ftf_rho,preempt_overhead_s";
  if (deadlines) b += ",deadline_s,lateness_s";
  if (states) b += ",slurm_state";
  b += ",gpus_min,gpus_max,gpu_seconds,reallocations\n";
  for (std::size_t i = 0; i < e.jobs.size(); ++i) {
    const auto& j = e.jobs[i];
    const auto& sp = *j.spec;
    if (!e.exact_s.empty() && j.finish != kNever) {  // a float-seconds peer (--compat gavel): full precision
      put_field(b, sp.name);
      b += ',';
      const ExactTimes& x = e.exact_s[i];
      const double jct = x.finish - x.submit;
      put(b, "{},{},", x.submit, sp.num_gpus);
      put_field(b, sp.model);
      put(b, ",{:.6g},{},{},{},{},{},{},{},,,,", sp.iterations, x.first_start, x.finish, jct, jct - x.run, x.run,
          j.preemptions, status(i));
      if (j.gpu_type >= 0) put_field(b, e.gpu_types.at(static_cast<std::size_t>(j.gpu_type)));
      b += ",,";
      tail(sp, j.finish, state_of(i), &j, x.run, true);
    } else if (j.finish == kNever) {  // a peer's run that stopped before this job ended: no times
      put_spec(b, sp);
      b += ",,,,,";
      put_ints(b, j.preemptions);
      b += ",unfinished,,,,,,";
      tail(sp, kNever, state_of(i), nullptr, 0, false);
    } else {
      put_spec(b, sp);
      put_run(b, j, status(i), j.gpu_type >= 0 ? &e.gpu_types.at(static_cast<std::size_t>(j.gpu_type)) : nullptr,
              rho[i]);
      tail(sp, j.finish, state_of(i), &j, to_seconds(j.run_us), false);
    }
    flush(false);
  }
  for (const auto& u : unsched) {
    put_spec(b, u.job);
    b += ",,,,,,0,unschedulable,,,,,,";
    tail(u.job, kNever, &u.manager_state, nullptr, 0, false);
    flush(false);
  }
  flush(true);
}

void write_gpus_csv(std::ostream& f, const RunRecord& e) {
  OutBuf b;
  b += "job_id,start_s,end_s,server,gpu\n";
  for (const auto& s : e.stretches)
    for (const auto& [srv, g] : s.gpus) {
      put_field(b, e.jobs.at(s.job).spec->name);
      b += ',';
      put_secs(b, s.start);
      b += ',';
      put_secs(b, s.end);
      put_ints(b, srv, g);
      b += '\n';
      if (b.size() >= kFlushBytes) b.write_to(f);
    }
  b.write_to(f);
}

bool write_elastic_csv(std::ostream& f, const RunRecord& e) {
  OutBuf b;
  bool any = false;
  for (const auto& s : e.stretches) {
    const JobRecord& j = e.jobs.at(s.job);
    if (!j.spec->elastic()) continue;
    if (!any) b += "job_id,start_s,end_s,gpus\n";
    any = true;
    put_field(b, j.spec->name);
    b += ',';
    put_secs(b, s.start);
    b += ',';
    put_secs(b, s.end);
    put(b, ",{}\n", s.held);
    if (b.size() >= kFlushBytes) b.write_to(f);
  }
  b.write_to(f);
  return any;
}

void write_timeseries_csv(std::ostream& f, const RunRecord& e) {
  OutBuf b;
  b.m.reserve(kFlushBytes + 256);
  b += "time_s,queued,running,busy_gpus,gpu_util\n";
  const double total = e.total_gpus;
  for (const auto& r : e.series) {
    put_secs(b, r.t);
    put_ints(b, r.queued, r.running, r.busy_gpus);
    b += ',';
    put_f6(b, r.busy_gpus / total);
    b += '\n';
    if (b.size() >= kFlushBytes) b.write_to(f);
  }
  b.write_to(f);
}

std::string summary_json(const Summary& s, const RunInfo& info) {
  nlohmann::ordered_json j;
  j["policy"] = info.policy;
  if (!info.policy_label.empty()) j["policy_label"] = info.policy_label;
  j["scheduler"] = info.scheduler;
  j["cluster"] = info.cluster;
  j["trace"] = info.trace;
  j["exec"] = info.exec;
  if (!info.perf_model.empty()) j["perf_model"] = info.perf_model;
  if (!info.preempt_cost_model.empty()) j["preempt_cost_model"] = info.preempt_cost_model;
  if (info.columns_mapped) j["ignored_columns"] = info.ignored_columns;
  if (!info.model_mapping.empty()) {
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto& [from, to] : info.model_mapping) m[from] = to;
    j["model_mapping"] = m;
  }
  j["seed"] = info.seed;
  j["jobs"] = s.jobs;
  j["unschedulable"] = s.unschedulable;
  j["avg_jct_s"] = s.avg_jct_s;
  j["p50_jct_s"] = s.p50_jct_s;
  j["p95_jct_s"] = s.p95_jct_s;
  j["p99_jct_s"] = s.p99_jct_s;
  j["max_jct_s"] = s.max_jct_s;
  j["makespan_s"] = s.makespan_s;
  j["avg_queue_s"] = s.avg_queue_s;
  j["gpu_util"] = s.gpu_util;
  j["preemptions"] = s.preemptions;
  j["events"] = s.events;
  for (const auto& [k, v] : s.extra) j[k] = v;
  j["wall_s"] = info.wall_s;  // wall_s, engine_s, events_per_s and timing are the only fields that differ between
                              // identical runs
  if (info.engine_s >= 0) {
    j["engine_s"] = info.engine_s;
    j["events_per_s"] = info.engine_s > 0 ? static_cast<double>(s.events) / info.engine_s : 0.0;
  }
  if (!s.timing.empty()) {
    nlohmann::ordered_json t;
    for (const auto& [k, v] : s.timing) t[k] = v;
    j["timing"] = t;
  }
  return j.dump(2) + "\n";
}

bool write_group_csv(std::ostream& f, const RunRecord& e, bool by_vc, const std::vector<double>* given_rho) {
  struct Acc {
    std::vector<double> jct;
    double gpu_s = 0, queue = 0, rho = 0;
    long rho_n = 0, deadlines = 0, met = 0;
  };
  std::map<std::string, Acc> by;
  std::vector<double> own;
  const std::vector<double>& rho = rho_or_own(e, given_rho, own);
  double total = 0;
  for (std::size_t i = 0; i < e.jobs.size(); ++i) {
    const auto& j = e.jobs[i];
    const std::string& key = by_vc ? j.spec->vc : j.spec->user;
    if (j.finish == kNever || key.empty()) continue;
    Acc& a = by[key];
    a.jct.push_back(to_seconds(j.finish - j.spec->submit));
    a.queue += to_seconds(j.finish - j.spec->submit - j.run_us);
    const double g = j.held_gpu_s();
    a.gpu_s += g;
    total += g;
    if (!std::isnan(rho[i])) a.rho += rho[i], ++a.rho_n;
    if (j.spec->deadline_s >= 0) ++a.deadlines, a.met += to_seconds(j.finish) <= j.spec->deadline_s + 1e-9;
  }
  if (by.empty()) return false;
  f << (by_vc ? "vc" : "user") << ",jobs,gpu_s,gpu_share,avg_jct_s,p99_jct_s,avg_queue_s,ftf_rho_mean,deadline_met_ratio\n";
  for (auto& [u, a] : by) {
    double sum = 0;
    for (double x : a.jct) sum += x;
    std::sort(a.jct.begin(), a.jct.end());
    const double n = static_cast<double>(a.jct.size());
    f << fmt::format("{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{}\n", csv_field(u), a.jct.size(), a.gpu_s,
                     total > 0 ? a.gpu_s / total : 0.0, sum / n, quantile_sorted(a.jct, 0.99), a.queue / n,
                     a.rho_n ? fmt::format("{:.6f}", a.rho / a.rho_n) : "",
                     a.deadlines ? fmt::format("{:.6f}", static_cast<double>(a.met) / a.deadlines) : "");
  }
  return true;
}

void write_outputs(const std::string& dir, const RunRecord& e, const std::vector<Unschedulable>& unsched,
                   const Summary& s, const RunInfo& info) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir, 0, "--out", "cannot create directory: " + ec.message());
  {
    auto f = open_out(dir + "/jobs.csv");
    write_jobs_csv(f, e, unsched, &s.ftf_rho);
  }
  if (!e.stretches.empty()) {  // small runs: every stretch a job held GPUs, one row per GPU (plot's Gantt chart)
    auto f = open_out(dir + "/gpus.csv");
    write_gpus_csv(f, e);
  } else {
    std::filesystem::remove(dir + "/gpus.csv", ec);  // an earlier run's: the folder holds one run's files
  }
  {  // elastic runs: every stretch an elastic job held a number of GPUs (plot's elastic_gpus)
    std::ostringstream rows;
    if (write_elastic_csv(rows, e)) {
      auto f = open_out(dir + "/elastic.csv");
      f << rows.str();
    } else {
      std::filesystem::remove(dir + "/elastic.csv", ec);
    }
  }
  {
    auto f = open_out(dir + "/timeseries.csv");
    write_timeseries_csv(f, e);
  }
  for (const bool vc : {false, true}) {  // per user and per VC where the trace names them
    const std::string path = dir + (vc ? "/vcs.csv" : "/users.csv");
    std::ostringstream rows;
    if (write_group_csv(rows, e, vc, &s.ftf_rho)) {
      auto f = open_out(path);
      f << rows.str();
    } else {
      std::filesystem::remove(path, ec);
    }
  }
  for (const auto& [name, text] : e.files) {
    auto g = open_out(dir + "/" + name);
    g << text;
  }
  auto f = open_out(dir + "/summary.json");
  f << summary_json(s, info);
}

}  // namespace rm
