#include "workload/gavel_throughputs.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <set>

#include "core/error.h"
#include "core/read_file.h"
#include "workload/strict_json.h"

namespace rm {
namespace {

// "('<job type>', <GPUs>)" (utils.parse_job_type_tuple's regex \('(.*)', (\d+)\)).
bool parse_key(const std::string& s, GavelThroughputs::Key& k) {
  if (s.size() < 7 || s.compare(0, 2, "('") != 0 || s.back() != ')') return false;
  const auto sep = s.rfind("', ");
  if (sep == std::string::npos || sep < 2) return false;
  const std::string digits = s.substr(sep + 3, s.size() - sep - 4);
  if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  k = {s.substr(2, sep - 2), std::stoi(digits)};
  return true;
}

// A number of steps per second, checked.
template <class Where>
double steps_per_s(double x, const std::string& path, const Where& where) {
  if (!std::isfinite(x) || x < 0) throw InputError(path, 0, where(), "steps per second must be a finite number >= 0");
  // A step shorter than the clock's microsecond would finish every job at once (1e308 gave every JCT 0).
  if (x > 1e6) throw InputError(path, 0, where(), "steps per second must be at most 1e6 (a step of at least 1 us)");
  return x;
}

constexpr const char* kWhat = "not a Gavel throughput table: ";

// The table read as the parser goes (nlohmann's SAX interface), without a document: {worker type: {job type:
// {"null": steps/s alone, other job type: [steps/s, other's steps/s]}}}. The whole document tree of the 1.2-MB table
// took a third of a --compat gavel run on Philly VC ed69ec. The same checks as a document's, each error naming the
// file and the key; a key twice in one object is refused as the strict JSON reader refuses it (workload/strict_json.h).
class ThroughputSax final : public nlohmann::json_sax<nlohmann::json> {
 public:
  ThroughputSax(const std::string& path, std::map<std::string, std::map<GavelThroughputs::Key, double>>& alone,
                 std::map<std::string, std::map<std::pair<GavelThroughputs::Key, GavelThroughputs::Key>,
                                                std::array<double, 2>>>& packed)
      : path_(path), alone_(alone), packed_(packed) {}

  bool null() override { return value(false); }
  bool boolean(bool) override { return value(false); }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return number(static_cast<double>(v)); }
  bool number_float(number_float_t v, const string_t&) override { return number(v); }
  bool string(string_t&) override { return value(false); }
  bool binary(binary_t&) override { return value(false); }

  bool start_object(std::size_t) override {
    if (skip_ > 0) return nest();
    if (depth_ == 0 || depth_ == 1 || depth_ == 2) {
      ++depth_;
      if (depth_ < 3) keys_[depth_].clear();
      else has_null_ = false;
      return true;
    }
    return value(true);  // where a number or a pair goes (3), or inside a pair (4)
  }
  bool end_object() override {
    if (skip_ > 0) return unnest();
    if (depth_ == 3 && !has_null_)
      throw InputError(path_, 0, type_ + "." + ks_, "expected an isolated (null) entry");
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    if (skip_ > 0) return nest();
    if (depth_ == 3 && !is_null_) {  // a pair: [steps/s, other's steps/s]
      depth_ = 4;
      pair_n_ = 0;
      pair_bad_ = false;
      return true;
    }
    return value(true);
  }
  bool end_array() override {
    if (skip_ > 0) return unnest();
    depth_ = 3;
    const auto where = [&] { return entry(); };
    if (pair_n_ != 2) throw InputError(path_, 0, where(), "expected [steps/s, other's steps/s]");
    if (pair_bad_) throw InputError(path_, 0, where(), "expected a number of steps per second");
    const std::array<double, 2> v{steps_per_s(pair_[0], path_, where), steps_per_s(pair_[1], path_, where)};
    if (!packed_[type_].emplace(std::pair{k_, o_}, v).second) twice(os_);
    return true;
  }
  bool key(string_t& k) override {
    if (skip_ > 0) return true;
    // A job type's entries (30,000 in Gavel's table) are checked for a second copy where they are stored (a set of
    // every object's keys cost as much as the document tree): its pairs by key, its isolated entry by a flag.
    if (depth_ < 3 && !keys_[depth_].insert(k).second) twice(k);
    if (depth_ == 1) {
      type_ = k;
      alone_[type_];
      packed_[type_];
    } else if (depth_ == 2) {
      ks_ = k;
      if (!parse_key(ks_, k_)) throw InputError(path_, 0, type_ + "." + ks_, "expected a key ('<job type>', <GPUs>)");
    } else if (depth_ == 3) {
      os_ = k;
      is_null_ = os_ == "null";
      if (is_null_ && has_null_) twice(os_);
      if (is_null_) has_null_ = true;
      else if (!parse_key(os_, o_))
        throw InputError(path_, 0, entry(), "expected a key ('<job type>', <GPUs>)");
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    throw InputError(path_, 0, "", kWhat + std::string(e.what()));
  }

 private:
  [[noreturn]] void twice(const std::string& k) const {
    throw InputError(path_, 0, k, std::string(kWhat) + "the key appears twice in one object");
  }
  // The current entry's name in errors: worker type.job type.other job type (or null).
  std::string entry() const { return type_ + "." + ks_ + "." + os_; }
  // A value other than the containers above, at the current depth (`container`: an object or an array, whose contents
  // are then skipped).
  bool value(bool container) {
    if (skip_ > 0) return true;
    if (depth_ == 0) throw InputError(path_, 0, "", "expected {worker type: {job type: {...}}}");
    if (depth_ == 1) throw InputError(path_, 0, type_, "expected {job type: {...}}");
    if (depth_ == 2) throw InputError(path_, 0, type_ + "." + ks_, "expected an isolated (null) entry");
    if (depth_ == 4) {  // inside a pair: counted, and not a number
      ++pair_n_;
      pair_bad_ = true;
      if (container) skip_ = 1;
      return true;
    }
    // depth 3: the isolated entry must be a number, a pair an array
    if (is_null_) throw InputError(path_, 0, entry(), "expected a number of steps per second");
    throw InputError(path_, 0, entry(), "expected [steps/s, other's steps/s]");
  }
  bool number(double x) {
    if (skip_ > 0) return true;
    if (depth_ == 3 && is_null_) {
      alone_[type_][k_] = steps_per_s(x, path_, [&] { return entry(); });
      return true;
    }
    if (depth_ == 4) {
      if (pair_n_ < 2) pair_[pair_n_] = x;
      ++pair_n_;
      return true;
    }
    return value(false);
  }
  bool nest() {
    if (++skip_ > kMaxJsonDepth) throw InputError(path_, 0, "", kWhat + std::string("nested too deep"));
    return true;
  }
  bool unnest() {
    --skip_;
    return true;
  }

  const std::string& path_;
  std::map<std::string, std::map<GavelThroughputs::Key, double>>& alone_;
  std::map<std::string, std::map<std::pair<GavelThroughputs::Key, GavelThroughputs::Key>, std::array<double, 2>>>& packed_;
  int depth_ = 0;  // 1: in the root; 2: in a worker type; 3: in a job type's entries; 4: in a pair
  int skip_ = 0;   // inside a container inside a pair (not a number): its depth
  std::array<std::set<std::string>, 3> keys_;  // the root's and a worker type's keys (a key twice is refused)
  std::string type_, ks_, os_;
  GavelThroughputs::Key k_, o_;
  bool is_null_ = false, has_null_ = false, pair_bad_ = false;
  int pair_n_ = 0;
  std::array<double, 2> pair_{};
};

}  // namespace

GavelThroughputs GavelThroughputs::load(const std::string& path) {
  const std::string text = read_input_file(path, kMaxConfigBytes, "Gavel throughput table");
  GavelThroughputs t;
  t.path_ = path;
  ThroughputSax sax(path, t.alone_, t.packed_);
  nlohmann::json::sax_parse(text, &sax);
  return t;
}

const double* GavelThroughputs::isolated(const std::string& worker_type, const Key& k) const {
  const auto t = alone_.find(worker_type);
  if (t == alone_.end()) return nullptr;
  const auto e = t->second.find(k);
  return e == t->second.end() ? nullptr : &e->second;
}

const std::map<GavelThroughputs::Key, double>* GavelThroughputs::isolated_all(const std::string& worker_type) const {
  const auto t = alone_.find(worker_type);
  return t == alone_.end() ? nullptr : &t->second;
}

const std::array<double, 2>* GavelThroughputs::packed(const std::string& worker_type, const Key& a, const Key& b) const {
  const auto t = packed_.find(worker_type);
  if (t == packed_.end()) return nullptr;
  const auto w = t->second.find({a, b});
  return w == t->second.end() ? nullptr : &w->second;
}

std::string GavelThroughputs::key_text(const Key& k) { return "('" + k.first + "', " + std::to_string(k.second) + ")"; }

}  // namespace rm
