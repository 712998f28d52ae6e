# shellcheck shell=bash
# Several hosts on one machine, for the multi-host tests (sourced). Each host
# is a network namespace with a UTS namespace of its own: its own name (hpa,
# hpb, ...), its own address and TCP stack, joined to the others by a veth on
# one bridge, in a subnet that exists only inside them. A head namespace on the
# same bridge plays the login node: mpirun, slurmctld, characterize and the
# checks run there, where the hosts' names resolve.
#
# Nothing outside is made or changed: the bridge and every veth are created
# inside the head's namespace, each command's /etc/hosts is bind-mounted inside
# its own mount namespace (ip netns exec makes one), and the namespaces are
# named hetprobe-<pid>-<host>, so two test beds never meet.
#
#   testbed_can_run        prints why not (and fails) where namespaces cannot be made
#   testbed_up N           makes the head and N hosts; testbed_down (on EXIT,
#                          INT and TERM, also after a failure) ends every process
#                          in them and removes them
#   on HOST CMD...         runs CMD in HOST's namespaces (HOST: head, hpa, hpb, ...)
#
# Sets tb_dir (hosts: the hosts file, one name a line; etc-hosts; agent: the
# launch agent), tb_hosts (the names), tb_subnet, and the Open MPI environment:
# the launch agent, TCP only, in the subnet, and no binding (below).

tb_subnet=10.200.0.0/24
tb_prefix=10.200.0
tb_names=(hpa hpb hpc hpd hpe hpf hpg hph)
tb_dir=""
tb_hosts=()
tb_namespaces=()

# Why this machine cannot hold the test bed ("" and success where it can).
testbed_can_run() {
  if [[ $(id -u) != 0 ]]; then echo "needs root to make network namespaces (CI runs as root)"; return 1; fi
  local tool
  for tool in ip unshare mount hostname; do
    command -v "$tool" >/dev/null || { echo "needs $tool, not found"; return 1; }
  done
  local probe=hetprobe-$$-probe why
  if ! why=$(ip netns add "$probe" 2>&1); then echo "cannot make a network namespace: $why"; return 1; fi
  if ! why=$(ip netns exec "$probe" unshare --uts true 2>&1); then
    ip netns del "$probe" 2>/dev/null
    echo "cannot make a UTS namespace: $why"
    return 1
  fi
  ip netns del "$probe"
}

tb_ns() { echo "hetprobe-$$-$1"; }

# on HOST CMD...: CMD in HOST's network namespace, in a UTS namespace of its own
# named HOST, with the test bed's /etc/hosts.
on() {
  local host=$1
  shift
  ip netns exec "$(tb_ns "$host")" unshare --uts -- "$tb_dir/enter" "$host" "$@"
}

testbed_up() {
  local n=$1 i host ns
  ((n >= 2 && n <= ${#tb_names[@]})) || { echo "testbed: 2 to ${#tb_names[@]} hosts" >&2; return 2; }
  tb_dir=$(mktemp -d /tmp/hetprobe-testbed.XXXXXX)
  trap testbed_down EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  tb_hosts=("${tb_names[@]:0:n}")
  {
    echo "127.0.0.1 localhost"
    echo "$tb_prefix.254 head"
    for ((i = 0; i < n; i++)); do echo "$tb_prefix.$((i + 1)) ${tb_hosts[i]}"; done
  } >"$tb_dir/etc-hosts"
  printf '%s\n' "${tb_hosts[@]}" >"$tb_dir/hosts"
  # enter HOST CMD...: run inside `ip netns exec NS unshare --uts`, whose mount
  # namespace is the command's own (its mounts do not reach the machine's).
  cat >"$tb_dir/enter" <<ENTER
#!/bin/sh
host=\$1
shift
mount --bind "$tb_dir/etc-hosts" /etc/hosts && hostname "\$host" && exec "\$@"
ENTER
  # Open MPI's launch agent: called as AGENT HOST COMMAND..., as it would call ssh.
  cat >"$tb_dir/agent" <<AGENT
#!/bin/sh
host=\$1
shift
exec ip netns exec "hetprobe-$$-\$host" unshare --uts -- "$tb_dir/enter" "\$host" sh -c "\$*"
AGENT
  chmod +x "$tb_dir/enter" "$tb_dir/agent"

  ns=$(tb_ns head)
  ip netns add "$ns" && tb_namespaces+=("$ns")
  ip -n "$ns" link set lo up
  ip -n "$ns" link add br0 type bridge
  ip -n "$ns" addr add "$tb_prefix.254/24" dev br0
  ip -n "$ns" link set br0 up
  for ((i = 0; i < n; i++)); do
    host=${tb_hosts[i]}
    ns=$(tb_ns "$host")
    ip netns add "$ns" && tb_namespaces+=("$ns")
    # The veth pair is made in the head's namespace, its far end moved straight into the host's.
    ip -n "$(tb_ns head)" link add "v-$host" type veth peer name eth0 netns "$ns"
    ip -n "$(tb_ns head)" link set "v-$host" master br0 up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$tb_prefix.$((i + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
  done

  export OMPI_MCA_plm_rsh_agent=$tb_dir/agent
  export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=$tb_subnet OMPI_MCA_oob_tcp_if_include=$tb_subnet
  # Open MPI binds a host's first rank to its first core, and every simulated
  # host's first core is this machine's core 0: a pair's two ranks would share
  # it, and a rendezvous, which needs the receiver to run while the sender
  # spins, would wait for the scheduler's tick (8-12 ms a message measured;
  # docs/cross-node.md). Hosts of their own cores are what the test bed stands
  # for, so it binds nothing: the kernel spreads the ranks.
  export OMPI_MCA_hwloc_base_binding_policy=none
  if [[ $(id -u) == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
  echo "testbed: hosts ${tb_hosts[*]} in $tb_subnet (namespaces hetprobe-$$-*), files in $tb_dir" >&2
}

# Every process in the namespaces, then the namespaces (their veths and the
# bridge go with them), then the files. Safe to call twice.
testbed_down() {
  local ns pids round
  for round in TERM KILL; do
    for ns in "${tb_namespaces[@]}"; do
      pids=$(ip netns pids "$ns" 2>/dev/null) || continue
      # shellcheck disable=SC2086  # a list of process ids
      [[ -z $pids ]] || kill -"$round" $pids 2>/dev/null || true
    done
    [[ $round == KILL ]] || sleep 0.5
  done
  for ns in "${tb_namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  tb_namespaces=()
  [[ -z $tb_dir ]] || rm -rf "$tb_dir"
  tb_dir=""
}

# kill_hosts HOST...: SIGKILL to every process in those hosts' namespaces, as
# a failure of those nodes (and of the login node's launcher, with head) would.
kill_hosts() {
  local host pids
  for host in "$@"; do
    pids=$(ip netns pids "$(tb_ns "$host")" 2>/dev/null) || continue
    # shellcheck disable=SC2086  # a list of process ids
    [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
  done
}
