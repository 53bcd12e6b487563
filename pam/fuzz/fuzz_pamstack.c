/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer harness for the PAM stack reader (pamstack.c: the files of
 * /etc/pam.d, which the administrator writes), with ASan and UBSan.  The
 * input, split at NULs, is a set of files: the first is the service "f0", the
 * next "f1" ... "f6", then "other"; they may include each other by name.
 * Checked for each type: no memory error, no endless include, every line given
 * is one the files can hold (its number within its file, its level within the
 * depth, its words within the line's length and the argument limit, its
 * actions valid), a substack's lines one level below it, and an answer that
 * the reader gives (read, none, refused, cannot tell).
 */
#include "../pamstack.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILES_MAX 8

struct input {
	const char *text[FILES_MAX];
	size_t len[FILES_MAX];
	int n;
};

static int index_of(const char *name)
{
	if (strcmp(name, "other") == 0)
		return FILES_MAX - 1;
	if (name[0] != 'f' || name[1] < '0' || name[1] > '6' || name[2] != '\0')
		return -1;
	return name[1] - '0';
}

static long read_file(void *ctx, const char *name, char *buf, size_t size)
{
	const struct input *in = ctx;
	int i = index_of(name);

	if (i < 0 || i >= in->n)
		return name[0] == 'x' ? -1 : PAMSTACK_READ_MISSING;
	if (in->len[i] > size)
		return (long)size;
	memcpy(buf, in->text[i], in->len[i]);
	return (long)in->len[i];
}

struct seen {
	const struct input *in;
	int level; /* the last line's */
	int lines;
};

static int check(void *ctx, const struct pamstack_line *line)
{
	struct seen *seen = ctx;
	int i = index_of(line->file);
	unsigned int lines = 1;

	if (i < 0 || i >= seen->in->n || line->number < 1 || line->level < 0 ||
	    line->level >= PAMSTACK_DEPTH || line->level > seen->level + 1 || line->argc < 0 ||
	    line->argc > PAMSTACK_ARGS_MAX || line->control == NULL || line->module == NULL ||
	    strlen(line->control) > PAMSTACK_LINE_MAX || strlen(line->module) > PAMSTACK_LINE_MAX)
		abort();
	for (size_t k = 0; k < seen->in->len[i]; k++)
		lines += seen->in->text[i][k] == '\n';
	if (line->number > lines)
		abort();
	for (int a = 0; a < line->argc; a++)
		if (line->argv[a] == NULL || strlen(line->argv[a]) > PAMSTACK_LINE_MAX)
			abort();
	if (line->kind != PAMSTACK_SUBSTACK)
		for (int r = 0; r < PAMSTACK_RESULTS; r++)
			if (line->actions[r] < PAMSTACK_RESET)
				abort();
	/* a substack's frame starts one level down; other lines stay at most where they were */
	if (line->level > seen->level && seen->lines > 0 && seen->level + 1 != line->level)
		abort();
	seen->level = line->kind == PAMSTACK_SUBSTACK ? line->level + 1 : line->level;
	seen->lines++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const types[] = { "auth", "account", "password", "session" };
	struct input in = { .n = 0 };
	struct pamstack_source source = { read_file, &in };
	struct pamstack_unknown unknown;
	size_t at = 0;

	while (at <= size && in.n < FILES_MAX) {
		const uint8_t *nul = memchr(data + at, 0, size - at);
		size_t len = nul != NULL ? (size_t)(nul - (data + at)) : size - at;

		in.text[in.n] = (const char *)data + at;
		in.len[in.n++] = len;
		at += len + 1;
	}
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		struct seen seen = { .in = &in, .level = 0 };
		enum pamstack_result got =
		    pamstack_read(&source, "f0", types[t], check, &seen, &unknown);

		if (got != PAMSTACK_READ && got != PAMSTACK_NONE && got != PAMSTACK_REFUSED &&
		    got != PAMSTACK_UNKNOWN)
			abort();
		if (got == PAMSTACK_UNKNOWN && (unknown.why == NULL || unknown.file[0] == '\0'))
			abort();
	}
	return 0;
}
