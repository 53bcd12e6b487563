/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pam_touchauth: fingerprint authentication with LocalAuthentication's
 * semantics.  This file holds the PAM entry points: options, the user, the
 * cheap skips that need no helper, then the helper's outcome mapped to a PAM
 * code.  Every failure ends in PAM_AUTHINFO_UNAVAIL, i.e. the next module
 * (the password); only a trusted "success" is PAM_SUCCESS.
 */
#define PAM_SM_AUTH
#define PAM_SM_ACCOUNT

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "approval.h"
#include "clients.h"
#include "helper.h"
#include "keyring.h"
#include "lockout.h"
#include "options.h"
#include "presence.h"
#include "protocol.h"
#include "version.h"

#define USER_NAME_MAX 256

/*
 * pam_set_data key: how our finger line went in this pam_authenticate.  The
 * `authsucc` line reads it: a handle whose fingerprint matched has no
 * password to record.
 */
#define AUTH_RAN_KEY	 "pam_touchauth_auth"
#define AUTH_MATCHED	 "matched"
#define AUTH_NOT_MATCHED "not-matched"
/* The argument, anywhere on the line, that makes it the password's recorder
 * (docs/POLICY.md#lockout). */
#define MODE_AUTHSUCC "authsucc"
#define PWBUF_MAX     (1024 * 1024)

/* Before any path is built from it (SECURITY.md#user-names).  Sets *uid when given. */
static int check_user(pam_handle_t *pamh, const char *user, uid_t *uid)
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

/*
 * Ctrl-C at the fingerprint prompt was a byte to us (ISIG was off); at the
 * host's own password prompt it would have been SIGINT.  A host that leaves
 * SIGINT at its default and unblocked (su, login, pamtester) gets it now, once
 * the terminal is back and the helper reaped, and ends exactly as there.  A
 * host that blocks, catches or ignores it (sudo) does not: a signal arriving
 * outside its prompt is not one it expects (sudo would record it and die only
 * after the next password was typed); it gets PAM_ABORT instead.  No handler
 * is installed, nothing is left pending.
 */
static void give_back_interrupt(void)
{
	struct sigaction act;
	sigset_t blocked;

	if (sigaction(SIGINT, NULL, &act) != 0 || act.sa_handler != SIG_DFL ||
	    (act.sa_flags & SA_SIGINFO) != 0)
		return;
	if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) != 0 || sigismember(&blocked, SIGINT))
		return;
	(void)kill(getpid(), SIGINT);
}

/* Seconds a password typed at the fingerprint prompt may pause between keys. */
#define TYPING_IDLE_SECONDS 60

/* How a prompt ended. */
struct verdict {
	enum ta_outcome outcome;
	int strikes;   /* in a row after this prompt; -1: unknown */
	int signalled; /* a SIGTERM or SIGHUP arrived while held */
};

/*
 * The fingerprint prompt, with the terminal's keys when a person types into
 * this program (terminal.h, USE is TERMINAL_OWNED): Enter or typing is
 * userFallback, the interrupt character userCancel.  A password typed at the
 * prompt becomes PAM_AUTHTOK for the next module (pam_unix.so
 * try_first_pass).  The terminal comes back in its saved mode on every path,
 * after the helper is reaped.
 */
static struct verdict verify(pam_handle_t *pamh, struct helper_call *call, struct terminal *term,
			     enum terminal_use use, struct held_signals *held)
{
	struct verdict v = { .outcome = TA_SYSTEM_CANCEL, .strikes = -1, .signalled = 0 };

	if (use == TERMINAL_OWNED) {
		term->offer = call->opts->fallback_title[0] != '\0';
		if (terminal_take(pamh, term) != PAM_SUCCESS) {
			terminal_close(term); /* the conversation alone still works */
		} else {
			signals_hold(held);
			term->stop_fd = held->fd;
		}
	}

	/* Sets the outcome to systemCancel on every failure, and logs why. */
	call->term = term->modified ? term : NULL;
	call->columns = use == TERMINAL_OWNED ? terminal_columns(term) : 0;
	(void)helper_run(pamh, call, &v.outcome, &v.strikes);
	call->term = NULL;

	if (v.outcome == TA_USER_FALLBACK && term->typing) {
		switch (terminal_read_password(term, TYPING_IDLE_SECONDS)) {
		case KEY_PASSWORD:
			if (pam_set_item(pamh, PAM_AUTHTOK, term->password) != PAM_SUCCESS)
				pam_syslog(pamh, LOG_ERR, "cannot hand the typed password on");
			break;
		case KEY_CANCEL:
			v.outcome = TA_USER_CANCEL;
			break;
		default:
			break; /* idle or gone: the next module asks */
		}
	}
	v.signalled = term->stopped;
	/* Ctrl-C drops unread input, as at a password prompt; otherwise type-ahead stays. */
	terminal_restore(term, v.outcome == TA_USER_CANCEL);
	terminal_close(term);
	return v;
}

/* What has_print_dir saw (0: no prints). */
#define PRINTS_SEEN   1
#define PRINTS_HIDDEN 2 /* behind root's 0700 print_dir: a caller that is not root */

/* fprintd's layout: <print_dir>/<user>/<driver>/<device>/<finger>. */
static int has_print_dir(pam_handle_t *pamh, const struct config_values *opts, const char *user)
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

/* The helper can read root's prints for a caller that is not root: it is setuid root. */
static int helper_setuid_root(const struct config_values *opts)
{
	struct stat st;

	return stat(opts->helper, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
	       (st.st_mode & S_ISUID) != 0;
}

/*
 * Where libpam finds a module named without a path: the "security" directory
 * beside libpam itself (Debian's /lib/<multiarch>/security, Fedora's
 * /usr/lib64/security), and ours, wherever this module was loaded from.
 */
static void module_dirs(char libpam_dir[PATH_MAX], char own_dir[PATH_MAX], const char *dirs[3])
{
	Dl_info info;
	int n = 0;

	if (dladdr((void *)pam_get_item, &info) != 0 && info.dli_fname != NULL &&
	    snprintf(libpam_dir, PATH_MAX, "%s", info.dli_fname) < PATH_MAX) {
		char *dir = dirname(libpam_dir);

		memmove(libpam_dir, dir, strlen(dir) + 1);
		if (strlen(libpam_dir) + sizeof("/security") <= PATH_MAX) {
			strcat(libpam_dir, "/security");
			dirs[n++] = libpam_dir;
		}
	}
	if (dladdr((void *)pam_sm_authenticate, &info) != 0 && info.dli_fname != NULL &&
	    snprintf(own_dir, PATH_MAX, "%s", info.dli_fname) < PATH_MAX) {
		char *dir = dirname(own_dir);

		memmove(own_dir, dir, strlen(dir) + 1);
		dirs[n++] = own_dir;
	}
	dirs[n] = NULL;
}

/*
 * A login whose stack unlocks a keyring with the password (keyring.h): the
 * password, so that the keyring is unlocked; one line in the log says why.
 */
static int keeps_keyring(pam_handle_t *pamh, const struct config_values *opts, const char *user,
			 const char *service)
{
	char libpam_dir[PATH_MAX], own_dir[PATH_MAX], why[1024];
	const char *dirs[3], *refusal;
	int offered_locked;

	if (!client_starts_session(service))
		return 0;
	module_dirs(libpam_dir, own_dir, dirs);
	refusal = keyring_refusal(opts->finger_at_keyring_login, "/etc/pam.d", dirs, service, why,
				  sizeof(why), &offered_locked);
	if (refusal != NULL) {
		pam_syslog(pamh, LOG_INFO, "user %s: %s", user, refusal);
		return 1;
	}
	if (offered_locked && opts->debug)
		pam_syslog(
		    pamh, LOG_DEBUG,
		    "finger_at_keyring_login = yes: a finger here leaves the keyring locked");
	return 0;
}

/*
 * A locker that reads the password first (clients.h) is asked one
 * PAM_PROMPT_ECHO_OFF, whose text it never shows; it answers with what was
 * typed before Enter.  Typed: the password, PAM_AUTHTOK for pam_unix.so
 * try_first_pass, at once (*outcome userFallback).  Empty: the person asks
 * for the finger (returns 1, *outcome untouched).  No answer: the next module
 * asks (*outcome systemCancel).  Returns 0 but for the finger.
 */
static int ask_first(pam_handle_t *pamh, enum ta_outcome *outcome)
{
	char *answer = NULL;
	int finger = 0;

	if (pam_prompt(pamh, PAM_PROMPT_ECHO_OFF, &answer, "Password: ") != PAM_SUCCESS ||
	    answer == NULL) {
		pam_syslog(pamh, LOG_ERR, "the locker gave no answer");
		free(answer);
		*outcome = TA_SYSTEM_CANCEL;
		return 0;
	}
	*outcome = TA_USER_FALLBACK;
	if (answer[0] == '\0')
		finger = 1;
	else if (pam_set_item(pamh, PAM_AUTHTOK, answer) != PAM_SUCCESS)
		pam_syslog(pamh, LOG_ERR, "cannot hand the typed password on");
	explicit_bzero(answer, strlen(answer));
	free(answer);
	return finger;
}

/*
 * The `authsucc` line: a password was typed, and if the whole pam_authenticate
 * succeeds, it is recorded: as after a passcode on iOS, the strikes and the
 * lockout are cleared and the trust rules count from now (the helper's
 * `pam-account`).  Where the line stands proves nothing: inside `auth
 * substack` a `requisite pam_deny.so` ends only the substack, so a line after
 * it runs after a wrong password too (docs/POLICY.md#lockout).  Only libpam knows the
 * stack's verdict, and it tells one function: the PAM_FAIL_DELAY callback,
 * which pam_authenticate calls with the final status once the stack has run
 * (libpam/pam_delay.c: "always call the application's delay function").  So
 * this line arms: it takes that item for the rest of this call, and
 * record_at_end() chains to the application's own function (or sleeps the
 * delay libpam would have slept).  The line never decides anything:
 * PAM_IGNORE.
 *
 * What arms: run by root (only root may clear a lockout: a screen locker runs
 * as the user, and the setuid helper refuses pam-account from it); our finger
 * line did not match in this call; a password is on the handle (PAM_AUTHTOK;
 * a fingerprint of pam_fprintd or a key of pam_u2f sets none); the user has
 * prints.  What the module cannot tell: a stack that, after a password was
 * typed, succeeds through a module that is not a password (a jump from
 * pam_u2f over pam_unix).  touchauth doctor FAILs such a stack.
 */
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

static int arm_recorder(pam_handle_t *pamh, int argc, const char **argv)
{
	struct config_values opts;
	struct config_error err;
	union delay_item current = { .item = NULL }, ours = { .fn = record_at_end };
	const void *ran = NULL, *service = NULL, *token = NULL;
	const char *user = NULL;
	size_t used = 0;
	int n = 0;

	/* The fingerprint, not a password, got this handle here. */
	if (pam_get_data(pamh, AUTH_RAN_KEY, &ran) == PAM_SUCCESS && ran != NULL &&
	    strcmp(ran, AUTH_NOT_MATCHED) != 0)
		goto out;
	if (options_load(pamh, argc, argv, &opts, &err) != PAM_SUCCESS)
		goto out;
	if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || user == NULL ||
	    check_user(pamh, user, NULL) != PAM_SUCCESS)
		goto out;
	if (geteuid() != 0)
		goto out;
	/* No password on the handle: whatever authenticates, it is not one. */
	if (pam_get_item(pamh, PAM_AUTHTOK, &token) != PAM_SUCCESS || token == NULL ||
	    *(const char *)token == '\0') {
		if (opts.debug)
			pam_syslog(pamh, LOG_DEBUG, "user %s: no password typed; nothing to record",
				   user);
		goto out;
	}
	/* No prints: the fingerprint is never tried, so there is nothing to clear. */
	if (!has_print_dir(pamh, &opts, user))
		goto out;
	if (pam_get_item(pamh, PAM_SERVICE, &service) != PAM_SUCCESS || service == NULL ||
	    strlen(service) >= sizeof(armed.service) || strlen(user) >= sizeof(armed.user))
		goto out;
	if (armed.pamh == pamh)
		goto out; /* a second authsucc line in this call */
	for (int i = 0; i < argc; i++) {
		size_t len = strlen(argv[i]) + 1;

		if (n >= TA_REQUEST_ARGS_MAX || used + len > sizeof(armed.args))
			goto out; /* options_load refused more already */
		memcpy(armed.args + used, argv[i], len);
		armed.argv[n++] = armed.args + used;
		used += len;
	}
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

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct config_values opts;
	struct config_error err;
	struct presence presence;
	struct terminal term;
	struct held_signals held = { .fd = -1 };
	struct helper_call call;
	struct approval approval;
	struct verdict v;
	const struct ta_outcome_info *info;
	const char *user = NULL;
	const void *service = NULL;
	uid_t uid = 0;
	int retval, prints;
	char strikes_text[16];

	(void)flags; /* pam_info messages are the prompt itself; sudo always sets PAM_SILENT */

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], MODE_AUTHSUCC) == 0) {
			const char *rest[TA_REQUEST_ARGS_MAX];
			int n = 0;

			for (int j = 0; j < argc && n < TA_REQUEST_ARGS_MAX; j++)
				if (j != i)
					rest[n++] = argv[j];
			if (n < argc - 1) {
				pam_syslog(pamh, LOG_ERR, "too many module arguments");
				return PAM_IGNORE;
			}
			return arm_recorder(pamh, n, rest);
		}
	}
	/* From here on, this call's finger line fell through unless it matches. */
	(void)pam_set_data(pamh, AUTH_RAN_KEY, (void *)AUTH_NOT_MATCHED, NULL);

	if (options_load(pamh, argc, argv, &opts, &err) != PAM_SUCCESS) {
		pam_syslog(pamh, LOG_ERR, "bad configuration; falling back to the password");
		retval = PAM_AUTHINFO_UNAVAIL;
		goto out;
	}
	if (opts.debug)
		pam_syslog(pamh, LOG_DEBUG, "pam_touchauth " TOUCHAUTH_VERSION ", helper %s",
			   opts.helper);

	retval = pam_get_user(pamh, &user, NULL);
	if (retval != PAM_SUCCESS || user == NULL) {
		pam_syslog(pamh, LOG_ERR, "cannot determine the user name");
		retval = PAM_USER_UNKNOWN;
		goto out;
	}
	retval = check_user(pamh, user, &uid);
	if (retval != PAM_SUCCESS)
		goto out;
	retval = PAM_AUTHINFO_UNAVAIL;

	if (pam_get_item(pamh, PAM_SERVICE, &service) != PAM_SUCCESS || service == NULL) {
		pam_syslog(pamh, LOG_ERR, "cannot determine the service name");
		goto out;
	}
	/* GDM's password conversation: the finger is gdm-fingerprint's (clients.h). */
	if (client_password_only(service)) {
		if (opts.debug)
			pam_syslog(pamh, LOG_DEBUG,
				   "GDM's password conversation: the finger is gdm-fingerprint's");
		goto out;
	}
	/* Cheapest first: most users a stack sees have no prints (one lstat). */
	prints = has_print_dir(pamh, &opts, user);
	if (!prints) {
		if (opts.debug)
			pam_syslog(pamh, LOG_DEBUG, "no enrolled prints");
		goto out;
	}
	/*
	 * A locker that reads the password first: asked before the other checks,
	 * so that a typed password goes on at once; an empty answer meets them
	 * all.  Never asked when its empty Enter could not reach the prints.
	 */
	terminal_init(&term);
	if (client_asks_first(service)) {
		if (prints == PRINTS_HIDDEN && !helper_setuid_root(&opts)) {
			if (opts.debug)
				pam_syslog(pamh, LOG_DEBUG,
					   "the locker runs as the user and "
					   "the helper is not setuid root");
			goto out;
		}
		v = (struct verdict){ .strikes = -1 };
		if (!ask_first(pamh, &v.outcome))
			goto audit;
	}
	if (keeps_keyring(pamh, &opts, user, service))
		goto out;
	presence = presence_decide(pamh, &opts, service, uid, &term);
	if (presence.refusal != NULL) {
		if (opts.debug)
			pam_syslog(pamh, LOG_DEBUG, "%s", presence.refusal);
		goto out;
	}

	/* A lockout the helper marked (lockout.h): refused as the helper would, without it. */
	v = (struct verdict){ .outcome = TA_BIOMETRY_LOCKOUT,
			      .strikes = lockout_marked(&opts, uid) };
	if (v.strikes >= 0) {
		terminal_close(&term);
		lockout_tell(pamh);
		if (opts.debug)
			pam_syslog(pamh, LOG_DEBUG,
				   "locked out (the helper's marker): no helper started");
		goto audit;
	}

	call = (struct helper_call){ .mode = HELPER_VERIFY,
				     .opts = &opts,
				     .user = user,
				     .service = service,
				     .argc = argc,
				     .argv = argv,
				     .one_message = client_keeps_one_message(service) };
	/* What the touch approves, from the host's own argv (approval.h). */
	if (opts.show_command && approval_read(client_host(service), user, &approval) == 0)
		call.approval = &approval;
	v = verify(pamh, &call, &term, presence.use, &held);
	if (v.outcome == TA_SUCCESS)
		(void)pam_set_data(pamh, AUTH_RAN_KEY, (void *)AUTH_MATCHED, NULL);

audit:
	info = &ta_outcomes[v.outcome];
	/* The audit line (LOG_AUTHPRIV): who, where, what, and the strikes in a row. */
	snprintf(strikes_text, sizeof(strikes_text), "%d", v.strikes);
	pam_syslog(pamh,
		   v.outcome == TA_SUCCESS || v.outcome == TA_AUTHENTICATION_FAILED ? LOG_NOTICE
										    : LOG_INFO,
		   "user %s, service %s: %s, strikes %s", user, (const char *)service, info->name,
		   v.strikes < 0 ? "-" : strikes_text);
	if (opts.debug)
		pam_syslog(pamh, LOG_DEBUG, "outcome %s -> %s", info->name, info->pam_code_name);
	retval = info->pam_code;
	signals_release(&held); /* a held SIGTERM or SIGHUP reaches the host now */
	if (v.outcome == TA_USER_CANCEL && !v.signalled)
		give_back_interrupt();
out:
	return retval;
}

/*
 * Kept so that stacks with the old `account optional pam_touchauth.so` line
 * still load, but it clears nothing: reaching the account phase is no proof
 * that a password succeeded (sshd calls pam_acct_mgmt on the handle of a
 * failed password once a key is accepted).  The `authsucc` line records the
 * password.  This module never decides whether an account is valid.
 */
PAM_EXTERN int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_IGNORE;
}

PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_SUCCESS;
}
