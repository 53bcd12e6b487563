/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer harness for the config parser (config.c, config_parse.c: the
 * config file and the module arguments share it; the module and the helper
 * both build it), with ASan and UBSan.  The input up to the first NUL is a
 * config file; the rest, split at NULs, are module arguments (config= names
 * a file: only config_find_path sees it).  Checked: no memory error, whatever
 * is accepted obeys the key table's bounds, and its dump reads back to itself.
 */
#include "../config.h"
#include "../protocol.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Silent: the parser's complaints would drown the log. */
static void quiet(void *ctx, int priority, const char *message)
{
	(void)ctx;
	(void)priority;
	(void)message;
}

static const struct config_log log_quietly = { quiet, NULL, NULL };

static void check(const struct config_values *o)
{
	static char dump[CONFIG_DUMP_MAX], again_dump[CONFIG_DUMP_MAX];
	struct config_values again;
	struct config_error err;
	size_t n;

	if (o->max_tries < 1 || o->max_tries > 10 || o->timeout < 1 || o->timeout > 600 ||
	    o->lockout_threshold < 1 || o->lockout_threshold > 1000 || o->unlock_time < 0 ||
	    o->password_max_age < 0 || o->password_max_age > 8760 ||
	    (o->debug != 0 && o->debug != 1))
		abort();
	if (o->helper[0] != '/' || o->print_dir[0] != '/' || o->state_dir[0] != '/' ||
	    o->lid_dir[0] != '/' || o->sysfs_dir[0] != '/')
		abort();
	if (strnlen(o->virtual_device, sizeof(o->virtual_device)) > CONFIG_SOCKET_PATH_MAX ||
	    strnlen(o->reason, sizeof(o->reason)) > CONFIG_LINE_MAX ||
	    strnlen(o->helper, sizeof(o->helper)) > CONFIG_PATH_MAX)
		abort();
	/* The dump of an accepted config is a file that reads back to the same config. */
	n = config_dump(o, dump, sizeof(dump));
	if (n >= sizeof(dump))
		abort();
	config_defaults(&again);
	if (config_apply_text(&log_quietly, &again, dump, n, "dump", &err) != 0 ||
	    config_dump(&again, again_dump, sizeof(again_dump)) != n ||
	    memcmp(dump, again_dump, n) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_values opts;
	struct config_error err;
	const char *text = (const char *)data;
	char path[CONFIG_PATH_MAX + 1];
	size_t file_len = strnlen(text, size), start;
	int ok;

	config_defaults(&opts);
	ok = config_apply_text(&log_quietly, &opts, text, file_len, "fuzz.conf", &err) == 0;
	if (ok)
		check(&opts);

	/* The module arguments, each NUL-terminated in a copy. */
	start = file_len + 1;
	for (int argc = 0; ok && start < size && argc < TA_REQUEST_ARGS_MAX; argc++) {
		size_t len = strnlen(text + start, size - start);
		char *arg = malloc(len + 1);
		const char *argv[1] = { arg };

		if (arg == NULL)
			return 0;
		memcpy(arg, text + start, len);
		arg[len] = '\0';
		(void)config_find_path(&log_quietly, 1, argv, path, &err);
		ok = config_apply_argument(&log_quietly, &opts, arg, argc, &err) == 0;
		free(arg);
		start += len + 1;
	}
	if (ok)
		check(&opts);
	return 0;
}
