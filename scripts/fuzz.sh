#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan + coverage) in build-fuzz and runs each for SECONDS
# (default 60), two at a time, from the seed corpus in fuzz/corpus (new inputs go to build-fuzz/corpus, not into
# the repository). Fails on any crash, sanitizer report or input slower than 10 s; the input is left in
# build-fuzz/artifacts and printed (base64) so it can become a regression case in fuzz/regressions/TARGET/.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
shift || true
missing=()
for p in clang libclang-rt-14-dev; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
scripts/setup.sh build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DRINGMASTER_FUZZ=ON \
  -DRINGMASTER_TESTS=OFF -DRINGMASTER_BENCH=OFF
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(trace_canonical trace_philly trace_tiresias trace_gavel trace_synergy trace_wang2020
                                    trace_pollux cluster_yaml policy)
mkdir -p build-fuzz/artifacts build-fuzz/logs
run() {
  local t=$1
  mkdir -p "build-fuzz/corpus/$t"
  if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=0 \
     "build-fuzz/fuzz/fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
       -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t-" "build-fuzz/corpus/$t" "fuzz/corpus/$t" \
       "fuzz/regressions/$t" >"build-fuzz/logs/$t.log" 2>&1; then
    echo "fuzz $t: $(grep -E '^stat::number_of_executed_units' "build-fuzz/logs/$t.log" | awk '{print $2}') runs," \
         "$(grep -oE 'cov: [0-9]+' "build-fuzz/logs/$t.log" | tail -1), corpus $(ls "build-fuzz/corpus/$t" | wc -l) new, no failure"
  else
    echo "fuzz $t: FAILED"; tail -40 "build-fuzz/logs/$t.log"
    for a in build-fuzz/artifacts/"$t"-*; do [ -f "$a" ] && { echo "input $a (base64):"; base64 "$a"; }; done
    return 1
  fi
}
status=0
pids=()
for t in "${TARGETS[@]}"; do
  run "$t" > "build-fuzz/logs/$t.summary" 2>&1 &
  pids+=($!)
  if [ ${#pids[@]} -ge "$(nproc)" ]; then wait "${pids[0]}" || status=1; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
for t in "${TARGETS[@]}"; do cat "build-fuzz/logs/$t.summary"; done
exit $status
