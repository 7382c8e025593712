"""SRSF in Python: smallest remaining service (remaining time x GPUs) first, preemptive; the same decisions as
ringmaster's C++ `srsf` (docs/python.md)."""
import ringmaster


class Srsf(ringmaster.Policy):
    preemptive = True                # and so backfilling, as the C++ order
    key_fixed_while_waiting = True   # a waiting job's remaining work stays put
    running_key = "falls"            # and only shrinks while it runs

    def key(self, job):
        return job.remaining_time_s * job.num_gpus
