/*
 * pam_touchauth: fingerprint authentication with LocalAuthentication's
 * semantics.  This file holds the PAM entry points: options, the user, the
 * cheap skips that need no helper, then the helper's outcome mapped to a PAM
 * code.  Every failure ends in PAM_AUTHINFO_UNAVAIL, i.e. the next module
 * (the password); only a trusted "success" is PAM_SUCCESS.
 */
#define PAM_SM_AUTH

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "helper.h"
#include "options.h"
#include "protocol.h"

#define USER_NAME_MAX 256
#define PWBUF_MAX     (1024 * 1024)

/* Before any path is built from it (DESIGN.md §5.2). */
static int check_user(pam_handle_t *pamh, const char *user)
{
	struct passwd pw, *result = NULL;
	char *buf = NULL;
	size_t len = strnlen(user, USER_NAME_MAX + 1), bufsize;
	long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
	int retval = PAM_USER_UNKNOWN, err;

	if (len < 1 || len > USER_NAME_MAX || strcmp(user, ".") == 0 || strcmp(user, "..") == 0 ||
	    strchr(user, '/') != NULL) {
		pam_syslog(pamh, LOG_ERR, "invalid user name");
		goto out;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)user[i];

		if (c < 0x20 || c == 0x7f) {
			pam_syslog(pamh, LOG_ERR, "invalid user name");
			goto out;
		}
	}

	bufsize = hint > 0 ? (size_t)hint : 16384;
	for (;;) {
		char *bigger = realloc(buf, bufsize);

		if (bigger == NULL) {
			pam_syslog(pamh, LOG_ERR, "out of memory");
			retval = PAM_BUF_ERR;
			goto out;
		}
		buf = bigger;
		err = getpwnam_r(user, &pw, buf, bufsize, &result);
		if (err == EINTR)
			continue;
		if (err != ERANGE || bufsize >= PWBUF_MAX)
			break;
		bufsize *= 2;
	}
	if (result == NULL) {
		/* Not the name: people type their password at the user prompt. */
		pam_syslog(pamh, LOG_ERR, "unknown user");
		goto out;
	}
	retval = PAM_SUCCESS;
out:
	free(buf);
	return retval;
}

/* Empty means local: login sets PAM_RHOST to "". */
static int is_remote(pam_handle_t *pamh)
{
	static const char *const local[] = { "localhost", "127.0.0.1", "::1" };
	const void *item = NULL;
	const char *rhost;

	if (pam_get_item(pamh, PAM_RHOST, &item) != PAM_SUCCESS || item == NULL)
		return 0;
	rhost = item;
	if (rhost[0] == '\0')
		return 0;
	for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++) {
		if (strcmp(rhost, local[i]) == 0)
			return 0;
	}
	return 1;
}

/* fprintd's layout: <print_dir>/<user>/<driver>/<device>/<finger>. */
static int has_print_dir(pam_handle_t *pamh, const struct options *opts, const char *user)
{
	char path[CONFIG_PATH_MAX + USER_NAME_MAX + 2];
	struct stat st;
	int n = snprintf(path, sizeof(path), "%s/%s", opts->print_dir, user);

	if (n < 0 || (size_t)n >= sizeof(path)) {
		pam_syslog(pamh, LOG_ERR, "print directory path too long");
		return 0;
	}
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct options opts;
	struct options_error err;
	enum ta_outcome outcome = TA_SYSTEM_CANCEL;
	const struct ta_outcome_info *info;
	const char *user = NULL;
	const void *service = NULL;
	int retval;

	(void)flags; /* pam_info messages are the prompt itself; sudo always sets PAM_SILENT */

	if (options_load(pamh, argc, argv, &opts, &err) != PAM_SUCCESS) {
		pam_syslog(pamh, LOG_ERR, "bad configuration; falling back to the password");
		retval = PAM_AUTHINFO_UNAVAIL;
		goto out;
	}

	retval = pam_get_user(pamh, &user, NULL);
	if (retval != PAM_SUCCESS || user == NULL) {
		pam_syslog(pamh, LOG_ERR, "cannot determine the user name");
		retval = PAM_USER_UNKNOWN;
		goto out;
	}
	retval = check_user(pamh, user);
	if (retval != PAM_SUCCESS)
		goto out;

	if (is_remote(pamh)) {
		if (opts.debug)
			pam_syslog(pamh, LOG_DEBUG, "remote session");
		retval = PAM_AUTHINFO_UNAVAIL;
		goto out;
	}
	if (!has_print_dir(pamh, &opts, user)) {
		if (opts.debug)
			pam_syslog(pamh, LOG_DEBUG, "no enrolled prints");
		retval = PAM_AUTHINFO_UNAVAIL;
		goto out;
	}

	if (pam_get_item(pamh, PAM_SERVICE, &service) != PAM_SUCCESS || service == NULL) {
		pam_syslog(pamh, LOG_ERR, "cannot determine the service name");
		retval = PAM_AUTHINFO_UNAVAIL;
		goto out;
	}

	/* Sets outcome to systemCancel on every failure, and logs why. */
	(void)helper_run(pamh, &opts, user, service, argc, argv, &outcome);

	info = &ta_outcomes[outcome];
	pam_syslog(pamh,
		   outcome == TA_SUCCESS || outcome == TA_AUTHENTICATION_FAILED ? LOG_NOTICE
										: LOG_INFO,
		   "user %s: %s", user, info->name);
	if (opts.debug)
		pam_syslog(pamh, LOG_DEBUG, "outcome %s -> %s", info->name, info->pam_code_name);
	retval = info->pam_code;
out:
	return retval;
}

PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_SUCCESS;
}
