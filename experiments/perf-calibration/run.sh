#!/usr/bin/env bash
# The analytic law against measured step times (issue 26 goal 6): `ringmaster calibrate` fits its communication
# constants on Pollux's and Gavel's tables, reports its error there and, without refitting, on Sia's, and checks
# its contention term against DeepShare's pairwise ratios. Writes results.md (every table) and calibration.json
# here; points.csv (every measured step with its prediction, ~20k rows) goes to a temporary folder unless
# --keep-points is given. Under a second on one core.
# Usage: experiments/perf-calibration/run.sh [--keep-points]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
[ -x "$root/build/ringmaster" ] || "$root/scripts/setup.sh" "$root/build" > /dev/null
out=$(mktemp -d)
"$root/build/ringmaster" calibrate --data-dir "$root/../shared/traces" --out "$out" > "$here/results.md"
cp "$out/calibration.json" "$here/calibration.json"
if [ "${1:-}" = "--keep-points" ]; then cp "$out/points.csv" "$here/points.csv"; fi
rm -rf "$out"
head -1 "$here/results.md"
