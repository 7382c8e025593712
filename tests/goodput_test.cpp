// Pollux's goodput model (issue 43 goal 3) against what the authors' code prints (adaptdl osdi21-artifact c793c70,
// simulator/goodput.py and speedup.py, run here under Debian's numpy 1.24 / scipy 1.10 with autograd @e12041cc2301,
// NPY_DISABLE_CPU_FEATURES as shared/goldens/peers/pollux/README.md gives): four profiles the simulator builds from
// its measured step times (cifar10 with one sample; imagenet over 1, 2 and 2x4 GPUs; bert over five mixed
// placements; yolov3 on one node), the parameters fit_perf_params fits, and, from the authors' parameters, the
// throughput, efficiency, best batch configurations and speedups; plus the model by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "exec/goodput.h"

namespace rm::pollux {
namespace {

struct Case {
  std::string name;
  std::vector<StepSample> samples;
  std::array<double, 7> params;  // the authors' fit
  GradParams grad;
  int init, max_batch, min_local, max_local;
  double throughput_2_8_64_1, efficiency_4096;
  struct Opt {
    int nodes, replicas;
    double goodput;
    int atomic, accum;
  };
  std::vector<Opt> optimize;
  struct Speed {
    int nodes, replicas;
    double speedup;
  };
  std::vector<Speed> speedup;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
    {"cifar10_one", {{1, 1, 64, 0.0593253149151802, 0.0598333597183227}}, {0.0296626574575901, 0.00046348940002626584, 1.1000000000000001e-08, 1.1000000000000001e-08, 1e-08, 1e-08, 1.0009996358906124}, {8.947307535897329, 5.066593295150894}, 128, 4096, 32, 1024, 8630.277673494542, 0.04809485872926038, {{1, 1, 1438.3750058482944, 128, 0}, {1, 2, 2157.5704406224772, 64, 0}, {1, 4, 2878.8056928169917, 35, 0}, {2, 8, 3511.5508981241055, 32, 0}, {4, 16, 3947.0160013049117, 32, 0}, {8, 32, 4207.915609073033, 32, 0}}, {{1, 1, 1.0}, {1, 3, 1.7994458463699934}, {2, 5, 2.1559024247753076}, {3, 12, 2.635152839493628}}},
    {"imagenet_three", {{1, 1, 100, 0.4974615588924464, 0.498661531420315}, {1, 2, 100, 0.4968685338658445, 0.5030370915637297}, {2, 8, 100, 0.5360426595870187, 0.6694777867373298}}, {0.25506212539088496, 0.002436000391664601, 0.17934334981770575, 0.0003009705731871968, 0.005093537111704615, 1e-08, 1.0272706716514293}, {1.1263841568054571, 5.227778350418925}, 200, 12800, 20, 200, 1030.688779558292, 0.2245594514870517, {{1, 1, 269.4465613317156, 200, 0}, {1, 2, 454.8734194758269, 198, 0}, {1, 4, 709.0438967183892, 151, 0}, {2, 8, 804.9708367272077, 149, 0}, {4, 16, 1062.627234757066, 105, 0}, {8, 32, 1320.8943001291177, 73, 0}}, {{1, 1, 1.0}, {1, 3, 2.206569977631105}, {2, 5, 2.3905480907952033}, {3, 12, 3.541170635999068}}},
    {"bert_mixed", {{1, 1, 8, 0.6895562952160835, 0.7032617032527924}, {1, 4, 8, 0.648364497423172, 0.740765243768692}, {2, 8, 12, 0.8761074686050416, 2.538950562477112}, {3, 6, 12, 0.8594878754615783, 1.5438833832740784}, {1, 4, 12, 0.8642503433227539, 0.9571182131767272}}, {0.27806870023729774, 0.04922764360326622, 0.35750044929314106, 0.32072809277995373, 0.522933682314214, 0.0008723844539589694, 3.1736053671992766}, {195590723287826.75, 6894015304034181.0}, 12, 384, 4, 12, 143.623561712677, 0.09625339179994846, {{1, 1, 13.812147963720106, 12, 0}, {1, 2, 25.384006994238252, 12, 0}, {1, 4, 48.15409958490094, 12, 0}, {2, 8, 43.47855592335403, 12, 2}, {4, 16, 36.166525560018904, 12, 1}, {8, 32, 20.738156396667513, 12, 0}}, {{1, 1, 1.0}, {1, 3, 2.683882105087976}, {2, 5, 3.0391578705334656}, {3, 12, 2.920204331009792}}},
    {"yolov3_single_node", {{1, 1, 8, 0.3236582845449448, 0.3261484205722809}, {1, 2, 8, 0.3243946229815483, 0.3566535413265228}, {1, 4, 8, 0.3819632753133774, 0.5009251087903976}}, {0.1716693638066451, 0.019309886727883353, 0.21150856175053795, 0.12957631095420902, 0.1922805106823072, 0.11779664632200819, 2.565350987407918}, {1764298.2988895795, 143227.17204484087}, 8, 512, 4, 8, 339.72167292662084, 0.002111346510103322, {{1, 1, 24.528707135824288, 8, 0}, {1, 2, 27.330201312909068, 4, 0}, {1, 4, 17.81284759383896, 4, 0}, {2, 8, 8.491769219559021, 6, 0}, {4, 16, 4.23336535175223, 8, 0}, {8, 32, 2.103659133426203, 8, 0}}, {{1, 1, 1.0}, {1, 3, 0.9050795668899969}, {2, 5, 0.5473668692208419}, {3, 12, 0.2306472837786269}}},
  };
  return c;
}

bool near(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::max(std::fabs(b), 1e-300); }

// Given the authors' parameters, every number follows exactly (the same operations in the same order as numpy).
TEST(Goodput, FromTheAuthorsParametersEveryNumberAsTheirCode) {
  for (const Case& c : cases()) {
    const auto& p = c.params;
    const GoodputFunction g({p[0], p[1], p[2], p[3], p[4], p[5], p[6]}, c.grad, c.init);
    EXPECT_TRUE(near(g.throughput(2, 8, 64, 1), c.throughput_2_8_64_1, 1e-14)) << c.name << " " << g.throughput(2, 8, 64, 1);
    EXPECT_TRUE(near(g.efficiency(4096), c.efficiency_4096, 1e-14)) << c.name;
    for (const auto& o : c.optimize) {
      const BatchChoice b = g.optimize(o.nodes, o.replicas, c.max_batch, c.min_local, c.max_local, true);
      EXPECT_EQ(b.atomic_bsz, o.atomic) << c.name << " " << o.nodes << "x" << o.replicas;
      EXPECT_EQ(b.accum_steps, o.accum) << c.name << " " << o.nodes << "x" << o.replicas;
      EXPECT_TRUE(near(b.goodput, o.goodput, 1e-13)) << c.name << " " << o.nodes << "x" << o.replicas << ": "
                                                       << b.goodput << " vs " << o.goodput;
    }
    const SpeedupFunction s(g, c.max_batch, c.min_local, c.max_local, true);
    for (const auto& o : c.speedup)
      EXPECT_TRUE(near(s(o.nodes, o.replicas), o.speedup, 1e-13)) << c.name << " " << o.nodes << "x" << o.replicas;
    EXPECT_EQ(s(0, 0), 0.0);
  }
}

// fit_perf_params: the authors' objective and its gradient to the last bit (reverse mode in autograd's order; every
// square as numpy computes it: an ndarray's ** 2 exactly, a float64 scalar's and autograd's boxed ** 2 through libm's
// pow, which glibc rounds within 0.52 ulp, so the two part about once in a thousand), driven through the same
// L-BFGS-B as scipy drives it: the fitted parameters equal the authors' bit for bit on all four profiles (yolov3's
// parted by 1.2 % while the gradient's squares were exact, one ulp away in one of its 252 evaluations).
TEST(Goodput, FitEqualsTheAuthorsBitForBit) {
  for (const Case& c : cases()) {
    std::array<double, 7> d{};
    const std::array<double, 7> x0 = {1e-1, 1e-2, 1e-1, 1e-2, 1e-1, 1e-2, 1.0 + 1e-3};
    if (c.name == "imagenet_three") {  // the authors' objective and gradient at the start, from autograd
      EXPECT_EQ(fit_objective(x0, c.samples, &d), 1.5404957216703075);
      EXPECT_EQ(d[1], 174.97893785712424);
      EXPECT_EQ(d[6], -0.211231118821913);
    }
    const auto got = fit_perf_params(c.samples).as_array();
    for (int i = 0; i < 7; ++i) EXPECT_EQ(got[i], c.params[i]) << c.name << " parameter " << i;
  }
}

// By hand: one GPU, no network (1e-8 s), gamma 1: a step is alpha_c + beta_c x batch + 1e-8 s; the efficiency of the
// init batch is 1; twice the batch with no gradient noise (var 0) halves the efficiency per sample.
TEST(Goodput, TheModelByHand) {
  const GoodputFunction g({0.1, 0.001, 1, 0, 1, 0, 1.0}, {1.0, 0.0}, 100);
  EXPECT_NEAR(g.throughput(1, 1, 100, 0), 100 / (0.1 + 0.1 + 1e-8), 1e-9);
  EXPECT_DOUBLE_EQ(g.efficiency(100), 1.0);
  EXPECT_DOUBLE_EQ(g.efficiency(200), 0.5);
  // Noise-dominated gradients (var >> sqr): a larger batch loses almost nothing per sample.
  const GoodputFunction noisy({0.1, 0.001, 1, 0, 1, 0, 1.0}, {1e-6, 1.0}, 100);
  EXPECT_GT(noisy.efficiency(200), 0.99);
  // With accumulation one GPU above the init batch accumulates at least once.
  const BatchChoice b = noisy.optimize(1, 1, 1000, 10, 1000, true);
  EXPECT_GE(b.accum_steps, b.atomic_bsz > 100 ? 1 : 0);
}

}  // namespace
}  // namespace rm::pollux
