// A peer simulator's rounds under the engine (exec/execution_model.h SteppingModel): the peer's loop steps every
// `interval` whole seconds until all its jobs are done; the engine's clock follows. For peers whose Sim has done(),
// now() (whole seconds) and step() (one round): Pollux's and Sia's.
#pragma once
#include <string>

#include "exec/execution_model.h"

namespace rm {

template <class Sim>
class RoundStepping final : public SteppingModel {
 public:
  RoundStepping(Sim& sim, long interval, std::string name) : sim_(sim), interval_(interval), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  bool searches_book() const override { return false; }
  Time next_event_time() override { return sim_.done() ? kNever : from_seconds(static_cast<double>(sim_.now() + interval_)); }
  void advance_to(Time t) override {
    while (!sim_.done() && from_seconds(static_cast<double>(sim_.now() + interval_)) <= t) sim_.step();
  }

 private:
  Sim& sim_;
  long interval_;
  std::string name_;
};

}  // namespace rm
