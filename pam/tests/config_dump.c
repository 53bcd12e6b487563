/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config_dump FILE [--arguments ARGS [--restricted]]: load FILE as an explicit
 * config file and the module arguments in ARGS (one a line) over it, those a
 * caller that is not root may not pass dropped first with --restricted; print
 * the dump of tests/config/README.md, or the one error line, exactly as the
 * helper's `touchauth config-dump --config FILE ...` does.  Diagnostics go
 * to stderr.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"

#define ARGS_MAX 64 /* more than a request carries, so that config_load says so */

static char text[CONFIG_FILE_MAX + 1];
static const char *args[ARGS_MAX];

/* The lines of path, each an argument; -1 if unreadable or too many. */
static int read_arguments(const char *path, int restricted)
{
	FILE *f = fopen(path, "r");
	size_t len;
	int n = 0;

	if (f == NULL)
		return -1;
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	for (char *line = text, *nl; *line != '\0' && n < ARGS_MAX; line = nl + 1) {
		char key[CONFIG_KEY_MAX + 1];

		nl = strchr(line, '\n');
		if (nl == NULL)
			nl = line + strlen(line) - 1; /* the last line, without its '\n' */
		else
			*nl = '\0';
		if (restricted && !config_caller_may_pass(line, key))
			fprintf(stderr, "ignored: module argument %s (caller is not root)\n", key);
		else
			args[n++] = line;
	}
	return n;
}

int main(int argc, char **argv)
{
	static struct config_values values;
	static struct config_error err;
	static char out[CONFIG_DUMP_MAX];
	int restricted = argc == 5 && strcmp(argv[4], "--restricted") == 0;
	int nargs = 0;

	if (!(argc == 2 || ((argc == 4 || restricted) && strcmp(argv[2], "--arguments") == 0))) {
		fprintf(stderr, "usage: %s FILE [--arguments ARGS [--restricted]]\n", argv[0]);
		return 2;
	}
	if (argc > 2 && (nargs = read_arguments(argv[3], restricted)) < 0) {
		perror(argv[3]);
		return 2;
	}
	if (config_load(NULL, argv[1], nargs, args, &values, &err) == 0) {
		config_dump(&values, out, sizeof(out));
		fputs(out, stdout);
		return 0;
	}
	config_error_text(&err, CONFIG_WORDING_DUMP, NULL, out, sizeof(out));
	puts(out);
	return 1;
}
