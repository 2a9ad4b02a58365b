#!/bin/sh
# The MCP conformance suite's client scenarios, one at a time, against the product in console
# mode (console-client.ts). The suite is built for Node 22; node20.mjs lets it run on Node 20.
# Usage: bench/conformance/run.sh [scenario…]   (no argument: all 26 client scenarios)
set -u
cd "$(dirname "$0")/../.."
SUITE="node --import ./bench/conformance/node20.mjs node_modules/@modelcontextprotocol/conformance/dist/index.js"
CLIENT="node --import tsx bench/conformance/console-client.ts"
if [ "$#" -eq 0 ]; then
  set -- $($SUITE list 2>/dev/null | sed -n '/^Client scenarios/,$p' | sed -n 's/^  - \([^ ]*\).*/\1/p')
fi
for scenario in "$@"; do
  $SUITE client --command "$CLIENT" --scenario "$scenario" --timeout 60000
done
