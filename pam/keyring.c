/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The login keyring rule (keyring.h): which services' auth phase unlocks a
 * keyring with the password.  The stack is read by pamstack.c, as libpam
 * reads it (the reader that doctor uses too).  Only finding a line matters
 * here, not how the stack would run: a keyring line in the auth phase is
 * handed the password whenever the stack reaches it with one.
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
#include "pamstack.h"

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

struct scan {
	const struct keyring_source *source;
	struct keyring_found *found;
};

static void name_copy(char *dst, const char *src)
{
	snprintf(dst, KEYRING_NAME_MAX + 1, "%s", src);
}

static long scan_read(void *ctx, const char *name, char *buf, size_t size)
{
	const struct scan *s = ctx;
	long n = s->source->read(s->source->ctx, name, buf, size);

	return n == KEYRING_READ_MISSING ? PAMSTACK_READ_MISSING : n;
}

/* One line of the auth phase (pamstack.c reads them as libpam does): a keyring stops it. */
static int scan_line(void *ctx, const struct pamstack_line *line)
{
	struct scan *s = ctx;

	if (line->kind != PAMSTACK_MODULE || !keyring_module(line->module) ||
	    !s->source->present(s->source->ctx, line->module))
		return 0;
	name_copy(s->found->module, line->module);
	name_copy(s->found->file, line->file);
	s->found->line = line->number;
	return 1;
}

enum keyring_scan keyring_scan(const struct keyring_source *source, const char *service,
			       struct keyring_found *found)
{
	struct scan s = { .source = source, .found = found };
	struct pamstack_source files = { .read = scan_read, .ctx = &s };
	struct pamstack_unknown unknown;
	enum pamstack_result got;

	memset(found, 0, sizeof(*found));
	got = pamstack_read(&files, service, "auth", scan_line, &s, &unknown);
	if (got == PAMSTACK_STOPPED)
		return KEYRING_UNLOCKS;
	if (got == PAMSTACK_UNKNOWN) {
		name_copy(found->file, unknown.file);
		return KEYRING_UNKNOWN;
	}
	/* PAMSTACK_REFUSED too: libpam runs no module there, so none unlocks a keyring. */
	return KEYRING_NONE;
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
