# Sourced by stage scripts: note (a line for summary.txt) and step (run a command, log it, remember a
# failure in $fail without stopping the stage). Set STAGE before sourcing.
# shellcheck disable=SC2034  # $fail is read by the stage that sources this file
fail=0
note() { echo "$*" >>"$RESULTS/summary.txt"; }
step() {  # step NAME CMD...
  local name=$1 rc
  shift
  echo "== $name: $*" >&2
  "$@" || { rc=$?; echo "!! $name failed (rc=$rc)" >&2; note "${STAGE:-stage}: $name FAILED rc=$rc"; fail=1; }
}
