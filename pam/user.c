/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The user, checked and looked up (user.h).
 */
#include "user.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>

#define PWBUF_MAX (1024 * 1024)

/* Before any path is built from it (SECURITY.md#user-names). */
int check_user(pam_handle_t *pamh, const char *user, uid_t *uid)
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
	if (uid != NULL)
		*uid = pw.pw_uid;
	retval = PAM_SUCCESS;
out:
	free(buf);
	return retval;
}

/* fprintd's layout: <print_dir>/<user>/<driver>/<device>/<finger>. */
int has_print_dir(pam_handle_t *pamh, const struct config_values *opts, const char *user)
{
	char path[CONFIG_PATH_MAX + USER_NAME_MAX + 2];
	struct stat st;
	int n = snprintf(path, sizeof(path), "%s/%s", opts->print_dir, user);

	if (n < 0 || (size_t)n >= sizeof(path)) {
		pam_syslog(pamh, LOG_ERR, "print directory path too long");
		return 0;
	}
	if (lstat(path, &st) == 0)
		return S_ISDIR(st.st_mode) ? PRINTS_SEEN : 0;
	/* A screen locker runs as the user: root's print_dir is for the setuid helper. */
	return errno == EACCES && geteuid() != 0 ? PRINTS_HIDDEN : 0;
}
