/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer harness for the login keyring's stack scan (keyring.c: the PAM
 * files of /etc/pam.d, which the administrator writes), with ASan and UBSan.
 * The input, split at NULs, is a set of files: the first is the service
 * "f0", the next "f1", "f2", ..., which the others may include, substack or
 * @include by name.  Every module counts as installed.  Checked: no memory
 * error, no endless include, and a keyring found is a keyring's module on a
 * line that exists in the file it names.
 *
 * Files near and over KEYRING_FILE_MAX, which a mutated input of libFuzzer's
 * -max_len never reaches: an input that starts with the byte 0xff followed by
 * a byte P has its first file ("f0", what follows) padded with a comment to
 * KEYRING_FILE_MAX - 64 + (P & 0x7f) bytes, so that the lengths just under,
 * at and just over the limit are all tried (over it: "cannot tell").
 */
#include "../keyring.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILES_MAX 8
#define PAD_MARK  0xff

static char padded[KEYRING_FILE_MAX + 128];

struct input {
	const char *text[FILES_MAX];
	size_t len[FILES_MAX];
	int n;
};

static long read_file(void *ctx, const char *name, char *buf, size_t size)
{
	const struct input *in = ctx;
	int i;

	if (name[0] != 'f' || name[1] < '0' || name[1] > '7' || name[2] != '\0')
		return -1;
	i = name[1] - '0';
	if (i >= in->n)
		return -1;
	if (in->len[i] > size)
		return (long)size;
	memcpy(buf, in->text[i], in->len[i]);
	return (long)in->len[i];
}

static int present(void *ctx, const char *module)
{
	(void)ctx;
	(void)module;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { .n = 0 };
	struct keyring_source source = { read_file, present, &in };
	struct keyring_found found;
	enum keyring_scan got;
	size_t at = 0, pad_to = 0;

	if (size >= 2 && data[0] == PAD_MARK) {
		pad_to = KEYRING_FILE_MAX - 64 + (data[1] & 0x7f);
		at = 2;
	}
	while (at <= size && in.n < FILES_MAX) {
		const uint8_t *nul = memchr(data + at, 0, size - at);
		size_t len = nul != NULL ? (size_t)(nul - (data + at)) : size - at;

		in.text[in.n] = (const char *)data + at;
		in.len[in.n++] = len;
		at += len + 1;
	}
	if (pad_to > 0 && in.len[0] < pad_to) {
		/* The file as given, then "\n#" and filler to the length chosen. */
		memcpy(padded, in.text[0], in.len[0]);
		memset(padded + in.len[0], 'x', pad_to - in.len[0]);
		padded[in.len[0]] = '\n';
		if (pad_to - in.len[0] > 1)
			padded[in.len[0] + 1] = '#';
		in.text[0] = padded;
		in.len[0] = pad_to;
	}
	got = keyring_scan(&source, "f0", &found);
	if (got != KEYRING_NONE && got != KEYRING_UNLOCKS && got != KEYRING_UNKNOWN)
		abort();
	if (got == KEYRING_UNLOCKS) {
		int i = found.file[1] - '0';
		unsigned int lines = 1;

		/* A module name longer than the field is cut (the log line's copy): no check then. */
		if ((strlen(found.module) < KEYRING_NAME_MAX && !keyring_module(found.module)) ||
		    found.file[0] != 'f' || i < 0 || i >= in.n || found.line < 1)
			abort();
		for (size_t k = 0; k < in.len[i]; k++)
			lines += in.text[i][k] == '\n';
		if (found.line > lines)
			abort();
	}
	return 0;
}
