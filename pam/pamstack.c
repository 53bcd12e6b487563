/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one reader of PAM stack files (pamstack.h): libpam's reading, written
 * here from its behaviour (Linux-PAM 1.5.2 and 1.7.0; none of its code), held
 * to the real libpam by tests/e2e/pamstack.sh.
 */
#include "pamstack.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BLANKS " \n\t" /* libpam's word delimiters: not \r, \v or \f */

/* libpam's result names, in its order; "default" after them. */
static const char *const result_names[PAMSTACK_RESULTS + 1] = { "success",
								"open_err",
								"symbol_err",
								"service_err",
								"system_err",
								"buf_err",
								"perm_denied",
								"auth_err",
								"cred_insufficient",
								"authinfo_unavail",
								"user_unknown",
								"maxtries",
								"new_authtok_reqd",
								"acct_expired",
								"session_err",
								"cred_unavail",
								"cred_expired",
								"cred_err",
								"no_module_data",
								"conv_err",
								"authtok_err",
								"authtok_recover_err",
								"authtok_lock_busy",
								"authtok_disable_aging",
								"try_again",
								"ignore",
								"abort",
								"authtok_expired",
								"module_unknown",
								"bad_item",
								"conv_again",
								"incomplete",
								"default" };

/* The action words, in libpam's order: the index is minus the action. */
static const char *const action_names[] = { "ignore", "ok", "done", "bad", "die", "reset" };

const char *pamstack_result_name(int i)
{
	return i >= 0 && i < PAMSTACK_RESULTS ? result_names[i] : "";
}

static void fill(int actions[PAMSTACK_RESULTS], int action, int only_undefined)
{
	for (int i = 0; i < PAMSTACK_RESULTS; i++)
		if (!only_undefined || actions[i] == PAMSTACK_UNDEF)
			actions[i] = action;
}

static const char *skip_space(const char *s)
{
	while (*s != '\0' && isspace((unsigned char)*s))
		s++;
	return s;
}

/* One `value=action` pair at *s: 0 and *s past it, or -1 (a syntax error), -2 (a jump too big). */
static int control_pair(const char **s, int actions[PAMSTACK_RESULTS])
{
	const char *p = *s;
	int value = -1, action = 1;
	size_t len = 0;

	for (int i = 0; i <= PAMSTACK_RESULTS && value < 0; i++) {
		len = strlen(result_names[i]);
		if (strncmp(p, result_names[i], len) == 0)
			value = i;
	}
	if (value < 0 || p[len] == '\0')
		return -1;
	p = skip_space(p + len);
	if (*p++ != '=')
		return -1;
	p = skip_space(p);
	if (*p == '\0')
		return -1;
	for (int a = 0; a < (int)(sizeof(action_names) / sizeof(action_names[0])) && action > 0;
	     a++) {
		len = strlen(action_names[a]);
		if (strncmp(p, action_names[a], len) == 0) {
			action = -a;
			p += len;
		}
	}
	if (action > 0) {
		if (!isdigit((unsigned char)*p))
			return -1;
		action = 0;
		while (isdigit((unsigned char)*p)) {
			int digit = *p++ - '0';

			/* 1.5.2 overflows an int here, 1.7.0 refuses: the two differ. */
			if (action > (INT_MAX - digit) / 10)
				return -2;
			action = action * 10 + digit;
		}
		if (action == 0)
			return -1;
	}
	if (value == PAMSTACK_RESULTS)
		fill(actions, action, 1);
	else
		actions[value] = action;
	*s = p;
	return 0;
}

int pamstack_actions(const char *control, int actions[PAMSTACK_RESULTS])
{
	static const struct {
		const char *word;
		int success, ignore, other;
	} words[] = {
		{ "required", PAMSTACK_OK, PAMSTACK_IGNORE, PAMSTACK_BAD },
		{ "requisite", PAMSTACK_OK, PAMSTACK_IGNORE, PAMSTACK_DIE },
		{ "optional", PAMSTACK_OK, PAMSTACK_IGNORE, PAMSTACK_IGNORE },
		{ "sufficient", PAMSTACK_DONE, PAMSTACK_IGNORE, PAMSTACK_IGNORE },
	};
	const char *p = control;
	int bad = 0;

	fill(actions, PAMSTACK_UNDEF, 0);
	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		if (strcasecmp(control, words[w].word) != 0)
			continue;
		fill(actions, words[w].other, 0);
		actions[0] = words[w].success;	/* success */
		actions[12] = words[w].success; /* new_authtok_reqd */
		if (w < 2)
			actions[25] = words[w].ignore; /* ignore: required, requisite */
		return 0;
	}
	while (*(p = skip_space(p)) != '\0' && bad == 0)
		bad = control_pair(&p, actions);
	if (bad != 0)
		fill(actions, PAMSTACK_BAD, 0);
	fill(actions, PAMSTACK_BAD, 1);
	return bad == -2 ? -1 : 0;
}

/*
 * The next word of *p, NUL-terminated in place (libpam's tokenizer): blanks
 * are " \n\t"; a word that starts with '[' runs to the first ']' not written
 * "\]" (which becomes ']'), or to the end, without its brackets.  *open is set
 * when such a word had no ']'.
 */
static char *word(char **p, int *open)
{
	char *s = *p, *end, *next;

	if (s == NULL)
		return NULL;
	s += strspn(s, BLANKS);
	if (*s == '\0') {
		*p = NULL;
		return NULL;
	}
	if (*s == '[') {
		char *to = ++s;

		for (end = s; *end != '\0' && *end != ']'; end++) {
			if (end[0] == '\\' && end[1] == ']')
				end++;
			*to++ = *end;
		}
		if (open != NULL)
			*open = *end == '\0';
		next = *end != '\0' ? end + 1 : end;
		*to = '\0';
	} else {
		end = s + strcspn(s, BLANKS);
		next = *end != '\0' ? end + 1 : end;
		*end = '\0';
	}
	*p = *next != '\0' ? next : NULL;
	return s;
}

enum type { T_ANY = -1, T_AUTH, T_ACCOUNT, T_PASSWORD, T_SESSION };
static const char *const type_names[] = { "auth", "account", "password", "session" };

struct reader {
	const struct pamstack_source *source;
	pamstack_visit visit; /* NULL: read, give nothing ("other" behind a service's lines) */
	void *ctx;
	enum type want;
	struct pamstack_unknown *unknown;
	int told;  /* unknown is set */
	int reads; /* files read so far: a file included twice at every level would be 2^16 */
	int given; /* lines of the type given */
};

/* P_FAIL: libpam fails to read the file; P_MISSING: there is no such file (it fails too). */
enum parsed { P_OK, P_FAIL, P_STOP, P_MISSING };

static void cannot_tell(struct reader *r, const char *file, const char *why)
{
	if (r->told)
		return;
	r->told = 1;
	snprintf(r->unknown->file, sizeof(r->unknown->file), "%s", file);
	r->unknown->why = why;
}

static enum parsed give(struct reader *r, struct pamstack_line *line)
{
	r->given++;
	if (r->visit != NULL && r->visit(r->ctx, line) != 0)
		return P_STOP;
	return P_OK;
}

/* A line libpam keeps and fails: every result bad. */
static enum parsed give_broken(struct reader *r, const char *file, unsigned int number, int level)
{
	struct pamstack_line line = { .kind = PAMSTACK_BROKEN,
				      .file = file,
				      .number = number,
				      .level = level,
				      .control = "",
				      .module = "" };

	fill(line.actions, PAMSTACK_BAD, 0);
	return give(r, &line);
}

static enum parsed parse_file(struct reader *r, const char *name, enum type req, int level,
			      int depth);

/* FILE's line brings NAME's lines, one include or substack deeper than FILE. */
static enum parsed follow(struct reader *r, const char *file, const char *name, enum type req,
			  int level, int depth)
{
	if (depth + 1 >= PAMSTACK_DEPTH) {
		/* libpam 1.7 fails it; 1.5 follows includes deeper (only substacks stop). */
		cannot_tell(r, file, "includes too deep");
		return P_FAIL;
	}
	return parse_file(r, name, req, level, depth + 1);
}

static enum type type_of(const char *word)
{
	for (int t = T_AUTH; t <= T_SESSION; t++)
		if (strcasecmp(word, type_names[t]) == 0)
			return (enum type)t;
	return T_ANY;
}

/* An include or substack line (CONTROL as written) of TYPE naming NAME (NULL: none). */
static enum parsed include(struct reader *r, const char *name, const char *control,
			   const char *file, unsigned int number, enum type type, int level,
			   int depth)
{
	int substack = strcasecmp(control, "substack") == 0;

	enum parsed p = P_FAIL;

	if (substack) {
		struct pamstack_line line = { .kind = PAMSTACK_SUBSTACK,
					      .file = file,
					      .number = number,
					      .level = level,
					      .control = "substack",
					      .module = name != NULL ? name : "" };

		fill(line.actions, PAMSTACK_UNDEF, 0);
		if (give(r, &line) == P_STOP)
			return P_STOP;
	}
	if (name != NULL)
		p = follow(r, file, name, type, level + substack, depth);
	if (p == P_FAIL || p == P_MISSING)
		p = give_broken(r, file, number, level);
	return p;
}

/* One logical line of FILE (text: comments gone, continuations joined) read for REQ. */
static enum parsed parse_line(struct reader *r, char *text, const char *file, unsigned int number,
			      enum type req, int level, int depth)
{
	struct pamstack_line line = {
		.kind = PAMSTACK_MODULE, .file = file, .number = number, .level = level
	};
	const char *argv[PAMSTACK_ARGS_MAX + 1];
	char *p = text, *w = word(&p, NULL), *control, *module;
	enum type type;

	if (w != NULL && strcasecmp(w, "@include") == 0) {
		/* Debian: every line of the file; one it cannot read fails this file too. */
		char *name = word(&p, NULL);
		enum parsed got = P_FAIL;

		if (name != NULL)
			got = follow(r, file, name, req, level, depth);
		else
			cannot_tell(r, file, "an @include without a file");

		return got == P_MISSING ? P_FAIL : got;
	}
	if (w != NULL && *w == '-') {
		line.silent = 1;
		w++;
	}
	type = w != NULL ? type_of(w) : T_ANY;
	if (type == T_ANY) { /* an unknown type: a failing line of the type asked, auth for all */
		line.kind = PAMSTACK_BROKEN;
		type = req != T_ANY ? req : T_AUTH;
	}
	if (req != T_ANY && type != req)
		return P_OK;
	control = word(&p, NULL);
	if (control != NULL &&
	    (strcasecmp(control, "include") == 0 || strcasecmp(control, "substack") == 0)) {
		char *name = word(&p, NULL);

		if (name == NULL) /* libpam 1.5.2 crashes on it, whatever the type asked */
			cannot_tell(r, file, "an include or substack without a file");
		if (type != r->want)
			return P_OK;
		return include(r, name, control, file, number, type, level, depth);
	}
	if (type != r->want)
		return P_OK;
	line.control = control != NULL ? control : "";
	if (control == NULL)
		fill(line.actions, PAMSTACK_BAD, 0);
	else if (pamstack_actions(control, line.actions) != 0)
		cannot_tell(r, file, "a jump past INT_MAX");
	module = word(&p, NULL);
	line.module = module != NULL ? module : "";
	if (module == NULL)
		line.kind = PAMSTACK_BROKEN;
	while (p != NULL && line.argc <= PAMSTACK_ARGS_MAX) {
		char *arg = word(&p, NULL);

		if (arg != NULL && line.argc == PAMSTACK_ARGS_MAX)
			cannot_tell(r, file, "too many arguments");
		else if (arg != NULL)
			argv[line.argc++] = arg;
		else
			break;
	}
	argv[line.argc] = NULL;
	line.argv = argv;
	return give(r, &line);
}

/* 1 when TEXT (a copy is cut into words) ends inside a '[' word with no ']' yet. */
static int bracket_open(const char *text, size_t len)
{
	char copy[PAMSTACK_LINE_MAX + 2], *p = copy;
	int open = 0;

	memcpy(copy, text, len);
	copy[len] = '\0';
	while (word(&p, &open) != NULL)
		if (p != NULL)
			open = 0;
	return open;
}

struct assembly {
	char line[PAMSTACK_LINE_MAX + 2];
	size_t used;	     /* bytes of line, libpam 1.5's way: leading blanks kept */
	int going_on;	     /* the line ended in a '\' */
	unsigned int number; /* its first line */
};

/*
 * The logical lines of TEXT (libpam's line assembly), each to parse_line.
 * P_FAIL when libpam fails the file (it ends inside a continuation).
 */
static enum parsed parse_text(struct reader *r, const char *text, size_t len, const char *file,
			      enum type req, int level, int depth)
{
	struct assembly a = { .used = 0 };
	unsigned int physical = 0;
	size_t at = 0;

	while (at < len) {
		const char *start = text + at, *nl = memchr(start, '\n', len - at);
		size_t n = nl != NULL ? (size_t)(nl - start) : len - at,
		       lead = strspn(start, " \t");
		const char *hash;

		at += n + (nl != NULL);
		physical++;
		/* libpam 1.5 reads a line into what is left of 1024 bytes: longer, it cuts it. */
		if (a.used + n + 2 > PAMSTACK_LINE_MAX + 2) {
			cannot_tell(r, file, "a line longer than libpam 1.5 reads whole");
			return P_OK;
		}
		if (lead >= n || start[lead] == '#') {
			/* 1.5 skips it inside a continuation, 1.7 ends the line there. */
			if (a.going_on)
				cannot_tell(r, file,
					    "a continued line runs over a blank or comment line");
			continue;
		}
		if (!a.going_on)
			a.number = physical;
		else if (lead > 0 && bracket_open(a.line, a.used))
			/* 1.5 keeps the next line's leading blanks in the word, 1.7 drops them. */
			cannot_tell(r, file, "a bracket runs over a continued line");
		memcpy(a.line + a.used, start, n);
		hash = memchr(start, '#', n);
		if (hash != NULL) {
			a.used += (size_t)(hash - start);
		} else {
			size_t k = n;

			while (k > lead && (start[k - 1] == ' ' || start[k - 1] == '\t'))
				k--;
			if (start[k - 1] == '\\') {
				a.line[a.used + k - 1] = ' ';
				a.used += k;
				a.going_on = 1;
				continue;
			}
			a.used += n;
			if (nl != NULL) /* both libpams keep it: an open '[' word holds it */
				a.line[a.used++] = '\n';
		}
		a.line[a.used] = '\0';
		enum parsed p = parse_line(r, a.line, file, a.number, req, level, depth);
		if (p != P_OK)
			return p;
		a.used = 0;
		a.going_on = 0;
	}
	return a.going_on ? P_FAIL : P_OK; /* both libpams: an incomplete line fails the file */
}

static enum parsed parse_file(struct reader *r, const char *name, enum type req, int level,
			      int depth)
{
	char file[PAMSTACK_NAME_MAX + 1];
	enum parsed p;
	char *text;
	long len;

	snprintf(file, sizeof(file), "%s", name);
	if (strlen(name) > PAMSTACK_NAME_MAX) {
		cannot_tell(r, file, "a name too long");
		return P_FAIL;
	}
	if (++r->reads > PAMSTACK_READS) {
		cannot_tell(r, file, "too many files");
		return P_FAIL;
	}
	text = malloc(PAMSTACK_FILE_MAX + 1);
	if (text == NULL) {
		cannot_tell(r, file, "out of memory");
		return P_FAIL;
	}
	len = r->source->read(r->source->ctx, file, text, PAMSTACK_FILE_MAX + 1);
	if (len == PAMSTACK_READ_MISSING) {
		free(text);
		return P_MISSING;
	}
	if (len < 0 || len > PAMSTACK_FILE_MAX) {
		cannot_tell(r, file, len < 0 ? "unreadable" : "too big");
		free(text);
		return P_FAIL;
	}
	if (memchr(text, '\0', (size_t)len) != NULL) {
		cannot_tell(r, file, "a NUL byte");
		len = (long)strnlen(text, (size_t)len);
	}
	p = parse_text(r, text, (size_t)len, file, req, level, depth);
	free(text);
	return p;
}

enum pamstack_result pamstack_read(const struct pamstack_source *source, const char *service,
				   const char *type, pamstack_visit visit, void *ctx,
				   struct pamstack_unknown *unknown)
{
	struct reader r = { .source = source, .visit = visit, .ctx = ctx, .unknown = unknown };
	enum parsed own, other;

	memset(unknown, 0, sizeof(*unknown));
	r.want = type_of(type);
	if (r.want == T_ANY)
		return PAMSTACK_NONE;
	/* libpam reads the service, then "other" whatever the service holds; other's lines run
	 * for a type the service has none of. */
	own = parse_file(&r, service, T_ANY, 0, 0);
	if (own == P_STOP)
		return PAMSTACK_STOPPED;
	if (own == P_FAIL) /* libpam runs nothing */
		return r.told ? PAMSTACK_UNKNOWN : PAMSTACK_REFUSED;
	/* (Lines of a service named "other" are "other"'s: libpam holds them twice.) */
	if (own == P_OK && r.given > 0 && strcasecmp(service, "other") != 0)
		r.visit = NULL;
	other = parse_file(&r, "other", T_ANY, 0, 0);
	if (other == P_STOP)
		return PAMSTACK_STOPPED;
	if (other == P_FAIL)
		return r.told ? PAMSTACK_UNKNOWN : PAMSTACK_REFUSED;
	if (r.told)
		return PAMSTACK_UNKNOWN;
	return own == P_MISSING && other == P_MISSING ? PAMSTACK_NONE : PAMSTACK_READ;
}
