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
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "agent.h"
#include "approval.h"
#include "clients.h"
#include "helper.h"
#include "keyring.h"
#include "lockout.h"
#include "options.h"
#include "presence.h"
#include "protocol.h"
#include "recorder.h"
#include "user.h"
#include "version.h"

/*
 * Ctrl-C at our prompt was a byte (ISIG off): a host whose SIGINT is at its
 * default and unblocked (su, login) gets it now, once the terminal is back;
 * one that blocks, catches or ignores it (sudo) gets PAM_ABORT only
 * (docs/decisions/0010-ctrl-c-is-pam-abort.md).  Nothing is left pending.
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
/*
 * The answer a polkit agent's field gave (agent.h), after the audit line:
 * typed, it becomes PAM_AUTHTOK for the next module; empty, the next module
 * asks.  A prompt that ended without one (wrong fingers, the timeout, the
 * helper's lockout) waits for it as the password module's own question
 * would, so the field keeps what the person types and no second request
 * empties it.  After a match the request is left unanswered: the agent hears
 * SUCCESS.
 */
static void agent_answer(pam_handle_t *pamh, struct agent *agent, enum ta_outcome outcome)
{
	if (!agent->asked || outcome == TA_SUCCESS)
		return;
	if (agent_wait(agent) == AGENT_ANSWERED && agent->len > 0 &&
	    pam_set_item(pamh, PAM_AUTHTOK, agent->answer) != PAM_SUCCESS)
		pam_syslog(pamh, LOG_ERR, "cannot hand the typed password on");
	agent_clear(agent);
}

static struct verdict verify(pam_handle_t *pamh, struct helper_call *call, struct terminal *term,
			     enum terminal_use use, struct held_signals *held)
{
	struct verdict v = { .outcome = TA_SYSTEM_CANCEL, .strikes = -1, .signalled = 0 };

	/* A polkit agent's field, beside the finger (agent.h); an empty fallback_title: none. */
	if (call->agent != NULL &&
	    (call->opts->fallback_title[0] == '\0' || agent_ask(pamh, call->agent) != 0))
		call->agent = NULL;

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

/* One finger line's call, once its user is checked. */
struct attempt {
	struct config_values opts;
	const char *user;
	const char *service;
	uid_t uid;
	int argc;
	const char **argv;
	struct terminal term;
	struct agent agent; /* polkit's agent line, when the host is its helper */
	struct held_signals held;
	struct verdict v;
	struct helper_seen seen; /* the helper's pid and the request it overlapped, if any */
};

/* The options, the user (checked, mapped to a uid) and the service: PAM_SUCCESS or a PAM code. */
static int attempt_load(pam_handle_t *pamh, struct attempt *a)
{
	struct config_error err;
	const void *service = NULL;
	int retval;

	if (options_load(pamh, a->argc, a->argv, &a->opts, &err) != PAM_SUCCESS) {
		pam_syslog(pamh, LOG_ERR, "bad configuration; falling back to the password");
		return PAM_AUTHINFO_UNAVAIL;
	}
	if (a->opts.debug)
		pam_syslog(pamh, LOG_DEBUG, "pam_touchauth " TOUCHAUTH_VERSION ", helper %s",
			   a->opts.helper);

	retval = pam_get_user(pamh, &a->user, NULL);
	if (retval != PAM_SUCCESS || a->user == NULL) {
		pam_syslog(pamh, LOG_ERR, "cannot determine the user name");
		return PAM_USER_UNKNOWN;
	}
	retval = check_user(pamh, a->user, &a->uid);
	if (retval != PAM_SUCCESS)
		return retval;

	if (pam_get_item(pamh, PAM_SERVICE, &service) != PAM_SUCCESS || service == NULL) {
		pam_syslog(pamh, LOG_ERR, "cannot determine the service name");
		return PAM_AUTHINFO_UNAVAIL;
	}
	a->service = service;
	return PAM_SUCCESS;
}

/* What has_print_dir saw, or 0 when this service's finger is not ours or there are no prints. */
static int attempt_prints(pam_handle_t *pamh, const struct attempt *a)
{
	int prints;

	/* A display manager's password conversation: the finger is its own stack's (clients.h). */
	if (client_password_only(a->service)) {
		if (a->opts.debug)
			pam_syslog(pamh, LOG_DEBUG,
				   "a password conversation: the finger is its own stack's "
				   "(gdm-fingerprint, kde-fingerprint)");
		return 0;
	}
	/* Cheapest first: most users a stack sees have no prints (one lstat). */
	prints = has_print_dir(pamh, &a->opts, a->user);
	if (!prints && a->opts.debug)
		pam_syslog(pamh, LOG_DEBUG, "no enrolled prints");
	return prints;
}

/* What locker_first decided. */
#define GO_FINGER   1
#define GO_AUDIT    0 /* a->v is the outcome */
#define GO_PASSWORD -1

/*
 * A locker that reads the password first: asked before the other checks, so
 * that a typed password goes on at once; an empty answer meets them all.
 * Never asked when its empty Enter could not reach the prints.
 */
static int locker_first(pam_handle_t *pamh, struct attempt *a, int prints)
{
	if (!client_asks_first(a->service))
		return GO_FINGER;
	if (prints == PRINTS_HIDDEN && !helper_setuid_root(&a->opts)) {
		if (a->opts.debug)
			pam_syslog(pamh, LOG_DEBUG,
				   "the locker runs as the user and the helper is not setuid root");
		return GO_PASSWORD;
	}
	a->v = (struct verdict){ .strikes = -1 };
	return ask_first(pamh, &a->v.outcome) ? GO_FINGER : GO_AUDIT;
}

/*
 * The request's display, which names it on an overlapping prompt when its
 * host has no terminal (docs/POLICY.md#one-request-at-a-time): PAM_XDISPLAY,
 * else a PAM_TTY like ":0" (what presence.c takes for a display item).
 */
static const char *display_of(pam_handle_t *pamh)
{
	const void *item = NULL;

	if (pam_get_item(pamh, PAM_XDISPLAY, &item) == PAM_SUCCESS && item != NULL &&
	    *(const char *)item != '\0')
		return item;
	if (pam_get_item(pamh, PAM_TTY, &item) == PAM_SUCCESS && item != NULL &&
	    *(const char *)item == ':')
		return item;
	return NULL;
}

/*
 * The session the helper asks logind about (docs/POLICY.md#a-locked-screen):
 * presence's, unless the request is a lock screen's own unlock conversation
 * (a locker of clients.h's table, GDM's unlock), which a locked session keeps.
 */
static const char *locked_screen_session(const char *service, const struct presence *presence)
{
	if (client_unlocks_screen(service) || keyring_screen_unlock(service))
		return NULL;
	return presence->session;
}

/* The keyring rule, presence, the lockout marker, then the prompt: GO_AUDIT or GO_PASSWORD. */
static int finger(pam_handle_t *pamh, struct attempt *a)
{
	struct presence presence;
	struct helper_call call;
	struct approval approval;

	if (keeps_keyring(pamh, &a->opts, a->user, a->service))
		return GO_PASSWORD;
	presence =
	    presence_decide(pamh, &a->opts, a->service, a->uid, agent_host(a->service), &a->term);
	if (presence.refusal != NULL) {
		if (a->opts.debug)
			pam_syslog(pamh, LOG_DEBUG, "%s", presence.refusal);
		return GO_PASSWORD;
	}

	/* A lockout the helper marked (lockout.h): refused as the helper would, without it. */
	a->v = (struct verdict){ .outcome = TA_BIOMETRY_LOCKOUT,
				 .strikes = lockout_marked(&a->opts, a->uid) };
	if (a->v.strikes >= 0) {
		terminal_close(&a->term);
		lockout_tell(pamh);
		if (a->opts.debug)
			pam_syslog(pamh, LOG_DEBUG,
				   "locked out (the helper's marker): no helper started");
		return GO_AUDIT;
	}

	call = (struct helper_call){ .mode = HELPER_VERIFY,
				     .opts = &a->opts,
				     .user = a->user,
				     .service = a->service,
				     .argc = a->argc,
				     .argv = a->argv,
				     .one_message = client_keeps_one_message(a->service),
				     .display = display_of(pamh),
				     .agent = presence.agent_line ? &a->agent : NULL,
				     .session = locked_screen_session(a->service, &presence),
				     .seen = &a->seen };
	/* What the touch approves, from the host's own argv (approval.h). */
	if (a->opts.show_command && approval_read(client_host(a->service), a->user, &approval) == 0)
		call.approval = &approval;
	a->v = verify(pamh, &call, &a->term, presence.use, &a->held);
	if (a->v.outcome == TA_SUCCESS)
		(void)pam_set_data(pamh, AUTH_RAN_KEY, (void *)AUTH_MATCHED, NULL);
	return GO_AUDIT;
}

/*
 * The audit line (LOG_AUTHPRIV, docs/POLICY.md#the-audit-line), then the
 * outcome's PAM code; a held signal, or Ctrl-C, goes back to the host.
 */
static int audit(pam_handle_t *pamh, struct attempt *a)
{
	const struct ta_outcome_info *info = &ta_outcomes[a->v.outcome];
	char strikes_text[16], overlap_text[64] = "";

	snprintf(strikes_text, sizeof(strikes_text), "%d", a->v.strikes);
	/* Another request was armed at once: both pids, so the two audit lines meet. */
	if (a->seen.overlap > 0)
		snprintf(overlap_text, sizeof(overlap_text), ", helper %d, overlap_with %d",
			 a->seen.pid, a->seen.overlap);
	pam_syslog(pamh,
		   a->v.outcome == TA_SUCCESS || a->v.outcome == TA_AUTHENTICATION_FAILED
		       ? LOG_NOTICE
		       : LOG_INFO,
		   "user %s, service %s: %s, strikes %s%s", a->user, a->service, info->name,
		   a->v.strikes < 0 ? "-" : strikes_text, overlap_text);
	if (a->opts.debug)
		pam_syslog(pamh, LOG_DEBUG, "outcome %s -> %s", info->name, info->pam_code_name);
	signals_release(&a->held); /* a held SIGTERM or SIGHUP reaches the host now */
	if (a->v.outcome == TA_USER_CANCEL && !a->v.signalled)
		give_back_interrupt();
	return info->pam_code;
}

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct attempt a = { .argc = argc, .argv = argv, .held = { .fd = -1 } };
	int retval, prints, go;

	(void)flags; /* pam_info messages are the prompt itself; sudo always sets PAM_SILENT */

	if (recorder_line(pamh, argc, argv, &retval))
		return retval;
	/* From here on, this call's finger line fell through unless it matches. */
	(void)pam_set_data(pamh, AUTH_RAN_KEY, (void *)AUTH_NOT_MATCHED, NULL);

	retval = attempt_load(pamh, &a);
	if (retval != PAM_SUCCESS)
		return retval;
	prints = attempt_prints(pamh, &a);
	if (!prints)
		return PAM_AUTHINFO_UNAVAIL;
	terminal_init(&a.term);
	agent_init(&a.agent);
	go = locker_first(pamh, &a, prints);
	if (go == GO_FINGER)
		go = finger(pamh, &a);
	if (go != GO_AUDIT)
		return PAM_AUTHINFO_UNAVAIL;
	retval = audit(pamh, &a);
	agent_answer(pamh, &a.agent, a.v.outcome);
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
