#!/bin/bash
# RSS of one devnet after harness steps, with its heap spaces and GC pauses (bench/heapStats.cjs):
#   bash bench/rssSteps.sh [ROOT] [STEPS]     # ROOT: a checkout with bin/ and dist/ (default: this one), STEPS: b,c,d,e,f,g,h,i
#   HEAP_STATS_FLAGS="--heap-growing-percent=0" bash bench/rssSteps.sh     # a V8 flag set at run time
# Starts `ROOT/bin/devnet.js start --mining auto`, runs ../shared/bench/peers.mjs against it (--url/--pid, the same
# workload `npm run bench -- --only STEPS` runs) and prints the harness' VmRSS reading and the heap figures then.
set -e
HERE=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${1:-$HERE}; STEPS=${2:-b,c,d,e,f,g,h,i}
OUT=$(mktemp -d); PORT=$((20000 + RANDOM % 20000))
HEAP_STATS_DIR=$OUT NODE_OPTIONS="--require $HERE/bench/heapStats.cjs" node "$ROOT/bin/devnet.js" start --port $PORT --mining auto --quiet > "$OUT/devnet.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null' EXIT
for _ in $(seq 1 200); do curl -s -m 1 -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' http://127.0.0.1:$PORT > /dev/null && break; sleep 0.1; done
IDLE=$(awk '/VmRSS/ {print $2}' /proc/$PID/status)
PEERS_DIR=${PEERS_DIR:-${TMPDIR:-/tmp}/devnet-peers} node "$HERE/../shared/bench/peers.mjs" --url http://127.0.0.1:$PORT --pid $PID --name devnet --only "$STEPS" --out-dir "$OUT" --log-dir "$OUT" --no-summary > /dev/null 2> "$OUT/harness.err"
kill -USR2 $PID; sleep 0.5
echo "steps $STEPS: idle $((IDLE / 1024)) MiB, after $(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).measurements.i_rss?.rss_mib ?? "? (add i to STEPS)")' "$OUT/devnet.json") MiB (harness VmRSS)"
cat "$OUT/heap-$PID.txt"
