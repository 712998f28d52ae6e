# Shared by the MPI test scripts: a scratch directory and mpirun as root.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
read -r -a mpirun <<<"$MPIRUN"
points_in() { grep -c '"record":"point"' "$1" 2>/dev/null || true; }
