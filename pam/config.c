/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The key table's parser side: each row of CONFIG_KEYS (config.h: every key
 * of touchauth.conf and the module arguments, its type, bounds, default, and
 * who may set it) validated, stored, dumped; and every config_error worded
 * (config_error_text).  The grammar that reads the lines
 * is config_parse.c; both files are built into the module and the helper.
 */
#include "config.h"
#include "protocol.h"

#include <stdio.h>
#include <string.h>

enum value_type {
	VT_INT,
	VT_BOOL,
	VT_TEXT,
	VT_ABSPATH,
	VT_SOCKET,
};

/* Who may set a key as a module argument (SECURITY.md#restricted-mode): see CONFIG_KEYS. */
enum key_access {
	ROOT,
	CALLER,
};

struct key_spec {
	const char *name;
	enum value_type type;
	int min, max;	 /* VT_INT */
	size_t maxlen;	 /* strings: longest value in bytes */
	const char *def; /* parsed like a value, so defaults obey the rules */
	enum key_access access;
	size_t offset; /* into struct config_values */
	size_t size;   /* of that field */
};

#define KEY_SPEC(name, type, min, max, length, def, access)                                        \
	{ #name,                                                                                   \
	  VT_##type,                                                                               \
	  min,                                                                                     \
	  max,                                                                                     \
	  length,                                                                                  \
	  def,                                                                                     \
	  access,                                                                                  \
	  offsetof(struct config_values, name),                                                    \
	  sizeof(((struct config_values *)0)->name) },

/* The key table, from its rows in config.h.  Its order is the order of the dump. */
static const struct key_spec keys[] = { CONFIG_KEYS(KEY_SPEC) };

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* Each key's line: its name, '=', a value no longer than its field, '\n'. */
_Static_assert(sizeof(struct config_values) + NKEYS * (CONFIG_KEY_MAX + 16) <= CONFIG_DUMP_MAX,
	       "CONFIG_DUMP_MAX holds every dump");

static const struct key_spec *find_key(const char *name)
{
	for (size_t i = 0; i < NKEYS; i++) {
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	}
	return NULL;
}

/* 1 to 9 ASCII digits, no sign, no blanks. */
static int parse_int(const char *s, int min, int max, int *out)
{
	size_t n = strlen(s);
	long v = 0;

	if (n < 1 || n > 9 || strspn(s, "0123456789") != n)
		return -1;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	if (v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_bool(const char *s, int *out)
{
	static const struct {
		const char *word;
		int value;
	} words[] = {
		{ "yes", 1 }, { "no", 0 },  { "true", 1 }, { "false", 0 },
		{ "on", 1 },  { "off", 0 }, { "1", 1 },	   { "0", 0 },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcmp(s, words[i].word) == 0) {
			*out = words[i].value;
			return 0;
		}
	}
	return -1;
}

static int is_abspath(const char *s, size_t maxlen)
{
	size_t n = strlen(s);

	return n >= 1 && n <= maxlen && s[0] == '/';
}

/* Validate value for spec and store it; on error values is unchanged. */
static int set_value(const struct key_spec *spec, const char *value, struct config_values *values)
{
	char *field = (char *)values + spec->offset;
	size_t n = strlen(value);

	switch (spec->type) {
	case VT_INT:
		return parse_int(value, spec->min, spec->max, (int *)(void *)field);
	case VT_BOOL:
		return parse_bool(value, (int *)(void *)field);
	case VT_TEXT:
		if (n > spec->maxlen)
			return -1;
		break;
	case VT_ABSPATH:
		if (!is_abspath(value, spec->maxlen))
			return -1;
		break;
	case VT_SOCKET:
		if (n != 0 && !is_abspath(value, spec->maxlen))
			return -1;
		break;
	default:
		return -1;
	}
	if (n >= spec->size)
		return -1;
	memcpy(field, value, n + 1);
	return 0;
}

void config_defaults(struct config_values *values)
{
	memset(values, 0, sizeof(*values));
	for (size_t i = 0; i < NKEYS; i++)
		(void)set_value(&keys[i], keys[i].def, values);
}

int config_set(struct config_values *values, const char *key, const char *value)
{
	const struct key_spec *spec = find_key(key);

	if (spec == NULL)
		return 1;
	return set_value(spec, value, values);
}

const char *config_text(const struct config_values *values, const char *key)
{
	const struct key_spec *spec = find_key(key);

	if (spec == NULL || spec->type == VT_INT || spec->type == VT_BOOL)
		return NULL;
	return (const char *)values + spec->offset;
}

int config_number(const struct config_values *values, const char *key)
{
	const struct key_spec *spec = find_key(key);
	int v = 0;

	if (spec != NULL && (spec->type == VT_INT || spec->type == VT_BOOL))
		memcpy(&v, (const char *)values + spec->offset, sizeof(v));
	return v;
}

int config_key_is_callers(const char *key)
{
	const struct key_spec *spec = find_key(key);

	return spec != NULL && spec->access == CALLER;
}

size_t config_dump(const struct config_values *values, char *buf, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < NKEYS; i++) {
		const char *field = (const char *)values + keys[i].offset;
		char number[16];
		int v, w;

		if (keys[i].type == VT_INT || keys[i].type == VT_BOOL) {
			memcpy(&v, field, sizeof(v));
			snprintf(number, sizeof(number), "%d", v);
			field = keys[i].type == VT_INT ? number : v ? "yes" : "no";
		}
		w = snprintf(n < size ? buf + n : NULL, n < size ? size - n : 0, "%s=%s\n",
			     keys[i].name, field);
		n += w > 0 ? (size_t)w : 0;
	}
	return n;
}

/* A refused file's reason, in the helper's words (FileError's, Files.swift). */
static const char *file_problem_text(enum config_file_problem problem)
{
	switch (problem) {
	case CONFIG_FILE_SYMLINK:
		return "a symbolic link";
	case CONFIG_FILE_NOT_REGULAR:
		return "not a regular file";
	case CONFIG_FILE_NOT_ROOT:
		return "not owned by root";
	case CONFIG_FILE_WRITABLE:
		return "writable by group or others";
	case CONFIG_FILE_LINKED:
		return "has other hard links";
	default:
		return NULL;
	}
}

static void helper_text(const struct config_error *err, const char *argument, char *buf,
			size_t size)
{
	const char *why = file_problem_text(err->file);

	if (argument == NULL)
		argument = "";
	if (err->kind == CONFIG_ERR_ARGS)
		snprintf(buf, size, "more than %d module arguments", TA_REQUEST_ARGS_MAX);
	else if (err->kind == CONFIG_ERR_FILE && err->file == CONFIG_FILE_MISSING)
		snprintf(buf, size, "%s: no such file", err->path);
	else if (err->kind == CONFIG_ERR_FILE && err->file == CONFIG_FILE_TOO_BIG)
		snprintf(buf, size, "%s: refused: larger than %d bytes", err->path,
			 CONFIG_FILE_MAX);
	else if (err->kind == CONFIG_ERR_FILE && why != NULL)
		snprintf(buf, size, "%s: refused: %s", err->path, why);
	else if (err->kind == CONFIG_ERR_FILE)
		snprintf(buf, size, "%s: %s", err->path, strerror(err->errnum));
	else if (err->kind == CONFIG_ERR_LINE)
		snprintf(buf, size, "%s: invalid line %u", err->path, err->line);
	else if (err->kind == CONFIG_ERR_KEY)
		snprintf(buf, size, "%s: invalid %s",
			 err->argument >= 0 ? "module arguments" : err->path, err->key);
	else
		snprintf(buf, size, "%s: invalid module argument %s",
			 err->argument >= 0 ? "module arguments" : err->path, argument);
}

void config_error_text(const struct config_error *err, enum config_wording wording,
		       const char *argument, char *buf, size_t size)
{
	if (wording == CONFIG_WORDING_HELPER) {
		helper_text(err, argument, buf, size);
		return;
	}
	switch (err->kind) {
	case CONFIG_ERR_LINE:
		snprintf(buf, size, "invalid line %u", err->line);
		break;
	case CONFIG_ERR_KEY:
		snprintf(buf, size, "invalid %s", err->key);
		break;
	case CONFIG_ERR_ARG:
		snprintf(buf, size, "invalid argument %d", err->argument + 1);
		break;
	case CONFIG_ERR_ARGS:
		snprintf(buf, size, "invalid arguments");
		break;
	case CONFIG_OK:
	case CONFIG_ERR_FILE:
	default:
		snprintf(buf, size, "invalid file");
		break;
	}
}
