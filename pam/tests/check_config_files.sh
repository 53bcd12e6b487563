#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check_config_files.sh DUMP_COMMAND [ARG...]
#
# Runs `DUMP_COMMAND ARG... FILE` on every tests/config/{good,bad}/*.conf and
# compares its stdout (stderr is ignored) with FILE's .expected: good files
# must exit 0 and print the whole dump, which is defaults.expected with the
# lines of NAME.expected (the keys the file changes) in their place; bad
# ones exit 1 and print NAME.expected.  Beside NAME.conf, NAME.args holds module
# arguments (one a line) applied over it, `--arguments NAME.args`, and
# NAME.caller-args those of a caller that is not root, `--arguments
# NAME.caller-args --restricted`.  Used with the shim's dump
# (pam/tests/config_dump) and the helper's (touchauth config-dump --config).
# CONFIG_TEST_DIR overrides where the files are.
set -u

if [ $# -lt 1 ]; then
	echo "usage: $0 DUMP_COMMAND [ARG...]" >&2
	exit 2
fi

dir=${CONFIG_TEST_DIR:-$(cd "$(dirname "$0")/../../tests/config" && pwd)}
passed=0
failed=0
out=$(mktemp)
whole=$(mktemp)
trap 'rm -f "$out" "$whole"' EXIT

# whole_dump NAME.expected: defaults.expected, each key NAME.expected sets in its place.  A line
# of NAME.expected that is not key=value, names no key of the defaults or repeats one is kept
# as a line no dump prints, so that the comparison fails.
whole_dump() {
	LC_ALL=C awk 'FILENAME == ARGV[1] {
		i = index($0, "=")
		k = i > 1 ? substr($0, 1, i - 1) : ""
		if (k == "" || k in set) { bad = bad "bad line in " FILENAME ": " $0 "\n"; next }
		set[k] = $0
		next
	}
	{
		k = substr($0, 1, index($0, "=") - 1)
		if (k in set) { print set[k]; delete set[k] } else print
	}
	END {
		for (k in set) printf "key %s is not in the defaults\n", k
		printf "%s", bad
	}' "$1" "$dir/defaults.expected"
}

for kind in good bad; do
	want_status=0
	[ "$kind" = bad ] && want_status=1
	for conf in "$dir/$kind"/*.conf; do
		[ -e "$conf" ] || continue
		expected=${conf%.conf}.expected
		if [ -e "${conf%.conf}.args" ]; then
			"$@" "$conf" --arguments "${conf%.conf}.args" >"$out" 2>/dev/null
		elif [ -e "${conf%.conf}.caller-args" ]; then
			"$@" "$conf" --arguments "${conf%.conf}.caller-args" --restricted >"$out" 2>/dev/null
		else
			"$@" "$conf" >"$out" 2>/dev/null
		fi
		status=$?
		if [ "$status" -ne "$want_status" ]; then
			echo "FAIL: $kind/$(basename "$conf"): exit status $status, want $want_status"
			sed 's/^/    /' "$out"
			failed=$((failed + 1))
		elif { [ "$kind" = good ] && whole_dump "$expected" >"$whole" && ! cmp -s "$out" "$whole"; } ||
			{ [ "$kind" = bad ] && ! cmp -s "$out" "$expected"; }; then
			echo "FAIL: $kind/$(basename "$conf"): output differs from $(basename "$expected")"
			if [ "$kind" = good ]; then diff "$whole" "$out"; else diff "$expected" "$out"; fi |
				sed 's/^/    /'
			failed=$((failed + 1))
		else
			passed=$((passed + 1))
		fi
	done
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
