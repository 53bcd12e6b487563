/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The contract between the module and the helper: the numbers and rules both
 * sides must agree on, defined only here.  The module includes it; the helper
 * reads it through the CConfig module map (pam/include/module.modulemap), as
 * it reads version.h.
 */
#ifndef TOUCHAUTH_CONTRACT_H
#define TOUCHAUTH_CONTRACT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Limits of docs/PROTOCOL.md. */
#define TA_LINE_MAX	    1024 /* bytes per line, including the '\n' */
#define TA_REPLY_LINES_MAX  64
#define TA_TEXT_MAX	    1000 /* bytes of <text> after "info " or "error " */
#define TA_REQUEST_ARGS_MAX 32
/*
 * The request's lines: header, user, service, fallback, the optional columns,
 * messages, approve, display and session, TA_REQUEST_ARGS_MAX args, end.
 */
#define TA_REQUEST_LINES_MAX (10 + TA_REQUEST_ARGS_MAX)
#define TA_REQUEST_MAX	     (TA_REQUEST_LINES_MAX * TA_LINE_MAX)
#define TA_COLUMNS_MIN	     20
#define TA_COLUMNS_MAX	     1000
/* The request's `display` line: a name that looks like an X display, else none is sent. */
#define TA_DISPLAY_MAX	 64
#define TA_DISPLAY_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:._-"
/* A request's display is sent (module) and taken (helper) only when this holds. */
static inline bool ta_display_ok(const char *display)
{
	size_t len = strlen(display);

	return len >= 1 && len <= TA_DISPLAY_MAX && strspn(display, TA_DISPLAY_CHARS) == len;
}

/*
 * The request's `session` line: the logind session whose lock decides
 * (docs/POLICY.md#a-locked-screen), as logind names sessions ("2", "c1").
 */
#define TA_SESSION_MAX	 64
#define TA_SESSION_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
/* A request's session is sent (module) and taken (helper) only when this holds. */
static inline bool ta_session_ok(const char *session)
{
	size_t len = strlen(session);

	return len >= 1 && len <= TA_SESSION_MAX && strspn(session, TA_SESSION_CHARS) == len;
}

/* The reply's `overlap` line: a pid, 1 to the kernel's PID_MAX_LIMIT. */
#define TA_PID_MAX 4194304

/*
 * Ending a prompt (Enter, typing, Ctrl-C): the module sends the helper SIGTERM,
 * which cancels the scan and refunds its strike, and SIGKILL this much later.
 */
#define TA_STOP_GRACE_MS 200

/*
 * The helper's environment: the locale variables only, and only with a value
 * that looks like a locale name (no '/', so no path for gettext to follow).
 */
#define TA_LOCALE_VARIABLES   5
#define TA_LOCALE_VALUE_MAX   64
#define TA_LOCALE_VALUE_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.@:-"

/*
 * The lockout's line (the gettext msgid): the helper says it when it refuses a
 * locked user (Message.swift), the module when the lockout's marker lets it
 * refuse without the helper (lockout.c).  po/extract.py reads it here.
 */
#define TA_LOCKOUT_MESSAGE                                                                         \
	"Too many failed attempts. Enter your password to use your fingerprint again."

/*
 * What a touch approves (docs/POLICY.md#what-the-touch-approves): the bytes of
 * the escaped target user and command, ellipsis included.
 */
#define TA_APPROVAL_USER_MAX 128
#define TA_APPROVAL_TEXT_MAX 480

/*
 * A character the approval line never shows as it is (approval.c escapes it,
 * Approval.swift refuses a line that holds one): controls, DEL and the C1
 * controls, and the characters that reorder or hide text (bidirectional marks,
 * line separators, zero-width and invisible formatting).
 */
static inline bool ta_approval_escapes(unsigned long cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x61c ||
	       (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

/*
 * The lockout's end (docs/POLICY.md): a lockout with a time is over once
 * unlock_time > 0 seconds have passed since; unlock_time 0 waits for the
 * password.  TrustPolicy.isLockedOut and the module's marker (lockout.c).
 */
static inline bool ta_lockout_over(long long unlock_time, long long locked_at, long long now)
{
	return unlock_time > 0 && now - locked_at >= unlock_time;
}

/*
 * Beside the state file <state_dir>/<uid> (docs/POLICY.md#the-state-store): the
 * lockout's marker <uid>.locked, written by the helper (StateStore.swift), read
 * by the module (lockout.c); `touchauth disable`'s marker <uid>.disabled
 * (StateStore.swift, presence.c).  The lockout marker's line: the state file's
 * inode, its ctime (seconds, nanoseconds), locked_at, the strikes: five decimal
 * numbers, one space between, one '\n' after, each at most 18 digits (a long
 * long holds them all).
 */
#define TA_LOCKED_SUFFIX     ".locked"
#define TA_DISABLED_SUFFIX   ".disabled"
#define TA_MARKER_FIELDS     5
#define TA_MARKER_DIGITS_MAX 18
#define TA_MARKER_MAX	     128 /* bytes of the line, its NUL included */

/* The marker's line into buf (TA_MARKER_MAX bytes); snprintf's count. */
static inline int ta_marker_line(char *buf, size_t size, unsigned long long inode,
				 long long ctime_s, long long ctime_ns, long long locked_at,
				 long long strikes)
{
	return snprintf(buf, size, "%llu %lld %lld %lld %lld\n", inode, ctime_s, ctime_ns,
			locked_at, strikes);
}

/* The i-th locale variable's name, NULL past the last. */
static inline const char *ta_locale_variable(unsigned int i)
{
	static const char *const names[TA_LOCALE_VARIABLES] = {
		"LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LC_CTYPE",
	};

	return i < TA_LOCALE_VARIABLES ? names[i] : NULL;
}

static inline bool ta_locale_value_ok(const char *value)
{
	size_t len = strlen(value);

	return len >= 1 && len <= TA_LOCALE_VALUE_MAX &&
	       strspn(value, TA_LOCALE_VALUE_CHARS) == len;
}

/*
 * The locale that speaks the user's messages: the first of LC_ALL, LC_MESSAGES,
 * LANG that is set, not empty and passes the filter (glibc's order for
 * setlocale(LC_MESSAGES, "")); NULL: none, English.  The helper's Gettext.swift
 * and the module's lockout line (lockout.c) both ask it.
 */
static inline const char *ta_messages_locale(const char *lc_all, const char *lc_messages,
					     const char *lang)
{
	const char *const values[] = { lc_all, lc_messages, lang };

	for (unsigned int i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		if (values[i] != NULL && *values[i] != '\0' && ta_locale_value_ok(values[i]))
			return values[i];
	return NULL;
}

#endif /* TOUCHAUTH_CONTRACT_H */
