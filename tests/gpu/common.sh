# shellcheck shell=bash
# Sourced by the GPU scripts here: paths, MPI as root, the build, and the
# expectations a campaign checks.
#   $root: the repository; $build: BUILD_DIR (default build-gpu);
#   $results: RESULTS_DIR (default $build/<default_results>, set before sourcing);
#   $campaign: the name its summary line starts with (default: the script's name)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build-gpu}
results=${RESULTS_DIR:-$build/${default_results:-results}}
campaign=${campaign:-$(basename "$0" .sh)}
mkdir -p "$results"
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# shellcheck source=../session.sh
source "$root/tests/session.sh"  # kill_session: a run's own processes, never by name
# shellcheck disable=SC2034  # for the scripts that source this file
{
  hetprobe=$build/bench/hetprobe
  checks=$root/tests/gpu/checks.py
  python='' hetprobe_command=''  # set by install_package
}

step() { printf '\n=== %s\n' "$*"; }

# --- Expectations -----------------------------------------------------------
# Each step states what it expects, the run goes on past a failed one, and
# `finish` (also run on exit) prints one summary line naming every failed
# expectation and exits 1 if there is one. The record is a file, so that an
# `expect` inside a pipeline (`expect ... | tee`, a subshell) still counts:
# $results/expectations.txt, one line each, "met NAME: DETAIL" or
# "FAILED NAME: DETAIL".
expectations=$results/expectations.txt
: >"$expectations"
# Verdicts go to the script's own output, whatever a step redirects.
exec {verdict_fd}>&1

# record met|FAILED NAME DETAIL [AFTER]: AFTER (a wall time) is printed, not kept
record() {
  printf '%s %s: %s\n' "$1" "$2" "$3" >>"$expectations"
  printf '%-6s %s: %s%s\n' "$1" "$2" "$3" "${4:+ $4}" >&"$verdict_fd"
}

# expect NAME CODE [--log FILE | --out FILE | --err FILE]... -- COMMAND...
# Runs COMMAND in this shell (a function may set variables; `wait PID` sees
# this shell's children) and records NAME met when it exits CODE. --log: its
# stdout and stderr to FILE; --out, --err: each to its own; the file's last
# lines are printed when the expectation fails. Always returns 0: the
# campaign goes on and `finish` fails it. (A function run here runs without
# `set -e`, as in any `||` list: it returns its own status.)
expect() { _expect "$@" || true; }

# need NAME CODE ... -- COMMAND...: expect, and finish at once when it fails
# (a build or an install the rest depends on). Not inside a pipeline.
need() { _expect "$@" || finish; }

_expect() {
  local _name=$1 _code=$2 _log='' _out='' _err='' _rc=0 _start _ms
  shift 2
  while (($#)) && [[ $1 != -- ]]; do
    case $1 in
      --log) _log=$2 ;;
      --out) _out=$2 ;;
      --err) _err=$2 ;;
      *) echo "expect $_name: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
  done
  [[ ${1:-} == -- ]] && shift
  (($#)) || { echo "expect $_name: no command after --" >&2; exit 2; }
  _start=$(date +%s%N)
  if [[ -n $_log ]]; then "$@" >"$_log" 2>&1 || _rc=$?
  elif [[ -n $_out && -n $_err ]]; then "$@" >"$_out" 2>"$_err" || _rc=$?
  elif [[ -n $_out ]]; then "$@" >"$_out" || _rc=$?
  elif [[ -n $_err ]]; then "$@" 2>"$_err" || _rc=$?
  else "$@" || _rc=$?
  fi
  _ms=$((($(date +%s%N) - _start) / 1000000))
  if ((_rc == _code)); then
    record met "$_name" "exit $_rc" "($_ms ms)"
    return 0
  fi
  record FAILED "$_name" "exit $_rc, expected $_code" "($_ms ms)"
  local _tail=${_err:-${_log:-$_out}}
  if [[ -n $_tail && -f $_tail ]]; then tail -n 30 "$_tail" >&"$verdict_fd"; fi
  return 1
}

# expect_files FILE...: each FILE exists and is not empty (a step that exits
# 0 and writes nothing has not done its job). Named by their path under $results.
expect_files() {
  local file
  for file in "$@"; do
    if [[ -s $file ]]; then record met "${file#"$results"/}" "written"
    else record FAILED "${file#"$results"/}" "missing or empty"; fi
  done
}

# below A B: exit 0 when the number A is below B (a bound on a measured number).
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }

# expect_gpus MIN HETPROBE...: `HETPROBE devices --json` runs, and --device
# auto picks a GPU backend of MIN devices or more: on the host backend every
# step would pass and prove nothing. HETPROBE: the binary, or the package's command.
expect_gpus() {
  local min=$1
  shift
  expect devices 0 --out "$results/devices.json" -- "$@" devices --json
  expect "a GPU backend of $min or more devices for --device auto" 0 -- \
    python3 "$checks" gpus "$results/devices.json" --at-least "$min"
}

# finish [EXIT_CODE COMMAND]: one line, "CAMPAIGN: all N expectations met"
# (exit 0) or "CAMPAIGN: FAILED K of N: NAME: DETAIL; ..." (exit 1, or
# EXIT_CODE when the script stopped early with it, at COMMAND). No expectation
# checked is a failure too.
# shellcheck disable=SC2120  # `finish` alone: the script got to its end
finish() {
  local rc=${1:-0} at=${2:-} line met=0 failed=() list=''
  trap - EXIT
  while IFS= read -r line; do
    case $line in
      "met "*) met=$((met + 1)) ;;
      "FAILED "*) failed+=("${line#FAILED }") ;;
    esac
  done <"$expectations"
  ((rc == 0)) || failed+=("$campaign: stopped early, exit $rc${at:+ at \`$at\`}")
  ((met + ${#failed[@]})) || failed+=("no expectation was checked")
  if ((${#failed[@]} == 0)); then
    printf '%s: all %d expectations met (%s)\n' "$campaign" "$met" "$expectations" >&"$verdict_fd"
    exit 0
  fi
  for line in "${failed[@]}"; do list+="${list:+; }$line"; done
  printf '%s: FAILED %d of %d: %s\n' "$campaign" "${#failed[@]}" $((met + ${#failed[@]})) "$list" >&"$verdict_fd"
  exit $((rc ? rc : 1))
}
trap 'finish $? "$BASH_COMMAND"' EXIT

# --- Building and installing ------------------------------------------------

# Configures and builds with the GPU backend; the logs go to $results.
build_gpu() {
  step "build ($build)"
  need cmake-configure 0 --log "$results/cmake.log" -- \
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHETPROBE_ENABLE_CUDA=AUTO
  need build 0 --log "$results/build.log" -- cmake --build "$build" -j "$(nproc)"
}

# gpu_node_ready MIN BINARY...: builds (build_gpu) unless every BINARY is
# built already, then expect_gpus MIN "$hetprobe": what a campaign that runs
# built programs needs before its first step.
gpu_node_ready() {
  local min=$1 binary
  shift
  for binary in "$@"; do
    if [[ ! -x $binary ]]; then
      build_gpu
      break
    fi
  done
  expect_gpus "$min" "$hetprobe"
}

# The Python package, as bench/setup_python.sh installs it (HETPROBE_PYTHON on
# a machine without network); sets $python and $hetprobe_command.
install_package() {
  step "pip install . (build log: $results/pip-install.log)"
  need pip-install 0 --log "$results/pip-install.log" -- source "$root/bench/setup_python.sh"
}
