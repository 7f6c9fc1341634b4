#!/usr/bin/env bash
# A cardarena bot in bash (with jq), through the stdin/stdout bridge: it plays any game by
# choosing a legal action at random.
#
# The bridge writes one JSON object per line on our standard input; a line of type "decision"
# gets exactly one answer line, {"choice": N} with N an index into its "actions"; every other
# line (match_start, match_end, notice) needs no answer. Logs go to standard error.
#
#   cardarena bridge -- bash examples/bridge/random_bot.sh           (CARDARENA_ADDRESS, CARDARENA_TOKEN set)
#   cardarena play --game sixth-card --bot me="cardarena bridge -- bash examples/bridge/random_bot.sh" \
#                  --bot r="python examples/python/random_bot.py"
set -euo pipefail

# One jq for the whole session turns every decision line into its number of actions.
jq --unbuffered -r 'select(.type == "decision") | .actions | length' |
  while read -r n; do
    echo "{\"choice\": $((RANDOM % n))}"
  done
