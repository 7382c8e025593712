#!/usr/bin/env bash
# Reproduces Yu et al. 2022 (SJF-BCO) with ringmaster: builds if needed, installs Debian's
# python3-matplotlib if missing, then runs run.py (prints the tables, rewrites README.md and the PNGs).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[ -x "$root/build/ringmaster" ] || "$root/scripts/setup.sh" "$root/build" > /dev/null
if ! /usr/bin/python3 -c 'import matplotlib' 2> /dev/null; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get install -y --no-install-recommends python3-matplotlib > /dev/null
fi
exec /usr/bin/python3 "$here/run.py" "$@"
