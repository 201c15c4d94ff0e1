#!/usr/bin/env bash
# Installs the Debian packages ordo needs, and only those that are missing.
# Idempotent: when everything is present it only asks dpkg and exits 0.
#
#   tools/install-deps.sh            install what is missing (as root), or
#                                    print the exact command to run and exit 2
#   tools/install-deps.sh --check    list what is missing, exit 2 if anything is
#   tools/install-deps.sh --with-test-tools   also what `./ordo test` needs
#                                    beyond a run: chromium (the HTML report
#                                    tested in a headless browser)
#
# ORDO_NO_INSTALL=1 turns installing off (same as --check).
set -u

packages=(
  cmake g++ make libgtest-dev librapidcheck-dev nlohmann-json3-dev clang-format
  mpich libmpich-dev
  openmpi-bin libopenmpi-dev
  python3 python3-jsonschema python3-jinja2 python3-pytest
)
check_only=0
for arg in "$@"; do
  case "$arg" in
    --check) check_only=1 ;;
    --with-test-tools) packages+=(chromium) ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

cmd="apt-get install -y ${missing[*]}"
if [[ "$check_only" == "1" || "${ORDO_NO_INSTALL:-0}" == "1" ]]; then
  echo "ordo: missing Debian packages: ${missing[*]} (install them with: sudo $cmd)" >&2
  exit 2
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "ordo: missing Debian packages: ${missing[*]}; run: sudo apt-get update && sudo $cmd" >&2
  exit 2
fi
echo "ordo: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; then
  # A fresh machine has no package lists yet: fetch them once, then retry.
  apt-get update -qq >/dev/null || { echo "ordo: apt-get update failed" >&2; exit 3; }
  apt-get install -y -qq "${missing[@]}" >/dev/null ||
    { echo "ordo: apt-get install ${missing[*]} failed" >&2; exit 3; }
fi
exit 0
