/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a touch approves (approval.h): the host's argv, taken apart the way
 * the host itself takes it, and escaped so that a command line can neither
 * draw on the terminal nor fake the prompt.  Anything the parser does not
 * know shows the whole command line instead of a guess.
 */
#include "approval.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ELLIPSIS     "\xe2\x80\xa6" /* U+2026 */
#define ELLIPSIS_LEN 3
#define ARGV_MAX     1024

#define QUOTE_WORD 1 /* a shell word: '...' when empty or with a space or a quote */
#define NO_SPACE   2 /* a field of the protocol line: a space as \x20 */

/* The code point of the valid UTF-8 character at s (its length), or 0 for invalid. */
static size_t utf8_char(const unsigned char *s, size_t len, unsigned long *cp)
{
	unsigned long v, min;
	size_t n;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2, v = s[0] & 0x1fu, min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3, v = s[0] & 0x0fu, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4, v = s[0] & 0x07u, min = 0x10000;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3fu);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* Room is kept for a closing quote, an ellipsis and the NUL. */
static int put(char *out, size_t cap, size_t *used, const char *piece, size_t n)
{
	if (*used + n + 1 + ELLIPSIS_LEN + 1 > cap)
		return -1;
	memcpy(out + *used, piece, n);
	*used += n;
	out[*used] = '\0';
	return 0;
}

static const char hex[] = "0123456789abcdef";

static int escape(char *out, size_t cap, size_t *used, const char *in, size_t len, int how)
{
	const unsigned char *s = (const unsigned char *)in;
	int quoted = 0;

	if ((how & QUOTE_WORD) != 0) {
		quoted = len == 0 || memchr(in, ' ', len) != NULL || memchr(in, '\'', len) != NULL;
		if (quoted && put(out, cap, used, "'", 1) != 0)
			return -1;
	}
	for (size_t i = 0; i < len;) {
		char piece[16];
		size_t n = 0, step = 1;
		unsigned long cp = 0;

		if (s[i] == '\\') {
			piece[0] = piece[1] = '\\', n = 2;
		} else if (s[i] == 0x1b) {
			piece[0] = '\\', piece[1] = 'e', n = 2;
		} else if (s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
			piece[0] = '\\',
			piece[1] = s[i] == '\n'	  ? 'n'
				   : s[i] == '\t' ? 't'
						  : 'r',
			n = 2;
		} else if (quoted && s[i] == '\'') {
			memcpy(piece, "'\\''", 4), n = 4;
		} else if (s[i] == ' ' && (how & NO_SPACE) != 0) {
			memcpy(piece, "\\x20", 4), n = 4;
		} else if ((step = utf8_char(s + i, len - i, &cp)) == 0 ||
			   (cp < 0x80 && ta_approval_escapes(cp))) {
			piece[0] = '\\', piece[1] = 'x', piece[2] = hex[s[i] >> 4],
			piece[3] = hex[s[i] & 0xf], n = 4, step = 1;
		} else if (ta_approval_escapes(cp)) {
			n = 0;
			piece[n++] = '\\', piece[n++] = 'u', piece[n++] = '{';
			for (int shift = cp > 0xffff ? 16 : 12; shift >= 0; shift -= 4)
				piece[n++] = hex[(cp >> shift) & 0xf];
			piece[n++] = '}';
		} else {
			memcpy(piece, in + i, step), n = step;
		}
		if (put(out, cap, used, piece, n) != 0)
			return -1;
		i += step;
	}
	if (quoted && put(out, cap, used, "'", 1) != 0)
		return -1;
	return 0;
}

int approval_escape(char *out, size_t cap, size_t *used, const char *in, size_t len, int quote)
{
	return escape(out, cap, used, in, len, quote ? QUOTE_WORD : 0);
}

/* The words argv[from..argc) as a shell would show them; an ellipsis where cut. */
static void words(char *out, size_t cap, int argc, char *const argv[], int from, int complete)
{
	size_t used = 0;
	int cut = 0;

	out[0] = '\0';
	for (int i = from; i < argc && !cut; i++) {
		if (i > from && put(out, cap, &used, " ", 1) != 0)
			cut = 1;
		else if (escape(out, cap, &used, argv[i], strlen(argv[i]), QUOTE_WORD) != 0)
			cut = 1;
	}
	if (cut || !complete) {
		memcpy(out + used, ELLIPSIS, ELLIPSIS_LEN);
		out[used + ELLIPSIS_LEN] = '\0';
	}
}

static void set_user(struct approval *a, const char *user)
{
	size_t used = 0;

	a->user[0] = '\0';
	if (user[0] == '\0') {
		strcpy(a->user, "''");
	} else if (escape(a->user, sizeof(a->user), &used, user, strlen(user), NO_SPACE) != 0) {
		memcpy(a->user + used, ELLIPSIS, ELLIPSIS_LEN);
		a->user[used + ELLIPSIS_LEN] = '\0';
	}
}

/* The whole invocation: for what the parser does not take apart. */
static int whole_line(struct approval *a, int argc, char *const argv[], int complete)
{
	a->kind = "line";
	a->user[0] = '\0';
	words(a->text, sizeof(a->text), argc, argv, 0, complete);
	return 0;
}

/*
 * getopt with "+": whether argv[*i] is a word of options.  The first word
 * that is not, or the one after "--" (*i moved past it), starts the command.
 */
static int option_word(char *const argv[], int *i)
{
	const char *arg = argv[*i];

	if (arg[0] != '-' || arg[1] == '\0')
		return 0;
	if (strcmp(arg, "--") == 0) {
		++*i;
		return 0;
	}
	return 1;
}

/*
 * An option of a getopt-style host: *i at the word, *p at the letter.  Sets
 * *value (the rest of the word or the next word) when the letter takes one.
 * 0: known, 1: takes a value that is missing, -1: unknown.
 */
static int short_option(const char *with_value, const char *flags, char letter, int argc,
			char *const argv[], int *i, const char **p, const char **value)
{
	*value = NULL;
	if (strchr(flags, letter) != NULL)
		return 0;
	if (strchr(with_value, letter) == NULL)
		return -1;
	if ((*p)[1] != '\0')
		*value = *p + 1;
	else if (*i + 1 < argc)
		*value = argv[++*i];
	else
		return 1;
	*p += strlen(*p) - 1; /* the value ends the word */
	return 0;
}

/*
 * sudo 1.9's options (sudo(8); getopt_long with "+": the first word that is
 * not an option starts the command).  What changes what is approved: -u
 * (the target), -i and -s (a shell), -e and sudoedit (files to edit).  What
 * makes it something other than running a command as a user (-g, -h, -K,
 * -l, -U, -V, -v, and any option not known here): the whole line.
 */
#define SUDO_FLAGS	"ABbEHkNnPS"
#define SUDO_WITH_VALUE "aCcDpRrTtu"
#define SUDO_WHOLE_LINE "ghKlUVv"

static const char *const sudo_long_flags[] = { "askpass",	  "bell",
					       "background",	  "set-home",
					       "reset-timestamp", "non-interactive",
					       "preserve-groups", "stdin",
					       "preserve-env",	  NULL };
static const char *const sudo_long_with_value[] = { "auth-type", "close-from", "login-class",
						    "chdir",	 "prompt",     "chroot",
						    "role",	 "type",       "command-timeout",
						    "user",	 NULL };

static int in_list(const char *const *list, const char *name, size_t len)
{
	for (; *list != NULL; list++) {
		if (strlen(*list) == len && strncmp(*list, name, len) == 0)
			return 1;
	}
	return 0;
}

/* What sudo's options change in what is approved. */
struct sudo_options {
	const char *target;
	int shell, edit;
};

/*
 * A long option of sudo (argv[*i], after "--"): what it changes in *o.  -1:
 * one only the whole line describes, or its value is missing.
 */
static int sudo_long_option(struct sudo_options *o, int argc, char *const argv[], int *i)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '='), *value;
	size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);

	if (len == 5 && strncmp(name, "login", 5) == 0 && eq == NULL) {
		o->shell = 1;
	} else if (len == 5 && strncmp(name, "shell", 5) == 0 && eq == NULL) {
		o->shell = 1;
	} else if (len == 4 && strncmp(name, "edit", 4) == 0 && eq == NULL) {
		o->edit = 1;
	} else if (in_list(sudo_long_flags, name, len)) {
		if (eq != NULL && strncmp(name, "preserve-env", len) != 0)
			return -1;
	} else if (in_list(sudo_long_with_value, name, len)) {
		value = eq != NULL ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
		if (value == NULL)
			return -1;
		if (len == 4 && strncmp(name, "user", 4) == 0)
			o->target = value;
	} else {
		return -1;
	}
	return 0;
}

/* A word of sudo's short options (argv[*i]): what its letters change in *o; -1 as above. */
static int sudo_letters(struct sudo_options *o, int argc, char *const argv[], int *i)
{
	for (const char *p = argv[*i] + 1; *p != '\0'; p++) {
		char letter = *p;
		const char *value;

		if (strchr(SUDO_WHOLE_LINE, letter) != NULL)
			return -1;
		if (letter == 'i' || letter == 's') {
			o->shell = 1;
			continue;
		}
		if (letter == 'e') {
			o->edit = 1;
			continue;
		}
		if (short_option(SUDO_WITH_VALUE, SUDO_FLAGS, letter, argc, argv, i, &p, &value))
			return -1;
		if (letter == 'u')
			o->target = value;
	}
	return 0;
}

static int parse_sudo(int argc, char *const argv[], int complete, struct approval *a)
{
	const char *base = strrchr(argv[0], '/');
	struct sudo_options o = { "root", 0,
				  strcmp(base != NULL ? base + 1 : argv[0], "sudoedit") == 0 };
	int i;

	for (i = 1; i < argc && option_word(argv, &i); i++) {
		int whole = argv[i][1] == '-' ? sudo_long_option(&o, argc, argv, &i)
					      : sudo_letters(&o, argc, argv, &i);

		if (whole != 0)
			return whole_line(a, argc, argv, complete);
	}
	set_user(a, o.target);
	if (o.edit) {
		if (i >= argc || o.shell)
			return whole_line(a, argc, argv, complete);
		a->kind = "edit";
	} else if (i < argc) {
		a->kind = "command"; /* with -i or -s, run through the target's shell */
	} else if (o.shell) {
		a->kind = "shell";
		a->text[0] = '\0';
		return 0;
	} else {
		return whole_line(a, argc, argv, complete);
	}
	words(a->text, sizeof(a->text), argc, argv, i, complete);
	return 0;
}

/* OpenDoas 6.8: getopt "+C:Lnsu:"; -C and -L authenticate nothing. */
static int parse_doas(int argc, char *const argv[], int complete, struct approval *a)
{
	const char *target = "root";
	int shell = 0, i;

	for (i = 1; i < argc && option_word(argv, &i); i++) {
		const char *arg = argv[i], *value = NULL;

		for (const char *p = arg + 1; *p != '\0'; p++) {
			char letter = *p;

			if (letter == 's') {
				shell = 1;
				continue;
			}
			if (short_option("u", "n", letter, argc, argv, &i, &p, &value) != 0)
				return whole_line(a, argc, argv, complete);
			if (letter == 'u')
				target = value;
		}
	}
	set_user(a, target);
	if (i < argc && !shell) {
		a->kind = "command";
		words(a->text, sizeof(a->text), argc, argv, i, complete);
	} else if (i >= argc && shell) {
		a->kind = "shell";
		a->text[0] = '\0';
	} else {
		return whole_line(a, argc, argv, complete);
	}
	return 0;
}

int approval_from_argv(enum client_host host, int argc, char *const argv[], int complete,
		       const char *target, struct approval *a)
{
	memset(a, 0, sizeof(*a));
	switch (host) {
	case HOST_SU:
		/* su authenticates the user it switches to: PAM_USER. */
		a->program = "su";
		a->kind = "user";
		set_user(a, target);
		return 0;
	case HOST_SUDO:
		a->program = "sudo";
		return argc > 0 ? parse_sudo(argc, argv, complete, a) : -1;
	case HOST_DOAS:
		a->program = "doas";
		return argc > 0 ? parse_doas(argc, argv, complete, a) : -1;
	case HOST_OTHER:
	default:
		return -1;
	}
}

int approval_read(enum client_host host, const char *target, struct approval *a)
{
	char *buf, *argv[ARGV_MAX];
	size_t len = 0, off;
	int fd, argc = 0, complete = 1, retval;

	if (host == HOST_OTHER)
		return -1;
	if (host == HOST_SU)
		return approval_from_argv(host, 0, NULL, 1, target, a);
	buf = malloc(APPROVAL_CMDLINE_MAX + 1);
	if (buf == NULL)
		return -1;
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -1;
	}
	while (len < APPROVAL_CMDLINE_MAX) {
		ssize_t n = read(fd, buf + len, APPROVAL_CMDLINE_MAX - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (len == APPROVAL_CMDLINE_MAX) {
		char probe;

		complete = read(fd, &probe, 1) == 0;
	}
	close(fd);
	/* NUL-separated words; a last one without its NUL was cut by the cap. */
	if (len > 0 && buf[len - 1] != '\0')
		complete = 0;
	buf[len] = '\0';
	for (off = 0; off < len && argc < ARGV_MAX; off += strlen(buf + off) + 1)
		argv[argc++] = buf + off;
	if (off < len)
		complete = 0;
	retval = approval_from_argv(host, argc, argv, complete, target, a);
	free(buf);
	return retval;
}
