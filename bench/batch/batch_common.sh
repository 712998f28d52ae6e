# Shared by the batch scripts (sourced): which hetprobe to run, mpirun as root,
# the hosts file, and the merge step.
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# Open MPI refuses to start as root unless told.
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

# The executable: $HETPROBE, else the installed package's, else the CMake build's.
if [[ -z ${HETPROBE:-} ]]; then
  HETPROBE=$(python3 -c 'import hetprobe; print(hetprobe.binary())' 2>/dev/null ||
             { [[ -x $repo/.venv/bin/python ]] && "$repo/.venv/bin/python" -c 'import hetprobe; print(hetprobe.binary())'; } ||
             echo "$repo/build/bench/hetprobe")
fi
hetprobe=$HETPROBE
[[ -x $hetprobe ]] || { echo "batch: no hetprobe executable at $hetprobe (set HETPROBE)" >&2; exit 2; }

# The Python with the hetprobe package (merge, the hosts file): python3's, else the checkout's .venv.
hetprobe_python() {
  if ! python3 -c 'import hetprobe' 2>/dev/null && [[ -x $repo/.venv/bin/python ]]; then
    echo "$repo/.venv/bin/python"
  else
    echo python3
  fi
}

# read_hosts PROG FILE [--resolve]: the hosts of FILE, one a line, checked by
# hetprobe.run.hosts (blank names, fewer than 2 hosts, ...); exits 2 with its message.
read_hosts() {
  local prog=$1 file=$2
  shift 2
  "$(hetprobe_python)" -c 'import sys; from hetprobe.run.hosts import main; sys.exit(main())' --prog "$prog" "$@" "$file" ||
    exit 2
}

# Every interference-*.jsonl of a folder into merged.jsonl (rewritten each time).
# Pair jobs that end together merge one at a time (flock, where installed): each
# job merges after its own file is complete, so the last merge holds every pair.
merge_results() {
  local dir=$1 py lock=()
  py=$(hetprobe_python)
  shopt -s nullglob
  local files=("$dir"/interference-*.jsonl)
  ((${#files[@]})) || return 0
  if command -v flock >/dev/null; then lock=(flock "$dir/.merge.lock"); fi
  "${lock[@]}" "$py" -m hetprobe merge --overwrite -o "$dir/merged.jsonl" "${files[@]}"
}
