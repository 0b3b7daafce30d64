#!/usr/bin/env bash
# Installs Slurm (slurmctld, slurmd, the client commands) and munge from apt when any of them is
# missing; prints nothing and does nothing when all are present. Package scripts must not start
# system daemons: where no /usr/sbin/policy-rc.d forbids it, one is put there for the install and
# removed afterwards. Exit 1 with one line saying why when they cannot be installed.
set -euo pipefail
need=(slurmctld slurmd sbatch squeue scontrol sinfo munged)
missing=()
for c in "${need[@]}"; do
  command -v "$c" >/dev/null 2>&1 || [ -x "/usr/sbin/$c" ] || missing+=("$c")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
say() { echo "slurm-install: $*" >&2; }
command -v apt-get >/dev/null 2>&1 || { say "missing ${missing[*]} and no apt-get to install slurm-wlm/munge"; exit 1; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if ! { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; then
    say "missing ${missing[*]}; installing slurm-wlm/munge needs root (or password-less sudo)"; exit 1
  fi
  SUDO="sudo -n"
fi
say "installing slurm-wlm munge (missing: ${missing[*]})"
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod 755 "$policy" && made_policy=1
fi
trap '[ "$made_policy" = 1 ] && $SUDO rm -f "$policy"' EXIT
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null || { say "apt-get update failed"; exit 1; }
$SUDO apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null \
  || { say "apt-get install slurm-wlm munge failed"; exit 1; }
