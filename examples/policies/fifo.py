"""FIFO in Python: the same decisions as ringmaster's C++ `fifo` (docs/python.md)."""
import ringmaster


class Fifo(ringmaster.Policy):
    key_fixed_while_waiting = True  # the submit time never changes
    running_key = "steps"           # ... nor while the job runs (next_change: never)

    def key(self, job):
        return job.arrival_s
