// What an operator of `serve` relies on, without a Slurm (the real one: tests/slurm/operate_test.sh and
// recover_test.sh): the Prometheus endpoint answered over a real socket, the levelled log file, `ringmaster
// status` on a state folder and on one that is not, and the state's last good copy.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "live/metrics_http.h"
#include "live/serve.h"
#include "live/status.h"
#include "test_util.h"

namespace rm::live {
namespace {

// A plain HTTP/1.0 request over a socket to 127.0.0.1:port; the whole response.
std::string http_get(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    ::close(fd);
    return "";
  }
  const std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  ::send(fd, req.data(), req.size(), 0);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

TEST(ServeOps, MetricsEndpointServesTheLatestTextAndNothingElse) {
  MetricsServer m("127.0.0.1:0");  // port 0: any free one
  ASSERT_GT(m.port(), 0);
  m.publish("ringmaster_steps_total 1\n");
  m.publish("ringmaster_steps_total 2\n");
  const std::string r = http_get(m.port(), "/metrics");
  EXPECT_EQ(r.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << r;
  EXPECT_EQ(r.substr(r.find("\r\n\r\n") + 4), "ringmaster_steps_total 2\n");
  EXPECT_EQ(http_get(m.port(), "/").rfind("HTTP/1.0 404", 0), 0u);
  EXPECT_THROW(MetricsServer("localhost"), InputError);        // no port
  EXPECT_THROW(MetricsServer("localhost:9464"), InputError);   // not an IPv4 literal
  EXPECT_THROW(MetricsServer("127.0.0.1:70000"), InputError);  // no such port
  try {
    MetricsServer taken("127.0.0.1:" + std::to_string(m.port()));
    FAIL() << "bound a port in use";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen there"), std::string::npos) << e.what();
  }
}

TEST(ServeOps, LogFileKeepsLinesAtOrAboveItsLevel) {
  const std::string f = test::temp_dir() + "/serve.log";
  std::filesystem::remove(f);
  {
    const LevelLog l = make_level_log("serve", "warn", f);
    l.info("an adoption");
    l.warn("a refusal");
    EXPECT_FALSE(l.debug);
  }
  const std::string text = test::read_file(f);
  EXPECT_EQ(text.find("an adoption"), std::string::npos) << text;
  EXPECT_NE(text.find(" WARN  serve: a refusal\n"), std::string::npos) << text;
  EXPECT_EQ(text.size(), std::string("2026-11-25T13:43:00.258Z WARN  serve: a refusal\n").size()) << text;
  const LevelLog d = make_level_log("serve", "debug", f);  // appended, not truncated
  ASSERT_TRUE(d.debug);
  d.debug("step 1");
  EXPECT_NE(test::read_file(f).find("a refusal"), std::string::npos);
  EXPECT_NE(test::read_file(f).find(" DEBUG serve: step 1\n"), std::string::npos);
  EXPECT_THROW(make_level_log("serve", "verbose", ""), InputError);
  EXPECT_THROW(make_level_log("serve", "info", "/nonexistent/dir/serve.log"), InputError);
}

TEST(ServeOps, StatusPrintsTheQueueWithPlacesAndReasonsOrRefusesAFolderThatIsNotState) {
  const std::string dir = test::temp_dir() + "/status";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ostringstream none;
  EXPECT_THROW(print_status(dir, 0, none), InputError);  // empty folder
  test::write_file(dir, "state.json", "{ \"jobs\": 3 }");
  EXPECT_THROW(print_status(dir, 0, none), InputError);  // not a state
  test::write_file(dir, "state.json", R"js({"partition": "rm", "policy": "srsf", "origin_s": 1000, "steps": 7,
    "decision_us": [10, 30], "step_ms": [5, 9],
    "status": {"backend": "slurm", "gpus": 8, "nodes": ["n1", "n2"], "last_step_s": 1100, "pid": 0, "paused": "",
               "queued": 2, "running": 1},
    "jobs": [
      {"slurm_id": 11, "name": "a", "num_gpus": 4, "status": "running", "nodes": ["n1"], "started_s": 1050,
       "run_s": 20, "submit_s": 1000, "runs": []},
      {"slurm_id": 13, "name": "c", "num_gpus": 8, "status": "queued", "submit_s": 1030, "runs": [{}],
       "why": "waiting for GPUs: asks 8, 4 free"},
      {"slurm_id": 12, "name": "b", "num_gpus": 2, "status": "queued", "submit_s": 1010, "runs": [],
       "why": "the policy starts others first (4 GPUs free)"},
      {"slurm_id": 14, "name": "d", "num_gpus": 32, "status": "unschedulable", "submit_s": 1040,
       "why": "asks for 32 GPUs; partition rm has 8 GPUs on 2 nodes (at most 4 per node)"},
      {"slurm_id": 10, "name": "z", "num_gpus": 1, "status": "finished", "slurm_state": "FAILED", "submit_s": 990}]})js");
  std::ostringstream out;
  print_status(dir, 1101, out);
  const std::string s = out.str();
  EXPECT_NE(s.find("partition rm (slurm), 8 GPUs on 2 nodes, policy srsf"), std::string::npos) << s;
  EXPECT_NE(s.find("(1.0 s ago), step 7"), std::string::npos) << s;
  EXPECT_NE(s.find("jobs: 2 queued, 1 running, 1 ended (1 not COMPLETED), 1 unschedulable"), std::string::npos) << s;
  // The queue in submission order: b (submitted 1010) first, c second, each with its reason.
  const auto b = s.find("          12  b"), c = s.find("          13  c");
  ASSERT_NE(b, std::string::npos) << s;
  ASSERT_NE(c, std::string::npos) << s;
  EXPECT_LT(b, c);
  EXPECT_NE(s.find("      1          12  b                   2        90     0  the policy starts others first"),
            std::string::npos) << s;
  EXPECT_NE(s.find("      2          13  c                   8        70     1  waiting for GPUs: asks 8, 4 free"),
            std::string::npos) << s;
  EXPECT_NE(s.find("          11  a                   4  n1                           50         70"), std::string::npos)
      << s;  // running since t=50 s; 20 s of earlier service + 50 s now
  EXPECT_NE(s.find("asks for 32 GPUs"), std::string::npos) << s;
  // A state.json lost between the two renames: the last good copy is read.
  std::filesystem::rename(dir + "/state.json", dir + "/state.prev.json");
  std::ostringstream prev;
  print_status(dir, 1101, prev);
  EXPECT_EQ(prev.str(), s);
}

}  // namespace
}  // namespace rm::live
