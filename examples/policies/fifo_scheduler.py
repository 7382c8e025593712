"""A whole scheduler in Python: FIFO without backfill on first-fit GPUs, one call per scheduling pass. The same
decisions as ringmaster's C++ `fifo+first-fit` (docs/python.md): --policy "py:file=examples/policies/fifo_scheduler.py;class=FifoFirstFit"."""
import ringmaster


class FifoFirstFit(ringmaster.Policy):
    def schedule(self, view):
        d = ringmaster.Decisions()
        free = {s.index: (s.free_gpu_ids, s.gpu_mem_gb * 1024) for s in view.free_servers}
        for job in view.waiting:     # in arrival order; each JobView is made when read
            gpus = []
            for s, (ids, mem) in free.items():
                if mem >= job.gpu_mem_mb:
                    gpus += [(s, g) for g in ids[: job.num_gpus - len(gpus)]]
                if len(gpus) == job.num_gpus:
                    break
            if len(gpus) < job.num_gpus:
                break                    # strict FIFO: nothing passes the head
            for s, g in gpus:
                free[s][0].remove(g)
            d.start(job, gpus)
        return d
