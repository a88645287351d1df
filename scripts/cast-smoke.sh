#!/usr/bin/env bash
# Runs Foundry's `cast` against a fresh devnet: the commands scripts use most, each checked for its answer.
# Not part of `npm test` (CI has no foundry binary). Usage: scripts/cast-smoke.sh [path/to/cast]
# (`npm install @foundry-rs/cast` anywhere gives one: node_modules/@foundry-rs/cast-linux-amd64/bin/cast).
set -euo pipefail
CAST=${1:-cast}
PORT=${PORT:-18645}
here=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp)
DEVNET_FROM_SOURCE=${DEVNET_FROM_SOURCE:-1} node "$here/bin/devnet.js" start --port "$PORT" --mining auto >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q Listening "$log" && break; sleep 0.1; done

R=(--rpc-url "http://127.0.0.1:$PORT")
KEY=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80
DEV0=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266
DEV1=0x70997970C51812dc3A010C7d01b50e0d17dc79C8
TOKEN=0x3009300930093009300930093009300930093009
failures=0
expect() { # expect NAME PATTERN command... (PATTERN: extended regex matched against the output)
  local name=$1 wanted=$2; shift 2
  local got; got=$("$@" 2>&1 || true)
  if grep -qE -- "$wanted" <<<"$got"; then echo "ok   $name"; else echo "FAIL $name: wanted '$wanted', got: $got"; failures=$((failures + 1)); fi
}

expect chain-id '^31337$' "$CAST" chain-id "${R[@]}"
expect balance '^10000000000000000000000$' "$CAST" balance "$DEV1" "${R[@]}"
expect send-private-key '1 \(success\)' "$CAST" send "$DEV1" --value 1ether --private-key "$KEY" "${R[@]}"
expect send-unlocked '1 \(success\)' "$CAST" send --unlocked --from "$DEV0" "$DEV1" --value 1 "${R[@]}"
expect call '^1000000000000 ' "$CAST" call "$TOKEN" 'balanceOf(address)(uint256)' "$DEV1" "${R[@]}"
expect token-send '1 \(success\)' "$CAST" send "$TOKEN" 'transfer(address,uint256)' "$DEV1" 1000000 --private-key "$KEY" "${R[@]}"
expect revert 'execution reverted: ERC20: transfer amount exceeds balance' \
  "$CAST" call "$TOKEN" 'transfer(address,uint256)' "$DEV1" 100000000000000000000 --from "$DEV0" "${R[@]}"
expect estimate '^[0-9]{5}$' "$CAST" estimate "$TOKEN" 'transfer(address,uint256)' "$DEV1" 1 --from "$DEV0" "${R[@]}"
expect nonce-pending '^3$' "$CAST" nonce "$DEV0" --block pending "${R[@]}"
expect logs 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef "$CAST" logs --from-block 0 --address "$TOKEN" "${R[@]}"
hash=$("$CAST" send "$TOKEN" 'transfer(address,uint256)' "$DEV1" 7 --private-key "$KEY" --async "${R[@]}")
expect receipt '^true$' "$CAST" receipt "$hash" status "${R[@]}"
expect run 'Transaction successfully executed' "$CAST" run "$hash" "${R[@]}"
raw=$("$CAST" mktx "$DEV1" --value 1 --private-key "$KEY" "${R[@]}")
expect publish '"status":"0x1"' "$CAST" publish "$raw" "${R[@]}"
expect create '1 \(success\)' "$CAST" send --private-key "$KEY" "${R[@]}" --create 0x6080604052348015600e575f5ffd5b50603e80601a5f395ff3fe60806040525f5ffdfe
expect anvil_setBalance '^256$' bash -c "'$CAST' rpc anvil_setBalance 0x0000000000000000000000000000000000000042 0x100 ${R[*]} >/dev/null && '$CAST' balance 0x0000000000000000000000000000000000000042 ${R[*]}"
expect eth_sign 0xf16ea9a3478698f695fd1401bfe27e9e4a7e8e3da94aa72b021125e31fa899cc "$CAST" rpc eth_sign "$DEV0" 0x68656c6c6f "${R[@]}"
echo "$CAST: $failures failure(s)"
exit $((failures > 0))
