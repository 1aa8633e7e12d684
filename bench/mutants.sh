#!/usr/bin/env bash
# Mutation testing of the verdict tests: applies each protocol mutation of bench/mutants.txt
# alone to a copy of the tree, runs the verdict tests, and reports which mutations they catch.
#
# A mutation is *caught* when `cargo test --release --test scenario_verdicts --test
# analysis_properties` fails with it; *missed* when the tests pass. A mutation that does not
# compile is *unviable* and a run over the time limit is a *timeout*; neither counts in the
# score, both are listed. The unmutated tree must pass first, else the script stops.
#
# Usage: bench/mutants.sh [NAME...]      (no name: every mutation in the list)
# Environment:
#   MUTANTS_LIST     the list (default bench/mutants.txt)
#   MUTANTS_WORK     the copy of the tree, its target directory and the logs
#                    (default target/mutants; kept between runs, so builds are incremental)
#   MUTANTS_TIMEOUT  seconds per mutation, build included (default 1200)
#   MUTANTS_REV      test this commit instead of the working tree (e.g. to score older tests;
#                    the list is still read from the working tree)
#
# The working tree (tracked and untracked, not ignored files, as they are now) is copied to
# $MUTANTS_WORK/tree and mutated there: your sources are never touched, whatever stops the run.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
list=${MUTANTS_LIST:-$root/bench/mutants.txt}
work=${MUTANTS_WORK:-$root/target/mutants}
limit_s=${MUTANTS_TIMEOUT:-1200}
rev=${MUTANTS_REV:-}
tree=$work/tree
logs=$work/logs
tests=(--test scenario_verdicts --test analysis_properties)
export CARGO_TARGET_DIR=$work/target
# The release profile, built for many small rebuilds: no LTO, parallel and incremental code
# generation, no debug info (the tests' results do not depend on it, their speed little).
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
export CARGO_PROFILE_RELEASE_INCREMENTAL=true CARGO_PROFILE_RELEASE_DEBUG=0

die() {
    echo "mutants.sh: $*" >&2
    exit 2
}

# --- the list -------------------------------------------------------------------------------
# Blocks of `key: value` lines separated by blank lines; keys name, file, from, to, why. `from`
# must occur exactly once in `file`; `\n` in from/to stands for a line break.
names=() files=() froms=() tos=() whys=()
parse_list() {
    local line key value n=0 block_line=0 lineno=0
    local name="" file="" from="" to="" why=""
    flush() {
        [[ -z $name$file$from$to ]] && return 0
        [[ -n $name && -n $file && -n $from && -n $to ]] ||
            die "$list:$block_line: a mutation needs name, file, from and to"
        names+=("$name") files+=("$file") froms+=("$from") tos+=("$to") whys+=("$why")
        name="" file="" from="" to="" why=""
    }
    while IFS= read -r line || [[ -n $line ]]; do
        lineno=$((lineno + 1))
        [[ $line =~ ^[[:space:]]*# ]] && continue
        if [[ -z ${line//[[:space:]]/} ]]; then
            flush
            continue
        fi
        [[ -z $name$file$from$to$why ]] && block_line=$lineno
        [[ $line == *:* ]] || die "$list:$lineno: expected 'key: value', got: $line"
        key=${line%%:*}
        value=${line#*:}
        value=${value# }
        case $key in
            name) name=$value ;;
            file) file=$value ;;
            from) from=${value//\\n/$'\n'} ;;
            to) to=${value//\\n/$'\n'} ;;
            why) why=$value ;;
            *) die "$list:$lineno: unknown key '$key' (name, file, from, to, why)" ;;
        esac
        n=$((n + 1))
    done <"$list"
    flush
}

# --- applying one mutation ------------------------------------------------------------------
# Replaces the only occurrence of `from` by `to` in the copy's `file`; fails loudly otherwise.
apply() {
    local file=$tree/$1 from=$2 to=$3 text rest count
    [[ -f $file ]] || die "no file $1"
    text=$(cat "$file"; printf x)
    text=${text%x}
    rest=${text//"$from"/}
    count=$(((${#text} - ${#rest}) / ${#from}))
    [[ $count -eq 1 ]] || die "'${from%%$'\n'*}' occurs $count times in $1 (expected once)"
    printf '%s' "${text/"$from"/"$to"}" >"$file"
}

# Files get the time of the copy (`tar -m`), so cargo rebuilds what changed since an earlier
# run even when the target directory holds newer artifacts of another tree.
copy_tree() {
    rm -rf "$tree"
    mkdir -p "$tree" "$logs"
    if [[ -n $rev ]]; then
        (cd "$root" && git archive "$rev") | tar -xmf - -C "$tree"
    else
        (cd "$root" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) |
            tar -xmf - -C "$tree"
    fi
}

# Runs a command in the copy under the time limit, in the background so that a signal stops
# it at once (`timeout` runs it in a process group of its own, which the trap kills).
child=""
limited() {
    local status=0
    (cd "$tree" && exec timeout "$limit_s" "$@") &
    child=$!
    wait "$child" || status=$?
    child=""
    return "$status"
}

# Runs the verdict tests in the copy: 0 pass, 1 fail, 2 does not build, 3 timeout.
run_tests() {
    local log=$1 status=0
    limited cargo test --release "${tests[@]}" --no-run >"$log" 2>&1 || return 2
    limited cargo test --release "${tests[@]}" >>"$log" 2>&1 || status=$?
    case $status in
        0) return 0 ;;
        124) return 3 ;;
        *) return 1 ;;
    esac
}

on_signal() {
    if [[ -n $child ]]; then
        kill -TERM -- "-$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null || true
    fi
    echo
    echo "mutants.sh: interrupted; your sources were not touched (the mutated copy is $tree)"
    exit 130
}

# --- main -----------------------------------------------------------------------------------
parse_list
[[ ${#names[@]} -gt 0 ]] || die "$list holds no mutation"
selected=("$@")
for want in "${selected[@]}"; do
    printf '%s\n' "${names[@]}" | grep -qx -- "$want" || die "no mutation called '$want'"
done

trap on_signal INT TERM
copy_tree
echo "mutants: ${#names[@]} in $(basename "$list"); ${rev:-the working tree} copied to $tree"
echo "baseline: the unmutated tree must pass ..."
start=$SECONDS
status=0
run_tests "$logs/baseline.log" || status=$?
[[ $status -eq 0 ]] || die "the unmutated tree does not pass the verdict tests (see $logs/baseline.log)"
echo "baseline: pass ($((SECONDS - start)) s)"

caught=0 missed=0 unviable=0 timeouts=0
missed_names=()
for i in "${!names[@]}"; do
    name=${names[$i]} file=${files[$i]}
    if [[ ${#selected[@]} -gt 0 ]] && ! printf '%s\n' "${selected[@]}" | grep -qx -- "$name"; then
        continue
    fi
    cp "$tree/$file" "$work/pristine"
    apply "$file" "${froms[$i]}" "${tos[$i]}"
    start=$SECONDS
    status=0
    run_tests "$logs/$name.log" || status=$?
    cp "$work/pristine" "$tree/$file"
    case $status in
        0) verdict=MISSED missed=$((missed + 1)) missed_names+=("$name") ;;
        1) verdict=caught caught=$((caught + 1)) ;;
        2) verdict=unviable unviable=$((unviable + 1)) ;;
        3) verdict=timeout timeouts=$((timeouts + 1)) ;;
    esac
    failed=$(grep -oE '^test [^ ]+ \.\.\. FAILED' "$logs/$name.log" | cut -d' ' -f2 | paste -sd, - || true)
    printf '%-44s %-8s %4d s  %s\n' "$name" "$verdict" "$((SECONDS - start))" "${failed:-}"
done

scored=$((caught + missed))
echo "score: $caught of $scored caught ($unviable unviable, $timeouts timeouts); logs in $logs"
if [[ $missed -gt 0 ]]; then
    echo "missed: ${missed_names[*]}"
    exit 1
fi
