/* SPDX-License-Identifier: Apache-2.0 */
/*
 * touchauth.conf and the module arguments: one grammar, one implementation
 * (config.c), compiled into both binaries as pam_unix builds passverify.c into
 * the module and unix_chkpwd: into pam_touchauth.so by pam/Makefile (options.c
 * adds pam_syslog and the PAM codes), and into the helper as Package.swift's
 * CConfig target (Sources/TouchAuthCore/Config.swift is a typed view of struct
 * config_values).  No libpam here: messages go through struct config_log.
 * tests/config/ pins the grammar for both binaries' dumps.
 */
#ifndef TOUCHAUTH_CONFIG_H
#define TOUCHAUTH_CONFIG_H

#include <stddef.h>

#ifndef HELPER_PATH
#define HELPER_PATH "/usr/libexec/touchauth/touchauth"
#endif
#define DEFAULT_CONFIG_PATH "/etc/security/touchauth.conf"

#define CONFIG_LINE_MAX	       1023  /* bytes per line, without the '\n' */
#define CONFIG_FILE_MAX	       65536 /* bytes per file */
#define CONFIG_PATH_MAX	       4095  /* bytes of an absolute path */
#define CONFIG_SOCKET_PATH_MAX 107   /* sizeof(sun_path) - 1 */
/* A module argument must fit one request line: "arg " + argument + '\n' <= TA_LINE_MAX. */
#define CONFIG_ARG_MAX	1019
#define CONFIG_KEY_MAX	31    /* bytes of a key named in struct config_error */
#define CONFIG_DUMP_MAX 20480 /* bytes of config_dump's text, at most */

/*
 * The key table: every key of touchauth.conf and the module arguments, one row
 * each, in the order of the dump.  The row makes the field of struct
 * config_values and the parser's entry (config.c).  Adding a key takes:
 *   - its row here;
 *   - its Swift name and type, a line of Config.Keys
 *     (Sources/TouchAuthCore/ConfigKeys.swift), read as config.name;
 *   - man/touchauth.conf.5.scd and examples/touchauth.conf;
 *   - its default in tests/config/defaults.expected (the dump of the defaults).
 * Columns:
 *   X(name, type, min, max, length, default, access)
 * type:    INT (min..max), BOOL, TEXT, ABSPATH, SOCKET (empty, or an absolute
 *          path that fits sun_path); INT and BOOL are an int, the others a
 *          char[length + 1]
 * default: parsed like a value, so defaults obey the rules
 * access:  ROOT: only root sets it as a module argument (what is checked, where
 *          prints and state live, the sensor); CALLER: also a caller that is not
 *          root, such as a screen locker (the prompt's keys; SECURITY.md#restricted-mode)
 */
#define CONFIG_KEYS(X)                                                                             \
	X(max_tries, INT, 1, 10, 0, "3", CALLER)                                                   \
	X(timeout, INT, 1, 600, 0, "30", CALLER) /* seconds */                                     \
	X(reason, TEXT, 0, 0, CONFIG_LINE_MAX, "", CALLER)                                         \
	X(fallback_title, TEXT, 0, 0, CONFIG_LINE_MAX, "Enter Password", CALLER)                   \
	/* sudo, doas, su: the prompt names the command and the user (approval.h). */              \
	X(show_command, BOOL, 0, 0, 0, "yes", ROOT)                                                \
	X(print_dir, ABSPATH, 0, 0, CONFIG_PATH_MAX, "/var/lib/fprint", ROOT)                      \
	X(helper, ABSPATH, 0, 0, CONFIG_PATH_MAX, HELPER_PATH, ROOT)                               \
	X(debug, BOOL, 0, 0, 0, "no", ROOT)                                                        \
	X(virtual_device, SOCKET, 0, 0, CONFIG_SOCKET_PATH_MAX, "", ROOT)                          \
	X(virtual_device_storage, SOCKET, 0, 0, CONFIG_SOCKET_PATH_MAX, "", ROOT)                  \
	/* Strikes, lockout and trust rules (read by the helper; the shim only parses them). */    \
	X(state_dir, ABSPATH, 0, 0, CONFIG_PATH_MAX, "/var/lib/touchauth", ROOT)                   \
	X(lockout_threshold, INT, 1, 1000, 0, "5", ROOT)                                           \
	X(unlock_time, INT, 0, 31536000, 0, "0", ROOT) /* seconds, 0 = password or admin only */   \
	X(password_after_boot, BOOL, 0, 0, 0, "yes", ROOT)                                         \
	X(password_max_age, INT, 0, 8760, 0, "48", ROOT) /* hours, 0 = off */                      \
	X(password_after_enroll_change, BOOL, 0, 0, 0, "yes", ROOT)                                \
	X(require_password_set, BOOL, 0, 0, 0, "yes", ROOT)                                        \
	/* Where the laptop lids are (a directory of <lid>/state files). */                        \
	X(lid_dir, ABSPATH, 0, 0, CONFIG_PATH_MAX, "/proc/acpi/button/lid", ROOT)                  \
	/* Where sysfs is: a USB reader's port says removable or fixed                             \
	 * (docs/POLICY.md#the-lid-and-the-readers-at-hand). */                                    \
	X(sysfs_dir, ABSPATH, 0, 0, 255, "/sys", ROOT)                                             \
	/* Where logind does not run, whether a terminal the module owns counts as a person. */    \
	X(terminal_without_logind, BOOL, 0, 0, 0, "no", ROOT)                                      \
	/* At a login whose stack unlocks a keyring with the password, the finger too (keyring.h). \
	 */                                                                                        \
	X(finger_at_keyring_login, BOOL, 0, 0, 0, "no", ROOT)

#define CONFIG_FIELD_INT(name, length)				int name;
#define CONFIG_FIELD_BOOL(name, length)				int name;
#define CONFIG_FIELD_TEXT(name, length)				char name[(length) + 1];
#define CONFIG_FIELD_ABSPATH(name, length)			char name[(length) + 1];
#define CONFIG_FIELD_SOCKET(name, length)			char name[(length) + 1];
#define CONFIG_FIELD(name, type, min, max, length, def, access) CONFIG_FIELD_##type(name, length)

/* Every key's value, a field per row of CONFIG_KEYS; defaults from config_defaults. */
struct config_values {
	CONFIG_KEYS(CONFIG_FIELD)
};

enum config_error_kind {
	CONFIG_OK,
	CONFIG_ERR_LINE, /* a line that is not key = value: "invalid line N" */
	CONFIG_ERR_KEY,	 /* a bad value of a known key: "invalid KEY" */
	CONFIG_ERR_FILE, /* the file is missing, unreadable, unsafe or too big: see file */
	CONFIG_ERR_ARG,	 /* a module argument that is not key=value */
	CONFIG_ERR_ARGS, /* more module arguments than a request carries */
};

/* Why a file was refused, one value per check (SECURITY.md#root-owned-files). */
enum config_file_problem {
	CONFIG_FILE_TRUSTED,
	CONFIG_FILE_MISSING, /* an explicitly named file does not exist */
	CONFIG_FILE_SYMLINK, /* O_NOFOLLOW met a symbolic link */
	CONFIG_FILE_IO,	     /* open, fstat or read failed: errnum */
	CONFIG_FILE_NOT_REGULAR,
	CONFIG_FILE_NOT_ROOT,
	CONFIG_FILE_WRITABLE, /* by group or others */
	CONFIG_FILE_LINKED,   /* more than one hard link */
	CONFIG_FILE_TOO_BIG,
	CONFIG_FILE_NO_MEMORY,
};

/* What went wrong; config_error_text words it. */
struct config_error {
	enum config_error_kind kind;
	unsigned int line; /* CONFIG_ERR_LINE, CONFIG_ERR_KEY in a file: from 1 */
	int argument;	   /* CONFIG_ERR_ARG, CONFIG_ERR_KEY in argv: its index; else -1 */
	char key[CONFIG_KEY_MAX + 1];
	enum config_file_problem file;	/* CONFIG_ERR_FILE */
	int errnum;			/* CONFIG_FILE_IO */
	char path[CONFIG_PATH_MAX + 1]; /* the file an error is in or about */
};

/*
 * Where messages go: the module logs with pam_syslog (options.c); the helper
 * drops them and reports config_error_text's words and the unknown keys.
 * line NULL (or no log at all): stderr.  unknown_key, when set, also hears
 * each unknown key and where it was ("module arguments" or the file).
 */
struct config_log {
	void (*line)(void *ctx, int priority, const char *message);
	void (*unknown_key)(void *ctx, const char *key, const char *where);
	void *ctx;
};

void config_defaults(struct config_values *values);

/*
 * The key table (CONFIG_KEYS): set key to value (text the grammar has trimmed),
 * validated; 0, -1 for a bad value (values unchanged), 1 for an unknown key.
 */
int config_set(struct config_values *values, const char *key, const char *value);

/* The value of a text or path key, inside values; NULL for an unknown or a number key. */
const char *config_text(const struct config_values *values, const char *key);

/* The value of an INT or BOOL key (BOOL: 0 or 1); 0 for an unknown or a text key. */
int config_number(const struct config_values *values, const char *key);

/* 1 if a caller that is not root may pass key as a module argument (SECURITY.md#restricted-mode).
 */
int config_key_is_callers(const char *key);

/* One message through log (or to stderr); errno is kept, for a caller to read after. */
__attribute__((format(printf, 3, 4))) void config_say(const struct config_log *log, int priority,
						      const char *fmt, ...);

/*
 * Lines of a file, text[0..len) (no NUL needed), named where in messages.
 * These and the calls below return 0, or -1 with *err filled in and the
 * reason logged; on error values may hold the lines applied before it.
 */
int config_apply_text(const struct config_log *log, struct config_values *values, const char *text,
		      size_t len, const char *where, struct config_error *err);

/* One module argument, argv[index]: a line of the same grammar, or the bare word "debug". */
int config_apply_argument(const struct config_log *log, struct config_values *values,
			  const char *arg, int index, struct config_error *err);

/* config=PATH among argv (the last one wins) into path, or "" without one. */
int config_find_path(const struct config_log *log, int argc, const char *const *argv,
		     char path[CONFIG_PATH_MAX + 1], struct config_error *err);

/* Apply a file only root could have written; a missing file is fine unless explicit. */
int config_apply_file(const struct config_log *log, struct config_values *values, const char *path,
		      int explicit, struct config_error *err);

/*
 * The whole load: defaults, the file, then argv in order on top of it.  The
 * file is explicit_path when not NULL (the helper's --config), else config=
 * among argv, else DEFAULT_CONFIG_PATH, which alone may be missing.
 */
int config_load(const struct config_log *log, const char *explicit_path, int argc,
		const char *const *argv, struct config_values *values, struct config_error *err);

/*
 * SECURITY.md#root-owned-files, one check for every file that configures or runs
 * authentication (the config, the helper): a regular file, owned by root, not
 * writable by group or others.  Logs why not; CONFIG_FILE_TRUSTED when fine.
 */
struct stat;
enum config_file_problem config_trusted_by_root(const struct config_log *log, const char *path,
						const struct stat *st);

/*
 * The restricted mode's filter (SECURITY.md#restricted-mode): 1 if a caller that is not
 * root may pass arg.  A key=value argument may pass only for a key the table
 * gives the caller (the prompt's, never what is checked); otherwise 0, and
 * key gets the key as the parser reads it, for the log.  What is not
 * key=value passes, for the loader to refuse as it would from root.
 */
int config_caller_may_pass(const char *arg, char key[CONFIG_KEY_MAX + 1]);

/*
 * "key=value\n" per key, in table order (tests/config/README.md), into buf
 * (CONFIG_DUMP_MAX bytes are enough); returns the length, as snprintf.
 */
size_t config_dump(const struct config_values *values, char *buf, size_t size);

/*
 * Who reads config_error_text's words.  DUMP: a dump's one line ("invalid line
 * N", "invalid KEY", "invalid argument N", ...).  HELPER: the helper's message
 * ("PATH: invalid line N", "PATH: refused: not owned by root", ...).
 */
enum config_wording {
	CONFIG_WORDING_DUMP,
	CONFIG_WORDING_HELPER,
};

/*
 * Every config_error in words, the one place they are worded.  argument: the
 * module argument err->argument indexes (the helper names it), or NULL.
 */
void config_error_text(const struct config_error *err, enum config_wording wording,
		       const char *argument, char *buf, size_t size);

#endif /* TOUCHAUTH_CONFIG_H */
