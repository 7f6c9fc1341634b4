#!/usr/bin/env bash
# A bot for the arena's tests (test_ladder.py), in bash with jq behind the stdin/stdout bridge:
# every third decision it answers a choice out of range (the number of actions), a fault; the
# others it answers at random.
set -euo pipefail

i=0
jq --unbuffered -r 'select(.type == "decision") | .actions | length' |
  while read -r n; do
    i=$((i + 1))
    if ((i % 3 == 0)); then
      echo "{\"choice\": $n}"
    else
      echo "{\"choice\": $((RANDOM % n))}"
    fi
  done
