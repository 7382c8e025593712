// The check of one --compat sia run against the goldens of tests/data/sia (README there): every job's JCT, restarts
// and GPU types, and every round's program size and objective (relative 1e-6). Runs the ringmaster binary, so that the
// main suite (one workload) and the slow suite (all eight) share it. Needs RM_BINARY, RM_SOURCE_DIR, RM_SHARED_DIR.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace rm::sia_golden {

inline std::vector<std::vector<std::string>> csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (!line.empty() && line.back() == ',') f.push_back("");
    rows.push_back(f);
  }
  return rows;
}

inline std::string sia_name(const std::string& ours) {  // data/gpu_types.csv's sia column
  if (ours == "t4") return "aws";
  if (ours == "a100") return "dgx-ext";
  if (ours == "rtx2080ti") return "rtx";
  return "?" + ours;
}

// `workload`: e.g. philly/workload-1 (shared/traces/sia/workloads/<workload>.csv).
inline void check(const std::string& policy, const std::string& workload) {
  char tmpl[] = "/tmp/rm-sia-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  const std::string cmd = std::string(RM_BINARY) + " simulate -q --compat sia --cluster sia-64 --trace " + RM_SHARED_DIR +
                          "/traces/sia/workloads/" + workload + ".csv --format pollux --policy " + policy +
                          " --data-dir " + RM_SHARED_DIR + "/traces --out " + dir + " > " + dir + "/log 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string trace = workload.substr(0, workload.find('/'));  // philly, saturn
  const std::string data = std::string(RM_SOURCE_DIR) + "/tests/data/sia/" + trace + "-" + policy;
  std::map<std::string, std::vector<std::string>> gold;
  for (auto& row : csv(data + ".csv"))
    if (row.at(0) == workload) gold[row.at(1)] = row;
  ASSERT_FALSE(gold.empty()) << policy << " " << workload;
  // jobs.csv: job_id(0) ... jct_s(7) ... gpu_type(15) ... reallocations(last)
  const auto jobs = csv(dir + "/jobs.csv");
  ASSERT_EQ(jobs.size(), gold.size()) << policy << " " << workload;
  int wrong = 0;
  for (const auto& j : jobs) {
    const auto it = gold.find(j.at(0));
    ASSERT_NE(it, gold.end()) << j.at(0);
    std::string types;
    std::stringstream ss(j.at(15));
    for (std::string t; std::getline(ss, t, '+');) types += (types.empty() ? "" : "+") + sia_name(t);
    const auto& g = it->second;
    if (std::stod(j.at(7)) != std::stod(g.at(3)) || j.back() != g.at(4) || types != g.at(5)) {
      ++wrong;
      ADD_FAILURE() << policy << " " << workload << " " << j.at(0) << ": JCT " << j.at(7) << " restarts " << j.back()
                    << " types " << types << "; golden " << g.at(3) << " " << g.at(4) << " " << g.at(5);
    }
  }
  EXPECT_EQ(wrong, 0) << policy << " " << workload;
  std::vector<std::vector<std::string>> rounds;
  for (auto& row : csv(data + "-rounds.csv"))
    if (row.at(0) == workload) rounds.push_back(row);
  const auto ours = csv(dir + "/sia_rounds.csv");  // time_s,jobs,rows,cols,objective,...
  ASSERT_EQ(ours.size(), rounds.size()) << policy << " " << workload << ": programs solved";
  std::size_t off = 0;
  double worst = 0;
  for (std::size_t k = 0; k < ours.size(); ++k) {
    if (ours[k].at(2) != rounds[k].at(2) || ours[k].at(3) != rounds[k].at(3)) ++off;
    const double a = std::stod(ours[k].at(4)), b = std::stod(rounds[k].at(4));
    worst = std::max(worst, std::fabs(a - b) / std::max(std::fabs(b), 1e-12));
  }
  EXPECT_EQ(off, 0u) << policy << " " << workload << ": programs of another size";
  EXPECT_LT(worst, 1e-6) << policy << " " << workload;
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace rm::sia_golden
