#!/usr/bin/env bash
# Installs the Debian packages ordo needs, and only those that are missing.
# Idempotent: when everything is present it only asks dpkg and exits 0.
#
#   tools/install-deps.sh            install what is missing (as root), or
#                                    print the exact command to run and exit 2
#   tools/install-deps.sh --check    list what is missing, exit 2 if anything is
#   tools/install-deps.sh --with-test-tools   also what `./ordo test` needs
#                                    beyond a run: chromium (the HTML report
#                                    tested in a headless browser), clang-format,
#                                    black, flake8, mypy and shellcheck (its
#                                    format and lint steps),
#                                    perl (TAP::Parser reads the TAP view),
#                                    python3-yaml (the CI templates are parsed)
#   tools/install-deps.sh --with-systems also mmdebstrap and bubblewrap, which make
#                                    and enter the roots of other Debian releases
#                                    (`ordo systems make`, `ordo run --system`);
#                                    `./ordo test` asks for them too: it makes
#                                    Debian 13's root for its system test
#   tools/install-deps.sh --with-slurm   also Slurm and munge (slurmd slurmctld
#                                    slurm-client munge), for the one-machine
#                                    cluster of tools/slurm/cluster.sh that the
#                                    Slurm test starts (`./ordo test` asks for
#                                    it). Installed without their recommended
#                                    packages (some 30 plugin -dev packages).
#                                    No slurm.conf is written to /etc: the
#                                    cluster lives in a folder of its own; on a
#                                    machine with systemd the packages enable
#                                    their services, which stay down without an
#                                    /etc/slurm/slurm.conf (munge's starts with
#                                    the key its package makes).
#
# ORDO_NO_INSTALL=1 turns installing off (same as --check).
#
# The MPI libraries' packages are not listed here: they are the "packages" of
# every adapter tested here (vendors/*/adapter.json with "tested_here": true),
# read with Debian's python3. On a machine without python3 yet, the packages
# below (python3 among them) are installed first, then the adapters are read.
# The Fortran wrappers (mpifort.mpich, mpifort.openmpi) are in those packages
# (libmpich-dev, libopenmpi-dev); they compile with gfortran, listed below.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

packages=(
  cmake g++ gfortran make libgtest-dev librapidcheck-dev nlohmann-json3-dev libxxhash-dev
  python3 python3-jsonschema python3-jinja2 python3-pytest
)
check_only=0
no_recommends=()
for arg in "$@"; do
  case "$arg" in
    --check) check_only=1 ;;
    --with-test-tools) packages+=(chromium clang-format black flake8 mypy shellcheck perl python3-yaml) ;;
    --with-systems) packages+=(mmdebstrap bubblewrap) ;;
    --with-slurm) no_recommends+=(slurmd slurmctld slurm-client munge) ;;
  esac
done

adapter_packages() {
  /usr/bin/python3 -c '
import json, sys
seen = []
for path in sys.argv[1:]:
    adapter = json.load(open(path))
    if adapter.get("tested_here"):
        seen += [p for p in adapter.get("packages", []) if p not in seen]
print(" ".join(seen))' "$here"/../vendors/*/adapter.json 2>/dev/null
}

# install_missing [--no-install-recommends] PACKAGE...: installs those not installed (as root), or says what to run.
install_missing() {
  local missing=() p status flags=()
  if [[ "${1:-}" == "--no-install-recommends" ]]; then
    flags=(--no-install-recommends)
    shift
  fi
  for p in "$@"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  local cmd="apt-get install -y ${flags[*]:+${flags[*]} }${missing[*]}"
  if [[ "$check_only" == "1" || "${ORDO_NO_INSTALL:-0}" == "1" ]]; then
    echo "ordo: missing Debian packages: ${missing[*]} (install them with: sudo $cmd)" >&2
    return 2
  fi
  if [[ $(id -u) -ne 0 ]]; then
    echo "ordo: missing Debian packages: ${missing[*]}; run: sudo apt-get update && sudo $cmd" >&2
    return 2
  fi
  echo "ordo: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq "${flags[@]}" "${missing[@]}" >/dev/null 2>&1; then
    # A fresh machine has no package lists yet: fetch them once, then retry.
    apt-get update -qq >/dev/null || { echo "ordo: apt-get update failed" >&2; return 3; }
    apt-get install -y -qq "${flags[@]}" "${missing[@]}" >/dev/null ||
      { echo "ordo: apt-get install ${missing[*]} failed" >&2; return 3; }
  fi
  return 0
}

# Every list is looked at, so that one line names all that is missing; the exit
# code is the first list's that failed.
first_rc=0
if [[ ${#no_recommends[@]} -gt 0 ]]; then
  install_missing --no-install-recommends "${no_recommends[@]}" || first_rc=$?
fi
if [[ -x /usr/bin/python3 ]]; then
  read -r -a mpi <<< "$(adapter_packages)" || true
  install_missing "${packages[@]}" "${mpi[@]}" || { rc=$?; [[ $first_rc -ne 0 ]] || first_rc=$rc; }
  exit "$first_rc"
fi
[[ $first_rc -eq 0 ]] || exit "$first_rc"
install_missing "${packages[@]}" || exit $?
[[ -x /usr/bin/python3 ]] || { echo "ordo: /usr/bin/python3 is still missing after installing python3" >&2; exit 3; }
read -r -a mpi <<< "$(adapter_packages)" || true
install_missing "${mpi[@]}"
