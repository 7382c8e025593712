#!/usr/bin/env bash
# Gavel's simulator (stanford-futuredata/gavel @c4fa400, scheduler/) unchanged, into DEST, outside the repository, as
# the goldens ran it (shared/goldens/peers/gavel/README.md): Debian's python3 with numpy and scipy; the modules it
# imports but a simulation never calls (cvxpy, grpc, matrix_completion, psutil, numa, the generated *_pb2 RPC
# modules) are import-only stubs in DEST/stubs (cvxpy raises at its first use, so an LP policy fails loudly).
# SRC is a clone of stanford-futuredata/gavel (or its bare git directory); its traces are not needed.
# Usage: bench/peers/gavel_setup.sh SRC DEST
set -euo pipefail
SRC=$1
DEST=$2
COMMIT=c4fa40097339e9608ab71fd64c8bdea96a5e4a4c
mkdir -p "$DEST/stubs"
if [ -d "$SRC/.git" ]; then GIT=(git -C "$SRC"); else GIT=(git --git-dir="$SRC"); fi
# The traces folder holds large files a partial clone may lack (git may then name one as an "invalid object" and go
# on): everything else.
"${GIT[@]}" archive "$COMMIT" scheduler ':(exclude)scheduler/traces' | tar -x -C "$DEST"
for m in cvxpy grpc matrix_completion psutil numa; do
  printf 'def __getattr__(name):\n    raise ImportError("%s is an import-only stub here: " + name)\n' "$m" > "$DEST/stubs/$m.py"
done
for m in worker_to_scheduler_pb2 worker_to_scheduler_pb2_grpc scheduler_to_worker_pb2 scheduler_to_worker_pb2_grpc \
         iterator_to_scheduler_pb2 iterator_to_scheduler_pb2_grpc common_pb2 enums_pb2; do
  printf 'def __getattr__(name):\n    return type(name, (), {})\n' > "$DEST/stubs/$m.py"
done
echo "$DEST/scheduler (PYTHONPATH=$DEST/stubs)"
