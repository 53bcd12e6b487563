/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The conversation with the helper (helper.h): its request written, its
 * reply read and relayed while the terminal's keys are watched, its end
 * waited for, all before one absolute deadline.  The process itself (the exec
 * recipe, the ways it ends) is spawn.c's; the protocol's two directions are
 * protocol.c's.
 */
#include "helper.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>

#include "spawn.h"

/* The helper keeps the user-visible timeout; this is the shim's slack on top. */
#define DEADLINE_SLACK_SECONDS 3

static int build_request(pam_handle_t *pamh, const struct helper_call *call, struct request *r)
{
	enum request_fallback fallback = call->agent != NULL			   ? FALLBACK_FIELD
					 : call->term != NULL && call->term->offer ? FALLBACK_ENTER
										   : FALLBACK_NONE;

	switch (request_begin(r, call->user, call->service, fallback)) {
	case REQUEST_BAD_USER:
		pam_syslog(pamh, LOG_ERR, "user name does not fit the protocol");
		return PAM_SYSTEM_ERR;
	case REQUEST_BAD_SERVICE:
		pam_syslog(pamh, LOG_ERR, "service name does not fit the protocol");
		return PAM_SYSTEM_ERR;
	case REQUEST_OK:
	default:
		break;
	}
	/* Optional: a line that does not fit leaves the prompt as it was without it. */
	if (call->columns > 0)
		(void)request_columns(r, call->columns);
	if (call->one_message)
		(void)request_one_message(r);
	if (call->approval != NULL &&
	    request_approve(r, call->approval->program, call->approval->kind, call->approval->user,
			    call->approval->text) != 0)
		pam_syslog(pamh, LOG_ERR, "what the touch approves does not fit the protocol");
	if (call->display != NULL && call->display[0] != '\0')
		(void)request_display(r, call->display);
	if (call->session != NULL && call->session[0] != '\0')
		(void)request_session(r, call->session);
	for (int i = 0; i < call->argc; i++) {
		if (request_arg(r, call->argv[i]) != 0)
			pam_syslog(pamh, LOG_ERR, "module argument %d not passed to the helper",
				   i + 1);
	}
	request_end(r);
	return PAM_SUCCESS;
}

/*
 * The request written before the deadline.  The fd is non-blocking so a
 * helper that never reads cannot stall us.
 */
static int write_all(pam_handle_t *pamh, int fd, const char *buf, size_t len,
		     const struct timespec *deadline)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w >= 0) {
			off += (size_t)w;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };
			int ms = ms_left(deadline);

			if (ms == 0) {
				pam_syslog(pamh, LOG_ERR, "helper timed out reading the request");
				return PAM_AUTHINFO_UNAVAIL;
			}
			if (poll(&pfd, 1, ms) < 0 && errno != EINTR) {
				pam_syslog(pamh, LOG_ERR, "poll: %m");
				return PAM_SYSTEM_ERR;
			}
			continue;
		}
		pam_syslog(pamh, LOG_ERR, "cannot write the request to the helper: %m");
		return PAM_AUTHINFO_UNAVAIL;
	}
	return PAM_SUCCESS;
}

/*
 * Write the whole request (write_all) with SIGPIPE blocked and, if our write
 * raised it, consumed, so the host never sees it.
 */
static int write_request(pam_handle_t *pamh, int fd, const char *buf, size_t len,
			 const struct timespec *deadline)
{
	sigset_t pipe_set, old_mask, pending;
	int was_pending, retval;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);
	sigemptyset(&pending);
	sigpending(&pending);
	/* A SIGPIPE the host already had pending is the host's, not ours to eat. */
	was_pending = sigismember(&pending, SIGPIPE);
	retval = write_all(pamh, fd, buf, len, deadline);
	if (!was_pending) {
		struct timespec zero = { 0, 0 };

		sigemptyset(&pending);
		sigpending(&pending);
		if (sigismember(&pending, SIGPIPE)) {
			while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
				;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	return retval;
}

static void relay(pam_handle_t *pamh, int style, const char *text)
{
	/* A missing or failing conversation only loses a message, not the outcome. */
	(void)pam_prompt(pamh, style, NULL, "%s", text);
}

/*
 * What the terminal or a held signal says while the prompt is up: the
 * outcome that ends the prompt, or TA_OUTCOME_COUNT to go on.
 */
static enum ta_outcome prompt_ended(pam_handle_t *pamh, struct terminal *term, short tty_events,
				    short stop_events)
{
	if (tty_events & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
		switch (terminal_read(term)) {
		case KEY_FALLBACK:
		case KEY_TYPING: /* the caller reads the password; the sensor stops now */
			return TA_USER_FALLBACK;
		case KEY_CANCEL:
			return TA_USER_CANCEL;
		case KEY_GONE:
			/*
			 * The terminal hung up: whoever asked is gone, and the
			 * next touch must not answer for them.
			 */
			return TA_SYSTEM_CANCEL;
		case KEY_IGNORED:
		case KEY_PASSWORD:
		default:
			break;
		}
	}
	if (stop_events & POLLIN) {
		/* The host was told to stop (terminal.h, struct held_signals). */
		pam_syslog(pamh, LOG_INFO, "SIGTERM or SIGHUP for the host: prompt ended");
		term->stopped = 1;
		return TA_USER_CANCEL;
	}
	return TA_OUTCOME_COUNT;
}

/* The agent's answer line (agent.h): the outcome that ends the prompt, or TA_OUTCOME_COUNT. */
static enum ta_outcome agent_ended(struct agent *agent, short events)
{
	if (!(events & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
		return TA_OUTCOME_COUNT;
	switch (agent_read(agent)) {
	case AGENT_ANSWERED:
		return TA_USER_FALLBACK; /* typed and sent: the sensor stops now */
	case AGENT_GONE:
		return TA_SYSTEM_CANCEL; /* the dialog went away */
	case AGENT_MORE:
	default:
		return TA_OUTCOME_COUNT;
	}
}

/* Feed n bytes of the reply, relaying each message: PAM_SUCCESS, or a protocol error logged. */
static int feed_reply(pam_handle_t *pamh, struct reply_parser *parser, const char *buf, size_t n)
{
	size_t off = 0;

	while (off < n) {
		const char *text = NULL;
		size_t used = 0;

		switch (reply_feed(parser, buf + off, n - off, &used, &text)) {
		case REPLY_INFO:
			relay(pamh, PAM_TEXT_INFO, text);
			break;
		case REPLY_ERROR_MSG:
			relay(pamh, PAM_ERROR_MSG, text);
			break;
		case REPLY_PROTOCOL_ERROR:
			pam_syslog(pamh, LOG_ERR, "helper protocol error: %s", parser->error);
			return PAM_AUTHINFO_UNAVAIL;
		case REPLY_DONE:
		case REPLY_NEED_MORE:
		default:
			break;
		}
		off += used;
	}
	return PAM_SUCCESS;
}

/*
 * Read the reply until EOF, a protocol error or the deadline, showing each
 * message as soon as its line is complete.  PAM_SUCCESS means EOF after a
 * complete, well-formed reply, or the prompt ended by the user (*by_user).
 * *eof tells whether the helper closed its output (then it is probably
 * exiting and its status is worth waiting for) or we stopped reading early
 * (then it is killed).
 */
static int read_reply(pam_handle_t *pamh, int fd, const struct timespec *deadline,
		      struct reply_parser *parser, const struct helper_call *call,
		      enum ta_outcome *by_user, int *eof)
{
	struct terminal *term = call->term;
	char buf[4096];

	*eof = 0;
	for (;;) {
		/* The terminal, the held signals and the agent's line are watched beside the reply.
		 */
		struct pollfd pfd[4] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = term != NULL ? term->fd : -1, .events = POLLIN },
			{ .fd = term != NULL ? term->stop_fd : -1, .events = POLLIN },
			{ .fd = call->agent != NULL ? call->agent->in_fd : -1, .events = POLLIN }
		};
		int ms = ms_left(deadline), retval;
		ssize_t n;

		if (ms == 0) {
			pam_syslog(pamh, LOG_ERR, "helper timed out");
			return PAM_AUTHINFO_UNAVAIL;
		}
		if (poll(pfd, 4, ms) < 0) {
			if (errno == EINTR)
				continue;
			pam_syslog(pamh, LOG_ERR, "poll: %m");
			return PAM_SYSTEM_ERR;
		}
		*by_user = prompt_ended(pamh, term, pfd[1].revents, pfd[2].revents);
		if (*by_user == TA_OUTCOME_COUNT && call->agent != NULL)
			*by_user = agent_ended(call->agent, pfd[3].revents);
		if (*by_user != TA_OUTCOME_COUNT)
			return PAM_SUCCESS;
		if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
			continue; /* poll timed out: the deadline check above ends it */

		n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			pam_syslog(pamh, LOG_ERR, "cannot read the helper's reply: %m");
			return PAM_SYSTEM_ERR;
		}
		if (n == 0) {
			*eof = 1;
			if (reply_finish(parser) == REPLY_DONE)
				return PAM_SUCCESS;
			pam_syslog(pamh, LOG_ERR, "helper protocol error: %s", parser->error);
			return PAM_AUTHINFO_UNAVAIL;
		}
		retval = feed_reply(pamh, parser, buf, (size_t)n);
		if (retval != PAM_SUCCESS)
			return retval;
	}
}

/*
 * The prompt ended before the reply did (a key, a hang-up, a held signal, a
 * protocol error, the deadline): the helper is stopped, gently after a key
 * so it can give back the strike of a scan without a verdict.  Never a
 * success.
 */
static int stop_early(pam_handle_t *pamh, pid_t pid, int written, enum ta_outcome by_user,
		      int retval, enum ta_outcome *outcome)
{
	int status = 0;

	/* Still unreaped, so pid cannot have been reused. */
	if (by_user != TA_OUTCOME_COUNT) {
		spawn_stop_gently(pamh, pid, &status);
	} else if (spawn_kill_and_reap(pamh, pid, &status) == PAM_SUCCESS && !written &&
		   !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
		/* A helper that died before reading the request (EPIPE) is a zombie:
		 * SIGKILL does not change its status, which says why it died. */
		spawn_log_end(pamh, status);
	}
	/* Enter, typing, Ctrl-C or a hang-up: never a success. */
	if (by_user != TA_OUTCOME_COUNT && retval == PAM_SUCCESS)
		*outcome = by_user;
	else if (retval == PAM_SUCCESS)
		retval = PAM_AUTHINFO_UNAVAIL;
	return retval;
}

/* At EOF, even after a bad reply: its exit status says why. */
static int finish(pam_handle_t *pamh, pid_t pid, const struct timespec *deadline,
		  const struct reply_parser *parser, int retval, enum ta_outcome *outcome,
		  int *strikes, struct helper_seen *seen)
{
	int status = 0, reaped = spawn_reap(pamh, pid, deadline, &status);

	if (reaped != PAM_SUCCESS)
		return reaped;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		spawn_log_end(pamh, status);
		return PAM_AUTHINFO_UNAVAIL;
	}
	if (retval != PAM_SUCCESS)
		return retval;
	/* read_reply returned PAM_SUCCESS, so the reply was complete. */
	if (parser->state != RS_DONE)
		return PAM_AUTHINFO_UNAVAIL;
	*outcome = parser->outcome;
	if (strikes != NULL)
		*strikes = parser->strikes;
	if (seen != NULL)
		seen->overlap = parser->overlap;
	return PAM_SUCCESS;
}

static int converse(pam_handle_t *pamh, const struct helper_call *call, struct spawn *sp,
		    const struct request *request, const struct timespec *deadline,
		    enum ta_outcome *outcome, int *strikes)
{
	struct reply_parser parser;
	enum ta_outcome by_user = TA_OUTCOME_COUNT; /* set by a key */
	int eof = 0, written, retval;

	reply_init(&parser);
	if (call->seen != NULL)
		call->seen->pid = (int)sp->pid;
	retval = write_request(pamh, sp->to_child, request->buf, request->len, deadline);
	close(sp->to_child);
	sp->to_child = -1;
	written = retval == PAM_SUCCESS;
	if (written)
		retval = read_reply(pamh, sp->from_child, deadline, &parser, call, &by_user, &eof);
	if (!eof)
		return stop_early(pamh, sp->pid, written, by_user, retval, outcome);
	return finish(pamh, sp->pid, deadline, &parser, retval, outcome, strikes, call->seen);
}

int helper_run(pam_handle_t *pamh, const struct helper_call *call, enum ta_outcome *outcome,
	       int *strikes)
{
	struct spawn sp = SPAWN_INIT;
	struct request *request = NULL;
	struct timespec deadline;
	int retval;

	*outcome = TA_SYSTEM_CANCEL;
	if (strikes != NULL)
		*strikes = -1;
	if (call->seen != NULL)
		*call->seen = (struct helper_seen){ 0 };

	retval = spawn_check(pamh, call->opts->helper);
	if (retval != PAM_SUCCESS)
		return retval;
	request = malloc(sizeof(*request));
	if (request == NULL) {
		pam_syslog(pamh, LOG_ERR, "out of memory");
		return PAM_BUF_ERR;
	}
	retval = build_request(pamh, call, request);
	if (retval == PAM_SUCCESS) {
		deadline = deadline_after(call->opts->timeout + DEADLINE_SLACK_SECONDS);
		retval =
		    spawn_start(pamh, call->opts->helper,
				call->mode == HELPER_ACCOUNT ? "pam-account" : "pam-verify", &sp);
	}
	if (retval == PAM_SUCCESS)
		retval = converse(pamh, call, &sp, request, &deadline, outcome, strikes);
	spawn_release(&sp);
	free(request);
	return retval;
}
