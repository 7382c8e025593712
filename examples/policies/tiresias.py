"""Tiresias' discretised 2D-LAS in Python: a job's queue is how many thresholds its attained GPU-seconds passed,
lower queues first, FIFO within one; preemptive. With `+consolidated` it is ringmaster's `tiresias` preset
(2d-las+consolidated), decision for decision (docs/python.md)."""
import bisect

import ringmaster


class TwoDLas(ringmaster.Policy):
    preemptive = True
    key_fixed_while_waiting = True
    running_key = "steps"  # constant between the threshold crossings next_change gives

    def __init__(self, thresholds="3600,36000"):
        self.thresholds = [float(t) for t in str(thresholds).split(",")]

    def key(self, job):
        return float(bisect.bisect_right(self.thresholds, job.attained_gpu_s))

    def next_change(self, job):
        i = bisect.bisect_right(self.thresholds, job.attained_gpu_s)
        return None if i == len(self.thresholds) else job.first_time_attained(self.thresholds[i])
