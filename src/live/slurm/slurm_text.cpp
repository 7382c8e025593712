#include "live/slurm/slurm_text.h"

#include <cctype>
#include <cmath>
#include <ctime>
#include <sstream>

#include "core/error.h"
#include "workload/parse_util.h"

namespace rm::live {

namespace {

bool starts_key(const std::string& w) {
  const auto eq = w.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  if (!std::isalpha(static_cast<unsigned char>(w[0]))) return false;
  for (std::size_t i = 0; i < eq; ++i) {
    const char c = w[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != ':' && c != '/' && c != '.') return false;
  }
  return true;
}

bool parse_int(const std::string& s, long& v) {
  if (s.empty()) return false;
  std::size_t i = 0;
  long x = 0;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    x = x * 10 + (s[i] - '0');
    if (x > 1000000000L) return false;
  }
  if (i == 0 || i != s.size()) return false;
  v = x;
  return true;
}

}  // namespace

std::map<std::string, std::string> parse_kv_line(const std::string& line) {
  std::map<std::string, std::string> out;
  std::istringstream in(line);
  std::string word, key;
  while (in >> word) {
    if (starts_key(word)) {
      const auto eq = word.find('=');
      key = word.substr(0, eq);
      out[key] = word.substr(eq + 1);
    } else if (!key.empty()) {
      out[key] += " " + word;
    }
  }
  return out;
}

std::vector<std::string> expand_hostlist(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  int depth = 0;
  std::vector<std::string> items;
  for (char c : s) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0 || depth > 1) throw InputError("hostlist", 0, s, "unbalanced brackets");
    if (c == ',' && depth == 0) {
      items.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  if (depth != 0) throw InputError("hostlist", 0, s, "unbalanced brackets");
  items.push_back(item);
  for (const auto& it : items) {
    const std::string t = trim(it);
    if (t.empty() || t == "(null)") continue;
    const auto lb = t.find('[');
    if (lb == std::string::npos) {
      out.push_back(t);
      continue;
    }
    const auto rb = t.find(']', lb);
    if (rb == std::string::npos) throw InputError("hostlist", 0, s, "unbalanced brackets");
    const std::string prefix = t.substr(0, lb), suffix = t.substr(rb + 1);
    for (const auto& r : split_simple(t.substr(lb + 1, rb - lb - 1), ',')) {
      const auto dash = r.find('-');
      const std::string a = dash == std::string::npos ? r : r.substr(0, dash);
      const std::string b = dash == std::string::npos ? r : r.substr(dash + 1);
      long lo = 0, hi = 0;
      if (!parse_int(a, lo) || !parse_int(b, hi) || hi < lo || hi - lo > 100000)
        throw InputError("hostlist", 0, s, "bad range '" + r + "'");
      const std::size_t width = a.size();
      for (long k = lo; k <= hi; ++k) {
        std::string n = std::to_string(k);
        if (n.size() < width) n = std::string(width - n.size(), '0') + n;
        out.push_back(prefix + n + suffix);
      }
    }
  }
  return out;
}

int gres_gpus(const std::string& s) {
  int total = 0;
  for (const auto& raw : split_simple(s, ',')) {
    std::string part = trim(raw);
    const auto paren = part.find('(');
    if (paren != std::string::npos) part = part.substr(0, paren);
    if (part.rfind("gres:", 0) == 0) part = part.substr(5);
    if (part.rfind("gres/", 0) == 0) part = part.substr(5);
    // gpu=N (TRES form)
    if (part.rfind("gpu=", 0) == 0) {
      long v = 0;
      if (parse_int(part.substr(4), v)) total += static_cast<int>(v);
      continue;
    }
    if (part.rfind("gpu", 0) != 0) continue;
    const auto fields = split_simple(part, ':');
    if (fields.front() != "gpu") continue;
    long v = 0;
    if (fields.size() == 1) {
      total += 1;  // "gpu" alone: one
    } else if (parse_int(fields.back(), v)) {
      total += static_cast<int>(v);
    }
  }
  return total;
}

std::vector<std::pair<std::string, std::vector<int>>> parse_job_gpu_indices(const std::string& text) {
  std::vector<std::pair<std::string, std::vector<int>>> out;
  for (const auto& raw : split_simple(text, '\n')) {
    const std::string line = trim(raw);
    if (line.rfind("Nodes=", 0) != 0) continue;  // the detail lines only (NumNodes= and others do not start so)
    const auto kv = parse_kv_line(line);
    const auto nodes = kv.find("Nodes");
    const auto gres = kv.find("GRES");
    if (nodes == kv.end() || gres == kv.end()) continue;
    std::vector<int> idx;
    std::vector<std::string> parts(1);  // split at the commas outside parentheses: gpu:2(IDX:0,2),other:1
    int depth = 0;
    for (char ch : gres->second) {
      depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
      if (ch == ',' && depth == 0) parts.emplace_back();
      else parts.back() += ch;
    }
    for (const auto& part : parts) {  // gpu:2(IDX:0-1) or gpu:a100:2(IDX:0,2)
      if (part.rfind("gpu", 0) != 0) continue;
      const auto at = part.find("(IDX:");
      const auto end = part.find(')', at);
      if (at == std::string::npos || end == std::string::npos) continue;
      for (const auto& r : split_simple(part.substr(at + 5, end - at - 5), ',')) {  // IDX lists are 0-1 or 0,2
        const auto dash = r.find('-');
        long a = 0, b = 0;
        if (!parse_int(r.substr(0, dash), a)) continue;
        b = a;
        if (dash != std::string::npos && !parse_int(r.substr(dash + 1), b)) continue;
        for (long k = a; k <= b && k - a < 4096; ++k) idx.push_back(static_cast<int>(k));
      }
    }
    for (const auto& n : expand_hostlist(nodes->second)) out.push_back({n, idx});
  }
  return out;
}

bool SlurmNode::usable() const {
  for (const char* bad : {"DOWN", "DRAIN", "FAIL", "INVAL", "FUTURE", "NOT_RESPONDING", "POWER"})
    if (state.find(bad) != std::string::npos) return false;
  return !state.empty();
}

SlurmNode parse_node(const std::string& line) {
  const auto kv = parse_kv_line(line);
  SlurmNode n;
  const auto get = [&](const char* k) {
    const auto it = kv.find(k);
    return it == kv.end() ? std::string() : it->second;
  };
  n.name = get("NodeName");
  if (n.name.empty()) throw InputError("scontrol show node", 0, "NodeName", "missing in '" + line.substr(0, 80) + "'");
  n.state = get("State");
  long v = 0;
  if (parse_int(get("CPUTot"), v)) n.cpus = static_cast<int>(v);
  if (parse_int(get("RealMemory"), v)) n.mem_mb = static_cast<double>(v);
  if (parse_int(get("CPUAlloc"), v)) n.cpus_alloc = static_cast<int>(v);
  if (parse_int(get("AllocMem"), v)) n.mem_alloc_mb = static_cast<double>(v);
  n.gpus = gres_gpus(get("Gres"));
  for (const auto& p : split_simple(get("Partitions"), ','))
    if (!p.empty()) n.partitions.push_back(p);
  return n;
}

const char* const kUserHoldMark = "rm-user-hold";

const char* const kSqueueFields =
    "JobID:|,State:|,Reason:|,NodeList:|,tres-per-node:|,tres-per-job:|,NumNodes:|,NumCPUs:|,MinMemory:|,"
    "Partition:|,SubmitTime:|,StartTime:|,EndTime:|,UserName:|,Name:|,Dependency:|,Comment:|";

double SlurmJob::mem_mb() const {
  std::string m = min_memory;
  if (m.empty()) return 0;
  double unit = 1;  // squeue prints MB without a suffix, else K, M, G, T
  switch (m.back()) {
    case 'K': unit = 1.0 / 1024; break;
    case 'M': unit = 1; break;
    case 'G': unit = 1024; break;
    case 'T': unit = 1024.0 * 1024; break;
    default: unit = 0;
  }
  if (unit != 0) m.pop_back();
  else unit = 1;
  char* end = nullptr;
  const double x = std::strtod(m.c_str(), &end);
  return end == m.c_str() + m.size() && std::isfinite(x) && x > 0 ? x * unit : 0;
}

bool SlurmJob::finished() const {
  for (const char* s : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL",
                        "DEADLINE", "PREEMPTED", "SPECIAL_EXIT", "REVOKED"})
    if (state.rfind(s, 0) == 0) return true;
  return false;
}

SlurmJob parse_squeue_line(const std::string& raw) {
  std::string line = raw;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (!line.empty() && line.back() == '|') line.pop_back();  // every field ends with '|'
  auto f = split_simple(line, '|');
  constexpr std::size_t kFields = 17;
  if (f.size() < kFields)
    throw InputError("squeue", 0, "format", "expected 17 '|'-separated fields in '" + line.substr(0, 80) + "'");
  std::string comment = f[kFields - 1];  // the comment is last and may itself contain '|'
  for (std::size_t i = kFields; i < f.size(); ++i) comment += "|" + f[i];
  SlurmJob j;
  long v = 0;
  if (!parse_int(trim(f[0]), v)) throw InputError("squeue", 0, "JobID", "not a job id: '" + f[0] + "'");
  j.id = v;
  j.state = trim(f[1]);
  j.reason = trim(f[2]);
  j.nodes = expand_hostlist(trim(f[3]));
  j.gpus_per_node = gres_gpus(trim(f[4]));
  j.gpus_per_job = gres_gpus(trim(f[5]));
  if (parse_int(trim(f[6]), v) && v > 0) j.num_nodes = static_cast<int>(v);
  j.gpus = j.gpus_per_job > 0 ? j.gpus_per_job : j.gpus_per_node * j.num_nodes;
  if (parse_int(trim(f[7]), v)) j.cpus = static_cast<int>(v);
  j.min_memory = trim(f[8]);
  j.partition = trim(f[9]);
  j.submit_s = parse_slurm_time(trim(f[10]));
  j.start_s = parse_slurm_time(trim(f[11]));
  j.end_s = parse_slurm_time(trim(f[12]));
  j.user = trim(f[13]);
  j.name = trim(f[14]);
  j.dependency = trim(f[15]);
  if (j.dependency == "(null)") j.dependency.clear();
  j.comment = trim(comment);
  if (j.comment == "(null)") j.comment.clear();
  const std::string mark = kUserHoldMark, tail = ";" + mark;
  if (j.comment == mark) {
    j.comment.clear();
    j.user_held = true;
  } else if (j.comment.size() > tail.size() && j.comment.compare(j.comment.size() - tail.size(), tail.size(), tail) == 0) {
    j.comment.resize(j.comment.size() - tail.size());
    j.user_held = true;
  }
  return j;
}

double parse_slurm_time(const std::string& s) {
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':') return -1;
  std::tm tm{};
  long y, mo, d, h, mi, se;
  if (!parse_int(s.substr(0, 4), y) || !parse_int(s.substr(5, 2), mo) || !parse_int(s.substr(8, 2), d) ||
      !parse_int(s.substr(11, 2), h) || !parse_int(s.substr(14, 2), mi) || !parse_int(s.substr(17, 2), se))
    return -1;
  tm.tm_year = static_cast<int>(y - 1900);
  tm.tm_mon = static_cast<int>(mo - 1);
  tm.tm_mday = static_cast<int>(d);
  tm.tm_hour = static_cast<int>(h);
  tm.tm_min = static_cast<int>(mi);
  tm.tm_sec = static_cast<int>(se);
  tm.tm_isdst = -1;
  const std::time_t t = std::mktime(&tm);
  return t == static_cast<std::time_t>(-1) ? -1 : static_cast<double>(t);
}

}  // namespace rm::live
