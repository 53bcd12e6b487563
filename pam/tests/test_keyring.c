/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keyring.c: which stacks unlock a keyring with the password, read as libpam
 * reads them (includes, substacks, @include, "-auth", bracket controls,
 * comments, continued lines), through an in-memory set of files; and the rule
 * over it (keyring_refusal): only the services that start a session, not with
 * finger_at_keyring_login = yes, not at a GDM unlock.  The real files and the
 * real pam_gnome_keyring: tests/e2e/keyring.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clients.h"
#include "keyring.h"

static int passed, failed;

/* The files: NAME, TEXT pairs, NULL-terminated. */
struct fake {
	const char *const *files;
	const char *absent; /* a module that is not installed */
};

static long fake_read(void *ctx, const char *name, char *buf, size_t size)
{
	const struct fake *f = ctx;

	for (const char *const *p = f->files; *p != NULL; p += 2) {
		if (strcmp(p[0], name) == 0) {
			size_t len = strlen(p[1]);

			if (len > size)
				len = size;
			memcpy(buf, p[1], len);
			return (long)len;
		}
	}
	/* A name that starts with "unreadable" is there but cannot be read. */
	return strncmp(name, "unreadable", 10) == 0 ? -1 : KEYRING_READ_MISSING;
}

static int fake_present(void *ctx, const char *module)
{
	const struct fake *f = ctx;

	return f->absent == NULL || strstr(module, f->absent) == NULL;
}

static void expect(const char *what, const char *const *files, const char *absent,
		   enum keyring_scan want, const char *want_file, unsigned int want_line)
{
	struct fake f = { files, absent };
	struct keyring_source source = { fake_read, fake_present, &f };
	struct keyring_found found;
	enum keyring_scan got = keyring_scan(&source, "svc", &found);
	int ok = got == want;

	if (ok && want == KEYRING_UNLOCKS)
		ok = strcmp(found.file, want_file) == 0 && found.line == want_line;
	if (ok && want == KEYRING_UNKNOWN)
		ok = strcmp(found.file, want_file) == 0;
	if (ok) {
		passed++;
		printf("ok   - %s\n", what);
	} else {
		failed++;
		printf("FAIL - %s: got %d (%s line %u), wanted %d (%s line %u)\n", what, got,
		       found.file, found.line, want, want_file ? want_file : "-", want_line);
	}
}

static void truth(const char *what, int cond)
{
	if (cond) {
		passed++;
		printf("ok   - %s\n", what);
	} else {
		failed++;
		printf("FAIL - %s\n", what);
	}
}

#define FILES(...) ((const char *const[]){ __VA_ARGS__, NULL })

static const char *const debian_common_auth =
    "# here are the per-package modules (the \"Primary\" block)\n"
    "auth\t[success=1 default=ignore]\tpam_unix.so nullok\n"
    "auth\trequisite\t\t\tpam_deny.so\n"
    "auth\trequired\t\t\tpam_permit.so\n"
    "auth\toptional\tpam_touchauth.so authsucc\n";

static void scans(void)
{
	expect(
	    "Debian's gdm-password: @include common-auth, then auth optional pam_gnome_keyring.so",
	    FILES("svc",
		  "#%PAM-1.0\nauth    requisite       pam_nologin.so\n"
		  "auth\trequired\tpam_succeed_if.so user != root quiet_success\n"
		  "@include common-auth\nauth    optional        pam_gnome_keyring.so\n"
		  "@include common-account\n",
		  "common-auth", debian_common_auth, "common-account",
		  "account required pam_unix.so\n"),
	    NULL, KEYRING_UNLOCKS, "svc", 5);
	expect("the keyring's module not installed: nothing unlocks",
	       FILES("svc", "@include common-auth\n-auth optional pam_gnome_keyring.so\n",
		     "common-auth", debian_common_auth),
	       "gnome_keyring", KEYRING_NONE, NULL, 0);
	expect("pam-auth-update's gnome-keyring profile: the line in common-auth, found through "
	       "@include",
	       FILES("svc", "auth requisite pam_nologin.so\n@include common-auth\n", "common-auth",
		     "auth [success=1 default=ignore] pam_unix.so nullok\nauth requisite "
		     "pam_deny.so\nauth required pam_permit.so\nauth optional "
		     "pam_gnome_keyring.so\n"),
	       NULL, KEYRING_UNLOCKS, "common-auth", 4);
	expect("only in the session phase (auto_start): the password never reaches it",
	       FILES("svc",
		     "@include common-auth\nsession optional pam_gnome_keyring.so auto_start\n"
		     "password optional pam_gnome_keyring.so\n",
		     "common-auth", debian_common_auth),
	       NULL, KEYRING_NONE, NULL, 0);
	expect("Fedora's auth substack and include, \"-auth\" and KDE's wallet",
	       FILES("svc", "auth substack system-auth\nauth include postlogin\n", "system-auth",
		     "auth required pam_env.so\nauth sufficient pam_unix.so\n", "postlogin",
		     "\n\n-auth      optional      pam_kwallet5.so\n"),
	       NULL, KEYRING_UNLOCKS, "postlogin", 3);
	expect("a keyring line commented out, and one in another type, count for nothing",
	       FILES("svc", "#auth optional pam_gnome_keyring.so\nauth required pam_unix.so # "
			    "pam_gnome_keyring.so\naccount optional pam_kwallet5.so\n"),
	       NULL, KEYRING_NONE, NULL, 0);
	expect("a control in brackets with blanks, the type in capitals, a full module path",
	       FILES("svc", "AUTH [success=ok new_authtok_reqd=ok ignore=ignore default=bad] "
			    "/usr/lib/x86_64-linux-gnu/security/pam_kwallet6.so\n"),
	       NULL, KEYRING_UNLOCKS, "svc", 1);
	expect("a line continued with a backslash is one line (numbered where it starts)",
	       FILES("svc", "auth required pam_unix.so\nauth \\\n optional \\\n pam_kwallet.so\n"),
	       NULL, KEYRING_UNLOCKS, "svc", 2);
	expect("look-alike modules are not keyrings (pam_kwalletd.so, pam_gnome_keyring.so.1, "
	       "pam_gnome_keyring)",
	       FILES("svc", "auth optional pam_kwalletd.so\nauth optional pam_gnome_keyring.so.1\n"
			    "auth optional pam_gnome_keyring\nauth optional xpam_kwallet5.so\n"),
	       NULL, KEYRING_NONE, NULL, 0);
	expect("the module name as an argument of another module is not a keyring line",
	       FILES("svc", "auth optional pam_exec.so /usr/lib/pam_gnome_keyring.so\n"), NULL,
	       KEYRING_NONE, NULL, 0);
	expect("an included file that is there but cannot be read: cannot tell",
	       FILES("svc", "auth required pam_unix.so\n@include unreadable-auth\n"), NULL,
	       KEYRING_UNKNOWN, "unreadable-auth", 0);
	expect("an included file that does not exist: nothing there (libpam skips it too)",
	       FILES("svc", "auth required pam_unix.so\n@include common-gone\nauth include gone\n"),
	       NULL, KEYRING_NONE, NULL, 0);
	expect("an include loop: cannot tell (held to libpam's depth)",
	       FILES("svc", "auth include a\n", "a", "auth substack svc\n"), NULL, KEYRING_UNKNOWN,
	       "a", 0);
	expect("a file included twice at every level: cannot tell after 64 files read, not 2^16",
	       FILES("svc", "auth include a\nauth include a\n", "a",
		     "auth include b\nauth include b\n", "b", "auth include c\nauth include c\n",
		     "c", "auth include d\nauth include d\n", "d",
		     "auth include e\nauth include e\n", "e", "auth include f\nauth include f\n",
		     "f", "auth required pam_unix.so\n"),
	       NULL, KEYRING_UNKNOWN, "a", 0);
	/* Around the size limit: a keyring line, then a comment to the length. */
	{
		static char big[KEYRING_FILE_MAX + 2];
		const char *line = "auth optional pam_gnome_keyring.so\n#";

		memset(big, 'x', sizeof(big) - 1);
		memcpy(big, line, strlen(line));
		big[KEYRING_FILE_MAX] = '\0';
		expect("a stack file of exactly the size limit (64 KiB): read, its keyring line "
		       "counts",
		       FILES("svc", big), NULL, KEYRING_UNLOCKS, "svc", 1);
		big[KEYRING_FILE_MAX] = 'x';
		expect("a stack file one byte over the size limit: cannot tell (never scanned), "
		       "the password",
		       FILES("svc", big), NULL, KEYRING_UNKNOWN, "svc", 0);
		expect("an included file over the size limit: cannot tell",
		       FILES("svc", "auth required pam_unix.so\nauth include big\n", "big", big),
		       NULL, KEYRING_UNKNOWN, "big", 0);
	}
	expect("a keyring line after an unreadable include still counts",
	       FILES("svc", "auth include unreadable-x\nauth optional pam_gnome_keyring.so\n"),
	       NULL, KEYRING_UNLOCKS, "svc", 2);
}

static void rules(void)
{
	char dir[] = "/tmp/touchauth-keyring-test.XXXXXX", path[256], why[1024];
	const char *dirs[] = { NULL, NULL };
	const char *services[] = {
		"login",  "gdm-password", "gdm-fingerprint", "lightdm", "sddm", "sudo", "su",
		"i3lock", "kde",	  "polkit-1",	     NULL
	};
	struct config_values opts;
	int locked, refused_where_wanted = 1;
	FILE *f;

	if (mkdtemp(dir) == NULL) {
		truth("a temporary directory", 0);
		return;
	}
	dirs[0] = dir;
	snprintf(path, sizeof(path), "%s/pam_gnome_keyring.so", dir);
	f = fopen(path, "w");
	if (f != NULL)
		fclose(f);
	for (const char **s = services; *s != NULL; s++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *s);
		f = fopen(path, "w");
		if (f == NULL)
			continue;
		fputs("auth required pam_unix.so\nauth optional pam_gnome_keyring.so\n", f);
		fclose(f);
	}
	config_defaults(&opts);
	truth("the default: finger_at_keyring_login = no", opts.finger_at_keyring_login == 0);
	for (const char **s = services; *s != NULL; s++) {
		const char *r = keyring_refusal(opts.finger_at_keyring_login, dir, dirs, *s, why,
						sizeof(why), &locked);

		if ((r != NULL) != client_starts_session(*s) || locked)
			refused_where_wanted = 0;
	}
	truth("a keyring in the stack: refused at login, gdm-password, gdm-fingerprint, lightdm, "
	      "sddm; not at sudo, su, i3lock, kde, polkit-1",
	      refused_where_wanted);
	truth("the reason names the module, the file and the line",
	      keyring_refusal(opts.finger_at_keyring_login, dir, dirs, "login", why, sizeof(why),
			      &locked) != NULL &&
		  strstr(why, "pam_gnome_keyring.so") != NULL &&
		  strstr(why, "login line 2") != NULL);
	setenv("GDM_SESSION_FOR_REAUTH", "1", 1);
	truth("a GDM unlock (GDM_SESSION_FOR_REAUTH=1): the finger at gdm-password and "
	      "gdm-fingerprint",
	      keyring_refusal(opts.finger_at_keyring_login, dir, dirs, "gdm-password", why,
			      sizeof(why), &locked) == NULL &&
		  keyring_refusal(opts.finger_at_keyring_login, dir, dirs, "gdm-fingerprint", why,
				  sizeof(why), &locked) == NULL);
	truth("...but not at login or lightdm, whose programs never set it",
	      keyring_refusal(opts.finger_at_keyring_login, dir, dirs, "login", why, sizeof(why),
			      &locked) != NULL &&
		  keyring_refusal(opts.finger_at_keyring_login, dir, dirs, "lightdm", why,
				  sizeof(why), &locked) != NULL);
	setenv("GDM_SESSION_FOR_REAUTH", "0", 1);
	truth("GDM_SESSION_FOR_REAUTH other than 1: a login",
	      keyring_refusal(opts.finger_at_keyring_login, dir, dirs, "gdm-password", why,
			      sizeof(why), &locked) != NULL);
	unsetenv("GDM_SESSION_FOR_REAUTH");
	opts.finger_at_keyring_login = 1;
	truth("finger_at_keyring_login = yes: offered at login, and said to leave the keyring "
	      "locked",
	      keyring_refusal(opts.finger_at_keyring_login, dir, dirs, "login", why, sizeof(why),
			      &locked) == NULL &&
		  locked == 1);
	opts.finger_at_keyring_login = 0;
	snprintf(path, sizeof(path), "%s/pam_gnome_keyring.so", dir);
	unlink(path);
	truth("the keyring's module not installed: offered at login",
	      keyring_refusal(opts.finger_at_keyring_login, dir, dirs, "login", why, sizeof(why),
			      &locked) == NULL);
	for (const char **s = services; *s != NULL; s++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *s);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/other", dir);
	f = fopen(path, "w");
	if (f != NULL) {
		fputs("auth optional /bin/sh\n@include unreadable\n", f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/unreadable", dir);
	mkdir(path, 0700); /* read(2) of a directory: EISDIR */
	truth("no file of its own: libpam's other is read; there an unreadable include: the "
	      "password",
	      keyring_refusal(opts.finger_at_keyring_login, dir, dirs, "login", why, sizeof(why),
			      &locked) != NULL &&
		  strstr(why, "cannot be told (unreadable") != NULL);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/other", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	scans();
	rules();
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
