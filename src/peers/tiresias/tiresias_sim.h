// --compat tiresias: the event loop of Tiresias' simulator (SymbioticLab/Tiresias @959f9b0, simulator/), whose
// semantics shared/goldens/peers/tiresias/README.md lists (Q1-Q11): integer seconds, one event list of arrivals
// and ends, strict head-of-line FIFO, preemptive re-placement of every runnable job at every event (sjf,
// shortest, shortest-gpu), Tiresias' discretised 2D-LAS with its queue limits, job-jump events and starvation
// knob (dlas, dlas-gpu). It runs under the engine as a deciding model (exec/execution_model.h), as the round
// model does; its quirks live here only.
//
// Placements `count` (one free-GPU counter) and `yarn` (nodes, CPUs and memory, with the peer's memory leak under
// the preemptive schedules, Q9-Q10; dlas ignores it, Q5); gittins and dlas-gpu-gittins with the peer's Gittins
// table (Q8). The preemptive dlas schedules and gittins run lazily: at an event only the running jobs and the waiting
// ones that change are touched (the peer walks every runnable job), in the same order (tiresias_sim.cpp, "The lazy
// loops").
#pragma once
#include <string>
#include <vector>

#include "run/run_plan.h"
#include "run/sim_result.h"

namespace rm {

// A Tiresias cluster spec CSV (num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node): servers
// = switches x nodes, each switch a rack. Throws InputError naming the file, line and column.
ClusterSpec read_tiresias_spec(const std::string& path);

// The policy text under --compat tiresias: SCHEDULE[:limits=L0,L1,L2;starvation=N]+yarn|count.
PolicySpec parse_tiresias_policy(const std::string& text);
// Tiresias' schedules under --compat tiresias (SCHEDULE+yarn|count) with what each does (list-policies --compat).
std::vector<std::pair<std::string, std::string>> tiresias_policies();

// The Gittins table of a CDF file (a `duration` column), one entry per sample in ascending order (Q8, with
// Python 2's rounding, E3).
std::vector<double> tiresias_gittins_table(const std::string& cdf);

// dlas, dlas-gpu, dlas-gpu-gittins and gittins run lazy loops (only the jobs that change are touched at an event);
// `on` makes them walk every runnable job at every event as the peer does, to check the lazy loops against (tests
// only).
void set_tiresias_list_loops(bool on);

// Runs the plan (--compat tiresias): the cluster from the spec, the jobs from the trace, records.
SimResult run_tiresias(const RunPlan& plan);

}  // namespace rm
