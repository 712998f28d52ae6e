# shellcheck shell=bash
# Sourced by the install tests (easybuild_module.sh, spack_package.sh): what
# they check once a package manager has installed hetprobe.

# installed_hetprobe_runs TOOL PREFIX WORK LOGS: the `hetprobe` on PATH is the
# one under PREFIX; it prints its version, and `hetprobe characterize --quick`
# on the host backend writes WORK/run with its report and summary (its output:
# LOGS/characterize.txt). Exit 1, naming the failure, otherwise.
installed_hetprobe_runs() {
  local tool=$1 prefix=$2 work=$3 logs=$4 found
  found=$(command -v hetprobe) || { echo "$tool: no hetprobe on PATH" >&2; exit 1; }
  echo "$tool: hetprobe on PATH: $found"
  [[ $found == "$prefix/"* ]] || { echo "$tool: that hetprobe is not the one under $prefix" >&2; exit 1; }
  hetprobe --version
  (cd "$work" && hetprobe characterize --quick --device host "$work/run") >"$logs/characterize.txt" 2>&1 || {
    tail -n 30 "$logs/characterize.txt" >&2
    echo "$tool: characterize --quick failed" >&2
    exit 1
  }
  grep -q "run directory: $work/run" "$logs/characterize.txt"
  [[ -f $work/run/summary.txt && -f $work/run/report.md ]] || { echo "$tool: no report in $work/run" >&2; exit 1; }
  echo "$tool: its hetprobe characterize --quick wrote $work/run (report and summary)"
}

# install_failed TOOL LOG: the last lines of a failed install's LOG, and exit 1.
install_failed() {
  tail -n 40 "$2" >&2
  echo "$1: the install failed (log: $2)" >&2
  exit 1
}
