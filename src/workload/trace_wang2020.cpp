// Job sets of Wang et al. 2020 (shared/goldens/p1-ada-srsf): job_id,arrival_ms,model,num_gpus,
// iterations,fw_ms,bw_ms,model_size_mb,gpu_mem_mb,batch_size. Every per-iteration figure is per job.
#include "core/error.h"
#include "workload/parse_util.h"
#include "workload/table_reader.h"
#include "workload/trace.h"

namespace rm {

void read_wang2020(TableReader& t, Workload& w) {
  std::vector<std::string> row;
  if (!t.next(row)) throw InputError(t.file(), 0, "", "empty file");
  t.set_header(row);
  auto num = [&](const char* col) { return parse_double(t.require(row, col), t.file(), t.line(), col); };
  while (t.next(row)) per_row(w, [&] {
    t.check_width(row);
    JobSpec j;
    RawTimes raw;
    j.name = t.require(row, "job_id");
    j.submit = parse_submit(t.require(row, "arrival_ms"), 1.0, 1000.0, t.file(), t.line(), "arrival_ms");
    j.model = t.require(row, "model");
    j.num_gpus = parse_int32(t.require(row, "num_gpus"), t.file(), t.line(), "num_gpus");
    j.iterations = num("iterations");
    const double fw = num("fw_ms"), bw = num("bw_ms");
    if (fw < 0) throw InputError(t.file(), t.line(), "fw_ms", "must be >= 0");
    if (bw < 0) throw InputError(t.file(), t.line(), "bw_ms", "must be >= 0");
    raw.compute_s = (fw + bw) / 1000.0;
    raw.forward_s = fw / 1000.0;
    raw.grad_mb = num("model_size_mb");
    raw.gpu_mem_mb = num("gpu_mem_mb");
    j.batch_size = to_int32(num("batch_size"), t.file(), t.line(), "batch_size");
    if (raw.compute_s <= 0) throw InputError(t.file(), t.line(), "fw_ms", "fw_ms + bw_ms must be > 0");
    add_job(w, std::move(j), raw, "", t);
  });
}

}  // namespace rm
