/*
 * config_dump FILE: load FILE as an explicit config file and print the dump of
 * tests/config/README.md, or the one error line, exactly as the helper's
 * `touchauth config-dump --config FILE` does.  Diagnostics go to stderr.
 */
#include <stdio.h>

#include "options.h"

int main(int argc, char **argv)
{
	struct options opts;
	struct options_error err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	if (options_load_file(NULL, argv[1], &opts, &err) == PAM_SUCCESS) {
		options_dump(&opts, stdout);
		return 0;
	}
	switch (err.kind) {
	case OPTERR_LINE:
		printf("invalid line %u\n", err.line);
		break;
	case OPTERR_KEY:
		printf("invalid %s\n", err.key);
		break;
	case OPTERR_FILE:
	case OPTERR_ARG:
	case OPTERR_NONE:
	default:
		printf("invalid file\n");
		break;
	}
	return 1;
}
