// Pollux's and Sia's workloads (shared/traces/pollux/workloads*, shared/traces/sia/workloads/*): a header
// `name,time,application,num_replicas,batch_size`; time in seconds, batch_size the job's global batch. The
// application names the measured profile (bert, cifar10, deepspeech2, imagenet, ncf, yolov3), looked up in the
// catalogue as `pollux:<application>`. The job's work (iterations) is its application's target progress, set by
// load_workload from the validation curves under --data-dir (docs/formats.md, docs/perf-model.md).
#include <cmath>

#include "core/error.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"
#include "workload/trace.h"

namespace rm {

void read_pollux(TableReader& t, Workload& w) {
  std::vector<std::string> row;
  if (!t.next(row)) throw InputError(t.file(), 0, "", "empty file");
  t.set_header(row);
  for (const char* need : {"name", "time", "application", "num_replicas", "batch_size"})
    if (!t.column(need)) throw InputError(t.file(), t.line(), need, "required column missing");
  while (t.next(row)) per_row(w, [&] {
    t.check_width(row);
    JobSpec j;
    j.name = trim(t.require(row, "name"));
    if (j.name.empty()) throw InputError(t.file(), t.line(), "name", "empty");
    j.submit = parse_submit(t.require(row, "time"), 1.0, 1.0, t.file(), t.line(), "time");
    j.model = trim(t.require(row, "application"));
    if (j.model.empty()) throw InputError(t.file(), t.line(), "application", "empty");
    j.num_gpus = parse_int32(t.require(row, "num_replicas"), t.file(), t.line(), "num_replicas");
    j.global_batch = parse_int32(t.require(row, "batch_size"), t.file(), t.line(), "batch_size");
    if (j.global_batch < 1) throw InputError(t.file(), t.line(), "batch_size", "must be >= 1");
    if (j.num_gpus >= 1) j.batch_size = static_cast<int>(std::ceil(static_cast<double>(j.global_batch) / j.num_gpus));
    j.iterations = 1;  // load_workload sets the work from the application's curves
    add_job(w, std::move(j), RawTimes{}, "pollux", t);
  });
}

}  // namespace rm
