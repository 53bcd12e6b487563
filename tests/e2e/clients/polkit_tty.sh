#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# polkit_tty.sh COMMAND...: `pkexec COMMAND` answered by polkit's own text agent, pkttyagent, in
# this terminal, as `systemctl` runs it (pkttyagent --notify-fd, the agent for its parent).
#
# Why not pkexec's built-in text agent: on polkit 122 (Debian 12) it always ends with
# polkit-agent-helper-1's "No session for cookie", the right password included. pkexec is
# setuid, so polkitd records root (its bus connection's uid) as the agent's creator, while the
# helper answers AuthenticationAgentResponse2 with its real uid (the user); the cookie is looked
# up by both and never found (polkit commit f93c746, "fix: pkexec fails with ... No session for
# cookie", first in 125). pkttyagent runs as the user, so creator and helper agree.
#
# Both are children of this shell: pkttyagent registers for its parent (this shell), and
# pkexec's subject is its parent (this shell), so polkitd finds the agent by that process. Job
# control is off in a script: the agent stays in the terminal's foreground process group and
# can read it, and Ctrl-C reaches the agent, pkexec and the helper alike.
dir=$(mktemp -d /tmp/polkit-tty.XXXXXX) || exit 1
mkfifo -m 0600 "$dir/ready" || exit 1
pkttyagent --notify-fd 3 3> "$dir/ready" &
agent=$!
# pkttyagent closes fd 3 once it is registered (or exits): the reader then sees the end.
timeout 10 cat "$dir/ready" > /dev/null
rm -rf "$dir"
# Ctrl-C reaches pkttyagent too, which puts the terminal's echo back as it goes: this script
# waits for that before it ends (without the trap it died of the SIGINT at once, and the
# caller's `stty -g` raced the agent's restore: clients_polkit.sh saw echo still off once).
trap 'kill "$agent" 2> /dev/null; wait "$agent" 2> /dev/null; exit 130' INT
# --disable-internal-agent: if polkitd did not find ours, say so instead of using the broken one.
pkexec --disable-internal-agent "$@"
rc=$?
kill "$agent" 2> /dev/null
wait "$agent" 2> /dev/null
exit $rc
