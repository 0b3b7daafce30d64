#!/usr/bin/env bash
# An installed divbench works from outside the checkout (docs/install.md): `cmake --install` of this build
# into a temporary prefix, the installed tree holds what it should and nothing else, and the installed
# binary, run from a temporary folder with a bare environment (env -i; PATH: nvdisasm's folder and
# /usr/bin:/bin), finds its constants and kernel facts under <prefix>/share/divbench on its own:
#   attribute --static PROGRAM                       a document with kernels
#   attribute --from-counts <source>/tests/data/attribute/lanes --out X.json   exit 0, kernels, the installed constants
#   attribute diff LANES X.json                      exit 0, 8 branches matched, none changed
#   attribute diff (a document with a new divergent branch)   exit 1
#   attribute diff FOLDER FOLDER                     the same verdict as the build tree's divbench
#   attribute -- /bin/true                           the injection library found in <prefix>/lib/divbench
# and a copy of the binary alone (no share/, no lib/) names every place it looked for each.
# usage: install_test.sh CMAKE BUILD_DIR SOURCE_DIR PROGRAM TOOLKIT_BIN BINDIR LIBDIR DATADIR
#   (BINDIR, LIBDIR, DATADIR: the install's folders relative to the prefix, as cmake/Install.cmake names them)
set -euo pipefail
cmake=$1 build=$2 src=$3 program=$4 tools=$5 bindir=$6 libdir=$7 datadir=$8
t0=$SECONDS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAIL: $*"; exit 1; }

"$cmake" --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }

# The layout: exactly these files.
expect=("$bindir/divbench" "$datadir/call_path.json" "$datadir/loop_cost.json" "$datadir/memory.json")
[ -f "$build/kernel_facts.json" ] && expect+=("$datadir/kernel_facts.json")
for lib in libdivbench_inject.so libdivbench_pcsample.so; do
  [ -f "$build/$lib" ] && expect+=("$libdir/$lib")
done
want=$(printf '%s\n' "${expect[@]}" | sort)
got=$(cd "$prefix" && find . -type f | sed 's|^\./||' | sort)
[ "$want" = "$got" ] || fail "installed files differ from the layout:"$'\n'"$(diff <(echo "$want") <(echo "$got") || true)"
echo "layout: ok ($(echo "$got" | wc -l) files)"

work=$tmp/work
mkdir -p "$work"
cd "$work"
divbench=$prefix/$bindir/divbench
# The folder of the nvdisasm the bare environment gets: TOOLKIT_BIN's, else the one on this PATH, else the
# pip wheel's (where divbench itself would look with this environment's python3).
nvdisasm=""
for c in "$tools/nvdisasm" "$(command -v nvdisasm || true)" \
         $(python3 -c 'import site; print(" ".join(d + "/nvidia/" + s + "/bin/nvdisasm" for d in site.getsitepackages() + [site.getusersitepackages()] for s in ("cu13", "cu12", "cuda_nvdisasm")))' 2>/dev/null || true); do
  if [ -n "$c" ] && [ -x "$c" ]; then nvdisasm=$c; break; fi
done
[ -n "$nvdisasm" ] || fail "no nvdisasm in $tools, on PATH or in a pip wheel"
tools=$(dirname "$nvdisasm")
run() { env -i HOME="$tmp" TMPDIR="$tmp" PATH="$tools:/usr/bin:/bin" "$@"; }
py() { python3 -c "$1" "${@:2}"; }

# The static table of a program of the build.
run "$divbench" attribute --static "$program" --out static.json > static.log 2>&1 || { cat static.log; fail "attribute --static"; }
py 'import json, sys; d = json.load(open(sys.argv[1])); k = d["kernels"]; assert k and any(x["branches"] for x in k), d.keys(); print(f"static: ok ({len(k)} kernels)")' static.json \
  || fail "attribute --static: no kernels with branches"

# Recorded counts: the constants found in the install's share/ (memory.json and call_path.json beside them).
lanes=$src/tests/data/attribute/lanes
run "$divbench" attribute --quiet --from-counts "$lanes" --out lanes.json > lanes.log 2>&1 || { cat lanes.log; fail "attribute --from-counts"; }
grep -q "$prefix/$datadir/loop_cost.json" lanes.json || fail "--from-counts: the document does not name $prefix/$datadir/loop_cost.json"
py 'import json, sys; k = json.load(open(sys.argv[1]))["kernels"]; assert k; print(f"from-counts: ok ({len(k)} kernels, installed constants)")' lanes.json \
  || fail "attribute --from-counts: no kernels"

# attribute diff: the saved folder against its own document, then a new divergent branch (the gate fails).
run "$divbench" attribute diff "$lanes" lanes.json --json diff.json > diff.log 2>&1 || { cat diff.log; fail "attribute diff LANES lanes.json"; }
py 'import json, sys; s = json.load(open(sys.argv[1]))["summary"]; assert s["branches_matched"] == 8 and s["branches_changed"] == 0, s; print("diff folder/document: ok")' diff.json \
  || fail "attribute diff: expected 8 branches matched, none changed"
data=$src/tests/data/attribute/diff
rc=0
run "$divbench" attribute diff "$data/lanes_base.json" "$data/lanes_added_branch.json" --json added.json > added.log 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat added.log; fail "attribute diff with a new divergent branch: exit $rc, expected 1"; }
echo "diff regression: ok (exit 1)"

# Two saved folders (the gate's inputs in CI: base and head --save-counts): the installed binary's verdict is
# the build tree's (exit status and summary), each run from here with the bare environment.
cp -r "$lanes" "$tmp/head"
rc_inst=0 rc_build=0
run "$divbench" attribute diff "$lanes" "$tmp/head" --json folders_installed.json > folders_installed.log 2>&1 || rc_inst=$?
run "$build/divbench" attribute diff "$lanes" "$tmp/head" --json folders_build.json > folders_build.log 2>&1 || rc_build=$?
[ "$rc_inst" = "$rc_build" ] || { cat folders_installed.log folders_build.log; fail "two saved folders: exit $rc_inst installed, $rc_build from the build tree"; }
py 'import json, sys; a, b = (json.load(open(p))["summary"] for p in sys.argv[1:3]); assert a == b, (a, b); m = a.get("branches_matched"); print(f"diff of two saved folders: the same verdict installed and from the build tree (exit {sys.argv[3]}, {m} matched)")' \
  folders_installed.json folders_build.json "$rc_inst" || fail "two saved folders: the installed verdict differs from the build tree's"

# A run finds the installed injection library (a program without CUDA code: refused after the library is
# found, with or without a GPU or CUPTI).
if [ -f "$build/libdivbench_inject.so" ]; then
  rc=0
  run "$divbench" attribute -- /bin/true > true.log 2>&1 || rc=$?
  if [ "$rc" != 2 ] || grep -q "libdivbench_inject.so not found" true.log; then cat true.log; fail "attribute -- /bin/true: exit $rc"; fi
  echo "injection library: ok (found in $libdir)"
fi

# Nothing to find: the binary alone (no share/ beside its bin/) names every place it looked.
mkdir -p "$tmp/bare/bin"
cp "$divbench" "$tmp/bare/bin/divbench"
rc=0
run "$tmp/bare/bin/divbench" attribute --quiet --from-counts "$lanes" --out bare.json > bare.log 2>&1 || rc=$?
[ "$rc" = 2 ] || { cat bare.log; fail "no constants: exit $rc, expected 2"; }
for place in "$tmp/bare/bin/loop_cost.json" "results/h200/loop_cost.json in $tmp/bare/bin" "$tmp/bare/share/divbench/loop_cost.json"; do
  grep -qF "$place" bare.log || { cat bare.log; fail "no constants: the message does not name $place"; }
done
echo "no constants: ok (every place named)"
rc=0
run "$tmp/bare/bin/divbench" attribute --constants "$prefix/$datadir/loop_cost.json" -- /bin/true > bare_inject.log 2>&1 || rc=$?
[ "$rc" = 2 ] || { cat bare_inject.log; fail "no injection library: exit $rc, expected 2"; }
for place in "$tmp/bare/bin/libdivbench_inject.so" "$tmp/bare/bin/lib/libdivbench_inject.so" "$tmp/bare/$libdir/libdivbench_inject.so"; do
  grep -qF "$place" bare_inject.log || { cat bare_inject.log; fail "no injection library: the message does not name $place"; }
done
echo "no injection library: ok (every place named)"
echo "install test: ok in $((SECONDS - t0)) s"
