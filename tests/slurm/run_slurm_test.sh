#!/usr/bin/env bash
# tests/slurm/run_slurm_test.sh -- `make test-slurm`: the design-space sweep
# as a Slurm job array on a single-node Slurm this script starts and stops.
#
# Starts munged, slurmctld and slurmd (Debian's slurm-wlm 22.05, as root,
# no systemd, no cgroups) on free ports with a fresh state folder under
# build/slurm-test/, runs a small DSE sweep (bench only, no synthesis:
# the point is the runner) with RUNNER=slurm and the same sweep with
# RUNNER=make, and checks: the cluster comes up; the array ran one task per
# job through Slurm; the table has every job, all ok; Slurm's table equals
# the local one figure for figure; a failing job is a FAIL row and a non-zero
# sweep exit, not a lost row. Everything it started is stopped by pid.
# Prints "tests: N passed, N failed, N skipped"; exit 1 on any failure.
# Bounded: every wait has a deadline (the whole run takes ~30 s here).
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
BUILD=${BUILD:-build}
T=$root/$BUILD/slurm-test
pass=0 fail=0 skip=0
ok()   { echo "[  PASS ] $*"; pass=$((pass + 1)); }
bad()  { echo "[  FAIL ] $*"; fail=$((fail + 1)); }
summary() { echo "tests: $pass passed, $fail failed, $skip skipped"; }

need() { command -v "$1" >/dev/null || { echo "test-slurm: $1 not found (make deps installs slurmctld slurmd slurm-client munge)"; bad "tools present"; summary; exit 1; }; }
for t in munged slurmctld slurmd sbatch sinfo; do need "$t"; done
[ "$(id -u)" = 0 ] || { echo "test-slurm: needs root (slurmd runs jobs as their user)"; skip=1; summary; exit 0; }
[ -x "$BUILD/bin/spu" ] || { echo "test-slurm: $BUILD/bin/spu not built"; bad "spu built"; summary; exit 1; }

pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for _ in $(seq 50); do
        local alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    # slurmstepd ignores TERM: any left under our spool are ours
    if [ -d "$T/spool" ]; then
        for p in $(pgrep -f "slurmstepd.*" 2>/dev/null); do
            grep -qs "$T" "/proc/$p/environ" && kill -KILL "$p" 2>/dev/null
        done
    fi
}
trap cleanup EXIT

rm -rf "$T"
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log"
chmod 0711 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$T/munge/munge.key"

free_port() {   # a TCP port nobody listens on
    local p
    while :; do
        p=$(( 20000 + RANDOM % 30000 ))
        ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return; }
    done
}
ctld_port=$(free_port)
d_port=$(free_port)
[ "$d_port" = "$ctld_port" ] && d_port=$((ctld_port + 1))
host=$(hostname -s)
cpus=$(nproc)

cat > "$T/slurm.conf" <<EOF
ClusterName=spu-test
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=spu Nodes=$host Default=YES MaxTime=10 State=UP
EOF
export SLURM_CONF=$T/slurm.conf

setsid munged -F --force --socket="$T/munge/munge.socket" --key-file="$T/munge/munge.key" \
    --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/seed" --log-file="$T/log/munged.log" \
    </dev/null >"$T/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$T/munge/munge.socket" ] && break; sleep 0.1; done
setsid slurmctld -D -c -f "$T/slurm.conf" </dev/null >"$T/log/slurmctld.out" 2>&1 &
pids+=($!)
setsid slurmd -D -f "$T/slurm.conf" </dev/null >"$T/log/slurmd.out" 2>&1 &
pids+=($!)

up=0
for _ in $(seq 150); do   # 30 s
    st=$(sinfo -h -n "$host" -o %T 2>/dev/null | head -n 1)
    case $st in idle|mixed|allocated) up=1; break ;; esac
    sleep 0.2
done
if [ $up = 1 ]; then ok "single-node cluster up (node $host $st, ports $ctld_port/$d_port)"
else
    bad "single-node cluster up (sinfo: '${st:-none}')"
    tail -n 5 "$T"/log/*.log "$T"/log/*.out 2>/dev/null
    summary; exit 1
fi

# --- the sweep, through Slurm and locally ---------------------------------------------
export DSE_SHAPES="2x2 4x4 4x8 8x8" DSE_SEEDS=1 DSE_SYNTH=0 DSE_BENCH=model DSE_GEMM=40x24x56
export DSE_BANKS="2 4"
njobs=8
t0=$(date +%s)
RUNNER=slurm SBATCH_OPTS="--time=5" timeout 240 synth/sweep/dse.sh "$T/dse-slurm" > "$T/log/sweep-slurm.out" 2>&1
rc=$?
t1=$(date +%s)
if [ $rc = 0 ]; then ok "RUNNER=slurm sweep exits 0 ($((t1 - t0)) s)"
else bad "RUNNER=slurm sweep exits 0 (exit $rc)"; tail -n 20 "$T/log/sweep-slurm.out"; fi

outs=$(ls "$T/dse-slurm/slurm/"*.out 2>/dev/null | wc -l)
[ "$outs" = $njobs ] && ok "one Slurm array task per job ($outs task logs)" \
                     || bad "one Slurm array task per job ($outs task logs, $njobs jobs)"

tab=$T/dse-slurm/table.tsv
rows=$(($(wc -l < "$tab" 2>/dev/null || echo 1) - 1))
nok=$(awk -F'\t' 'NR > 1 && $2 == "ok"' "$tab" 2>/dev/null | wc -l)
[ "$rows" = $njobs ] && [ "$nok" = $njobs ] && ok "table: $rows rows, all ok" \
                                            || bad "table: $rows rows, $nok ok (want $njobs)"

# figures: cycles > 0 and GMAC/s = macs / cycles * clk / 1000 on every row
chk=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { cy = $c["cycles"]; g = $c["gmacs"]; want = $c["macs"] / cy * $c["clk_mhz"] / 1000
      if (!(cy > 0) || g == "" || (g - want) > 1e-5 * want || (want - g) > 1e-5 * want) { print $1; bad = 1 } }
    END { exit bad }' "$tab" 2>&1)
[ $? = 0 ] && ok "every row has cycles and GMAC/s = macs/cycles*clk" || bad "figures wrong on: $chk"

grep -q '"host": "'"$host"'"' "$T/dse-slurm/table.json" 2>/dev/null && \
    [ "$(grep -c '"status": "ok"' "$T/dse-slurm/table.json")" = $njobs ] \
    && ok "table.json: $njobs objects, status ok, host recorded" || bad "table.json"

RUNNER=make JOBS=2 timeout 240 synth/sweep/dse.sh "$T/dse-make" > "$T/log/sweep-make.out" 2>&1
strip() { cut -f1,2,3,6- "$1" | sort; }   # drop wall_s and host
if [ -f "$T/dse-make/table.tsv" ] && diff <(strip "$T/dse-make/table.tsv") <(strip "$tab") > "$T/log/diff.out"; then
    ok "Slurm table equals the local make -j table"
else
    bad "Slurm table equals the local make -j table"; head -n 10 "$T/log/diff.out"
fi

# --- a failing job is a FAIL row ------------------------------------------------------
printf 'good\techo -e "v\\n1" > $SWEEP_OUT/result.tsv\nbroken\techo -e "v\\n2" > $SWEEP_OUT/result.tsv; echo oops >&2; exit 7\n' > "$T/fail_jobs.tsv"
RUNNER=slurm timeout 120 synth/sweep/sweep.sh "$T/fail_jobs.tsv" "$T/fail" > "$T/log/sweep-fail.out" 2>&1
rc=$?
row=$(awk -F'\t' '$1 == "broken" { print $2 "," $3 }' "$T/fail/table.tsv" 2>/dev/null)
good=$(awk -F'\t' '$1 == "good" { print $2 }' "$T/fail/table.tsv" 2>/dev/null)
[ $rc = 1 ] && [ "$row" = "FAIL,7" ] && [ "$good" = ok ] \
    && ok "a failing array task: sweep exit 1, row FAIL with exit 7, others ok" \
    || bad "a failing array task (exit $rc, row '$row', good '$good')"

# --- stop everything, by pid ------------------------------------------------------------
cleanup
trap - EXIT
alive=0
for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
[ $alive = 0 ] && ok "munged, slurmctld, slurmd stopped (pids ${pids[*]})" || bad "daemons stopped"

summary
[ $fail = 0 ]
