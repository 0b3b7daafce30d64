#!/usr/bin/env bash
# GPU test (label gpu): a co-tenant on the same GPU makes a sweep untrustworthy, and nothing else does.
#   1. divbench_cotenant keeps every SM busy; `divbench --sweep k` beside it must exit 4 naming the
#      co_tenant reason, write its result marked untrustworthy, and the Python verdict must agree (exit 4);
#   2. once the co-tenant is gone, the same sweep must be trustworthy (exit 0);
#   3. SIGINT during a sweep: exit 130, no result file and no temporary file left, no divbench process
#      left on the GPU.
# Exit 77 (skipped) without a GPU.
#   usage: disturbed_test.sh DIVBENCH COTENANT SCRIPTS_DIR
set -uo pipefail
divbench=$1 cotenant=$2 scripts=$3
tmp=$(mktemp -d)
load_pid=""
cleanup() { [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$tmp"/*.err; do [ -f "$f" ] && { echo "--- $f"; tail -5 "$f"; }; done; exit 1; }
sweep=(--sweep k --k 1,2,4,8,16 --iters 2000)

"$divbench" "${sweep[@]}" --quiet --out "$tmp/probe.json" 2>"$tmp/probe.err"
rc=$?
[ $rc -eq 3 ] && { echo "no CUDA GPU: skipped"; exit 77; }
[ $rc -eq 0 ] || fail "quiet sweep before the load exited $rc"

"$cotenant" --blocks-per-sm 4 --busy-us 10000 --seconds 60 --ready "$tmp/ready" >"$tmp/load.out" 2>&1 &
load_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/ready" ] && break; sleep 0.1; done
[ -s "$tmp/ready" ] || fail "the co-tenant did not start"
"$divbench" "${sweep[@]}" --out "$tmp/disturbed.json" >"$tmp/disturbed.out" 2>"$tmp/disturbed.err"
rc=$?
[ $rc -eq 4 ] || fail "sweep beside a co-tenant exited $rc, expected 4"
grep -q "NOT TRUSTWORTHY" "$tmp/disturbed.err" || fail "no verdict line"
grep -q "co_tenant" "$tmp/disturbed.err" || fail "the co_tenant reason is not named"
[ -f "$tmp/disturbed.json" ] || fail "the untrustworthy result was not written"
grep -q '"trustworthy": false' "$tmp/disturbed.json" || fail "the result is not marked untrustworthy"
PYTHONPATH="$scripts" python3 -m divbench.quality "$tmp/disturbed.json" >"$tmp/py.out" 2>&1
[ $? -eq 4 ] || fail "divbench.quality does not judge the disturbed result untrustworthy: $(cat "$tmp/py.out")"
kill "$load_pid"; wait "$load_pid" 2>/dev/null; load_pid=""

"$divbench" "${sweep[@]}" --out "$tmp/quiet.json" >"$tmp/quiet.out" 2>"$tmp/quiet.err"
rc=$?
[ $rc -eq 0 ] || fail "sweep after the co-tenant ended exited $rc, expected 0"
PYTHONPATH="$scripts" python3 -m divbench.quality "$tmp/quiet.json" >/dev/null || fail "divbench.quality rejects the quiet result"

mkdir "$tmp/int"
"$divbench" --sweep k --iters 200000 --out "$tmp/int/" >/dev/null 2>"$tmp/int.err" &
pid=$!
sleep 1.5
kill -INT "$pid"
wait "$pid"
rc=$?
[ $rc -eq 130 ] || fail "SIGINT: exit $rc, expected 130"
[ -z "$(ls -A "$tmp/int")" ] || fail "SIGINT left files: $(ls -A "$tmp/int")"
grep -q "interrupted by SIGINT" "$tmp/int.err" || fail "no interrupt message"
if command -v nvidia-smi >/dev/null && nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -qx "$pid"; then
  fail "the interrupted divbench still holds the GPU"
fi
echo "disturbed_test: co-tenant -> exit 4 (co_tenant named), quiet -> exit 0, SIGINT -> 130 with nothing left"
