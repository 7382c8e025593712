#!/usr/bin/env bash
# The files an operator installs (docs/slurm.md, runbook 2 and 4) are usable as shipped:
#   - deploy/systemd/ringmaster-serve.service: every option its ExecStart passes is one `ringmaster serve` has,
#     and (where systemd-analyze is installed) the unit verifies with ExecStart pointing at the built binary;
#   - deploy/slurm/job_submit.lua defines the two functions Slurm's job_submit/lua plugin calls (the plugin
#     itself runs it in tests/slurm/operate_test.sh).
# Usage: deploy_test.sh RINGMASTER_BINARY SOURCE_DIR
set -euo pipefail
BIN=$(readlink -f "$1"); SRC=$(readlink -f "$2")
unit="$SRC/deploy/systemd/ringmaster-serve.service"
fail() { echo "FAIL: $*"; exit 1; }
exec_start=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$unit" | tr -d '\\\n')
[ -n "$exec_start" ] || fail "no ExecStart in $unit"
help=$("$BIN" serve --help)
for opt in $(grep -o -- '--[a-z-]*' <<< "$exec_start" | sort -u); do
  grep -qE -- "${opt}([ ,=]|$)" <<< "$help" || fail "the unit passes $opt, which ringmaster serve does not have"
done
echo "unit options: $(grep -o -- '--[a-z-]*' <<< "$exec_start" | sort -u | tr '\n' ' ')"
if command -v systemd-analyze >/dev/null; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  sed "s|/usr/local/bin/ringmaster|$BIN|" "$unit" > "$tmp/ringmaster-serve.service"
  out=$(systemd-analyze verify "$tmp/ringmaster-serve.service" 2>&1 | grep -i "ringmaster-serve" || true)
  [ -z "$out" ] || fail "systemd-analyze verify: $out"
  echo "systemd-analyze verify: clean"
else
  echo "systemd-analyze not installed: the unit's syntax not verified here"
fi
lua="$SRC/deploy/slurm/job_submit.lua"
grep -q '^function slurm_job_submit(job_desc, part_list, submit_uid)' "$lua" || fail "no slurm_job_submit in $lua"
grep -q '^function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)' "$lua" || fail "no slurm_job_modify in $lua"
echo "deploy_test: all passed"
