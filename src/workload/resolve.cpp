// resolve_workload: catalogue lookup, model-assignment rule, iterations from durations, feasibility.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cctype>
#include <limits>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "cluster/gpu_types.h"
#include "core/error.h"
#include "core/suggest.h"
#include "workload/limits.h"
#include "core/embedded_data.h"
#include "core/rng.h"
#include "workload/parse_util.h"
#include "workload/trace.h"

namespace rm {
namespace {

// Jobs without a model (the Philly list) get one of P1's four models (spec A.3.1), chosen by a hash
// of (seed, job index): stable under reordering and independent of other jobs.
const char* const kDefaultMix[] = {"resnet50", "vgg16", "inception3", "lstm"};

// data/parallel_models.csv: layer shapes of models that may run with tensor or pipeline parallelism.
struct LayerShape {
  int layers = 0, hidden = 0, seq_len = 0;
};

const std::map<std::string, LayerShape>& layer_shapes() {
  static const std::map<std::string, LayerShape> m = [] {
    std::map<std::string, LayerShape> out;
    const std::string file = "data/parallel_models.csv";
    for_each_table_row(std::string(embedded::get("parallel_models.csv")), [&](const auto& f, long ln, bool header) {
      if (header) return;
      if (f.size() < 4) throw InputError(file, ln, "", "expected name,layers,hidden,seq_len,source");
      out[ModelCatalogue::normalise(f[0])] = {static_cast<int>(parse_int(f[1], file, ln, "layers")),
                                              static_cast<int>(parse_int(f[2], file, ln, "hidden")),
                                              static_cast<int>(parse_int(f[3], file, ln, "seq_len"))};
    });
    return out;
  }();
  return m;
}

constexpr int kMicroBatches = 8;  // per iteration, for the 1F1B pipeline bubble (m + P - 1) / m

// Mixed parallelism: check D x P x T = num_gpus and derive the TP / PP volumes, the per-replica compute
// and the per-worker memory from the model's layer shape (header of data/parallel_models.csv).
void resolve_parallel(JobSpec& j, const RawTimes& raw, int batch) {
  if (j.dp < 0 || j.pp < 1 || j.tp < 1) throw InputError(j.file, j.line, "dp", "bad parallel config");
  const int pt = j.pp * j.tp;
  if (j.dp > 0 && j.dp * pt != j.num_gpus)
    throw InputError(j.file, j.line, "dp",
                     "dp x pp x tp = " + std::to_string(j.dp * pt) + " but num_gpus = " + std::to_string(j.num_gpus));
  if (j.dp == 0 && j.num_gpus % pt != 0)
    throw InputError(j.file, j.line, "num_gpus",
                     std::to_string(j.num_gpus) + " GPUs is not a multiple of pp x tp = " + std::to_string(pt));
  if (pt == 1) return;
  const auto it = layer_shapes().find(ModelCatalogue::normalise(j.model));
  if (it == layer_shapes().end())
    throw InputError(j.file, j.line, j.tp > 1 ? "tp" : "pp",
                     "model '" + j.model + "' has no layer shape for tensor/pipeline parallelism (data/parallel_models.csv)");
  const LayerShape& ls = it->second;
  if (j.pp > ls.layers) throw InputError(j.file, j.line, "pp", "more pipeline stages than the model's layers");
  const double act = static_cast<double>(std::max(batch, 1)) * ls.seq_len * ls.hidden * 2.0;
  j.tp_mb = j.tp > 1 ? 4.0 * ls.layers / j.pp * act / 1e6 : 0.0;
  j.pp_mb = j.pp > 1 ? 2.0 * act / 1e6 : 0.0;
  if (raw.compute_s <= 0)
    j.compute_s = j.compute_s / pt * (kMicroBatches + j.pp - 1) / kMicroBatches;
  if (raw.gpu_mem_mb < 0) j.gpu_mem_mb /= pt;
}

// The model family a name belongs to, by the architecture names the field's traces use ("" = none known): speech,
// language (transformers), vision (CNNs), rnn (recurrent and seq2seq), recommendation, rl, generative.
std::string model_family(const std::string& normalised) {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> families = {
      {"speech", {"deepspeech", "wav2letter", "jasper", "conformer", "rnnt", "speech", "asr", "wav2vec", "whisper"}},
      {"language", {"bert", "gpt", "transformer", "roberta", "t5", "xlnet", "megatron", "llama", "opt", "bart",
                    "electra", "albert"}},
      {"recommendation", {"ncf", "dlrm", "recommendation", "widedeep", "deepfm", "neumf"}},
      {"rnn", {"lstm", "gru", "gnmt", "seq2seq", "lm", "rnn"}},
      {"rl", {"dqn", "a2c", "a3c", "ppo", "ddpg", "impala"}},
      {"generative", {"cyclegan", "gan", "vae", "dcgan", "diffusion", "unet"}},
      {"vision", {"resnet", "res", "vgg", "inception", "alexnet", "googlenet", "mobilenet", "shufflenet", "densenet",
                  "efficientnet", "yolo", "cifar", "imagenet", "squeezenet", "vit", "m5", "maskrcnn", "ssd"}},
  };
  const std::string base = normalised.substr(normalised.find(':') == std::string::npos ? 0 : normalised.find(':') + 1);
  for (const auto& [family, stems] : families)
    for (const auto& stem : stems)
      if (base.rfind(stem, 0) == 0) return family;
  return "";
}

namespace {
// The size a name carries: a parameter count (llama-7b -> 7000, gpt3-2.7b -> 2700, in millions), else a CNN's depth
// (resnet152 -> 152, vgg19 -> 19); 0 where the number is a version (gpt2, t5, yolov5) or there is none.
double name_size(const std::string& base) {
  for (std::size_t i = 0; i < base.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(base[i])) || (i > 0 && std::isdigit(static_cast<unsigned char>(base[i - 1]))))
      continue;
    std::size_t k = i;
    while (k < base.size() && (std::isdigit(static_cast<unsigned char>(base[k])) || base[k] == '.')) ++k;
    const double v = std::atof(base.substr(i, k - i).c_str());
    const bool word_ends = k + 1 >= base.size() || !std::isalpha(static_cast<unsigned char>(base[k + 1]));
    if (k < base.size() && base[k] == 'b' && word_ends) return v * 1000;
    if (k < base.size() && base[k] == 'm' && word_ends) return v;
  }
  for (const char* cnn : {"resnet", "res", "vgg", "densenet", "wideresnet"})
    if (base.rfind(cnn, 0) == 0) {
      std::size_t k = std::string(cnn).size();
      std::size_t e = k;
      while (e < base.size() && std::isdigit(static_cast<unsigned char>(base[e]))) ++e;
      if (e > k) return std::atof(base.substr(k, e - k).c_str());
    }
  return 0;
}

std::string base_name(const std::string& normalised) {
  const auto c = normalised.find(':');
  return c == std::string::npos ? normalised : normalised.substr(c + 1);
}
}  // namespace

// --unknown-model: the catalogue model that stands in for `name`. nearest: the same name under a reader's qualifier
// (deepspeech2 -> pollux:deepspeech2), else the same family (speech, language, vision, ...: model_family) by
// size (the number in the name, closest in ratio; ties by spelling), else the closest spelling of all.
std::string replacement_model(const std::string& name, const ModelCatalogue& cat, const std::string& rule,
                              std::uint64_t seed) {
  std::vector<std::string> names, all;
  for (const auto& r : cat.rows()) {
    if (std::find(all.begin(), all.end(), r.name) == all.end()) all.push_back(r.name);
    if (r.name.find(':') == std::string::npos && std::find(names.begin(), names.end(), r.name) == names.end())
      names.push_back(r.name);
  }
  const std::string key = ModelCatalogue::normalise(name);
  if (rule == "nearest") {
    for (const auto& n : all) {  // the same model under a qualifier
      const std::string k = ModelCatalogue::normalise(n);
      if (k.find(':') != std::string::npos && k.substr(k.find(':') + 1) == key) return n;
    }
    const std::string family = model_family(key);
    const double size = name_size(key);
    std::string best;
    double best_score = std::numeric_limits<double>::infinity();
    for (const auto& n : family.empty() ? names : all) {
      const std::string k = ModelCatalogue::normalise(n);
      if (!family.empty() && model_family(k) != family) continue;
      const double other = name_size(base_name(k));
      // Size first (log ratio, where both names carry one; a sized name prefers sized rows), then spelling.
      const double by_size = size > 0 && other > 0 ? std::fabs(std::log(size / other)) : (size > 0 || other > 0 ? 10 : 0);
      const double score = (family.empty() ? 0 : by_size * 100) + static_cast<double>(edit_distance(key, base_name(k))) +
                           (k.find(':') != std::string::npos ? 0.5 : 0);  // plain rows before qualified ones
      if (score < best_score) best_score = score, best = n;
    }
    if (!best.empty()) return best;
    std::size_t b = 0, best_d = std::string::npos;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::size_t d = edit_distance(key, ModelCatalogue::normalise(names[i]));
      if (d < best_d) best_d = d, b = i;
    }
    return names[b];
  }
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a of the name, mixed with the seed
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  return names[mix_seed(seed, h) % names.size()];
}

// The catalogue row of job j (row `row` of its trace): a missing model by the seeded default mix, then
// --model-alias, then --unknown-model; null when the trace gives every figure itself. InputError naming the row.
std::optional<ModelProfile> resolve_model(JobSpec& j, const RawTimes& raw, const std::string& qualifier, std::size_t row,
                                  const ModelCatalogue& cat, const ResolveOptions& opt) {
  if (j.model.empty()) j.model = kDefaultMix[mix_seed(opt.seed, static_cast<std::uint64_t>(row)) % 4];
  if (const auto a = opt.model_alias.find(ModelCatalogue::normalise(j.model)); a != opt.model_alias.end()) {
    j.model = a->second;
    if (opt.mapping) ++opt.mapping->aliased;
  }
  auto prof = cat.find(j.model, j.batch_size, qualifier);
  const bool explicit_all = raw.compute_s > 0 && raw.grad_mb >= 0 && raw.gpu_mem_mb >= 0;
  if (!prof && !explicit_all && opt.unknown_model != "error") {
    const std::string to = replacement_model(j.model, cat, opt.unknown_model, opt.seed);
    if (opt.mapping) {
      ++opt.mapping->unknown;
      opt.mapping->replaced[j.model] = to;
    }
    j.model = to;
    prof = cat.find(j.model, j.batch_size);
  }
  if (!prof && !explicit_all) {
    std::vector<std::string> names;
    for (const auto& r : cat.rows()) names.push_back(r.name);
    throw InputError(j.file, j.line, "model",
                     "unknown model '" + j.model + "'" + did_you_mean(j.model, names) +
                         " (see `ringmaster list-models`; --model-alias " + j.model +
                         "=KNOWN or --unknown-model nearest|by-hash map it to one)");
  }
  return prof;
}

}  // namespace

void resolve_workload(Workload& w, const ModelCatalogue& cat, const ClusterSpec& cluster,
                      const ResolveOptions& opt, std::vector<Unschedulable>* unschedulable) {
  if (!opt.ideal.bind)
    throw InvariantError("resolve_workload: ResolveOptions::ideal is not set (exec/comm_model.h: ideal_times())");
  const BoundIdealTimes ideal = opt.ideal.bind(cluster);
  // GPUs on servers with at least a given GPU memory: the servers' (memory, GPUs) sorted by memory, with
  // suffix sums, so a job's feasibility is a binary search instead of a walk over the servers.
  std::vector<std::pair<double, long long>> by_mem;  // (gpu_mem_gb * 1024, GPUs on servers with at least that)
  for (const auto& s : cluster.servers) by_mem.push_back({s.gpu_mem_gb * 1024.0, s.gpus});
  std::sort(by_mem.begin(), by_mem.end());
  for (std::size_t k = by_mem.size(); k-- > 1;) by_mem[k - 1].second += by_mem[k].second;
  const auto gpus_with_mem = [&](double mb) -> long long {
    const auto it = std::lower_bound(by_mem.begin(), by_mem.end(), mb,
                                     [](const auto& e, double v) { return e.first < v; });
    return it == by_mem.end() ? 0 : it->second;
  };
  // On a cluster of several GPU types a job's GPUs are all of one type: the most GPUs with enough memory on one
  // type's servers (or the pinned type's).
  const GpuTypes types = gpu_types_of(cluster);
  std::string type_list;
  for (const auto& n : types.names) type_list += (type_list.empty() ? "" : ", ") + n;
  const auto typed_fit = [&](const JobSpec& j) {
    std::vector<long long> per(types.names.size(), 0);
    for (std::size_t s = 0; s < cluster.servers.size(); ++s)
      if (cluster.servers[s].gpu_mem_gb * 1024.0 >= j.gpu_mem_mb) per[static_cast<std::size_t>(types.of_server[s])] += cluster.servers[s].gpus;
    if (!j.gpu_type.empty()) return per[static_cast<std::size_t>(types.index(j.gpu_type))];
    return *std::max_element(per.begin(), per.end());
  };
  std::size_t kept = 0;  // the jobs kept are moved to the front, in order
  for (std::size_t i = 0; i < w.jobs.size(); ++i) per_row(w, [&] {
    JobSpec& j = w.jobs[i];
    const RawTimes& raw = w.raw[i];
    const auto prof = resolve_model(j, raw, w.model_qualifier[i], i, cat, opt);
    if (prof) j.model = prof->name;
    j.compute_s = raw.compute_s > 0 ? raw.compute_s : prof->compute_ms / 1000.0;
    if (raw.compute_s > 0 && raw.forward_s > 0) j.forward_s = raw.forward_s;
    j.grad_mb = raw.grad_mb >= 0 ? raw.grad_mb : prof->grad_mb;
    j.gpu_mem_mb = raw.gpu_mem_mb >= 0 ? raw.gpu_mem_mb : prof->gpu_mem_mb;
    resolve_parallel(j, raw, j.batch_size > 0 ? j.batch_size : prof ? prof->batch : 0);
    if (raw.iter_time_s > 0) {
      // The trace measured this job: its isolated iteration time is the truth, communication on the
      // ideal placement is part of it.
      j.compute_s = std::max(raw.iter_time_s - ideal.comm_s(j), raw.iter_time_s * 1e-3);
    }
    const double iteration_s = ideal.iteration_s(j);
    if (j.iterations <= 0) j.iterations = j.duration_s / iteration_s;
    // Feasibility on an idle cluster: enough GPUs on servers with enough GPU memory (of one GPU type).
    if (!j.gpu_type.empty()) {
      const KnownGpuType* k = find_gpu_type(j.gpu_type);
      if (!k) throw InputError(j.file, j.line, "gpu_type", "unknown GPU type '" + j.gpu_type + "' (known: " +
                                                             known_gpu_type_list() + ")");
      j.gpu_type = k->name;
      if (types.index(j.gpu_type) < 0)
        throw InputError(j.file, j.line, "gpu_type", "the cluster has no " + j.gpu_type + " GPUs (it has " + type_list + ")");
    }
    const long long fit = types.count() > 1 || !j.gpu_type.empty() ? typed_fit(j) : gpus_with_mem(j.gpu_mem_mb);
    std::string why;
    if (j.elastic() && j.gpus_min > fit)
      why = location(j.file, j.line, "gpus_min") + ": elastic job " + j.name + " needs at least " +
            std::to_string(j.gpus_min) + " GPUs, the cluster has " + std::to_string(fit) +
            (fit < cluster.total_gpus() ? " with enough GPU memory" : "");
    else if (j.num_gpus > fit)
      why = location(j.file, j.line, "num_gpus") + ": job " + j.name + " asks for " + std::to_string(j.num_gpus) +
            " GPUs, the cluster has " + std::to_string(fit) +
            (fit < cluster.total_gpus() ? " with enough GPU memory" : "") +
            (j.elastic() ? " (an elastic job starts at num_gpus: lower it within [gpus_min, gpus_max])" : "");
    if (!why.empty()) {
      if (!opt.skip_unschedulable) throw InputError(why + " (use --skip-unschedulable to report and go on)");
      if (unschedulable) unschedulable->push_back({j, why, ""});
      return;
    }
    const double run_s = j.iterations * iteration_s;
    if (!(run_s <= limits::kMaxIdealRunS))
      throw InputError(j.file, j.line, j.duration_s > 0 && !(j.iterations > 0) ? "duration" : "iterations",
                       fmt::format("job {} would run {:g} s alone on an idle cluster ({:g} iterations); at most {:g} s "
                                   "(317 years)", j.name, run_s, j.iterations, limits::kMaxIdealRunS));
    if (kept != i) w.jobs[kept] = std::move(j);
    ++kept;
  });
  w.jobs.resize(kept);
  auto by_submit = [](const JobSpec& a, const JobSpec& b) { return a.submit < b.submit; };
  if (!std::is_sorted(w.jobs.begin(), w.jobs.end(), by_submit)) {  // most traces are: nothing to do then
    // Indices sorted (stable: equal submits keep the file's order), then each job moved once: sorting the large
    // JobSpecs themselves moved each about log n times through a buffer of them (issue 47).
    std::vector<std::uint32_t> order(w.jobs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return w.jobs[a].submit < w.jobs[b].submit; });
    std::vector<JobSpec> sorted;
    sorted.reserve(w.jobs.size());
    for (std::uint32_t i : order) sorted.push_back(std::move(w.jobs[i]));
    w.jobs = std::move(sorted);
  }
  // Dense ids in submit order; the trace's own id stays in `name`.
  for (std::size_t i = 0; i < w.jobs.size(); ++i) w.jobs[i].id = static_cast<JobId>(i);
  // Only for resolving: freed (`= {}` assigns an empty list and keeps the capacity: 80 B a job).
  w.raw = std::vector<RawTimes>();
  w.model_qualifier = std::vector<std::string>();
}

}  // namespace rm
