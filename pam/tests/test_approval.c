/* SPDX-License-Identifier: Apache-2.0 */
/*
 * approval.c: what sudo, doas and su approve, taken from their argv as they
 * take it, and the escaping that keeps a command line from drawing on the
 * terminal or faking the prompt.  The real hosts are in tests/e2e/terminal.sh
 * and clients_doas.sh.
 */
#include <stdio.h>
#include <string.h>

#include "approval.h"

static int passed, failed;

static void expect(const char *what, enum client_host host, const char *const *argv,
		   const char *kind, const char *user, const char *text)
{
	struct approval a;
	int argc = 0;

	while (argv[argc] != NULL)
		argc++;
	if (approval_from_argv(host, argc, (char *const *)argv, 1, "alice", &a) != 0) {
		failed++;
		printf("FAIL - %s: no approval\n", what);
		return;
	}
	if (strcmp(a.kind, kind) != 0 || strcmp(a.user, user) != 0 || strcmp(a.text, text) != 0) {
		failed++;
		printf("FAIL - %s: got %s / %s / [%s], want %s / %s / [%s]\n", what, a.kind, a.user,
		       a.text, kind, user, text);
		return;
	}
	passed++;
	printf("ok   - %s\n", what);
}

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

int main(void)
{
	static char big[10241];
	struct approval a;
	size_t len;

	expect("sudo CMD: the command as root", HOST_SUDO, ARGV("sudo", "apt", "upgrade"),
	       "command", "root", "apt upgrade");
	expect("sudo -u bob CMD: bob", HOST_SUDO, ARGV("sudo", "-u", "bob", "id"), "command", "bob",
	       "id");
	expect("sudo -ubob, --user=bob, --user bob: bob", HOST_SUDO,
	       ARGV("/usr/bin/sudo", "-ubob", "--user=carol", "--user", "dave", "id"), "command",
	       "dave", "id");
	expect("sudo -Eu bob -- CMD: options before -- only", HOST_SUDO,
	       ARGV("sudo", "-Eu", "bob", "--", "-x", "y"), "command", "bob", "-x y");
	expect("sudo: the first word that is not an option starts the command", HOST_SUDO,
	       ARGV("sudo", "ls", "-u", "bob"), "command", "root", "ls -u bob");
	expect("sudo -i: a shell", HOST_SUDO, ARGV("sudo", "-i"), "shell", "root", "");
	expect("sudo -s -u bob: a shell as bob", HOST_SUDO, ARGV("sudo", "-s", "-u", "bob"),
	       "shell", "bob", "");
	expect("sudo --login: a shell", HOST_SUDO, ARGV("sudo", "--login"), "shell", "root", "");
	expect("sudo -i CMD: the command", HOST_SUDO, ARGV("sudo", "-i", "whoami"), "command",
	       "root", "whoami");
	expect("sudoedit FILE: edit", HOST_SUDO, ARGV("/usr/bin/sudoedit", "/etc/hosts"), "edit",
	       "root", "/etc/hosts");
	expect("sudo -e FILE: edit", HOST_SUDO, ARGV("sudo", "-e", "/etc/hosts"), "edit", "root",
	       "/etc/hosts");
	expect("sudo -v: the whole line", HOST_SUDO, ARGV("sudo", "-v"), "line", "", "sudo -v");
	expect("sudo -g grp CMD: the whole line", HOST_SUDO, ARGV("sudo", "-g", "adm", "id"),
	       "line", "", "sudo -g adm id");
	expect("sudo --frobnicate CMD (unknown): the whole line", HOST_SUDO,
	       ARGV("sudo", "--frobnicate", "id"), "line", "", "sudo --frobnicate id");
	expect("sudo -Z (unknown letter): the whole line", HOST_SUDO, ARGV("sudo", "-Z", "id"),
	       "line", "", "sudo -Z id");
	expect("sudo -u (no value): the whole line", HOST_SUDO, ARGV("sudo", "-u"), "line", "",
	       "sudo -u");
	expect("sudo alone: the whole line", HOST_SUDO, ARGV("sudo"), "line", "", "sudo");
	expect("doas CMD: root", HOST_DOAS, ARGV("doas", "id", "-u"), "command", "root", "id -u");
	expect("doas -u bob CMD", HOST_DOAS, ARGV("doas", "-n", "-u", "bob", "id"), "command",
	       "bob", "id");
	expect("doas -s: a shell", HOST_DOAS, ARGV("doas", "-s"), "shell", "root", "");
	expect("doas -L: the whole line", HOST_DOAS, ARGV("doas", "-L"), "line", "", "doas -L");
	expect("su: the target user (PAM_USER)", HOST_SU, ARGV("su", "-", "ignored"), "user",
	       "alice", "");
	expect("words with spaces and quotes shown as a shell takes them", HOST_SUDO,
	       ARGV("sudo", "sh", "-c", "echo 'hi' there", ""), "command", "root",
	       "sh -c 'echo '\\''hi'\\'' there' ''");
	expect("an argument with a space (and no quote) quoted as one word", HOST_SUDO,
	       ARGV("sudo", "rm", "a b", "c"), "command", "root", "rm 'a b' c");
	expect("escape sequence, newline, tab, DEL escaped", HOST_SUDO,
	       ARGV("sudo", "printf", "\x1b[2J\n\t\x7f\x01"), "command", "root",
	       "printf \\e[2J\\n\\t\\x7f\\x01");
	expect("invalid UTF-8 (a lone byte, an overlong, a surrogate) as \\xNN", HOST_SUDO,
	       ARGV("sudo", "a\xff", "\xc0\xaf", "\xed\xa0\x80"), "command", "root",
	       "a\\xff \\xc0\\xaf \\xed\\xa0\\x80");
	expect("C1 control (CSI), bidi override, line separator as \\u{...}", HOST_SUDO,
	       ARGV("sudo",
		    "\xc2\x9b"
		    "2J",
		    "\xe2\x80\xae"
		    "txt",
		    "a\xe2\x80\xa8"
		    "b"),
	       "command", "root", "\\u{009b}2J \\u{202e}txt a\\u{2028}b");
	expect("bidirectional isolates U+2066-U+2069 as \\u{...}", HOST_SUDO,
	       ARGV("sudo",
		    "\xe2\x81\xa6"
		    "a",
		    "\xe2\x81\xa7"
		    "b",
		    "\xe2\x81\xa8"
		    "c",
		    "d\xe2\x81\xa9"),
	       "command", "root", "\\u{2066}a \\u{2067}b \\u{2068}c d\\u{2069}");
	expect("valid UTF-8 as is; a backslash doubled", HOST_SUDO,
	       ARGV("sudo", "caf\xc3\xa9", "\xe4\xbd\xa0\xe5\xa5\xbd", "a\\b"), "command", "root",
	       "caf\xc3\xa9 \xe4\xbd\xa0\xe5\xa5\xbd a\\\\b");
	expect("a target user with a space or an escape: no space, escaped", HOST_SUDO,
	       ARGV("sudo", "-u", "a b\x1b", "id"), "command", "a\\x20b\\e", "id");

	memset(big, 'x', sizeof(big) - 1);
	if (approval_from_argv(HOST_SUDO, 3, (char *const *)ARGV("sudo", "echo", big), 1, "alice",
			       &a) == 0 &&
	    (len = strlen(a.text)) <= APPROVAL_TEXT_MAX && len > APPROVAL_TEXT_MAX - 8 &&
	    strcmp(a.text + len - 3, "\xe2\x80\xa6") == 0 && strncmp(a.text, "echo xxx", 8) == 0) {
		passed++;
		printf("ok   - a 10 KB argument: capped at %zu bytes, ending in an ellipsis\n",
		       len);
	} else {
		failed++;
		printf("FAIL - a 10 KB argument not capped with an ellipsis\n");
	}
	if (approval_from_argv(HOST_SUDO, 2, (char *const *)ARGV("sudo", "id"), 0, "alice", &a) ==
		0 &&
	    strcmp(a.text, "id\xe2\x80\xa6") == 0) {
		passed++;
		printf("ok   - a command line cut short by the read cap ends in an ellipsis\n");
	} else {
		failed++;
		printf("FAIL - a cut command line shown whole: [%s]\n", a.text);
	}
	if (approval_from_argv(HOST_OTHER, 2, (char *const *)ARGV("login", "x"), 1, "alice", &a) !=
	    0) {
		passed++;
		printf("ok   - an unknown host: no approval (the reason stays)\n");
	} else {
		failed++;
		printf("FAIL - an unknown host got an approval\n");
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
