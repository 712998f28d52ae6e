# Sourced by the GPU scripts here: paths, MPI as root, and the build.
#   $root: the repository; $build: BUILD_DIR (default build-gpu);
#   $results: RESULTS_DIR (default $build/<default_results>, set before sourcing)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build-gpu}
results=${RESULTS_DIR:-$build/${default_results:-results}}
mkdir -p "$results"
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
source "$root/tests/session.sh"  # kill_session: a run's own processes, never by name
hetprobe=$build/bench/hetprobe

step() { printf '\n=== %s\n' "$*"; }

# Configures and builds with the GPU backend; the logs go to $results.
build_gpu() {
  step "build ($build)"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHETPROBE_ENABLE_CUDA=AUTO >"$results/cmake.log"
  cmake --build "$build" -j "$(nproc)" >"$results/build.log" 2>&1 || { tail -50 "$results/build.log"; exit 1; }
}
