#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test_config_files_perms.sh DUMP_COMMAND [ARG...]
#
# The checks on the config file itself, which git cannot carry in
# tests/config: only a root-owned regular file that nobody else can write and
# that has no other hard link is read, symlinks are not followed, and the size
# is bounded.  DUMP_COMMAND is pam/tests/config_dump, or the helper's
# `touchauth config-dump --config` (its words without blanks).
set -u

dump=$*
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
umask 022

# expect NAME WANT_FIRST_LINE FILE
expect() {
	got=$($dump "$3" 2>/dev/null | head -n 1)
	if [ "$got" = "$2" ]; then
		passed=$((passed + 1))
	else
		echo "FAIL: $1: got '$got', want '$2'"
		failed=$((failed + 1))
	fi
}

printf 'max_tries = 4\n' >"$tmp/ok.conf"
chmod 0644 "$tmp/ok.conf"
if [ "$(id -u)" -eq 0 ]; then
	expect "0644 root (a git checkout) is read" "max_tries=4" "$tmp/ok.conf"

	cp -p "$tmp/ok.conf" "$tmp/g.conf" && chmod 0664 "$tmp/g.conf"
	expect "group-writable is refused" "invalid file" "$tmp/g.conf"
	cp -p "$tmp/ok.conf" "$tmp/o.conf" && chmod 0646 "$tmp/o.conf"
	expect "other-writable is refused" "invalid file" "$tmp/o.conf"
	cp -p "$tmp/ok.conf" "$tmp/u.conf" && chown 65534 "$tmp/u.conf"
	expect "not owned by root is refused" "invalid file" "$tmp/u.conf"
	cp -p "$tmp/ok.conf" "$tmp/ro.conf" && chmod 0400 "$tmp/ro.conf"
	expect "0400 root is read" "max_tries=4" "$tmp/ro.conf"
	cp -p "$tmp/ok.conf" "$tmp/h1.conf" && ln "$tmp/h1.conf" "$tmp/h2.conf"
	expect "a file with a second hard link is refused" "invalid file" "$tmp/h2.conf"
	expect "...by either name" "invalid file" "$tmp/h1.conf"
	rm "$tmp/h2.conf"
	expect "...and read again once the other name is gone" "max_tries=4" "$tmp/h1.conf"
else
	echo "not root: ownership cases skipped"
fi
ln -s "$tmp/ok.conf" "$tmp/link.conf"
expect "a symlink is not followed" "invalid file" "$tmp/link.conf"
expect "a directory is refused" "invalid file" "$tmp"
mkfifo "$tmp/fifo.conf"
expect "a FIFO is refused without blocking" "invalid file" "$tmp/fifo.conf"
expect "a missing explicit file is an error" "invalid file" "$tmp/missing.conf"
{ i=0; while [ $i -lt 1025 ]; do printf '%063d\n' 0 | sed 's/^0/#/'; i=$((i + 1)); done; } >"$tmp/big.conf"
expect "more than 64 KiB is refused" "invalid file" "$tmp/big.conf"
head -c 65536 "$tmp/big.conf" >"$tmp/64k.conf"
expect "exactly 64 KiB is read" "max_tries=3" "$tmp/64k.conf"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
