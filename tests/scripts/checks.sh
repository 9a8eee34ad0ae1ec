# The test scripts' pass and fail lines, sourced by each (tests/*/..._test.sh). A failing check
# shows what it ran: the last lines of the output files it names (fail MESSAGE FILE...), or else
# of the text files in the working directory written since the previous check (the output of the
# command it checked), or else of the newest two there. `passed`/`failures` count the checks;
# finish prints "N passed, N failed" and exits with the verdict.
passed=0
failures=0
_check_mark=$(mktemp "${TMPDIR:-/tmp}/striate-check.XXXXXX")
_check_clock=$SECONDS
trap 'rm -f "$_check_mark"' EXIT
_next_check() { touch "$_check_mark"; _check_clock=$SECONDS; }
pass() {
    echo "ok ($((SECONDS - _check_clock)) s): $1"
    passed=$((passed + 1))
    _next_check
}
show_output() {  # show_output [FILE...]: the last 15 lines of each (text) file, indented
    local files=("$@") f
    if [ ${#files[@]} -eq 0 ]; then
        mapfile -t files < <(find . -maxdepth 1 -type f -newer "$_check_mark" -printf '%T@ %p\n' 2>/dev/null | sort -rn | cut -d' ' -f2- | head -3)
        [ ${#files[@]} -eq 0 ] && mapfile -t files < <(find . -maxdepth 1 -type f -printf '%T@ %p\n' 2>/dev/null | sort -rn | cut -d' ' -f2- | head -2)
    fi
    for f in "${files[@]}"; do
        [ -s "$f" ] && grep -Iq . "$f" || continue
        echo "    --- the last lines of ${f#./}:"
        tail -n 15 "$f" | sed 's/^/    | /'
    done
}
fail() {  # fail MESSAGE [FILE...]
    echo "FAIL ($((SECONDS - _check_clock)) s): $1"
    failures=$((failures + 1))
    shift
    show_output "$@"
    _next_check
}
finish() {
    echo "$passed passed, $failures failed"
    [ "$failures" -eq 0 ]
    exit
}
