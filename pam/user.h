/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The user the stack names: checked before any path is built from it
 * (SECURITY.md#user-names), and whether they have prints.  Both the finger
 * line and the `authsucc` recorder (recorder.h) ask.
 */
#ifndef TOUCHAUTH_USER_H
#define TOUCHAUTH_USER_H

#include <sys/types.h>

#include <security/pam_modules.h>

#include "config.h"

#define USER_NAME_MAX 256

/* PAM_SUCCESS when the name is sane and exists (sets *uid when given), else a PAM code. */
int check_user(pam_handle_t *pamh, const char *user, uid_t *uid);

/* What has_print_dir saw (0: no prints). */
#define PRINTS_SEEN   1
#define PRINTS_HIDDEN 2 /* behind root's 0700 print_dir: a caller that is not root */

/* fprintd's layout: <print_dir>/<user>/<driver>/<device>/<finger>. */
int has_print_dir(pam_handle_t *pamh, const struct config_values *opts, const char *user);

#endif /* TOUCHAUTH_USER_H */
