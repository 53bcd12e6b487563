/*
 * libFuzzer harness for the shim's option parser (options.c: the config file
 * and the module arguments share it), with ASan and UBSan.  options.c is
 * included so its file-line and argument steps run on memory, not on files.
 * The input up to the first NUL is a config file; the rest, split at NULs,
 * are module arguments (config= is skipped: it names a file).  Checked: no
 * memory error, and whatever is accepted obeys the key table's bounds.
 */
#include "../options.c"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct options *o)
{
	if (o->max_tries < 1 || o->max_tries > 10 || o->timeout < 1 || o->timeout > 600 ||
	    o->lockout_threshold < 1 || o->lockout_threshold > 1000 || o->unlock_time < 0 ||
	    o->password_max_age < 0 || o->password_max_age > 8760 ||
	    (o->debug != 0 && o->debug != 1))
		abort();
	if (o->helper[0] != '/' || o->print_dir[0] != '/' || o->state_dir[0] != '/' ||
	    o->lid_dir[0] != '/')
		abort();
	if (strnlen(o->virtual_device, sizeof(o->virtual_device)) > CONFIG_SOCKET_PATH_MAX ||
	    strnlen(o->reason, sizeof(o->reason)) > CONFIG_LINE_MAX ||
	    strnlen(o->helper, sizeof(o->helper)) > CONFIG_PATH_MAX)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options opts;
	struct options_error err;
	const char *text = (const char *)data;
	size_t file_len = strnlen(text, size), start = 0;
	unsigned int lineno = 0;
	int ok = 1;

	set_defaults(&opts);
	set_error(&err, OPTERR_NONE, 0, NULL);
	while (ok && start < file_len) {
		const char *nl = memchr(text + start, '\n', file_len - start);
		size_t end = nl != NULL ? (size_t)(nl - text) : file_len;

		ok = apply_file_line(NULL, "fuzz.conf", text + start, end - start, ++lineno, &opts,
				     &err) == PAM_SUCCESS;
		start = end + 1;
	}
	if (ok)
		check(&opts);

	/* The module arguments, each NUL-terminated in a copy. */
	start = file_len + 1;
	for (int argc = 0; ok && start < size && argc < TA_REQUEST_ARGS_MAX; argc++) {
		size_t len = strnlen(text + start, size - start);
		char *arg = malloc(len + 1);

		if (arg == NULL)
			return 0;
		memcpy(arg, text + start, len);
		arg[len] = '\0';
		if (strncmp(arg, "config", 6) != 0)
			ok = apply_argument(NULL, arg, &opts, NULL, &err) == PAM_SUCCESS;
		free(arg);
		start += len + 1;
	}
	if (ok)
		check(&opts);
	return 0;
}
