/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recording module of the differential test (pamstack_diff.c): every
 * module line libpam loads is a copy of this file, told its path by the
 * driver; each call says so to the driver (which answers the result to give).
 */
#include <security/pam_modules.h>

char recorder_path[4096];
int diff_record(const char *type, const char *path, int argc, const char **argv);

#define ENTRY(fn, type)                                                                            \
	PAM_EXTERN int fn(pam_handle_t *pamh, int flags, int argc, const char **argv);             \
	PAM_EXTERN int fn(pam_handle_t *pamh, int flags, int argc, const char **argv)              \
	{                                                                                          \
		(void)pamh;                                                                        \
		(void)flags;                                                                       \
		return diff_record(type, recorder_path, argc, argv);                               \
	}
ENTRY(pam_sm_authenticate, "auth")
ENTRY(pam_sm_setcred, "setcred")
ENTRY(pam_sm_acct_mgmt, "account")
ENTRY(pam_sm_open_session, "session")
ENTRY(pam_sm_close_session, "close_session")
ENTRY(pam_sm_chauthtok, "password")
