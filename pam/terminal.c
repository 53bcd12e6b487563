/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The terminal side of the fingerprint prompt (terminal.h).  Everything the
 * host's terminal goes through is here, so "the terminal comes out exactly as
 * it went in" has one place to be checked.
 */
#include "terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>

void terminal_init(struct terminal *t)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->stop_fd = -1;
}

void signals_hold(struct held_signals *h)
{
	static const int stops[] = { SIGTERM, SIGHUP };
	sigset_t mask;
	int n = 0;

	memset(h, 0, sizeof(*h));
	h->fd = -1;
	sigemptyset(&h->held);
	if (pthread_sigmask(SIG_BLOCK, NULL, &mask) != 0)
		return;
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		struct sigaction act;

		if (sigismember(&mask, stops[i]) || sigaction(stops[i], NULL, &act) != 0 ||
		    (!(act.sa_flags & SA_SIGINFO) && act.sa_handler == SIG_IGN))
			continue;
		sigaddset(&h->held, stops[i]);
		n++;
	}
	if (n == 0)
		return;
	h->fd = signalfd(-1, &h->held, SFD_CLOEXEC | SFD_NONBLOCK);
	if (h->fd < 0)
		return; /* not held: as before, the host's handler or default action at once */
	if (pthread_sigmask(SIG_BLOCK, &h->held, NULL) != 0) {
		close(h->fd);
		h->fd = -1;
		return;
	}
	h->active = 1;
}

void signals_release(struct held_signals *h)
{
	if (!h->active)
		return;
	close(h->fd);
	h->fd = -1;
	h->active = 0;
	(void)pthread_sigmask(SIG_UNBLOCK, &h->held, NULL);
}

enum terminal_use terminal_open(struct terminal *t)
{
	return terminal_open_for(t, 0);
}

enum terminal_use terminal_open_for(struct terminal *t, int stdin_is_agent)
{
	int fd;

	/* Our own file description: O_NONBLOCK here changes nobody else's. */
	fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return TERMINAL_NONE; /* no controlling terminal: GDM, polkit, a daemon */
	/* A background job cannot read its terminal; and if stdin is not a terminal
	 * (sudo -S, `echo pw | prog`), the input comes from a program, not a person,
	 * unless it is polkit's text agent's line (agent.h), which reads this terminal. */
	if (tcgetpgrp(fd) != getpgrp() || (!isatty(STDIN_FILENO) && !stdin_is_agent) ||
	    tcgetattr(fd, &t->saved) != 0) {
		close(fd);
		return TERMINAL_NOBODY;
	}
	t->fd = fd;
	return TERMINAL_OWNED;
}

int terminal_columns(const struct terminal *t)
{
	struct winsize size;

	if (t->fd < 0 || ioctl(t->fd, TIOCGWINSZ, &size) != 0)
		return 0;
	return size.ws_col;
}

int terminal_take(pam_handle_t *pamh, struct terminal *t)
{
	struct termios raw = t->saved;

	/* Only the local modes: output processing (\n -> \r\n) stays as the host had it. */
	raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO | ECHONL | ISIG | IEXTEN);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	while (tcsetattr(t->fd, TCSANOW, &raw) != 0) {
		if (errno != EINTR) {
			pam_syslog(pamh, LOG_ERR, "tcsetattr: %m");
			return PAM_SYSTEM_ERR;
		}
	}
	t->modified = 1;
	return PAM_SUCCESS;
}

/* The terminal's own character for a function, or the usual one when disabled. */
static unsigned char cc(const struct terminal *t, int index, unsigned char usual)
{
	cc_t c = t->saved.c_cc[index];

	return c == _POSIX_VDISABLE ? usual : (unsigned char)c;
}

enum terminal_key terminal_key(struct terminal *t, unsigned char c)
{
	if (c == cc(t, VINTR, 0x03))
		return KEY_CANCEL;
	if (c == '\r' || c == '\n') {
		if (t->typing) {
			t->password[t->len] = '\0';
			return KEY_PASSWORD;
		}
		return t->offer ? KEY_FALLBACK : KEY_IGNORED;
	}
	if (!t->typing) {
		/* With fallback_title empty there is no button: keys wait for the finger. */
		if (!t->offer || c < 0x20 || c == 0x7f)
			return KEY_IGNORED;
		t->typing = 1;
		t->password[t->len++] = (char)c;
		return KEY_TYPING;
	}
	if (c == cc(t, VERASE, 0x7f) || c == 0x7f || c == 0x08) {
		/* One character: a UTF-8 lead byte and its continuation bytes. */
		while (t->len > 0 && ((unsigned char)t->password[--t->len] & 0xc0) == 0x80)
			;
		t->password[t->len] = '\0';
		return KEY_IGNORED;
	}
	if (c == cc(t, VKILL, 0x15)) {
		explicit_bzero(t->password, sizeof(t->password));
		t->len = 0;
		return KEY_IGNORED;
	}
	if (c < 0x20)
		return KEY_IGNORED;
	/* Longer than PAM takes: the rest is dropped, as by pam_unix's prompt. */
	if (t->len < sizeof(t->password) - 1)
		t->password[t->len++] = (char)c;
	return KEY_IGNORED;
}

enum terminal_key terminal_read(struct terminal *t)
{
	for (;;) {
		unsigned char c;
		ssize_t n = read(t->fd, &c, 1);
		enum terminal_key key;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return KEY_IGNORED;
		if (n <= 0)
			return KEY_GONE;
		key = terminal_key(t, c);
		if (key != KEY_IGNORED)
			return key;
	}
}

enum terminal_key terminal_read_password(struct terminal *t, int idle_seconds)
{
	for (;;) {
		struct pollfd pfd[2] = { { .fd = t->fd, .events = POLLIN },
					 { .fd = t->stop_fd, .events = POLLIN } };
		int r = poll(pfd, 2, idle_seconds * 1000);
		enum terminal_key key;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return KEY_GONE; /* idle too long, or poll failed */
		if (pfd[1].revents & POLLIN) {
			t->stopped = 1; /* a held signal (struct held_signals) */
			return KEY_CANCEL;
		}
		if (!(pfd[0].revents & POLLIN))
			return KEY_GONE; /* hangup */
		key = terminal_read(t);
		if (key == KEY_PASSWORD || key == KEY_CANCEL || key == KEY_GONE)
			return key;
	}
}

void terminal_restore(struct terminal *t, int discard_input)
{
	if (!t->modified)
		return;
	while (tcsetattr(t->fd, discard_input ? TCSAFLUSH : TCSANOW, &t->saved) != 0 &&
	       errno == EINTR)
		;
	t->modified = 0;
}

void terminal_close(struct terminal *t)
{
	terminal_restore(t, 0);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	explicit_bzero(t->password, sizeof(t->password));
	t->len = 0;
	t->typing = 0;
}
