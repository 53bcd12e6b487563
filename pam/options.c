/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The module's side of the config parser (config.c, config_parse.c,
 * config_file.c; the helper builds the same files): its messages go to
 * pam_syslog, as pam_unix's passverify.c logs with pam_syslog in the module
 * and helper_log_err in unix_chkpwd.
 */
#include "options.h"

#include <security/pam_ext.h>

static void log_line(void *ctx, int priority, const char *message)
{
	pam_syslog(ctx, priority, "%s", message);
}

/* Without a handle (tests) the parser writes to stderr. */
static struct config_log pam_log(pam_handle_t *pamh)
{
	struct config_log log = { pamh != NULL ? log_line : NULL, NULL, pamh };

	return log;
}

int options_load(pam_handle_t *pamh, int argc, const char **argv, struct config_values *opts,
		 struct config_error *err)
{
	struct config_log log = pam_log(pamh);

	if (config_load(&log, NULL, argc, argv, opts, err) == 0)
		return PAM_SUCCESS;
	if (err->kind == CONFIG_ERR_FILE && err->file == CONFIG_FILE_NO_MEMORY)
		return PAM_BUF_ERR;
	return PAM_AUTHINFO_UNAVAIL;
}

int trusted_by_root(pam_handle_t *pamh, const char *path, const struct stat *st)
{
	struct config_log log = pam_log(pamh);

	return config_trusted_by_root(&log, path, st) == CONFIG_FILE_TRUSTED ? 0 : -1;
}
