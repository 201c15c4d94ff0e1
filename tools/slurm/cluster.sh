#!/usr/bin/env bash
# A one-machine Slurm cluster in a folder of its own, for `ordo run --launcher
# srun` (tools/tests/test_slurm.py), from Debian's packages (slurmd,
# slurmctld, slurm-client, munge: tools/install-deps.sh --with-slurm).
#
#   tools/slurm/cluster.sh start DIR   start munged, slurmctld and slurmd; prints
#                                      the line `export SLURM_CONF=DIR/slurm.conf`
#   tools/slurm/cluster.sh stop DIR    cancel its jobs and end its daemons
#
# Nothing outside DIR is written or read (no /etc/slurm, no /etc/munge, no
# system munged): the munge key, the munge socket, slurm.conf, the state and
# spool folders, the pid and log files all live in DIR, and the daemons
# listen on free ports of 127.0.0.1 picked at start. The clients (srun,
# sinfo) find the cluster through SLURM_CONF. The one node, ordo-slurm, has
# 8 CPUs whatever the machine has (SlurmdParameters=config_overrides), so
# that jobs of up to 8 tasks run on a small machine, as mpiexec's
# oversubscription does. Processes are tracked without cgroups
# (proctrack/linuxproc, task/none), which a container may not offer. Every
# step is bounded by a timeout; the daemons run as the caller (root: the
# Slurm daemons must start job steps as the user who submits them).
#
# The MPI plugins of Debian's Slurm 22.05: pmi2 (MPICH's PMI-2 client) and
# pmix (pmix_v4, against Debian's PMIx 4.2, which Open MPI 4.1.4 is built
# with); `srun --mpi=list` shows them. MpiDefault here is none.
set -u
STEP_TIMEOUT=${ORDO_SLURM_STEP_TIMEOUT:-30}

die() { echo "cluster.sh: $*" >&2; exit 2; }

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_for SECONDS COMMAND...: until COMMAND succeeds, at most SECONDS.
wait_for() {
  local limit=$1 t=0
  shift
  until "$@" >/dev/null 2>&1; do
    t=$((t + 1))
    [[ $t -ge $limit ]] && return 1
    sleep 1
  done
}

start() {
  local dir=$1
  for tool in munged mungekey slurmctld slurmd srun sinfo scontrol; do
    command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] ||
      die "$tool not found: install Slurm and munge (tools/install-deps.sh --with-slurm)"
  done
  mkdir -p "$dir" || die "cannot create $dir"
  dir=$(cd "$dir" && pwd)
  [[ -e "$dir/slurm.conf" ]] && die "$dir already holds a cluster (stop it first: $0 stop $dir)"
  # munged insists that its key and socket folders are not writable by others.
  chmod 0755 "$dir"
  # shellcheck disable=SC2174  # $dir exists: -m applies to all three, each the deepest
  mkdir -m 0700 -p "$dir/munge" "$dir/state" "$dir/spool" || die "cannot create the folders in $dir"
  timeout "$STEP_TIMEOUT" mungekey --create --keyfile="$dir/munge/munge.key" || die "mungekey failed"
  timeout "$STEP_TIMEOUT" munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" ||
    die "munged did not start (log: $dir/munge/munged.log)"
  wait_for "$STEP_TIMEOUT" test -S "$dir/munge/munge.socket" || die "munged made no socket (log: $dir/munge/munged.log)"

  local ctld_port slurmd_port host
  if ! ctld_port=$(free_port) || ! slurmd_port=$(free_port); then
    die "no free port on 127.0.0.1"
  fi
  [[ "$ctld_port" != "$slurmd_port" ]] || slurmd_port=$(free_port)
  host=$(hostname -s)
  : > "$dir/plugstack.conf"
  cat > "$dir/slurm.conf" <<EOF
# Written by tools/slurm/cluster.sh: a one-node cluster on this machine, all in $dir.
ClusterName=ordo
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=ordo-slurm NodeHostname=$host NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=ordo Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
  export SLURM_CONF="$dir/slurm.conf"
  timeout "$STEP_TIMEOUT" slurmctld -f "$dir/slurm.conf" || die "slurmctld did not start (log: $dir/slurmctld.log)"
  timeout "$STEP_TIMEOUT" slurmd -f "$dir/slurm.conf" -N ordo-slurm || die "slurmd did not start (log: $dir/slurmd.log)"
  node_idle() { timeout 10 sinfo -h -n ordo-slurm -o %T | grep -qx idle; }
  wait_for "$STEP_TIMEOUT" node_idle ||
    die "the node did not become idle in ${STEP_TIMEOUT} s (logs: $dir/slurmctld.log, $dir/slurmd.log)"
  echo "export SLURM_CONF=$dir/slurm.conf"
}

# end_pid FILE: SIGTERM to the pid in FILE, SIGKILL after 10 s.
end_pid() {
  local file=$1 pid t
  [[ -f "$file" ]] || return 0
  pid=$(cat "$file" 2>/dev/null)
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for t in $(seq 1 10); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 1
  done
  kill -KILL "$pid" 2>/dev/null
  return 0
}

stop() {
  local dir=$1
  [[ -f "$dir/slurm.conf" ]] || die "$dir holds no cluster (no slurm.conf)"
  export SLURM_CONF="$dir/slurm.conf"
  timeout 10 scancel --quiet --partition=ordo >/dev/null 2>&1
  end_pid "$dir/slurmd.pid"
  end_pid "$dir/slurmctld.pid"
  end_pid "$dir/munge/munged.pid"
  return 0
}

case "${1:-}" in
  start) [[ $# -eq 2 ]] || die "usage: $0 start DIR"; start "$2" ;;
  stop) [[ $# -eq 2 ]] || die "usage: $0 stop DIR"; stop "$2" ;;
  *) die "usage: $0 start DIR | stop DIR" ;;
esac
