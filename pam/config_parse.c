/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The grammar of touchauth.conf and the module arguments (pam_faillock's
 * set_conf_opt, pam-u2f's cfg_load_arg): arguments are lines of the same
 * grammar, applied after the file; the file must be one only root could have
 * written.  The values land in a caller-owned struct config_values (no static
 * mutable state: a display manager keeps many PAM handles alive in one
 * process), checked against the key table (config.c).  Built into the module
 * and the helper alike (config.h), so nothing here needs libpam: messages go
 * through struct config_log.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

/* Only a module argument may name the config file; inside a file it is unknown. */
static const char config_key[] = "config";
static const char in_arguments[] = "module arguments";

enum line_kind { LINE_SKIP, LINE_KV, LINE_INVALID };

void config_say(const struct config_log *log, int priority, const char *fmt, ...)
{
	char line[CONFIG_PATH_MAX + 256];
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (log != NULL && log->line != NULL)
		log->line(log->ctx, priority, line);
	else
		fprintf(stderr, "%s\n", line);
	errno = saved;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static char *trim(char *s)
{
	size_t n;

	while (is_blank(*s))
		s++;
	n = strlen(s);
	while (n > 0 && is_blank(s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* TAB is the only control byte a line may hold. */
static int has_control_byte(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return 1;
	}
	return 0;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF. */
static int is_valid_utf8(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s != '\0') {
		unsigned char c = *s;
		size_t n;
		unsigned int cp;

		if (c < 0x80) {
			s++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			n = 1, cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2, cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3, cp = c & 0x07;
		} else {
			return 0;
		}
		for (size_t i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (s[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		s += n + 1;
	}
	return 1;
}

/*
 * Split one line (len bytes, no '\n') into key and value inside buf, which
 * must hold CONFIG_LINE_MAX + 1 bytes.
 */
static enum line_kind split_line(const char *line, size_t len, char *buf, char **key, char **value)
{
	char *s, *eq;

	if (len > CONFIG_LINE_MAX || has_control_byte(line, len))
		return LINE_INVALID;
	memcpy(buf, line, len);
	buf[len] = '\0';

	s = trim(buf);
	if (*s == '\0' || *s == '#')
		return LINE_SKIP;
	eq = strchr(s, '=');
	if (eq == NULL)
		return LINE_INVALID;
	*eq = '\0';
	*key = trim(s);
	*value = trim(eq + 1);
	if (**key == '\0' || (*key)[strspn(*key, "abcdefghijklmnopqrstuvwxyz_")] != '\0')
		return LINE_INVALID;
	if (!is_valid_utf8(*value))
		return LINE_INVALID;
	return LINE_KV;
}

/* A module argument as a line: the bare word "debug" is debug=yes, as pam_unix has it. */
static enum line_kind split_argument(const char *arg, char *buf, char **key, char **value)
{
	if (strcmp(arg, "debug") == 0)
		arg = "debug=yes";
	return split_line(arg, strlen(arg), buf, key, value);
}

/* Fills in *err and returns -1, for `return fail(...)`. */
static int fail(struct config_error *err, enum config_error_kind kind, const char *path,
		unsigned int line, int argument, const char *key)
{
	memset(err, 0, sizeof(*err));
	err->kind = kind;
	err->line = line;
	err->argument = argument;
	if (key != NULL)
		snprintf(err->key, sizeof(err->key), "%s", key);
	if (path != NULL)
		snprintf(err->path, sizeof(err->path), "%s", path);
	return -1;
}

/*
 * key = value into values, by the key table; -1 for a bad value.  An unknown
 * key is logged, not fatal: a newer helper may know keys this shim does not.
 */
static int set_key(const struct config_log *log, struct config_values *values, const char *key,
		   const char *value, const char *where)
{
	int rc = config_set(values, key, value);

	if (rc != 1)
		return rc;
	config_say(log, LOG_WARNING, "unknown key %s in %s", key, where);
	if (log != NULL && log->unknown_key != NULL)
		log->unknown_key(log->ctx, key, where);
	return 0;
}

/* One line of a config file (lineno counts from 1). */
static int apply_file_line(const struct config_log *log, const char *path, const char *line,
			   size_t len, unsigned int lineno, struct config_values *values,
			   struct config_error *err)
{
	char buf[CONFIG_LINE_MAX + 1];
	char *key = NULL, *value = NULL;

	switch (split_line(line, len, buf, &key, &value)) {
	case LINE_SKIP:
		return 0;
	case LINE_INVALID:
		config_say(log, LOG_ERR, "invalid line %u in %s", lineno, path);
		return fail(err, CONFIG_ERR_LINE, path, lineno, -1, NULL);
	case LINE_KV:
	default:
		break;
	}

	if (set_key(log, values, key, value, path) == 0)
		return 0;
	config_say(log, LOG_ERR, "invalid %s in %s", key, path);
	return fail(err, CONFIG_ERR_KEY, path, lineno, -1, key);
}

int config_apply_text(const struct config_log *log, struct config_values *values, const char *text,
		      size_t len, const char *where, struct config_error *err)
{
	size_t start = 0;
	unsigned int lineno = 0;

	while (start < len) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl != NULL ? (size_t)(nl - text) : len;

		if (apply_file_line(log, where, text + start, end - start, ++lineno, values, err) !=
		    0)
			return -1;
		start = end + 1;
	}
	return 0;
}

/*
 * argv[index] as a line of the grammar; only here is "config" a known key.
 * With config non-NULL (CONFIG_PATH_MAX + 1 bytes) only config= is applied,
 * into config; otherwise config= is skipped and the rest applied to values.
 */
static int apply_argument(const struct config_log *log, const char *arg, int index,
			  struct config_values *values, char *config, struct config_error *err)
{
	char buf[CONFIG_LINE_MAX + 1];
	char *key = NULL, *value = NULL;
	size_t len = strlen(arg);

	if (len > CONFIG_ARG_MAX) {
		config_say(log, LOG_ERR, "invalid module argument (longer than %d bytes)",
			   CONFIG_ARG_MAX);
		return fail(err, CONFIG_ERR_ARG, NULL, 0, index, NULL);
	}
	switch (split_argument(arg, buf, &key, &value)) {
	case LINE_SKIP:
		return 0;
	case LINE_INVALID:
		/* Do not copy control bytes or a whole overlong argument into syslog. */
		if (len > CONFIG_LINE_MAX || has_control_byte(arg, len))
			config_say(log, LOG_ERR,
				   "invalid module argument (too long or control byte)");
		else
			config_say(log, LOG_ERR, "invalid module argument %s", arg);
		return fail(err, CONFIG_ERR_ARG, NULL, 0, index, NULL);
	case LINE_KV:
	default:
		break;
	}

	if (strcmp(key, config_key) == 0) {
		if (value[0] != '/' || strlen(value) > CONFIG_PATH_MAX) {
			config_say(log, LOG_ERR, "invalid module argument %s", arg);
			return fail(err, CONFIG_ERR_KEY, NULL, 0, index, config_key);
		}
		if (config != NULL)
			memcpy(config, value, strlen(value) + 1);
		return 0;
	}
	if (config != NULL)
		return 0; /* first pass: looking for config= only */

	if (set_key(log, values, key, value, in_arguments) == 0)
		return 0;
	config_say(log, LOG_ERR, "invalid module argument %s", arg);
	return fail(err, CONFIG_ERR_KEY, NULL, 0, index, key);
}

int config_apply_argument(const struct config_log *log, struct config_values *values,
			  const char *arg, int index, struct config_error *err)
{
	return apply_argument(log, arg, index, values, NULL, err);
}

int config_find_path(const struct config_log *log, int argc, const char *const *argv,
		     char path[CONFIG_PATH_MAX + 1], struct config_error *err)
{
	path[0] = '\0';
	for (int i = 0; i < argc; i++) {
		if (apply_argument(log, argv[i], i, NULL, path, err) != 0)
			return -1;
	}
	return 0;
}

int config_caller_may_pass(const char *arg, char key[CONFIG_KEY_MAX + 1])
{
	char buf[CONFIG_LINE_MAX + 1];
	char *name = NULL, *value = NULL;

	key[0] = '\0';
	if (strlen(arg) > CONFIG_ARG_MAX || split_argument(arg, buf, &name, &value) != LINE_KV ||
	    config_key_is_callers(name))
		return 1;
	snprintf(key, CONFIG_KEY_MAX + 1, "%s", name);
	return 0;
}
