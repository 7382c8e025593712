#!/usr/bin/env bash
# Installs the `ringmaster` Python package built in BUILD/python/ringmaster (the pure-Python part and the _core
# extension) where Debian's python3 finds it: /usr/local/lib/python3.<minor>/dist-packages (root, or sudo). Called by
# scripts/setup.sh after every build, so README commands 1 and 2 leave `python3 -c "import ringmaster"` working.
# When the python3 first on PATH is another interpreter of the same version (pyenv, conda), it also gets a
# ringmaster.pth naming a folder that holds only this package (its other packages are left alone; without
# python3-pandas there, results come as plain tables: docs/python.md). In a venv, use pip instead (docs/python.md).
# Usage: scripts/install-python.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
src="$BUILD/python/ringmaster"
if ! ls "$src"/_core*.so > /dev/null 2>&1; then
  echo "install-python: no $src/_core*.so (a sanitizer build has no Python module): nothing installed"
  exit 0
fi
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
put() {  # folder: the package's files into folder/ringmaster, replacing an older copy
  $SUDO rm -rf "$1/ringmaster.new"
  $SUDO mkdir -p "$1/ringmaster.new"
  $SUDO cp "$src"/*.py "$src"/*.so "$1/ringmaster.new/"  # _core and the COIN-OR plugin it opens
  $SUDO rm -rf "$1/ringmaster"
  $SUDO mv "$1/ringmaster.new" "$1/ringmaster"
}
debian=$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])')
put "$debian"
other=$(command -v python3 || true)
if [ -n "$other" ]; then
  exe=$("$other" -c 'import sys; print(sys.executable)' 2>/dev/null || true)
  if [ -n "$exe" ] && [ "$(readlink -f "$exe")" != "$(readlink -f /usr/bin/python3)" ] &&
     [ "$("$other" -c 'import sys; print(sys.version_info[:2])')" = "$(/usr/bin/python3 -c 'import sys; print(sys.version_info[:2])')" ]; then
    lib=/usr/local/lib/ringmaster-python
    put "$lib"
    site=$("$other" -c 'import site; print(site.getsitepackages()[0])')
    echo "$lib" | $SUDO tee "$site/ringmaster.pth" > /dev/null
  fi
fi
