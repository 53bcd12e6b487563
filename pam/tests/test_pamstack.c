/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pamstack.c's refusals and guards: what the reader cannot tell (the two
 * libpams read it differently, or it cannot be read whole) it says so, never
 * a guess; its limits.  What it reads is held to the real libpam by
 * tests/pamstack/run.sh (the pamstack suite).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pamstack.h"

static int passed, failed;

/* The files: NAME, TEXT pairs, NULL-terminated. */
static long fake_read(void *ctx, const char *name, char *buf, size_t size)
{
	for (const char *const *p = ctx; *p != NULL; p += 2) {
		if (strcmp(p[0], name) == 0) {
			size_t len = strlen(p[1]);

			if (len > size)
				len = size;
			memcpy(buf, p[1], len);
			for (size_t i = 0; i < len; i++) /* \x7f: a NUL in the file */
				buf[i] = buf[i] == '\x7f' ? '\0' : buf[i];
			return (long)len;
		}
	}
	return PAMSTACK_READ_MISSING;
}

struct seen {
	int lines;
	char modules[512];
};

static int note(void *ctx, const struct pamstack_line *line)
{
	struct seen *seen = ctx;
	size_t at = strlen(seen->modules);

	seen->lines++;
	snprintf(seen->modules + at, sizeof(seen->modules) - at, "%s%s", at > 0 ? " " : "",
		 line->kind == PAMSTACK_BROKEN ? "!" : line->module);
	return 0;
}

/* The auth lines of "svc" in FILES: the answer, why it cannot tell, the modules ("!": broken). */
static void expect(const char *what, const char *const *files, enum pamstack_result want,
		   const char *want_why, const char *want_modules)
{
	struct pamstack_source source = { fake_read, (void *)files };
	struct pamstack_unknown unknown;
	struct seen seen = { 0, "" };
	enum pamstack_result got = pamstack_read(&source, "svc", "auth", note, &seen, &unknown);
	int ok = got == want;

	if (ok && want == PAMSTACK_UNKNOWN)
		ok = unknown.why != NULL && strcmp(unknown.why, want_why) == 0;
	if (ok && want_modules != NULL)
		ok = strcmp(seen.modules, want_modules) == 0;
	if (ok) {
		passed++;
		printf("ok   - %s\n", what);
	} else {
		failed++;
		printf("FAIL - %s: got %d (%s: %s) [%s]\n", what, got, unknown.file,
		       unknown.why ? unknown.why : "-", seen.modules);
	}
}

#define FILES(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* HEAD, N bytes C (a newline every 100th when C is '#': comment lines), TAIL. */
static char *repeat(const char *head, char c, size_t n, const char *tail)
{
	size_t h = strlen(head), t = strlen(tail);
	char *s = malloc(h + n + t + 1);

	if (s == NULL)
		exit(1);
	memcpy(s, head, h);
	memset(s + h, c, n);
	for (size_t i = 99; c == '#' && i < n; i += 100)
		s[h + i] = '\n';
	memcpy(s + h + n, tail, t + 1);
	return s;
}

int main(void)
{
	char chain[PAMSTACK_DEPTH + 2][2][64];
	const char *files[2 * (PAMSTACK_DEPTH + 2) + 1];
	char *big, *long_line;

	expect("a continued line over a blank line: 1.5 joins, 1.7 ends: cannot tell",
	       FILES("svc", "auth optional \\\n\npam_gnome_keyring.so\n"), PAMSTACK_UNKNOWN,
	       "a continued line runs over a blank or comment line", NULL);
	expect("a continued line over a comment line: cannot tell",
	       FILES("svc", "auth optional \\\n# no\npam_gnome_keyring.so\n"), PAMSTACK_UNKNOWN,
	       "a continued line runs over a blank or comment line", NULL);
	expect("a bracket over a continued line with leading blanks: cannot tell",
	       FILES("svc", "auth [success=ok \\\n  default=ignore] pam_a.so\n"), PAMSTACK_UNKNOWN,
	       "a bracket runs over a continued line", NULL);
	expect("a continued line without leading blanks: read",
	       FILES("svc", "auth [success=ok \\\ndefault=ignore] pam_a.so\n"), PAMSTACK_READ, NULL,
	       "pam_a.so");
	expect("a jump past INT_MAX (1.5 overflows, 1.7 refuses): cannot tell",
	       FILES("svc", "auth [default=99999999999] pam_a.so\n"), PAMSTACK_UNKNOWN,
	       "a jump past INT_MAX", NULL);
	expect("a jump of INT_MAX: read", FILES("svc", "auth [default=2147483647] pam_a.so\n"),
	       PAMSTACK_READ, NULL, "pam_a.so");
	expect("an include without a file (libpam 1.5.2 crashes): cannot tell",
	       FILES("svc", "session include\nauth required pam_a.so\n"), PAMSTACK_UNKNOWN,
	       "an include or substack without a file", NULL);
	expect("a NUL byte (fgets and getline read past it differently): cannot tell",
	       FILES("svc", "auth required pam_a.so\n\x7f auth required pam_b.so\n"),
	       PAMSTACK_UNKNOWN, "a NUL byte", NULL);
	expect("the escape \\] inside a bracket is a ']', the word ends at the next",
	       FILES("svc", "auth [default=ignore \\]]pam_a.so x\n"), PAMSTACK_READ, NULL,
	       "pam_a.so");
	expect("no blank after ']': the module is the next word, whole",
	       FILES("svc", "auth [default=ignore]pam_gnome_keyring.so\n"), PAMSTACK_READ, NULL,
	       "pam_gnome_keyring.so");
	expect("a file ending inside a continued line: libpam refuses it",
	       FILES("svc", "auth required pam_a.so \\\n"), PAMSTACK_REFUSED, NULL, NULL);
	expect("\\r is not a blank: \"auth\\r\" is an unknown type (a failing auth line)",
	       FILES("svc", "auth\r optional pam_a.so\n"), PAMSTACK_READ, NULL, "!");
	expect("a service without auth lines runs other's",
	       FILES("svc", "account required pam_a.so\n", "other", "auth required pam_b.so\n"),
	       PAMSTACK_READ, NULL, "pam_b.so");

	/* Limits. */
	for (int i = 0; i <= PAMSTACK_DEPTH; i++) {
		snprintf(chain[i][0], sizeof(chain[i][0]), i == 0 ? "svc" : "d%d", i);
		if (i < PAMSTACK_DEPTH)
			snprintf(chain[i][1], sizeof(chain[i][1]), "auth substack d%d\n", i + 1);
		else
			snprintf(chain[i][1], sizeof(chain[i][1]), "auth required pam_a.so\n");
		files[2 * i] = chain[i][0];
		files[2 * i + 1] = chain[i][1];
	}
	files[2 * (PAMSTACK_DEPTH - 1) + 1] = "auth required pam_a.so\n";
	files[2 * PAMSTACK_DEPTH] = NULL;
	expect("substacks 15 deep: read", files, PAMSTACK_READ, NULL, NULL);
	files[2 * (PAMSTACK_DEPTH - 1) + 1] = chain[PAMSTACK_DEPTH - 1][1];
	files[2 * PAMSTACK_DEPTH] = chain[PAMSTACK_DEPTH][0];
	files[2 * PAMSTACK_DEPTH + 2] = NULL;
	expect("substacks 16 deep (PAM_SUBSTACK_MAX_LEVEL): cannot tell", files, PAMSTACK_UNKNOWN,
	       "includes too deep", NULL);
	expect("a file included twice at every level: cannot tell after 64 files, not 2^15",
	       FILES("svc", "auth include a\nauth include a\n", "a",
		     "auth include b\nauth include b\n", "b", "auth include c\nauth include c\n",
		     "c", "auth include d\nauth include d\n", "d",
		     "auth include e\nauth include e\n", "e", "auth include f\nauth include f\n",
		     "f", "auth include g\nauth include g\n", "g", "auth required pam_a.so\n"),
	       PAMSTACK_UNKNOWN, "too many files", NULL);
	big = repeat("", '#', PAMSTACK_FILE_MAX, "\nauth optional pam_gnome_keyring.so\n");
	expect("a file over the size limit: cannot tell", FILES("svc", big), PAMSTACK_UNKNOWN,
	       "too big", NULL);
	free(big);
	big = repeat("", '#', PAMSTACK_FILE_MAX - 40, "\nauth optional pam_gnome_keyring.so\n");
	expect("a file at the size limit: read", FILES("svc", big), PAMSTACK_READ, NULL,
	       "pam_gnome_keyring.so");
	free(big);
	long_line = repeat("auth optional pam_a.so ", 'x', PAMSTACK_LINE_MAX, "\n");
	expect("a line longer than libpam 1.5's buffer: cannot tell", FILES("svc", long_line),
	       PAMSTACK_UNKNOWN, "a line longer than libpam 1.5 reads whole", NULL);
	free(long_line);
	long_line = repeat("auth optional pam_a.so ", 'x', PAMSTACK_LINE_MAX - 24, "\n");
	expect("a line that fits libpam 1.5's buffer: read", FILES("svc", long_line), PAMSTACK_READ,
	       NULL, "pam_a.so");
	free(long_line);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
