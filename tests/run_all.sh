#!/usr/bin/env bash
# The whole test suite: set up, build, check the code's format
# (tests/format_check.sh), run every test that needs no GPU: unit, device
# suite on the host backend, CLI bad-input and MPI on 2 ranks (ctest), then
# the Python package installed by pip: loading, plots, merge, in-process
# probes, characterize, batch scripts, and every notebook executed headless
# (pytest), the runs across hosts simulated on this machine and a real Slurm
# (tests/multinode/, as root), then the ctest suite again built with
# AddressSanitizer and UBSan (build-asan), with EasyBuild installing the
# package beside it (tests/install/). GPU tests: tests/gpu/run.sh on a GPU node.
source "$(dirname "$0")/../bench/setup.sh"
# The test tools, which the main job's environment does without: the package's
# test extra (pytest, notebook runners, ReFrame, the pinned clang-format and ruff).
echo "setup: test tools (the test extra; about a minute the first time) ..." >&2
began=$SECONDS
setup_python_extra test
echo "setup: test tools ... done in $((SECONDS - began)) s" >&2
# The format first: a quick failure.
"$root/tests/format_check.sh"
# Sanitizers: host backend only, -O1 -g1 (line tables: stacks with file:line, a
# third less compile time than -g) so they stay quick. Any report fails its
# test; leaks are suppressed only inside the MPI and hwloc libraries. The tree
# builds in the background at the lowest priority while the tests below run:
# they wait on MPI runs and subprocesses more than they compute, and the build
# takes the idle CPU (on 2 cores, one after the other, this build took 686 s
# and pytest 809 s of a 51 min run). The tests must pass on a busy machine
# anyway (docs/testing.md).
sanitized=$root/build-asan
set -m # its own process group, so that a failure below can stop all of it
(
  renice -n 19 -p "$BASHPID" >/dev/null
  began=$SECONDS
  build_tree "$sanitized" -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" \
    -DHETPROBE_ENABLE_CUDA=OFF -DHETPROBE_ENABLE_HIP=OFF -DHETPROBE_SANITIZE=address,undefined
  echo $((SECONDS - began)) >"$sanitized.build.seconds"
) >"$sanitized.build.log" 2>&1 &
sanitized_build=$!
set +m
trap 'kill -- -"$sanitized_build" 2>/dev/null || true' EXIT
ctest --test-dir "$build" -LE gpu --output-on-failure -j "$(nproc)"
(cd "$root" && "$python" -m pytest -q)  # pyproject.toml's testpaths: tests/python and the probes' folders
# Across hosts: 2 and 4 hosts simulated here as network namespaces, and a real
# Slurm on them (tests/multinode/; root only: elsewhere each says why it skips).
HETPROBE=$build/bench/hetprobe PYTHON=$python "$root/tests/multinode/run.sh"

# The sanitizer tree, built beside the tests above (see where it starts).
if ! wait "$sanitized_build"; then
  tail -n 60 "$sanitized.build.log" >&2
  echo "run_all: the sanitizer build failed (whole log: $sanitized.build.log)" >&2
  exit 1
fi
trap - EXIT
echo "run_all: sanitizer tree built beside the tests in $(<"$sanitized.build.seconds") s" >&2
# Installed as sites install tools (docs/setup.md): EasyBuild builds the
# easyconfig into a scratch prefix and its module's hetprobe runs. It builds
# at the lowest priority beside the sanitizer tests below, which leave about
# a third of the CPU idle while they wait on MPI runs (a whole run on 2 cores
# stays under 45 min; after them, it would add about 5 min).
set -m
(renice -n 19 -p "$BASHPID" >/dev/null && exec "$root/tests/install/easybuild_module.sh") >"$build/easybuild.log" 2>&1 &
easybuild=$!
set +m
trap 'kill -- -"$easybuild" 2>/dev/null || true' EXIT
# (No -Werror here: the Release tree above holds warnings as errors in CI, and
# GCC's warnings on instrumented -O1 code include known false positives.)
# Reports are also looked for after the run, so one in a run that was meant to
# fail (bad input, a killed rank) is not taken for the expected failure:
# ASan's and LSan's in files, UBSan's (which ignores log_path beside ASan) in
# the tests' output.
reports=$sanitized/sanitizer-reports
rm -rf "$reports" && mkdir -p "$reports"
# (fast_unwind_on_malloc=0: whole stacks through MPI and hwloc, which the
# suppressions need; see tests/sanitizers/lsan.supp.)
# (intercept_tls_get_addr=0: GCC 12's runtime guesses a dynamic TLS block's
# bounds from the 16 bytes before it when its address is 16 mod 4096; under
# ASan's allocator those bytes are a chunk header, so a thread of a plugin
# Open MPI loaded could carry a bogus range (seen: 0x95c0) that LeakSanitizer's
# exit check then read: "Tracer caught signal 11", exit 1, in about one 2-rank
# test of a CI run. With it off, LSan does not scan plugins' thread-local
# blocks: what only they point to would be reported as a leak, never hidden.)
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0:intercept_tls_get_addr=0:log_path=$reports/asan
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0
# This second pass also runs as on a machine of another CPU and in the C.UTF-8
# locale, so no test leans on this machine's CPU name or locale (docs/testing.md).
export HETPROBE_HOST_CPU_NAME="Intel(R) Xeon(R) Processor (simulated by run_all.sh)" LC_ALL=C.UTF-8 LANG=C.UTF-8
status=0
# (The usage-message tests, label usage, check what a bad option prints, not
# memory: the Release pass above runs them; the parsers they reach run here in
# the unit tests and every other CLI test.)
ctest --test-dir "$sanitized" -LE "gpu|usage" --output-on-failure -j "$(nproc)" || status=$?
output=$sanitized/Testing/Temporary/LastTest.log
if compgen -G "$reports/*" >/dev/null || grep -q "runtime error:" "$output"; then
  cat "$reports"/* >&2 2>/dev/null || true
  grep -B2 -A15 "runtime error:" "$output" >&2 || true
  echo "run_all: sanitizer reports above (files in $reports, test output in $output)" >&2
  status=1
fi
if ! wait "$easybuild"; then
  tail -n 40 "$build/easybuild.log" >&2
  echo "run_all: the EasyBuild install failed (whole log: $build/easybuild.log)" >&2
  status=1
else
  grep "^easybuild_module:" "$build/easybuild.log" >&2
fi
trap - EXIT
exit $status
