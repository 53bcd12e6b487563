/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one reader of PAM stack files (/etc/pam.d), for the module's keyring
 * rule (keyring.c) and for `touchauth doctor` (PamStack.swift, through the
 * CConfig module map).  It gives the lines of one type of one service in the
 * order libpam holds them, read as Linux-PAM reads them: Debian 12's 1.5.2
 * (pam_handlers.c `_pam_assemble_line`, `_pam_StrTok`, pam_misc.c
 * `_pam_parse_control`) and Debian 13's 1.7.0 (`_pam_line_assemble`,
 * `_pam_tokenize`), with Debian's `@include`.  Where the two libpams read a
 * file differently, or the file cannot be read whole, the answer is "cannot
 * tell" (PAMSTACK_UNKNOWN), never a guess: tests/e2e/pamstack.sh holds this
 * to the real libpam.
 *
 * What it follows: `#` ends a line; a line whose last non-blank is `\` goes
 * on on the next; a control or argument in `[...]` is one word (`\]` is a `]`
 * inside; the word ends at the first other `]`, with no blank needed after
 * it); `-` before the type only hides a missing module; `include X` puts X's
 * lines of the type in place, `substack X` runs them as a frame one level
 * down, `@include X` puts every line of X in place; a line libpam cannot use
 * (an unknown type, no control, no module, a file it cannot open) stays, as a
 * line that fails (PAMSTACK_BROKEN); a service without lines of the type runs
 * "other"'s.
 */
#ifndef TOUCHAUTH_PAMSTACK_H
#define TOUCHAUTH_PAMSTACK_H

#include <stddef.h>

#define PAMSTACK_NAME_MAX 255	/* bytes of a file's or a module's name */
#define PAMSTACK_FILE_MAX 65536 /* bytes of one file read, at most */
#define PAMSTACK_DEPTH	  16	/* libpam's PAM_SUBSTACK_MAX_LEVEL: includes and substacks deep */
#define PAMSTACK_READS	  64	/* files read for one service, at most (Debian's login: 6) */
#define PAMSTACK_LINE_MAX 1022	/* bytes of one logical line: libpam 1.5's buffer is 1024 */
#define PAMSTACK_ARGS_MAX 64	/* arguments of one line */
#define PAMSTACK_RESULTS  32	/* libpam's _PAM_RETURN_VALUES: success ... incomplete */

/* What a line's control does with a module's result (libpam's _PAM_ACTION_*); > 0: a jump. */
enum pamstack_action {
	PAMSTACK_IGNORE = 0,
	PAMSTACK_OK = -1,
	PAMSTACK_DONE = -2,
	PAMSTACK_BAD = -3,
	PAMSTACK_DIE = -4,
	PAMSTACK_RESET = -5,
	PAMSTACK_UNDEF = -6
};

enum pamstack_kind {
	PAMSTACK_MODULE = 0,   /* a module line */
	PAMSTACK_SUBSTACK = 1, /* `substack X`: the lines after it one level down are X's */
	PAMSTACK_BROKEN = 2    /* a line libpam keeps but cannot run: it fails under its control */
};

struct pamstack_line {
	enum pamstack_kind kind;
	const char *file;    /* the file that holds it, as named */
	unsigned int number; /* its first line there, from 1 */
	int level;	     /* substack level: 0 the service's frame */
	int silent;	     /* "-type": a missing module is not logged */
	const char *control; /* as libpam reads it: brackets gone, "\]" a "]"; "" none */
	const char *module;  /* as written; for a substack its file; "" for a broken line */
	int argc;
	const char *const *argv;
	int actions[PAMSTACK_RESULTS]; /* enum pamstack_action or a jump, per result */
};

/*
 * How files are read: READ puts the text of the file NAME (the service, "other",
 * or a name as written after include, substack or @include) into buf (at most
 * size bytes) and returns its length; PAMSTACK_READ_MISSING when there is no
 * such file, -1 when it cannot be read (then the reader cannot tell).
 */
#define PAMSTACK_READ_MISSING (-2)
struct pamstack_source {
	long (*read)(void *ctx, const char *name, char *buf, size_t size);
	void *ctx;
};

/* Called for each line in libpam's order; a nonzero return stops the reading. */
typedef int (*pamstack_visit)(void *ctx, const struct pamstack_line *line);

enum pamstack_result {
	PAMSTACK_READ = 0,    /* every line given */
	PAMSTACK_STOPPED = 1, /* the visitor stopped */
	PAMSTACK_NONE = 2,    /* neither the service nor "other" exists */
	PAMSTACK_REFUSED =
	    3, /* libpam refuses the service or "other" (pam_start fails): none run */
	PAMSTACK_UNKNOWN = -1 /* cannot tell: unknown->file names the file, unknown->why says why */
};

struct pamstack_unknown {
	char file[PAMSTACK_NAME_MAX + 1];
	const char *why; /* a static phrase: "unreadable", "too big", ... */
};

/*
 * The lines of TYPE ("auth", "account", "password", "session") of SERVICE.
 * Lines already given stay given when the answer is PAMSTACK_UNKNOWN; a
 * reading that cannot tell goes on, so the lines after are given too.
 */
enum pamstack_result pamstack_read(const struct pamstack_source *source, const char *service,
				   const char *type, pamstack_visit visit, void *ctx,
				   struct pamstack_unknown *unknown);

/*
 * libpam's reading of CONTROL (a word, or what stood in brackets) into
 * actions[PAMSTACK_RESULTS]: required, requisite, optional, sufficient, else
 * `value=action` pairs (a syntax error: every value bad).  0, or -1 when the
 * two libpams read it differently (a jump past INT_MAX).
 */
int pamstack_actions(const char *control, int actions[PAMSTACK_RESULTS]);

/* libpam's name of result I (0 <= I < PAMSTACK_RESULTS): "success", "auth_err", ... */
const char *pamstack_result_name(int i);

#endif /* TOUCHAUTH_PAMSTACK_H */
