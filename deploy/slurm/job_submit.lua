-- ringmaster's enforcement for Slurm (docs/slurm.md, "Every job goes through ringmaster"): every job submitted
-- to, or moved into, a ringmaster partition is held (priority 0), whether or not the user asked for -H, and a
-- user's release of such a job (`scontrol release`, `scontrol update Priority=`) is refused with a message. So no
-- job jumps the queue or bypasses the policy; `ringmaster serve`, running as root, releases each job when its
-- policy starts it and requeues it held when it preempts it. (A hold that Slurm itself calls "admin" would not
-- do: a job held at submission by this plugin shows JobHeldUser, and its owner could release it.)
--
-- Install: copy this file next to slurm.conf (as job_submit.lua), set `JobSubmitPlugins=lua` in slurm.conf, and
-- `scontrol reconfigure`. Edit RINGMASTER_PARTITIONS below to name your partition(s).
--
-- Jobs naming a ringmaster partition together with another one (`-p rm,other`) are refused: Slurm would start
-- them in the other partition without asking ringmaster. So are, for users other than root (issue 45):
--   * job arrays (`--array`): one held array would be booked as one job while its release runs every task;
--   * moving a ringmaster job to another partition (`scontrol update JobId=X Partition=open`), which would let
--     its owner release it there and skip the queue;
--   * `--no-requeue` (at submission every ringmaster job is made requeueable, `Requeue=1`, since preemption is a
--     requeue; `scontrol update Requeue=0` later is refused).
-- A user's own `scontrol hold` is kept: the plugin appends ";rm-user-hold" to the job's comment and serve leaves
-- the job held until its owner's `scontrol release`, which here only removes the mark (the job goes back to
-- ringmaster's queue, still held for ringmaster).
-- A user's own `scontrol hold` of a queued job is kept: the plugin marks it in the job's AdminComment
-- ("ringmaster: held by its user") and `serve` does not release the job until its user releases it (`scontrol
-- release`, allowed then: it only clears the mark, the job stays held for ringmaster). A job submitted with no partition while a ringmaster
-- partition is the cluster's default (`Default=YES`) is held too (set RINGMASTER_IS_DEFAULT = true then).

local RINGMASTER_PARTITIONS = { rm = true }
local RINGMASTER_IS_DEFAULT = false
-- Appended to the comment of a job its owner holds (`scontrol hold`); `ringmaster serve` reads it and leaves the job
-- held (src/live/slurm/slurm_text.cpp kUserHoldMark). The owner's `scontrol release` takes it off again.
local USER_HOLD_MARK = "rm-user-hold"

-- Which ringmaster partitions a partition list ("rm" or "rm,other" or nil) names, and whether it names others.
local function ours(list)
  if list == nil or list == "" then
    return RINGMASTER_IS_DEFAULT, false
  end
  local mine, others = false, false
  for p in string.gmatch(list, "[^,]+") do
    if RINGMASTER_PARTITIONS[p] then mine = true else others = true end
  end
  return mine, others
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  local mine, others = ours(job_desc.partition)
  if not mine then
    return slurm.SUCCESS
  end
  if others then
    slurm.log_user("ringmaster: partition list '%s' mixes a ringmaster partition with others; submit to one of them",
                   job_desc.partition)
    return slurm.ERROR
  end
  if job_desc.array_inx ~= nil and job_desc.array_inx ~= "" then
    slurm.log_user("ringmaster: job arrays are not accepted in partition %s (ringmaster books one job per " ..
                   "submission); submit each task as its own job", tostring(job_desc.partition))
    return slurm.ERROR
  end
  if job_desc.requeue == 0 and submit_uid ~= 0 then
    slurm.log_user("ringmaster: --no-requeue is not accepted in partition %s: ringmaster preempts a job by " ..
                   "requeueing it (it resumes from its checkpoint)", tostring(job_desc.partition))
    return slurm.ERROR
  end
  job_desc.requeue = 1
  job_desc.priority = 0  -- an administrator hold: only root/SlurmUser/operators can release it
  slurm.log_info("ringmaster job_submit: job from uid %u held for ringmaster (partition %s)", submit_uid,
                 tostring(job_desc.partition))
  return slurm.SUCCESS
end

-- A release is an update of the job's priority (scontrol release sets it to INFINITE); so is `scontrol update
-- Priority=`. Neither is a user's to make on a ringmaster job: refused with a message saying who releases it.
local function sets_priority(job_desc)
  local p = job_desc.priority
  return p ~= nil and p ~= slurm.NO_VAL and p ~= 0
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  if modify_uid == 0 then
    return slurm.SUCCESS  -- root (ringmaster serve, the administrator) may release, pin and requeue
  end
  local was_mine = ours(job_rec.partition)
  local comment = job_rec.comment or ""
  local marked = comment == USER_HOLD_MARK or comment:sub(-(#USER_HOLD_MARK + 1)) == ";" .. USER_HOLD_MARK
  if was_mine and job_desc.priority == 0 then
    -- the owner's `scontrol hold`: kept, and marked so that serve leaves the job held until its owner releases it
    if not marked then
      job_desc.comment = comment == "" and USER_HOLD_MARK or comment .. ";" .. USER_HOLD_MARK
    end
    slurm.log_info("ringmaster job_submit: uid %u holds job %u", modify_uid, job_rec.job_id)
    return slurm.SUCCESS
  end
  if was_mine and marked and sets_priority(job_desc) then
    -- the owner's `scontrol release` of their own hold: the mark goes, the job stays held for ringmaster's queue
    job_desc.comment = comment == USER_HOLD_MARK and "" or comment:sub(1, -(#USER_HOLD_MARK + 2))
    job_desc.priority = 0
    slurm.log_info("ringmaster job_submit: uid %u hands job %u back to ringmaster", modify_uid, job_rec.job_id)
    return slurm.SUCCESS
  end
  if was_mine and sets_priority(job_desc) then
    slurm.log_info("ringmaster job_submit: uid %u may not release job %u (ringmaster schedules it)", modify_uid,
                   job_rec.job_id)
    slurm.log_user("ringmaster: job %u is scheduled by ringmaster, which releases it when its policy starts it " ..
                   "(see `ringmaster status`); it cannot be released by hand", job_rec.job_id)
    return slurm.ERROR
  end
  if was_mine and job_desc.requeue == 0 then
    slurm.log_user("ringmaster: job %u may not be made non-requeueable: ringmaster preempts by requeueing",
                   job_rec.job_id)
    return slurm.ERROR
  end
  if job_desc.partition ~= nil then
    local mine, others = ours(job_desc.partition)
    if was_mine and not mine then
      slurm.log_info("ringmaster job_submit: uid %u may not move job %u out of partition %s", modify_uid,
                     job_rec.job_id, tostring(job_rec.partition))
      slurm.log_user("ringmaster: job %u is scheduled by ringmaster and cannot be moved to partition %s; cancel " ..
                     "it and submit it there instead", job_rec.job_id, job_desc.partition)
      return slurm.ERROR
    end
    if mine and others then
      slurm.log_user("ringmaster: partition list '%s' mixes a ringmaster partition with others", job_desc.partition)
      return slurm.ERROR
    end
    if mine and not was_mine then
      job_desc.priority = 0  -- moved into a ringmaster partition: held for ringmaster like a new job
    end
  end
  return slurm.SUCCESS
end

slurm.log_info("ringmaster job_submit.lua loaded")
return slurm.SUCCESS
