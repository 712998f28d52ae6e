#!/usr/bin/env bash
# A real Slurm on one machine: slurmctld on the test bed's head and a slurmd on
# each of four simulated hosts (a host each, so srun's tasks land on distinct
# hosts, as on a cluster), munge with a key of its own, every daemon started
# here and ended with the test bed. bench/batch/submit_pairs.sh submits pairs
# 1+2 and 3+4 for real: sbatch, then srun starting one rank on each host
# through Slurm's PMIx; both jobs merge into one file, which must hold both
# pairs. Set-up installs slurm-wlm's daemons where missing (root, apt); where
# Slurm cannot run here, the test says why and skips.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
skip_unless_testbed

# Slurm and munge, installed where missing (bench/setup_apt.sh waits for apt's lock).
slurm_packages=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${slurm_packages[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
if ((${#missing[@]})); then
  # shellcheck source=../../bench/setup_apt.sh
  source "$root/bench/setup_apt.sh"
  echo "$test_name: installing ${missing[*]} (apt)"
  if ! apt_get install -y -qq --no-install-recommends "${slurm_packages[@]}" >"$tb_log/apt.log" 2>&1; then
    echo "skipped: multinode $test_name: slurm-wlm could not be installed: $(tail -n 1 "$tb_log/apt.log")"
    exit 0
  fi
fi
testbed_up 4
conf=$tb_dir/slurm
mkdir -p "$conf/state"
for host in "${tb_hosts[@]}"; do mkdir -p "$conf/spool-$host" "$conf/tmp-$host"; done
cat >"$conf/slurm.conf" <<CONF
# One Slurm of the test bed: the controller on head, a slurmd per host, all as root.
ClusterName=hetprobe-testbed
SlurmctldHost=head($tb_prefix.254)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$conf/munge.socket
StateSaveLocation=$conf/state
SlurmdSpoolDir=$conf/spool-%n
SlurmctldPidFile=$conf/slurmctld.pid
SlurmdPidFile=$conf/slurmd-%n.pid
SlurmctldLogFile=$tb_log/slurmctld.log
SlurmdLogFile=$tb_log/slurmd-%n.log
# Each host its own temporary folder: the PMIx plugin makes spmix_appdir_UID_JOB.STEP
# in it on every node of a step, which one shared /tmp would hold only once.
TmpFS=$conf/tmp-%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
ReturnToService=2
SlurmdParameters=config_overrides
CONF
for i in "${!tb_hosts[@]}"; do
  echo "NodeName=${tb_hosts[i]} NodeAddr=$tb_prefix.$((i + 1)) CPUs=1 State=UNKNOWN" >>"$conf/slurm.conf"
done
echo "PartitionName=testbed Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$conf/slurm.conf"
# slurmd 22.05 loads a cgroup plugin even with proctrack/linuxproc and task/none,
# and `ip netns exec` remounts /sys for the namespace, which hides the machine's
# cgroup mounts: a tmpfs in each slurmd's own mount namespace stands in for
# them, which cgroup/v1 reads and finds empty (it creates nothing there).
echo "CgroupPlugin=cgroup/v1" >"$conf/cgroup.conf"
export SLURM_CONF=$conf/slurm.conf
if ! srun --mpi=list 2>&1 | grep -q pmix; then
  echo "skipped: multinode $test_name: this Slurm has no PMIx plugin (srun --mpi=list), which Open MPI's ranks need under srun"
  exit 0
fi

# munge: its own key, socket and files; its socket is a file, so every namespace reaches it.
head -c 1024 /dev/urandom >"$conf/munge.key"
chmod 0400 "$conf/munge.key"
# The daemons, in the foreground as this script's children (the test bed ends
# them); a slurmd that does not come up is why the test skips, with its log.
on head munged --foreground --force --key-file="$conf/munge.key" --socket="$conf/munge.socket" \
  --pid-file="$conf/munged.pid" --log-file="$conf/munged.log" --seed-file="$conf/munge.seed" >"$tb_log/munged.log" 2>&1 &
for _ in $(seq 50); do [[ -S $conf/munge.socket ]] && break; sleep 0.1; done
on head slurmctld -D -f "$SLURM_CONF" >"$tb_log/slurmctld.out" 2>&1 &
for host in "${tb_hosts[@]}"; do
  on "$host" sh -c 'mount -t tmpfs cgroup-stand-in /sys/fs/cgroup && exec "$@"' sh slurmd -D -f "$SLURM_CONF" \
    >"$tb_log/slurmd-$host.out" 2>&1 &
done
idle=0
for _ in $(seq 150); do
  idle=$(on head sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
  ((idle == ${#tb_hosts[@]})) && break
  sleep 0.2
done
if ((idle != ${#tb_hosts[@]})); then
  echo "skipped: multinode $test_name: slurmd did not come up ($idle of ${#tb_hosts[@]} nodes idle): $(on head sinfo -h -N 2>&1 | tr '\n' ';') $(tail -q -n 2 "$tb_log"/slurmd-*.log 2>/dev/null | tr '\n' ' ')"
  exit 0
fi
echo "$test_name: Slurm up: $(on head sinfo -h -o '%P %D nodes %t %N')"

# The pairs, submitted for real; each job's srun puts one rank on each host of its pair.
mkdir -p "$work/submit"
step submit 0 on head env -C "$work/submit" HETPROBE_OUTDIR="$work/sweep" "$root/bench/batch/submit_pairs.sh" \
  "$tb_dir/hosts" --time=5 -- --device host --sizes 1KiB,64KiB --layouts SSB --access stream --rounds 2 \
  --reps 2 --warmup 1 --no-host-stream --quiet
expect_in submit "Submitted batch job"
for _ in $(seq 600); do [[ -z $(on head squeue -h -o %i 2>/dev/null) ]] && break; sleep 0.2; done
[[ -z $(on head squeue -h -o %i) ]] || { echo "FAILED: $test_name: jobs still queued after 120 s" >&2; exit 1; }
cat "$work/submit"/hetprobe-pair-*.log >"$tb_log/jobs.log" 2>/dev/null || true
check pair "$work/sweep/interference-hpa-hpb.jsonl" hpa hpb
check pair "$work/sweep/interference-hpc-hpd.jsonl" hpc hpd
check merged "$work/sweep/merged.jsonl" hpa,hpb hpc,hpd
# Each pair ran as a Slurm job on its two nodes (the job's own log line).
for pair in hpa-hpb hpc-hpd; do
  grep -q "sweep_pair: job [0-9]* (restart 0) on $pair" "$tb_log/jobs.log" ||
    { echo "FAILED: $test_name: no Slurm job ran on $pair (build/multinode/slurm/logs/jobs.log)" >&2; exit 1; }
done
echo "$test_name: passed"
