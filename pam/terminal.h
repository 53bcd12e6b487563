/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The terminal while the fingerprint prompt is up: the "Enter Password"
 * button of a terminal program (sudo, su, login, pamtester in a terminal).
 *
 * The shim owns the terminal only when the process is in the foreground of
 * its controlling terminal and its stdin is a terminal too.  It then turns off
 * canonical mode, echo and ISIG (so Ctrl-C is a byte we handle, whether the
 * host blocks SIGINT like sudo or leaves it at its default like su and
 * login), reads keys one byte at a time (so type-ahead after Enter stays in
 * the queue for the next prompt), and puts the saved termios back on every
 * path.  No signal handler is installed.
 */
#ifndef TOUCHAUTH_TERMINAL_H
#define TOUCHAUTH_TERMINAL_H

#include <signal.h>
#include <stddef.h>
#include <termios.h>

#include <security/pam_modules.h>

/* Bytes of a password typed at the fingerprint prompt, with its NUL (PAM_MAX_RESP_SIZE). */
#define TERMINAL_PASSWORD_MAX 512

enum terminal_use {
	TERMINAL_NONE,	 /* no terminal of ours: messages through the conversation only */
	TERMINAL_OWNED,	 /* foreground of the controlling terminal: keys are read */
	TERMINAL_NOBODY, /* a terminal, but nobody types into this program (sudo -S, a pipe) */
};

enum terminal_key {
	KEY_IGNORED,  /* nothing to do (or no byte ready) */
	KEY_FALLBACK, /* Enter, nothing typed: the password prompt of the next module */
	KEY_TYPING,   /* the first byte of a password: stop the sensor, read the rest */
	KEY_PASSWORD, /* Enter after typing: t->password holds the password */
	KEY_CANCEL,   /* the interrupt character (Ctrl-C) */
	KEY_GONE,     /* end of file or an error: the terminal went away */
};

struct terminal {
	int fd;	      /* our own open file description of /dev/tty, or -1 */
	int modified; /* our mode is set: saved must go back */
	struct termios saved;
	int offer;  /* Enter and typing end the prompt (fallback_title is not empty) */
	int typing; /* a password is being typed */
	size_t len;
	char password[TERMINAL_PASSWORD_MAX];
	int stop_fd; /* held_signals.fd, watched beside the keys, or -1 */
	int stopped; /* a held signal ended the prompt */
};

/*
 * SIGTERM and SIGHUP, "stop", held back while the prompt is up.  A host that
 * catches them (sudo) would otherwise only record them and wait on: the
 * prompt stayed up with the sensor armed, and the next touch authenticated a
 * sudo that had been told to stop.  Held, a pending one ends the prompt as
 * the interrupt character does (userCancel: sudo then says "a password is
 * required", as at its own prompt), and reaches the host once the terminal is
 * back and the audit line written: its handler runs, or its default action
 * ends it (su, login).  Only the ones the host neither blocks nor ignores are
 * held (a blocked signal is queued even when its action is to ignore it).
 * Only this thread's mask changes; no handler is installed.
 */
struct held_signals {
	int fd;	       /* signalfd of the held ones: readable once one is pending; -1 */
	int active;    /* held: signals_release gives them back */
	sigset_t held; /* what we blocked */
};

void signals_hold(struct held_signals *h);

/* Unblock what signals_hold blocked: a pending one is delivered now.  Idempotent. */
void signals_release(struct held_signals *h);

void terminal_init(struct terminal *t);

/*
 * Decide whether a person types into this program, and if so open the
 * controlling terminal (t->fd).  Never changes the terminal.  (A graphical
 * login is the caller's to recognise, from its PAM items.)
 */
enum terminal_use terminal_open(struct terminal *t);

/*
 * The same for polkit's agent helper (agent.h): with STDIN_IS_AGENT its stdin
 * is the agent's pipe, and the terminal is still a person's when the helper is
 * in its foreground (pkttyagent, run0: the agent reads that terminal).
 */
enum terminal_use terminal_open_for(struct terminal *t, int stdin_is_agent);

/* The terminal's width in columns (TIOCGWINSZ), or 0 when it does not say. */
int terminal_columns(const struct terminal *t);

/* Save the mode and set ours.  PAM_SUCCESS, or an error with t unchanged. */
int terminal_take(pam_handle_t *pamh, struct terminal *t);

/* What one byte means.  Pure: no I/O. */
enum terminal_key terminal_key(struct terminal *t, unsigned char c);

/*
 * Read the bytes that are ready, one at a time, up to the first that is not
 * KEY_IGNORED, and return its meaning (KEY_IGNORED when none is ready).
 */
enum terminal_key terminal_read(struct terminal *t);

/*
 * After KEY_TYPING: read until Enter (KEY_PASSWORD), the interrupt character
 * (KEY_CANCEL), the terminal going away or idle_seconds without a key
 * (KEY_GONE).
 */
enum terminal_key terminal_read_password(struct terminal *t, int idle_seconds);

/*
 * Put the saved mode back.  discard_input drops unread input, as the
 * interrupt character does at a password prompt; otherwise type-ahead stays.
 */
void terminal_restore(struct terminal *t, int discard_input);

/* Restore (keeping input), close, and wipe the password.  Idempotent. */
void terminal_close(struct terminal *t);

#endif /* TOUCHAUTH_TERMINAL_H */
