#!/usr/bin/env bash
# A private one-node Slurm cluster on this machine (for tests/slurm, and to try scripts/slurm by hand):
#   local_cluster.sh start DIR  install slurm-wlm and munge when missing (install.sh); write DIR/slurm.conf
#                               (one node: this host at 127.0.0.1 with its CPUs, no GRES; free ports on
#                               127.0.0.1); start munged, slurmctld and slurmd with every file under DIR
#                               (no systemd, nothing under /etc or /run; munged's files in /tmp when a
#                               folder above DIR is not traversable by all); wait until the node is idle.
#                               Prints `export SLURM_CONF=DIR/slurm.conf` on stdout.
#   local_cluster.sh stop DIR   cancel every job, stop the daemons `start` started (by the pids in
#                               DIR/pids), then check that no process of this cluster is left (daemons and
#                               slurmstepd carry DIVBENCH_SLURM_CLUSTER=DIR in their environment, jobs
#                               SLURM_JOB_ID and this SLURM_CONF); any straggler is killed by pid, named,
#                               and the exit status is 1.
# Exit 1 with the reason (and the failing daemon's log) when the cluster cannot start or stop cleanly.
# Needs root: slurmd starts each job as its submitting user.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
say() { echo "local_cluster: $*" >&2; }
usage() { say "usage: local_cluster.sh start|stop DIR"; exit 2; }
[ $# -eq 2 ] || usage
cmd="$1"
mkdir -p "$2"
dir="$(cd "$2" && pwd)"
conf="$dir/slurm.conf"
node="$(hostname -s)"
marker="DIVBENCH_SLURM_CLUSTER=$dir"
# munged refuses a socket below a folder that not everyone may traverse (a checkout in `mktemp -d`,
# mode 700, is one). Its files go in DIR/munge when every folder above DIR is traversable by all, else
# in a folder of /tmp named after DIR (the same for start and stop), removed by stop.
traversable_by_all() {  # PATH: every folder from / down to PATH has execute permission for others
  local p="$1"
  while [ "$p" != "/" ] && [ -n "$p" ]; do
    [ "$(( 0$(stat -c %a "$p") & 1 ))" -eq 1 ] || return 1
    p="$(dirname "$p")"
  done
}
if traversable_by_all "$(dirname "$dir")"; then
  mdir="$dir/munge"
else
  mdir="/tmp/divbench-munge-$(printf %s "$dir" | cksum | cut -d' ' -f1)"
fi
export SLURM_CONF="$conf"
PATH="$PATH:/usr/sbin:/sbin"

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
env_of() { { tr '\0' '\n' < "/proc/$1/environ"; } 2>/dev/null; }
# The pid is one of our daemons (or a slurmstepd they started) only if it still carries the marker
# (pids are reused).
ours() { alive "$1" && env_of "$1" | grep -qxF "$marker"; }
pid_of() { [ -f "$dir/pids" ] || return 0; awk -v n="$1" '$1 == n { print $2 }' "$dir/pids"; }

# Every process of this cluster, one pid a line: those carrying the marker (daemons, slurmstepd),
# jobs (Slurm's SLURM_JOB_ID with this SLURM_CONF, even one that left its slurmstepd), and all their
# descendants. Never this script itself.
cluster_pids() {
  python3 - "$marker" "SLURM_CONF=$conf" "$$" <<'PYEOF'
import os, sys
marker, conf, me = sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3]
parent, roots = {}, set()
for p in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{p}/stat", "rb") as f:
            parent[p] = f.read().rsplit(b")", 1)[1].split()[1].decode()
        with open(f"/proc/{p}/environ", "rb") as f:
            env = f.read().split(b"\0")
    except OSError:
        continue
    if p != me and (marker in env or (conf in env and any(e.startswith(b"SLURM_JOB_ID=") for e in env))):
        roots.add(p)
mark, changed = set(roots), True
while changed:
    new = {p for p, pp in parent.items() if pp in mark and p not in mark}
    mark |= new
    changed = bool(new)
for p in sorted(mark - {me}, key=int):
    print(p)
PYEOF
}

show_log() {  # NAME: the last lines of a daemon's log
  local f
  for f in "$dir/log/$1.log" "$dir/log/$1.out"; do
    [ -s "$f" ] && { echo "--- $f (last 15 lines)" >&2; tail -n 15 "$f" >&2; }
  done
  return 0
}

stop_pid() {  # NAME PID: TERM, wait up to 15 s, then KILL
  local name="$1" pid="$2" deadline=$((SECONDS + 15))
  ours "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  while [ "$SECONDS" -lt "$deadline" ]; do ours "$pid" || { say "stopped $name (pid $pid)"; return 0; }; sleep 0.1; done
  say "$name (pid $pid) ignored SIGTERM for 15 s: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  sleep 0.5
}

stop_cluster() {
  local ctld jobs left=() p deadline
  ctld="$(pid_of slurmctld)"
  if ours "$ctld"; then
    jobs=$(squeue -h -o %i 2>/dev/null | tr '\n' ' ' || true)
    if [ -n "${jobs// /}" ]; then
      say "cancelling jobs still queued or running: $jobs"
      # shellcheck disable=SC2086  # a list of job ids
      scancel $jobs 2>/dev/null || true
      deadline=$((SECONDS + 30))
      while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
    fi
  fi
  for name in slurmd slurmctld munged; do stop_pid "$name" "$(pid_of "$name")"; done
  # slurmstepd and job processes end with their jobs; give them a moment, then name and kill any left.
  deadline=$((SECONDS + 10))
  while :; do
    mapfile -t left < <(cluster_pids)
    [ "${#left[@]}" -eq 0 ] || [ "$SECONDS" -ge "$deadline" ] && break
    sleep 0.5
  done
  rm -f "$dir/pids"
  [ "$mdir" = "$dir/munge" ] || rm -rf "$mdir"
  [ "${#left[@]}" -eq 0 ] && return 0
  for p in "${left[@]}"; do
    say "left running: pid $p ($({ tr '\0' ' ' < "/proc/$p/cmdline"; } 2>/dev/null)): SIGKILL"
    kill -KILL "$p" 2>/dev/null || true
  done
  return 1
}

start_daemon() {  # NAME ARGS...: in the foreground as our child, output to DIR/log/NAME.out
  local name="$1"; shift
  env "$marker" "$@" </dev/null >"$dir/log/$name.out" 2>&1 &
  echo "$name $!" >> "$dir/pids"
}

fail_start() {  # NAME REASON
  say "cannot start the cluster: $2"
  show_log "$1"
  stop_cluster || true
  exit 1
}

wait_for() {  # SECONDS NAME CHECK...: poll CHECK every 0.2 s while NAME's daemon lives
  local limit="$1" name="$2" deadline=$((SECONDS + $1)); shift 2
  while [ "$SECONDS" -lt "$deadline" ]; do
    "$@" >/dev/null 2>&1 && return 0
    # alive, not ours: right after the start `env` may not yet have exec'd the daemon with the marker
    # (seen once under load: "slurmctld exited" while its log said it was running)
    alive "$(pid_of "$name")" || fail_start "$name" "$name exited (status in its log)"
    sleep 0.2
  done
  fail_start "$name" "$name not ready after $limit s"
}

start_cluster() {
  [ "$(id -u)" -eq 0 ] || { say "cannot start the cluster: needs root (slurmd starts jobs as their user)"; exit 1; }
  bash "$here/install.sh" || { say "cannot start the cluster: slurm-wlm/munge not installed"; exit 1; }
  for name in munged slurmctld slurmd; do
    ! ours "$(pid_of "$name")" || { say "a cluster is already running in $dir: local_cluster.sh stop $dir"; exit 1; }
  done
  rm -rf "$mdir" "$dir/state" "$dir/spool" "$dir/log" "$dir/pids"
  mkdir -p "$mdir" "$dir/state" "$dir/spool" "$dir/log"
  chmod 755 "$dir" "$mdir"   # munged wants its socket folder traversable and not writable by others
  (umask 077 && head -c 1024 /dev/urandom > "$mdir/munge.key")
  chmod 400 "$mdir/munge.key"
  local ports cpus
  read -r -a ports < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
  cpus="$(nproc)"
  cat > "$conf" <<EOF
# Written by tests/slurm/local_cluster.sh: one node, this host at 127.0.0.1, no GRES, state under $dir.
ClusterName=divbench-local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$mdir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/state/slurmctld.pid
SlurmdPidFile=$dir/spool/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
MinJobAge=3600
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
  local sock="$mdir/munge.socket"
  start_daemon munged munged --foreground --key-file="$mdir/munge.key" --socket="$sock" \
    --pid-file="$mdir/munged.pid" --seed-file="$mdir/munged.seed" --log-file="$dir/log/munged.log"
  wait_for 10 munged bash -c "munge -n -S '$sock' | unmunge -S '$sock'"
  start_daemon slurmctld slurmctld -D -f "$conf"
  wait_for 30 slurmctld scontrol ping
  start_daemon slurmd slurmd -D -f "$conf" -N "$node"
  wait_for 30 slurmd bash -c "sinfo -h -n '$node' -o %T | grep -qx idle"
  say "one-node cluster up: node $node ($cpus CPUs), slurmctld port ${ports[0]}, slurmd port ${ports[1]}, state in $dir"
  echo "export SLURM_CONF=$conf"
}

case "$cmd" in
  start) start_cluster ;;
  stop) stop_cluster ;;
  *) usage ;;
esac
