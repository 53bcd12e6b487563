/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The lockout's marker, read (lockout.h), and the lockout's line, said.
 */
#include "lockout.h"

#include <errno.h>
#include <fcntl.h>
#include <libintl.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>

#include "clients.h"
#include "contract.h"

#ifndef TOUCHAUTH_LOCALEDIR
#define TOUCHAUTH_LOCALEDIR "/usr/share/locale"
#endif
#define TEXT_DOMAIN "touchauth"

/* The marker's line (contract.h). Strict: digits only, no sign, no leading blank, at most 18. */
static int parse_fields(const char *line, long long out[TA_MARKER_FIELDS])
{
	const char *p = line;

	for (int i = 0; i < TA_MARKER_FIELDS; i++) {
		size_t digits = strspn(p, "0123456789");
		long long v = 0;

		if (digits == 0 || digits > TA_MARKER_DIGITS_MAX)
			return -1;
		for (size_t k = 0; k < digits; k++)
			v = v * 10 + (p[k] - '0');
		out[i] = v;
		p += digits;
		if (*p++ != (i == TA_MARKER_FIELDS - 1 ? '\n' : ' '))
			return -1;
	}
	return *p == '\0' ? 0 : -1;
}

static int read_marker(const char *path, char *buf, size_t size)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022) != 0) {
		close(fd);
		return -1;
	}
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int lockout_marked(const struct config_values *opts, uid_t uid)
{
	char path[CONFIG_PATH_MAX + 32], line[TA_MARKER_MAX];
	long long f[TA_MARKER_FIELDS]; /* inode, ctime s, ctime ns, locked_at, strikes */
	struct stat st;
	int n;

	/* A screen locker runs as the user: root's state_dir is the setuid helper's. */
	if (geteuid() != 0)
		return -1;
	n = snprintf(path, sizeof(path), "%s/%u", opts->state_dir, (unsigned)uid);
	if (n < 0 || (size_t)n >= sizeof(path) - sizeof(TA_LOCKED_SUFFIX) ||
	    lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0)
		return -1;
	memcpy(path + n, TA_LOCKED_SUFFIX, sizeof(TA_LOCKED_SUFFIX));
	if (read_marker(path, line, sizeof(line)) != 0 || parse_fields(line, f) != 0)
		return -1;
	if ((unsigned long long)f[0] != (unsigned long long)st.st_ino ||
	    f[1] != (long long)st.st_ctim.tv_sec || f[2] != (long long)st.st_ctim.tv_nsec)
		return -1;
	if (ta_lockout_over(opts->unlock_time, f[3], (long long)time(NULL)))
		return -1;
	return f[4] > INT32_MAX ? -1 : (int)f[4];
}

/*
 * The helper's lookup (Gettext.swift): our domain's catalog in the language
 * contract.h's ta_messages_locale() chooses, through a locale of this thread
 * only (the host's own is not touched).  A LANGUAGE the filter refuses (the
 * helper never sees one; glibc would read it here) gets the English line.
 */
static void translate(const char *msgid, char *out, size_t size)
{
	const char *name =
	    ta_messages_locale(getenv("LC_ALL"), getenv("LC_MESSAGES"), getenv("LANG"));
	const char *language = getenv("LANGUAGE"), *text = msgid;
	locale_t loc, previous;

	if (name != NULL &&
	    (language == NULL || *language == '\0' || ta_locale_value_ok(language)) &&
	    (loc = newlocale(LC_MESSAGES_MASK, name, (locale_t)0)) != (locale_t)0) {
		if (bindtextdomain(TEXT_DOMAIN, TOUCHAUTH_LOCALEDIR) != NULL &&
		    bind_textdomain_codeset(TEXT_DOMAIN, "UTF-8") != NULL) {
			previous = uselocale(loc);
			text = dgettext(TEXT_DOMAIN, msgid);
			snprintf(out, size, "%s", text);
			uselocale(previous);
			freelocale(loc);
			return;
		}
		freelocale(loc);
	}
	snprintf(out, size, "%s", msgid);
}

void lockout_tell(pam_handle_t *pamh)
{
	char text[TA_TEXT_MAX + 1];
	const void *service = NULL;
	int style = PAM_TEXT_INFO;

	translate(TA_LOCKOUT_MESSAGE, text, sizeof(text));
	/*
	 * As the helper's line: PAM_TEXT_INFO (Message.isError is false for it),
	 * but an error where the client hides info lines (GDM's gdm-fingerprint).
	 */
	if (pam_get_item(pamh, PAM_SERVICE, &service) == PAM_SUCCESS && service != NULL &&
	    client_hides_info(service))
		style = PAM_ERROR_MSG;
	(void)pam_prompt(pamh, style, NULL, "%s", text);
}
