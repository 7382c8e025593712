#!/usr/bin/env bash
# Runs an experiment's Python script (experiments/<paper>/run.py) with what it needs: builds ringmaster
# if build/ringmaster is missing and installs Debian's python3-matplotlib if it is not there.
# Usage: scripts/experiment.sh path/to/run.py [args...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
script="$1"
shift
[ -x "$root/build/ringmaster" ] || "$root/scripts/setup.sh" "$root/build" > /dev/null
if ! /usr/bin/python3 -c 'import matplotlib' 2> /dev/null; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get install -y --no-install-recommends python3-matplotlib > /dev/null
fi
exec /usr/bin/python3 "$script" "$@"
