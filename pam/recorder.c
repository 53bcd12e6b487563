/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The password's recorder (recorder.h).  What arms it and why the verdict
 * comes from PAM_FAIL_DELAY: docs/POLICY.md#what-lifts-a-lockout; a stack it
 * cannot judge (a jump over pam_unix) is touchauth doctor's to FAIL.
 */
#include "recorder.h"

#include <errno.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>

#include "contract.h"
#include "helper.h"
#include "options.h"
#include "user.h"

typedef void (*delay_fn)(int status, unsigned int usec, void *appdata);

/* An item is a pointer to data; libpam keeps this one as such (pam_delay.c's hack_fn_u). */
union delay_item {
	const void *item;
	delay_fn fn;
};

#define RECORD_ARGS_BUF 4096

/*
 * The armed recording, per thread: the callback gets no handle, and between
 * the line and the end of its pam_authenticate only that stack runs, in this
 * thread (a handle that ends PAM_INCOMPLETE and resumes after another's
 * arming finds nothing armed: it records nothing).  The line's arguments are
 * copied: the callback runs after libpam's dispatch.
 */
static __thread struct {
	pam_handle_t *pamh; /* NULL: nothing armed */
	delay_fn app_delay; /* the application's PAM_FAIL_DELAY, or NULL */
	char user[USER_NAME_MAX + 1];
	char service[256];
	int argc;
	const char *argv[TA_REQUEST_ARGS_MAX];
	char args[RECORD_ARGS_BUF];
} armed;

/*
 * A line from inside the callback: libpam has left the module's dispatch, so
 * pam_syslog would say "PAM" instead of "pam_touchauth(SERVICE:auth)".  The
 * same prefix, by hand (the user was checked by check_user; both are
 * arguments, never the format).
 */
static void log_armed(int priority, const char *what)
{
	syslog(LOG_AUTHPRIV | priority, "pam_touchauth(%s:auth): user %s: %s", armed.service,
	       armed.user, what);
}

/* The helper's pam-account for the armed user: the password succeeded. */
static void record_password(pam_handle_t *pamh)
{
	struct config_values opts;
	struct config_error err;
	enum ta_outcome outcome = TA_SYSTEM_CANCEL;
	struct helper_call call;

	if (options_load(pamh, armed.argc, armed.argv, &opts, &err) != PAM_SUCCESS)
		return;
	call = (struct helper_call){ .mode = HELPER_ACCOUNT,
				     .opts = &opts,
				     .user = armed.user,
				     .service = armed.service,
				     .argc = armed.argc,
				     .argv = armed.argv };
	if (helper_run(pamh, &call, &outcome, NULL) != PAM_SUCCESS || outcome != TA_SUCCESS)
		log_armed(LOG_ERR, "could not record the password authentication");
	else if (opts.debug)
		log_armed(LOG_DEBUG, "password recorded, fingerprint unlocked");
}

/* PAM_FAIL_DELAY while armed: pam_authenticate's final status. */
static void record_at_end(int status, unsigned int usec, void *appdata)
{
	pam_handle_t *pamh = armed.pamh;
	delay_fn app_delay = pamh != NULL ? armed.app_delay : NULL; /* else not ours to know */
	const void *user = NULL;

	if (pamh != NULL) {
		union delay_item restore = { .fn = app_delay };

		armed.pamh = NULL; /* one verdict per arming */
		(void)pam_set_item(pamh, PAM_FAIL_DELAY, restore.item);
		if (status != PAM_SUCCESS)
			log_armed(LOG_INFO, "the authentication failed; no password recorded");
		else if (pam_get_item(pamh, PAM_USER, &user) != PAM_SUCCESS || user == NULL ||
			 strcmp(user, armed.user) != 0)
			log_armed(LOG_NOTICE,
				  "the user changed after the password; nothing recorded");
		else
			record_password(pamh);
	}
	if (app_delay != NULL) {
		app_delay(status, usec, appdata);
	} else if (status != PAM_SUCCESS && usec > 0) {
		/* What libpam does without a callback: sleep the delay the modules asked for. */
		struct timespec left = { usec / 1000000, (long)(usec % 1000000) * 1000 };

		while (nanosleep(&left, &left) != 0 && errno == EINTR)
			;
	}
}

/* The line's arguments, copied into armed: their count, or -1 when they do not fit. */
static int keep_args(int argc, const char **argv)
{
	size_t used = 0;
	int n = 0;

	for (int i = 0; i < argc; i++) {
		size_t len = strlen(argv[i]) + 1;

		if (n >= TA_REQUEST_ARGS_MAX || used + len > sizeof(armed.args))
			return -1; /* options_load refused more already */
		memcpy(armed.args + used, argv[i], len);
		armed.argv[n++] = armed.args + used;
		used += len;
	}
	return n;
}

/*
 * Non-zero when this handle holds a password worth recording: the finger did not
 * get it here, root runs it, one was typed, and the user has prints to clear.
 */
static int password_to_record(pam_handle_t *pamh, int argc, const char **argv,
			      struct config_values *opts, const char **user)
{
	struct config_error err;
	const void *ran = NULL, *token = NULL;

	/* The fingerprint, not a password, got this handle here. */
	if (pam_get_data(pamh, AUTH_RAN_KEY, &ran) == PAM_SUCCESS && ran != NULL &&
	    strcmp(ran, AUTH_NOT_MATCHED) != 0)
		return 0;
	if (options_load(pamh, argc, argv, opts, &err) != PAM_SUCCESS)
		return 0;
	if (pam_get_user(pamh, user, NULL) != PAM_SUCCESS || *user == NULL ||
	    check_user(pamh, *user, NULL) != PAM_SUCCESS)
		return 0;
	if (geteuid() != 0)
		return 0;
	/* No password on the handle: whatever authenticates, it is not one. */
	if (pam_get_item(pamh, PAM_AUTHTOK, &token) != PAM_SUCCESS || token == NULL ||
	    *(const char *)token == '\0') {
		if (opts->debug)
			pam_syslog(pamh, LOG_DEBUG, "user %s: no password typed; nothing to record",
				   *user);
		return 0;
	}
	/* No prints: the fingerprint is never tried, so there is nothing to clear. */
	return has_print_dir(pamh, opts, *user);
}

static int arm_recorder(pam_handle_t *pamh, int argc, const char **argv)
{
	struct config_values opts;
	union delay_item current = { .item = NULL }, ours = { .fn = record_at_end };
	const void *service = NULL;
	const char *user = NULL;
	int n;

	if (!password_to_record(pamh, argc, argv, &opts, &user))
		goto out;
	if (pam_get_item(pamh, PAM_SERVICE, &service) != PAM_SUCCESS || service == NULL ||
	    strlen(service) >= sizeof(armed.service) || strlen(user) >= sizeof(armed.user))
		goto out;
	if (armed.pamh == pamh)
		goto out; /* a second authsucc line in this call */
	n = keep_args(argc, argv);
	if (n < 0)
		goto out;
	if (pam_get_item(pamh, PAM_FAIL_DELAY, &current.item) != PAM_SUCCESS)
		goto out;
	armed.app_delay = current.fn == record_at_end ? NULL : current.fn;
	if (pam_set_item(pamh, PAM_FAIL_DELAY, ours.item) != PAM_SUCCESS)
		goto out;
	armed.pamh = pamh;
	armed.argc = n;
	strcpy(armed.user, user);
	strcpy(armed.service, service);
	if (opts.debug)
		pam_syslog(pamh, LOG_DEBUG,
			   "user %s: a password was typed; recorded if the authentication succeeds",
			   user);
out:
	return PAM_IGNORE;
}

int recorder_line(pam_handle_t *pamh, int argc, const char **argv, int *retval)
{
	const char *rest[TA_REQUEST_ARGS_MAX];
	int n = 0, at = -1;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], MODE_AUTHSUCC) == 0) {
			at = i;
			break;
		}
	}
	if (at < 0)
		return 0;
	*retval = PAM_IGNORE;
	for (int j = 0; j < argc && n < TA_REQUEST_ARGS_MAX; j++)
		if (j != at)
			rest[n++] = argv[j];
	if (n < argc - 1)
		pam_syslog(pamh, LOG_ERR, "too many module arguments");
	else
		*retval = arm_recorder(pamh, n, rest);
	return 1;
}
