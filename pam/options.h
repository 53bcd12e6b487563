/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The module's side of touchauth.conf and the module arguments: the parser
 * itself is config.h's, built into the helper too; this adds pam_syslog as
 * its log and PAM return codes.  Everything lands in a per-call struct.
 */
#ifndef TOUCHAUTH_OPTIONS_H
#define TOUCHAUTH_OPTIONS_H

#include <security/pam_modules.h>

#include "config.h"

/*
 * Load the config file (config= among argv, else the default path; a missing
 * default file means defaults), then apply argv in order on top of it.
 * Returns PAM_SUCCESS, or PAM_AUTHINFO_UNAVAIL (PAM_BUF_ERR without memory)
 * with *err filled in and the reason logged.
 */
int options_load(pam_handle_t *pamh, int argc, const char **argv, struct config_values *opts,
		 struct config_error *err);

/* config_trusted_by_root, logged with pam_syslog: 0 when trusted, else -1. */
struct stat;
int trusted_by_root(pam_handle_t *pamh, const char *path, const struct stat *st);

#endif /* TOUCHAUTH_OPTIONS_H */
