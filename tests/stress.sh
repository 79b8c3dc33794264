#!/usr/bin/env bash
# Run test paths N times while two busy loops hold both cores, and report each failing test with its count.
#
#   tests/stress.sh [-n RUNS] [PATH ...]      (default: 10 runs of tests/ui tests/engine)
#
# A test that fails here can only pass on a quiet machine: that is a defect (wait for a condition,
# never for a time). Exits non-zero when any run failed; the busy loops are always stopped.
# Ctrl+C stops it at once; a SIGTERM is handled once the pytest run under way ends. Each run's log is
# kept in a whimbrel-stress.* directory under $TMPDIR when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=10
if [[ "${1:-}" == "-n" ]]; then
    runs="${2:?-n needs a number}"
    shift 2
fi
if [[ ! "$runs" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: tests/stress.sh [-n RUNS] [PATH ...]" >&2
    exit 2
fi
paths=("$@")
[[ ${#paths[@]} -gt 0 ]] || paths=(tests/ui tests/engine)
python="${PYTHON:-.venv/bin/python}"

logs="$(mktemp -d "${TMPDIR:-/tmp}/whimbrel-stress.XXXXXX")"
busy=()
stop_busy() {
    [[ ${#busy[@]} -gt 0 ]] && kill "${busy[@]}" 2>/dev/null
    wait "${busy[@]}" 2>/dev/null
    busy=()
}
trap stop_busy EXIT
trap 'exit 130' INT TERM

# Two busy loops, one per core; each also ends by itself once this script is gone (even if SIGKILLed).
for _ in 1 2; do
    (trap - INT TERM; while kill -0 "$$" 2>/dev/null; do :; done) &
    busy+=("$!")
done

last_line() { grep -v '^[[:space:]]*$' "$1" | tail -n 1; }

failed_runs=0
for ((run = 1; run <= runs; run++)); do
    log="$logs/run-$run.txt"
    if "$python" -m pytest -q -rfE -p no:cacheprovider "${paths[@]}" >"$log" 2>&1; then
        echo "run $run/$runs: $(last_line "$log")"
    else
        failed_runs=$((failed_runs + 1))
        echo "run $run/$runs FAILED: $(last_line "$log")"
        # the short summary names each failure; a leak report or a crash has no such line
        named="$(grep -E '^(FAILED|ERROR) ' "$log" | sed -E 's/ - .*//')"
        named+=$'\n'"$(sed -nE 's/^pid [0-9]+: .*\(started during (.*)\)$/LEFT A PROCESS RUNNING \1/p' "$log")"
        [[ -n "${named//$'\n'/}" ]] || named="(run $run failed without naming a test: see its log)"
        sed '/^$/d' <<<"$named" >>"$logs/failures.txt"
    fi
done

touch "$logs/failures.txt"
echo
echo "== ${paths[*]}: ${runs} runs with two busy loops, ${failed_runs} failed," \
     "$(wc -l <"$logs/failures.txt") failures in all =="
if [[ $failed_runs -eq 0 ]]; then
    rm -rf "$logs"
    exit 0
fi
echo "failures per test (count, test):"
sort "$logs/failures.txt" | uniq -c | sort -rn
echo "logs of every run: $logs"
exit 1
