# apt that waits for the package lock (sourced by bench/setup.sh). On a fresh
# machine unattended-upgrades holds apt's locks for minutes after boot: wait for
# them, saying who holds them and for how long we wait, rather than fail at once.
# apt's own DPkg::Lock::Timeout covers the install's frontend lock but not the
# lists lock `apt-get update` takes (apt 2.6: exit 100 at once), so the locks
# are looked up in /proc/locks (no fuser or root needed) before each call.
#   apt_lock_files: the locks (a test points them at its own files)
#   apt_lock_wait_s: the longest wait, 600 s; apt_lock_poll_s: how often it looks, 5 s
apt_lock_files=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock)
apt_lock_wait_s=600
apt_lock_poll_s=5

# The process holding one of apt_lock_files ("NAME (pid N)"), or nothing.
apt_lock_holder() {
  local file inode dev id pid
  for file in "${apt_lock_files[@]}"; do
    [[ -e $file ]] || continue
    read -r inode dev < <(stat -L -c '%i %d' "$file")
    # /proc/locks names a file MAJOR:MINOR:INODE, the device numbers in hex.
    id=$(printf '%02x:%02x:%s' $(((dev >> 8) & 0xfff)) $(((dev & 0xff) | ((dev >> 12) & 0xfff00))) "$inode")
    # (A waiter's line reads "N: -> TYPE ...": skipped, it holds nothing.)
    pid=$(awk -v id="$id" '$2 != "->" && $6 == id { print $5; exit }' /proc/locks 2>/dev/null)
    if [[ -n $pid ]]; then
      echo "$(cat "/proc/$pid/comm" 2>/dev/null || echo "a process") (pid $pid) holds $file"
      return
    fi
  done
}

# Returns once no process holds apt's locks; after apt_lock_wait_s, fails with a hint.
wait_for_apt() {
  local holder waited=0
  while holder=$(apt_lock_holder) && [[ -n $holder ]]; do
    if ((waited == 0)); then
      echo "setup: apt is busy: $holder (on a machine just booted, often unattended-upgrades); waiting for it, up to $apt_lock_wait_s s" >&2
    elif ((waited >= apt_lock_wait_s)); then
      echo "setup: apt is still busy after $waited s: $holder. Run this again once it is done" >&2
      return 1
    elif ((waited % 30 == 0)); then
      echo "setup: still waiting for apt's lock ($waited s): $holder" >&2
    fi
    sleep "$apt_lock_poll_s"
    waited=$((waited + apt_lock_poll_s))
  done
  if ((waited)); then echo "setup: apt's lock is free after $waited s" >&2; fi
  return 0
}

# apt-get ARGS...: as root or through sudo, after wait_for_apt; tried again when
# another process took the lock in between (apt exits 100 then).
apt_get() {
  local sudo=() rc=0
  [[ $(id -u) == 0 ]] || sudo=(sudo)
  for _ in 1 2 3; do
    wait_for_apt || return 1
    rc=0
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$apt_lock_wait_s" "$@" && return 0 || rc=$?
    [[ -n $(apt_lock_holder) ]] || return $rc
  done
  return $rc
}
