#!/usr/bin/env bash
# Runs one libFuzzer target: first every input that once crashed it (regressions/NAME, each must now
# pass), then fuzzing from its seed corpus for STRIATE_FUZZ_SECONDS (default 30). New inputs go to
# WORK/corpus, or with STRIATE_FUZZ_CORPUS to that folder's NAME (the test command keeps one in
# its cache, so each run goes on from the coverage the runs before it reached); a crash leaves
# WORK/crash-* (copy it into regressions/NAME once fixed).
#   run.sh TARGET SEEDS REGRESSIONS WORK
set -u
target=$1 seeds=$2 regressions=$3 work=$4
seconds=${STRIATE_FUZZ_SECONDS:-30}
corpus=$work/corpus
[ -n "${STRIATE_FUZZ_CORPUS:-}" ] && corpus=$STRIATE_FUZZ_CORPUS/$(basename "$target")
mkdir -p "$work" "$corpus"
# The elements target: GStreamer's type system and caches live for the process (no leak checks
# there; the elements' own memory is tested by test_pipeline's long runs).
leaks=1
if [[ $(basename "$target") == fuzz_elements ]]; then
    leaks=0
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
options=(-timeout=30 -rss_limit_mb=2560 -detect_leaks=$leaks -print_final_stats=1)
if compgen -G "$regressions/*" >/dev/null; then
    "$target" "${options[@]}" "$regressions"/* || { echo "FAIL: a kept regression input crashes again"; exit 1; }
fi
"$target" "${options[@]}" -max_total_time="$seconds" -artifact_prefix="$work/" "$corpus" "$seeds"
