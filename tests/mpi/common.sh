# Shared by the MPI test scripts: a scratch directory, mpirun as root, and
# ending a run's own processes (session.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../session.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
read -r -a mpirun <<<"$MPIRUN"
# Points in results file $1; 0 before the file exists.
points_in() {
  local n
  n=$(grep -c '"record":"point"' "$1" 2>/dev/null) || true
  echo "${n:-0}"
}
