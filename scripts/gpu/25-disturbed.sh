#!/usr/bin/env bash
# Stage: disturbed measurements (docs/timing.md "Disturbed measurements").
#   gpu_test.log        tests/gpu/disturbed_test.sh: co-tenant -> exit 4, quiet -> 0, SIGINT -> 130
#   quiet/              quiet sweeps that the noise criterion was NOT made from: the false-alarm rate
#                       ($DIVBENCH_QUIET_RUNS default sweeps, 2 single-sampling, 2 mem_divergent, 2 --all)
#   cases/<case>.*      `divbench --sweep k` beside divbench_cotenant in each co-tenant case of the
#                       issue (stdout .out, stderr .err, result .json, exit code in .rc), once with
#                       NVML's process list (the normal run) and once without it (DIVBENCH_NVML_PROCESSES=off:
#                       what the noise criterion alone catches), and the gate against the committed
#                       results/h200/kway_default.json (.gate.txt)
#   summary.json        python3 -m divbench.disturbed_report over the folder
STAGE=disturbed
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "$0")/lib.sh"
D="$G/disturbed"
mkdir -p "$D/quiet" "$D/cases"
COTENANT="$BIN/divbench_cotenant"

bash tests/gpu/disturbed_test.sh "$DIVBENCH" "$COTENANT" scripts >"$D/gpu_test.log" 2>&1
echo "rc=$?" >>"$D/gpu_test.log"
note "disturbed: gpu test $(tail -1 "$D/gpu_test.log") (expect rc=0)"

quiet() {  # quiet NAME ARGS...
  local name=$1
  shift
  "$DIVBENCH" "$@" --quiet --out "$D/quiet/$name.json" >/dev/null 2>"$D/quiet/$name.err"
  echo "$name rc=$?" >>"$D/quiet/rc.txt"
}
: >"$D/quiet/rc.txt"
for i in $(seq -w 1 "${DIVBENCH_QUIET_RUNS:-24}"); do quiet "kway_$i" --sweep k --no-samples; done
for i in 1 2; do
  quiet "single_$i" --sweep k --sampling single --no-samples
  quiet "mem_divergent_$i" --sweep k --body mem_divergent --k 1,2,4,8,16,32 --no-samples
  mkdir -p "$D/quiet/all_$i"
  "$DIVBENCH" --all --no-samples --quiet --out "$D/quiet/all_$i/" >/dev/null 2>"$D/quiet/all_$i.err"
  echo "all_$i rc=$?" >>"$D/quiet/rc.txt"
done

run_case() {  # run_case NAME COTENANT-ARGS...
  local name=$1 pid
  shift
  rm -f "$D/cases/$name.ready"
  "$COTENANT" "$@" --seconds 120 --ready "$D/cases/$name.ready" >"$D/cases/$name.load.txt" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do [ -s "$D/cases/$name.ready" ] && break; sleep 0.1; done
  for mode in nvml noproc; do
    local stem="$D/cases/$name.$mode" env=()
    [ "$mode" = noproc ] && env=(env DIVBENCH_NVML_PROCESSES=off)
    "${env[@]}" "$DIVBENCH" --sweep k --out "$stem.json" >"$stem.out" 2>"$stem.err"
    echo "$?" >"$stem.rc"
    python3 -m divbench.compare --gate results/h200/kway_default.json "$stem.json" >"$stem.gate.txt" 2>&1
    echo "rc=$?" >>"$stem.gate.txt"
  done
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  echo "$*" >"$D/cases/$name.args"
  rm -f "$D/cases/$name.ready"
}
run_case every_sm_busy --blocks-per-sm 4 --threads 256 --busy-us 10000
run_case one_block_one_sm --blocks 1 --threads 256 --busy-us 10000
run_case tenth_of_sms --blocks 13 --threads 256 --busy-us 10000
run_case every_sm_1ms_in_10ms --blocks-per-sm 4 --threads 256 --busy-us 1000 --period-us 10000
run_case every_sm_0.1ms_in_10ms --blocks-per-sm 4 --threads 256 --busy-us 100 --period-us 10000
run_case every_sm_20us_in_10ms --blocks-per-sm 4 --threads 256 --busy-us 20 --period-us 10000
# The idle co-tenant (a notebook left open: a context and 1 GiB, no launch): expected quiet (exit 0, with a
# note); NVML's per-process utilization samples are what tell it from the faint one above.
run_case idle_context_1gib --idle --hold-mib 1024

python3 -m divbench.disturbed_report "$D" --out "$D/summary.json" >"$D/summary.txt" 2>&1 || fail=1
cat "$D/summary.txt" >>"$RESULTS/summary.txt"
exit $fail
