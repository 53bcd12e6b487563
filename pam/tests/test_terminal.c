/* SPDX-License-Identifier: Apache-2.0 */
/*
 * terminal.c without a person: what each byte means (pure), and on a real
 * pseudo-terminal that our mode goes back exactly, that type-ahead after Enter
 * survives for the next prompt, that Ctrl-C's restore drops it, and who owns
 * the terminal (the foreground job, not a background one).  No pty is a
 * failure, not a skip.
 */
#include "../terminal.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int passed, failed;

static void expect(int ok, const char *what)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL: %s\n", what);
}

/* A step of the test's own (a syscall that sets a case up): not a check, a failure if it fails. */
static void require(int ok, const char *what)
{
	if (!ok) {
		failed++;
		printf("FAIL: (setup) %s\n", what);
	}
}

static void fresh(struct terminal *t, int offer)
{
	terminal_init(t);
	cfmakeraw(&t->saved);
	t->saved.c_cc[VINTR] = 0x03;
	t->saved.c_cc[VERASE] = 0x7f;
	t->saved.c_cc[VKILL] = 0x15;
	t->offer = offer;
}

static enum terminal_key feed(struct terminal *t, const char *bytes)
{
	enum terminal_key key = KEY_IGNORED;

	for (; *bytes != '\0'; bytes++)
		key = terminal_key(t, (unsigned char)*bytes);
	return key;
}

static void test_keys(void)
{
	struct terminal t;

	fresh(&t, 1);
	expect(terminal_key(&t, '\r') == KEY_FALLBACK, "Enter (CR) is the fallback");
	fresh(&t, 1);
	expect(terminal_key(&t, '\n') == KEY_FALLBACK, "Enter (NL) is the fallback");
	fresh(&t, 1);
	expect(terminal_key(&t, 0x03) == KEY_CANCEL, "Ctrl-C cancels");
	fresh(&t, 1);
	expect(terminal_key(&t, 0x1b) == KEY_IGNORED && !t.typing, "a control byte is not typing");
	expect(terminal_key(&t, 's') == KEY_TYPING && t.typing,
	       "the first character starts typing");
	expect(feed(&t, "ecret") == KEY_IGNORED, "the rest is collected");
	expect(terminal_key(&t, '\r') == KEY_PASSWORD && strcmp(t.password, "secret") == 0,
	       "Enter ends the password");

	fresh(&t, 1);
	feed(&t, "ab\xc3\xa9");
	expect(terminal_key(&t, 0x7f) == KEY_IGNORED && strcmp(t.password, "ab") == 0,
	       "erase removes one UTF-8 character");
	feed(&t, "\x08");
	expect(strcmp(t.password, "a") == 0, "backspace erases too");
	feed(&t, "\x15xy");
	expect(terminal_key(&t, '\n') == KEY_PASSWORD && strcmp(t.password, "xy") == 0,
	       "kill (Ctrl-U) starts over");
	fresh(&t, 1);
	feed(&t, "pa");
	expect(terminal_key(&t, 0x03) == KEY_CANCEL, "Ctrl-C while typing cancels");

	/* fallback_title empty: nothing but the interrupt character does anything. */
	fresh(&t, 0);
	expect(feed(&t, "\rabc\n") == KEY_IGNORED && !t.typing,
	       "no offer: Enter and typing ignored");
	expect(terminal_key(&t, 0x03) == KEY_CANCEL, "no offer: Ctrl-C still cancels");

	/* The terminal's own interrupt character. */
	fresh(&t, 1);
	t.saved.c_cc[VINTR] = 0x07;
	expect(terminal_key(&t, 0x07) == KEY_CANCEL, "a remapped VINTR cancels");

	/* Longer than PAM takes: cut, never overflowing. */
	fresh(&t, 1);
	for (int i = 0; i < 2000; i++)
		terminal_key(&t, 'z');
	expect(terminal_key(&t, '\r') == KEY_PASSWORD &&
		   strlen(t.password) == TERMINAL_PASSWORD_MAX - 1,
	       "an overlong password is cut at PAM_MAX_RESP_SIZE - 1");
	terminal_close(&t);
	expect(t.password[0] == '\0' && t.len == 0, "close wipes the password");
}

/*
 * Until all N bytes typed at the master are readable on the slave (a raw-mode
 * tty counts them, FIONREAD): the pty moves them over in the background.  The
 * poll waits for the first; then 1 ms steps, 5 s at most.
 */
static int typed(int slave, int n)
{
	struct pollfd pfd = { .fd = slave, .events = POLLIN };
	struct timespec step = { 0, 1000000L };

	if (poll(&pfd, 1, 5000) != 1)
		return 0;
	for (int i = 0; i < 5000; i++) {
		int avail = 0;

		if (ioctl(slave, FIONREAD, &avail) != 0)
			return 0;
		if (avail >= n)
			return 1;
		(void)nanosleep(&step, NULL);
	}
	return 0;
}

static int same_termios(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag && a->c_cflag == b->c_cflag &&
	       a->c_lflag == b->c_lflag && memcmp(a->c_cc, b->c_cc, sizeof(a->c_cc)) == 0;
}

static void test_pty(void)
{
	struct terminal t;
	struct termios before, during, after;
	int master, slave;
	char buf[64];
	ssize_t n;

	if (openpty(&master, &slave, NULL, NULL, NULL) != 0) {
		require(0, "openpty: the terminal mode cases cannot run");
		return;
	}
	tcgetattr(slave, &before);

	/* Enter after typing; a second line typed ahead stays for the next prompt. */
	terminal_init(&t);
	t.fd = slave;
	t.offer = 1;
	t.saved = before;
	expect(terminal_take(NULL, &t) == PAM_SUCCESS, "take the terminal");
	tcgetattr(slave, &during);
	expect(!(during.c_lflag & (ICANON | ECHO | ISIG)), "no canonical mode, echo or ISIG");
	fcntl(slave, F_SETFL, fcntl(slave, F_GETFL) | O_NONBLOCK);
	require(write(master, "pw\rnext\r", 8) == 8, "type");
	require(typed(slave, 8), "the 8 typed bytes reach the terminal");
	expect(terminal_read(&t) == KEY_TYPING, "first byte: typing");
	expect(terminal_read_password(&t, 1) == KEY_PASSWORD && strcmp(t.password, "pw") == 0,
	       "the typed password");
	terminal_restore(&t, 0);
	tcgetattr(slave, &after);
	expect(same_termios(&before, &after), "the mode is back exactly");
	/* Back in canonical mode: readable once a whole line is there; 5 s at most, so an
	 * input wrongly dropped fails here instead of blocking the read for ever. */
	{
		struct pollfd pfd = { .fd = slave, .events = POLLIN };

		n = poll(&pfd, 1, 5000) == 1 ? read(slave, buf, sizeof(buf)) : -1;
	}
	expect(n == 5 && memcmp(buf, "next\n", 5) == 0, "type-ahead after Enter survives");

	/* Ctrl-C: the restore drops what was typed after it. */
	terminal_init(&t);
	t.fd = slave;
	t.offer = 1;
	t.saved = before;
	terminal_take(NULL, &t);
	fcntl(slave, F_SETFL, fcntl(slave, F_GETFL) | O_NONBLOCK);
	require(write(master, "\x03junk\r", 6) == 6, "type Ctrl-C");
	/* All of it, or the junk could arrive after the restore and not be dropped. */
	require(typed(slave, 6), "Ctrl-C and the 5 bytes after it reach the terminal");
	expect(terminal_read(&t) == KEY_CANCEL, "Ctrl-C read as a byte");
	terminal_restore(&t, 1);
	tcgetattr(slave, &after);
	expect(same_termios(&before, &after), "the mode is back exactly after Ctrl-C");
	n = read(slave, buf, sizeof(buf));
	expect(n < 0, "Ctrl-C's restore drops the input after it");
	t.fd = -1; /* the pty is closed below */
	terminal_close(&t);
	close(slave);
	close(master);
}

static volatile sig_atomic_t terms;

static void on_term(int sig)
{
	(void)sig;
	terms++;
}

static int readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
}

/*
 * SIGTERM and SIGHUP held while the prompt is up: a host's handler (sudo's)
 * runs only at the release, once, and the prompt sees the signal coming; an
 * ignored or already blocked one is not held (it would be queued and end the
 * prompt for a signal the host does not want).
 */
static void test_held_signals(void)
{
	struct sigaction act = { .sa_handler = on_term }, ign = { .sa_handler = SIG_IGN };
	struct held_signals h;
	sigset_t mask;

	sigemptyset(&act.sa_mask);
	sigemptyset(&ign.sa_mask);
	require(sigaction(SIGTERM, &act, NULL) == 0 && sigaction(SIGHUP, &act, NULL) == 0,
		"a host's handlers for TERM and HUP");
	signals_hold(&h);
	expect(h.active && h.fd >= 0 && !readable(h.fd), "held; nothing pending yet");
	raise(SIGTERM);
	expect(terms == 0, "a SIGTERM while held: the host's handler does not run yet");
	expect(readable(h.fd), "...and the prompt's signalfd says one is pending");
	signals_release(&h);
	expect(terms == 1, "released: the host's handler ran, once");
	expect(pthread_sigmask(SIG_BLOCK, NULL, &mask) == 0 && !sigismember(&mask, SIGTERM) &&
		   !sigismember(&mask, SIGHUP),
	       "released: the mask is the host's again");
	signals_release(&h);
	expect(terms == 1 && h.fd == -1, "release twice: nothing more");

	require(sigaction(SIGTERM, &ign, NULL) == 0, "a host that ignores SIGTERM");
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	require(pthread_sigmask(SIG_BLOCK, &mask, NULL) == 0, "...and blocks SIGHUP");
	signals_hold(&h);
	expect(!h.active && h.fd == -1, "nothing to hold: neither is taken");
	require(pthread_sigmask(SIG_UNBLOCK, &mask, NULL) == 0, "the test's own mask back");
	signals_hold(&h);
	expect(h.active && sigismember(&h.held, SIGHUP) && !sigismember(&h.held, SIGTERM),
	       "SIGTERM ignored, SIGHUP caught: only SIGHUP is held");
	raise(SIGTERM);
	expect(!readable(h.fd), "an ignored SIGTERM is not queued for the prompt");
	signals_release(&h);
	expect(terms == 1, "(no handler ran)");
}

/* Exit codes of the session below: bit 0 foreground owned, bit 1 background nobody; 64 setup. */
#define JOB_SETUP_FAILED 64

/* In a child: a session whose controlling terminal is SLAVE, stdin too, this group in front. */
static int job_session(int slave)
{
	struct terminal t;
	int code = 0, status;
	pid_t bg;

	if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) != 0 || dup2(slave, STDIN_FILENO) < 0 ||
	    tcgetpgrp(slave) != getpgrp())
		return JOB_SETUP_FAILED;
	terminal_init(&t);
	if (terminal_open(&t) == TERMINAL_OWNED)
		code |= 1;
	terminal_close(&t);
	/* A background job: its own process group, the same terminal and stdin. */
	bg = fork();
	if (bg == 0) {
		struct terminal u;
		enum terminal_use use;

		if (setpgid(0, 0) != 0 || tcgetpgrp(slave) == getpgrp())
			_exit(JOB_SETUP_FAILED);
		terminal_init(&u);
		use = terminal_open(&u);
		terminal_close(&u);
		_exit(use == TERMINAL_NOBODY ? 0 : 1);
	}
	if (bg < 0 || waitpid(bg, &status, 0) != bg || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == JOB_SETUP_FAILED)
		return JOB_SETUP_FAILED;
	if (WEXITSTATUS(status) == 0)
		code |= 2;
	return code;
}

/*
 * terminal_open in a real job-control setting: the foreground process group
 * with the terminal as stdin owns it; a background job of the same terminal
 * (`prog &` in a shell), whose stdin is still that terminal and whose
 * tcgetattr works, is nobody: it cannot read what is typed.
 */
static void test_jobs(void)
{
	int master, slave, status, code;
	pid_t pid;

	if (openpty(&master, &slave, NULL, NULL, NULL) != 0) {
		require(0, "openpty: the job cases cannot run");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(master);
		_exit(job_session(slave));
	}
	require(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) != JOB_SETUP_FAILED,
		"a session with the pty as its controlling terminal, a job in the background");
	code = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) != JOB_SETUP_FAILED
		   ? WEXITSTATUS(status)
		   : 0;
	expect(code & 1, "the foreground job, stdin the terminal: the terminal is owned");
	expect(code & 2, "a background job of that terminal (stdin the terminal too): nobody");
	close(slave);
	close(master);
}

int main(void)
{
	test_keys();
	test_pty();
	test_held_signals();
	test_jobs();
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
