"""First-fit placement in Python: servers in index order, their free GPUs lowest first. With no score every server
scores alike, so the servers come in index order: the same GPUs as ringmaster's C++ `first-fit` (docs/python.md).
Use it after any order: --policy "fifo+py:file=examples/policies/first_fit.py;class=FirstFit"."""
import ringmaster


class FirstFit(ringmaster.Policy):
    def filter(self, job, server):
        return True                  # every server with a free GPU (and the GPU memory the job needs)


class BestFit(ringmaster.Policy):
    """Fewest servers: a server that holds the whole job, the fullest such first; else the emptiest servers first."""

    def score(self, job, server):
        if server.free_gpus >= job.num_gpus:
            return 1000 - server.free_gpus
        return server.free_gpus
