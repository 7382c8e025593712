#!/usr/bin/env bash
# A private Slurm 22.05 cluster on 127.0.0.1 for ringmaster's integration tests: one slurmctld and one
# `slurmd -N nX` per node (Debian's slurm-wlm is built with multiple-slurmd support), fake GPUs through GRES
# with File= device nodes, its own munged (own key and socket). Everything lives in DIR; stop kills only the
# PIDs recorded in DIR/pid, after checking each is still the program it started.
#
#   local_slurm.sh start DIR [NODES=4] [GPUS=4] [CPUS=8] [MEM_MB=32000]   (prints: export SLURM_CONF=...)
#   local_slurm.sh stop DIR
#   local_slurm.sh stop-ctld DIR | start-ctld DIR                          (slurmctld only: SIGTERM, it saves its state)
#
# Partitions: rm (ringmaster's: DefMemPerGPU, deploy/slurm/job_submit.lua holds every job for ringmaster), open
# (the same nodes, Slurm's own scheduling) and nomem (no default memory). Ports: RM_SLURM_PORT (slurmctld, default 26817) and RM_SLURM_PORT+100+i for node i. Needs root (mknod,
# SlurmUser=root). The packages are slurm-wlm and munge (apt-get; .ci/run installs them).
set -euo pipefail
cmd=${1:?start|stop|stop-ctld|start-ctld}; DIR=${2:?directory}
mkdir -p "$DIR"; DIR=$(cd "$DIR" && pwd)
NODES=${3:-4}; GPUS=${4:-4}; CPUS=${5:-8}; MEM=${6:-32000}
PORT=${RM_SLURM_PORT:-26817}
HOST=$(hostname -s)
CONF="$DIR/etc/slurm.conf"

own_kill() {  # pidfile expected-comm
  local f=$1 comm=$2 pid
  [ -s "$f" ] || return 0
  pid=$(cat "$f")
  if [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = "$comm" ]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do [ -e "/proc/$pid" ] || break; sleep 0.1; done
    [ -e "/proc/$pid" ] && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

wait_for() {  # what, command...
  local what=$1; shift
  for _ in $(seq 100); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "local_slurm: $what did not come up; logs in $DIR/log" >&2; return 1
}

start_ctld() {
  SLURM_CONF=$CONF slurmctld -f "$CONF" -i
  wait_for slurmctld env SLURM_CONF="$CONF" scontrol ping
  cp "$DIR/run/slurmctld.pid" "$DIR/pid/slurmctld.pid"
}

case "$cmd" in
start)
  command -v slurmctld >/dev/null && command -v munged >/dev/null || {
    echo "local_slurm: needs slurm-wlm and munge (apt-get install slurm-wlm munge)" >&2; exit 1; }
  [ "$(id -u)" = 0 ] || { echo "local_slurm: needs root (fake GPU device nodes, SlurmUser=root)" >&2; exit 1; }
  mkdir -p "$DIR"/{etc,state,log,pid,run,dev,munge,out}
  for i in $(seq 1 "$NODES"); do mkdir -p "$DIR/spool/n$i"; done
  for g in $(seq 0 $((GPUS - 1))); do [ -e "$DIR/dev/gpu$g" ] || mknod "$DIR/dev/gpu$g" c 195 "$g"; done
  # munge: a private daemon with its own key and socket (the system's munged, if any, is not touched)
  [ -s "$DIR/munge/munge.key" ] || { dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 2>/dev/null; chmod 400 "$DIR/munge/munge.key"; }
  chmod 700 "$DIR/munge"
  munged --force --key-file="$DIR/munge/munge.key" --socket="$DIR/munge/munge.socket" \
    --pid-file="$DIR/munge/munged.pid" --log-file="$DIR/log/munged.log" --seed-file="$DIR/munge/seed" 2>>"$DIR/log/munged.log"
  wait_for munged munge --socket="$DIR/munge/munge.socket" -n
  cp "$DIR/munge/munged.pid" "$DIR/pid/munged.pid"
  cat > "$CONF" <<CONF
# ringmaster test cluster: $NODES nodes x $GPUS fake GPUs, $CPUS CPUs, $MEM MB (tests/slurm/local_slurm.sh)
ClusterName=rmtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket,cred_expire=10
MpiDefault=none
SwitchType=switch/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
SlurmdParameters=config_overrides
ReturnToService=2
JobRequeue=1
MinJobAge=3600
KillWait=2
InactiveLimit=0
SlurmdTimeout=60
SlurmctldTimeout=60
$(for i in $(seq 1 "$NODES"); do
  echo "NodeName=n$i NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$((PORT + 100 + i)) CPUs=$CPUS RealMemory=$MEM Gres=gpu:$GPUS State=UNKNOWN"
done)
JobSubmitPlugins=lua
# rm: ringmaster's (docs/slurm.md: memory per GPU by default, every job held for ringmaster by job_submit.lua);
# open: the same nodes, scheduled by Slurm alone (an overlapping partition); nomem: no default memory (serve's check)
PartitionName=rm Nodes=n[1-$NODES] Default=NO MaxTime=INFINITE State=UP DefMemPerGPU=1000
PartitionName=open Nodes=n[1-$NODES] Default=YES MaxTime=INFINITE State=UP
PartitionName=nomem Nodes=n[1-$NODES] Default=NO MaxTime=INFINITE State=UP
CONF
  cp "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../../deploy/slurm/job_submit.lua" "$DIR/etc/job_submit.lua"
  printf 'AutoDetect=off\nNodeName=n[1-%d] Name=gpu File=%s/dev/gpu[0-%d]\n' "$NODES" "$DIR" $((GPUS - 1)) > "$DIR/etc/gres.conf"
  start_ctld
  for i in $(seq 1 "$NODES"); do
    SLURM_CONF=$CONF slurmd -N "n$i" -f "$CONF"
  done
  for i in $(seq 1 "$NODES"); do
    wait_for "slurmd n$i" test -s "$DIR/run/slurmd-n$i.pid"
    cp "$DIR/run/slurmd-n$i.pid" "$DIR/pid/slurmd-n$i.pid"
  done
  idle() { [ "$(SLURM_CONF=$CONF sinfo -h -p rm -t idle -o '%D' | awk '{s+=$1} END{print s+0}')" = "$NODES" ]; }
  wait_for "$NODES idle nodes" idle
  echo "export SLURM_CONF=$CONF"
  ;;
stop-ctld)
  own_kill "$DIR/pid/slurmctld.pid" slurmctld
  ;;
start-ctld)
  start_ctld
  ;;
stop)
  if [ -s "$DIR/pid/slurmctld.pid" ]; then SLURM_CONF=$CONF timeout 5 scancel -p rm,open,nomem 2>/dev/null || true; fi
  for f in "$DIR"/pid/slurmd-*.pid; do [ -e "$f" ] && own_kill "$f" slurmd; done
  own_kill "$DIR/pid/slurmctld.pid" slurmctld
  own_kill "$DIR/pid/munged.pid" munged
  # job payloads started by the slurmd's (slurmstepd) die with their job; any left are ours too
  ;;
*) echo "usage: $0 start|stop|stop-ctld|start-ctld DIR ..." >&2; exit 2 ;;
esac
