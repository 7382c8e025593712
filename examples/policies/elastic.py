"""An elastic whole scheduler in Python (docs/elastic.md, docs/python.md): FIFO on first-fit GPUs; while nobody waits,
every `period` seconds each running elastic job takes the idle GPUs of the servers it runs on (up to its gpus_max);
when the first waiting job does not fit, the jobs that grew give their extra GPUs back first. Every resize costs the job a restart, hence the
period. It shows the API, not a good policy: on Pollux's workload-1 (pollux-64, measured:pollux) its mean JCT is 9,131 s
against fifo's 7,963 s, since a wider job speeds up less than linearly and pays its restarts while others queue.
--policy "py:file=examples/policies/elastic.py;class=GrowIdle"."""
import ringmaster


class GrowIdle(ringmaster.Policy):
    period = 300.0  # seconds between two growths

    def __init__(self):
        self.next_growth = 0.0

    def schedule(self, view):
        d = ringmaster.Decisions()
        free = {s.index: [set(s.free_gpu_ids), s.gpu_mem_gb * 1024] for s in view.servers}
        waiting = list(view.waiting)
        # The head does not fit in the idle GPUs: the jobs that grew go back to the width they asked for.
        if waiting and waiting[0].num_gpus > sum(len(ids) for ids, _ in free.values()):
            for job in view.running:
                if job.elastic and job.width > job.num_gpus:
                    keep, back = job.gpus[: job.num_gpus], job.gpus[job.num_gpus:]
                    for s, g in back:
                        free[s][0].add(g)
                    d.resize(job, keep)
        for job in waiting:  # FIFO, first fit, at the width it asks for
            gpus = []
            for s, (ids, mem) in free.items():
                if mem >= job.gpu_mem_mb:
                    gpus += [(s, g) for g in sorted(ids)[: job.num_gpus - len(gpus)]]
                if len(gpus) == job.num_gpus:
                    break
            if len(gpus) < job.num_gpus:
                break  # strict FIFO: nothing passes the head
            for s, g in gpus:
                free[s][0].remove(g)
            d.start(job, gpus)
        if not waiting and view.now_s >= self.next_growth:
            for job in view.running:
                if not job.elastic or job.width >= job.gpus_max:
                    continue
                extra = []
                for s in sorted({s for s, _ in job.gpus}):
                    extra += [(s, g) for g in sorted(free[s][0])][: job.gpus_max - job.width - len(extra)]
                if extra:
                    for s, g in extra:
                        free[s][0].remove(g)
                    d.resize(job, job.gpus + extra)
            self.next_growth = view.now_s + self.period
            if view.running:
                d.wake_at(self.next_growth)
        return d
