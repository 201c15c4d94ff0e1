#!/bin/sh
# The launch agent of ordo's virtual nodes (`ordo run --nodes N`): a
# launcher calls it as it would call ssh, `[-options] HOST COMMAND...`
# (MPICH's Hydra through -launcher ssh -launcher-exec, which passes -x;
# Open MPI's rsh launcher through plm_rsh_agent, which passes none), to
# start its daemon for HOST. It starts it on this machine instead, in a UTS
# namespace of its own whose host name is HOST when it may (root: unshare
# --uts), so that MPI_Get_processor_name names the virtual node. Without
# that right the daemon keeps the machine's name; which nodes the library
# sees is decided by the launcher's own host list either way, and the run
# records the node map the library shows.
while [ $# -gt 0 ]; do
  case $1 in
    -*) shift ;;
    *) break ;;
  esac
done
host=$1
shift
if unshare --uts true 2>/dev/null; then
  # shellcheck disable=SC2016  # $0 and $1 are the inner sh's: $host and the command
  exec unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$host" "$*"
fi
exec sh -c "$*"
