/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The login keyring rule (keyring.h): which services' auth phase unlocks a
 * keyring with the password.  The stack is read as libpam reads it
 * (libpam/pam_handlers.c, 1.5 to 1.7): '#' starts a comment, a line ending in
 * '\' goes on on the next, a "-" before the type only hides a missing module,
 * a control in brackets may hold blanks, `include X` and `substack X` bring
 * X's lines of the type, Debian's `@include X` all of X.  Only finding a line
 * matters here, not how the stack would run: a keyring line in the auth phase
 * is handed the password whenever the stack reaches it with one.
 */
#include "keyring.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "clients.h"

int keyring_module(const char *module)
{
	const char *base = strrchr(module, '/');
	size_t digits;

	base = base != NULL ? base + 1 : module;
	if (strcmp(base, "pam_gnome_keyring.so") == 0)
		return 1;
	/* KDE's wallet: pam_kwallet.so (KDE 4), pam_kwallet5.so, pam_kwallet6.so. */
	if (strncmp(base, "pam_kwallet", 11) != 0)
		return 0;
	digits = strspn(base + 11, "0123456789");
	return strcmp(base + 11 + digits, ".so") == 0;
}

/* The next token of *p (libpam's _pam_StrTok with a '[' control), NUL-terminated in place. */
static char *token(char **p)
{
	char *s = *p, *start;

	s += strspn(s, " \t\r\v\f");
	if (*s == '\0') {
		*p = s;
		return NULL;
	}
	start = s;
	if (*s == '[') {
		char *close = strchr(s, ']');

		s = close != NULL ? close + 1 : s + strlen(s);
	} else {
		s += strcspn(s, " \t\r\v\f");
	}
	if (*s != '\0')
		*s++ = '\0';
	*p = s;
	return start;
}

struct scan {
	const struct keyring_source *source;
	struct keyring_found *found;
	int unknown;
	int reads; /* files read so far: a file included twice at every level would be 2^16 */
};

static void name_copy(char *dst, const char *src)
{
	snprintf(dst, KEYRING_NAME_MAX + 1, "%s", src);
}

static enum keyring_scan scan_file(struct scan *s, const char *name, int depth);

/* One logical line of FILE (comments gone); 1 when it is a keyring line that counts. */
static enum keyring_scan scan_line(struct scan *s, char *line, const char *file,
				   unsigned int number, int depth)
{
	char *p = line, *type, *control, *module;

	type = token(&p);
	if (type == NULL)
		return KEYRING_NONE;
	if (strcmp(type, "@include") == 0) {
		char *what = token(&p);

		return what != NULL ? scan_file(s, what, depth + 1) : KEYRING_NONE;
	}
	if (*type == '-')
		type++;
	if (strcasecmp(type, "auth") != 0)
		return KEYRING_NONE;
	control = token(&p);
	module = token(&p);
	if (control == NULL || module == NULL)
		return KEYRING_NONE;
	if (strcasecmp(control, "include") == 0 || strcasecmp(control, "substack") == 0)
		return scan_file(s, module, depth + 1);
	if (!keyring_module(module) || !s->source->present(s->source->ctx, module))
		return KEYRING_NONE;
	name_copy(s->found->module, module);
	name_copy(s->found->file, file);
	s->found->line = number;
	return KEYRING_UNLOCKS;
}

/* A file too deep, past the reads, unreadable or too big: the scan says KEYRING_UNKNOWN. */
static enum keyring_scan unknown_file(struct scan *s, const char *fname)
{
	s->unknown = 1;
	name_copy(s->found->file, fname);
	return KEYRING_NONE;
}

/* Logical lines: a comment ends at the line's end, "\\\n" joins two lines. */
static enum keyring_scan scan_text(struct scan *s, char *text, size_t len, const char *fname,
				   int depth)
{
	enum keyring_scan result = KEYRING_NONE;
	unsigned int number = 1, physical = 1;
	char *line = text;
	size_t at = 0;

	while (at <= len && result == KEYRING_NONE) {
		char c = text[at];

		if (c == '\\' && at + 1 < len && text[at + 1] == '\n') {
			text[at] = ' ';
			text[at + 1] = ' ';
			physical++;
			at += 2;
			continue;
		}
		if (c == '#') {
			size_t end = at + strcspn(text + at, "\n");

			memset(text + at, ' ', end - at);
			at = end;
			continue;
		}
		if (c == '\n' || c == '\0') {
			text[at] = '\0';
			result = scan_line(s, line, fname, number, depth);
			line = text + at + 1;
			number = ++physical;
		}
		at++;
	}
	return result;
}

static enum keyring_scan scan_file(struct scan *s, const char *name, int depth)
{
	enum keyring_scan result;
	char fname[KEYRING_NAME_MAX + 1];
	char *text;
	long len;

	name_copy(fname, name);
	if (depth > KEYRING_DEPTH || ++s->reads > KEYRING_READS)
		return unknown_file(s, fname);
	text = malloc(KEYRING_FILE_MAX + 1);
	if (text == NULL)
		return unknown_file(s, fname);
	len = s->source->read(s->source->ctx, fname, text, KEYRING_FILE_MAX + 1);
	if (len == KEYRING_READ_MISSING) {
		free(text);
		return KEYRING_NONE;
	}
	if (len < 0 || len > KEYRING_FILE_MAX) {
		free(text);
		return unknown_file(s, fname);
	}
	text[len] = '\0';
	result = scan_text(s, text, (size_t)len, fname, depth);
	free(text);
	return result;
}

enum keyring_scan keyring_scan(const struct keyring_source *source, const char *service,
			       struct keyring_found *found)
{
	struct scan s = { .source = source, .found = found, .unknown = 0 };

	memset(found, 0, sizeof(*found));
	if (scan_file(&s, service, 0) == KEYRING_UNLOCKS)
		return KEYRING_UNLOCKS;
	return s.unknown ? KEYRING_UNKNOWN : KEYRING_NONE;
}

struct files {
	const char *pam_dir;
	const char *const *module_dirs;
	const char *service;
};

static long read_path(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -1;
	while (len < size) {
		ssize_t n = read(fd, buf + len, size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	return (long)len;
}

static long files_read(void *ctx, const char *name, char *buf, size_t size)
{
	const struct files *f = ctx;
	char path[CONFIG_PATH_MAX + KEYRING_NAME_MAX + 2];
	long n;

	if (name[0] == '/') {
		n = read_path(name, buf, size);
		return n < 0 && errno == ENOENT ? KEYRING_READ_MISSING : n;
	}
	if (strchr(name, '/') != NULL || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", f->pam_dir, name);
	n = read_path(path, buf, size);
	/* libpam: a service without a file of its own runs "other". */
	if (n < 0 && errno == ENOENT && strcmp(name, f->service) == 0) {
		snprintf(path, sizeof(path), "%s/other", f->pam_dir);
		n = read_path(path, buf, size);
	}
	return n < 0 && errno == ENOENT ? KEYRING_READ_MISSING : n;
}

static int files_present(void *ctx, const char *module)
{
	const struct files *f = ctx;
	char path[CONFIG_PATH_MAX + KEYRING_NAME_MAX + 2];

	if (module[0] == '/')
		return access(module, F_OK) == 0;
	for (const char *const *dir = f->module_dirs; dir != NULL && *dir != NULL; dir++) {
		snprintf(path, sizeof(path), "%s/%s", *dir, module);
		if (access(path, F_OK) == 0)
			return 1;
	}
	return 0;
}

enum keyring_scan keyring_stack_unlocks(const char *pam_dir, const char *const *module_dirs,
					const char *service, struct keyring_found *found)
{
	struct files f = { .pam_dir = pam_dir, .module_dirs = module_dirs, .service = service };
	struct keyring_source source = { .read = files_read, .present = files_present, .ctx = &f };

	return keyring_scan(&source, service, found);
}

int keyring_screen_unlock(const char *service)
{
	const char *reauth = getenv("GDM_SESSION_FOR_REAUTH");

	return strncmp(service, "gdm-", 4) == 0 && reauth != NULL && strcmp(reauth, "1") == 0;
}

const char *keyring_refusal(int finger_at_keyring_login, const char *pam_dir,
			    const char *const *module_dirs, const char *service, char *why,
			    size_t len, int *offered_locked)
{
	struct keyring_found found;
	enum keyring_scan scan;

	*offered_locked = 0;
	if (!client_starts_session(service) || keyring_screen_unlock(service))
		return NULL;
	scan = keyring_stack_unlocks(pam_dir, module_dirs, service, &found);
	if (scan == KEYRING_NONE)
		return NULL;
	if (finger_at_keyring_login) {
		*offered_locked = scan == KEYRING_UNLOCKS;
		return NULL;
	}
	if (scan == KEYRING_UNLOCKS)
		snprintf(why, len,
			 "the finger is not offered at %s: its stack unlocks a keyring with the "
			 "password (%s, %s line %u); finger_at_keyring_login = yes offers it",
			 service, found.module, found.file, found.line);
	else
		snprintf(why, len,
			 "the finger is not offered at %s: whether its stack unlocks a keyring "
			 "cannot be told (%s unreadable, too big or too deep): the password",
			 service, found.file);
	return why;
}
