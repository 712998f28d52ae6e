# Ends a test's own processes and nothing else (sourced by tests/mpi/common.sh
# and tests/gpu/common.sh). A run started with `setsid` leads a new session
# that mpirun's ranks join, so its session id (the pid `setsid CMD &` gives)
# names exactly its processes; `pkill -f NAME` would also hit other users' runs.

# The live processes of session $1 (zombies left out: they are gone already).
session_processes() { ps -o pid=,stat= -s "$1" 2>/dev/null | awk '$2 !~ /^Z/ {print $1}'; }

# SIGKILL to every process of session $1, until none is left.
kill_session() {
  local left
  while left=$(session_processes "$1") && [[ -n $left ]]; do
    # shellcheck disable=SC2086  # a list of process ids
    kill -KILL $left 2>/dev/null || true
    sleep 0.1
  done
}

# Waits until session $1 has no process left (a run stopping by itself).
wait_session_ends() { while [[ -n $(session_processes "$1") ]]; do sleep 0.1; done; }
