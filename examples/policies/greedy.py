"""Synergy-GREEDY in Python: each placed job gets its best-case CPUs and DRAM on every server of its placement if
they are free there, else its GPU-proportional share, else it waits. The same shares as ringmaster's C++ `greedy`
(docs/python.md): --policy "fifo+py:file=examples/policies/greedy.py;class=Greedy"."""
import ringmaster


def fits(servers, cpus, mem):
    return all(s[cpus] <= s["server"].free_cpus + 1e-9 and s[mem] <= s["server"].free_mem_gb + 1e-9 for s in servers)


class Greedy(ringmaster.Policy):
    def allocate(self, job, servers):
        for cpus, mem in (("best_cpus", "best_mem_gb"), ("fair_cpus", "fair_mem_gb")):
            if fits(servers, cpus, mem):
                return [(s[cpus], s[mem]) for s in servers]
        return None                  # not even the fair share is free: the job waits
