#!/usr/bin/env bash
# `make test`: the SQLite pass, then the PostgreSQL pass whatever the first gave; then each
# pass's closing line, the time taken, and a failing exit if either pass failed. $1: make.
make=${1:-make}
start=$SECONDS
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
trap 'exit 130' INT   # Ctrl-C (or a timeout's SIGTERM) stops both passes, not only the one running
trap 'exit 143' TERM
status=0
for pass in sqlite postgres; do
  t=$SECONDS
  set -o pipefail
  $make -s --no-print-directory "test-$pass" 2>&1 | tee "$log/$pass"
  rc=$?
  set +o pipefail
  ((rc)) && status=1
  echo "$pass pass: exit $rc in $((SECONDS - t)) s: $(grep -E '(passed|failed|error|skipped|no tests ran)' "$log/$pass" | tail -n 1)" >> "$log/summary"
done
echo
echo "make test, both passes in $((SECONDS - start)) s:"
cat "$log/summary"
exit $status
