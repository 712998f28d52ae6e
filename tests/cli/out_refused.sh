#!/usr/bin/env bash
# out_refused.sh TARGET REGEX -- COMMAND...: COMMAND, with @OUT@ replaced by a
# path of kind TARGET, must exit 2 with REGEX in its stderr, without blocking,
# and leave that path as it was. TARGET is one of
#   dir      an empty directory (it must stay empty)
#   devnull  /dev/null (it must stay a character device)
#   fifo     a FIFO nobody reads (opening it for writing must not block)
#   FILE     a copy of FILE (its bytes must not change: another probe's results)
set -uo pipefail
target=$1
regex=$2
shift 3
# shellcheck source=scratch.sh
source "$(dirname "$0")/scratch.sh"
if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
case $target in
  dir) out=$work/out.d; mkdir "$out" ;;
  devnull) out=/dev/null ;;
  fifo) out=$work/out.fifo; mkfifo "$out" ;;
  *) out=$work/$(basename "$target"); cp "$target" "$out" ;;
esac
cmd=("${@//@OUT@/$out}")
timeout 120 "${cmd[@]}" >"$work/stdout" 2>"$work/stderr"
rc=$?
cat "$work/stderr"
[[ $rc != 124 ]] || fail "timed out: opening $out blocked"
[[ $rc == 2 ]] || fail "exit code $rc, expected 2"
grep -Eq -- "$regex" "$work/stderr" || fail "stderr does not match /$regex/"
case $target in
  dir) [[ -d $out && -z $(ls -A "$out") ]] || fail "the directory changed" ;;
  devnull) [[ -c /dev/null ]] || fail "/dev/null is no longer a character device" ;;
  fifo) [[ -p $out ]] || fail "the FIFO changed" ;;
  *) cmp -s "$target" "$out" || fail "$out changed" ;;
esac
echo "OK: exit 2, message matches /$regex/, $target left as it was"
