/*
 * touchauth.conf and the module arguments, parsed into a per-call struct.
 * The grammar is shared with the helper (Sources/TouchAuthCore/Config.swift)
 * and pinned by tests/config/{good,bad}: both parsers must agree byte for byte.
 */
#ifndef TOUCHAUTH_OPTIONS_H
#define TOUCHAUTH_OPTIONS_H

#include <stdio.h>
#include <security/pam_modules.h>

#ifndef HELPER_PATH
#define HELPER_PATH "/usr/libexec/touchauth/touchauth"
#endif
#define DEFAULT_CONFIG_PATH "/etc/security/touchauth.conf"

#define CONFIG_LINE_MAX	       1023	   /* bytes per line, without the '\n' */
#define CONFIG_FILE_MAX	       (64 * 1024) /* bytes per file */
#define CONFIG_PATH_MAX	       4095	   /* bytes of an absolute path */
#define CONFIG_SOCKET_PATH_MAX 107	   /* sizeof(sun_path) - 1 */
/* A module argument must fit one request line: "arg " + argument + '\n' <= TA_LINE_MAX. */
#define CONFIG_ARG_MAX 1019

struct options {
	int max_tries;
	int timeout; /* seconds */
	int debug;
	char reason[CONFIG_LINE_MAX + 1];
	char fallback_title[CONFIG_LINE_MAX + 1];
	char print_dir[CONFIG_PATH_MAX + 1];
	char helper[CONFIG_PATH_MAX + 1];
	char virtual_device[CONFIG_SOCKET_PATH_MAX + 1];
	char virtual_device_storage[CONFIG_SOCKET_PATH_MAX + 1];
	/* Strikes, lockout and trust rules (read by the helper; the shim only parses them). */
	char state_dir[CONFIG_PATH_MAX + 1];
	int lockout_threshold;
	int unlock_time; /* seconds, 0 = only the password or an admin unlocks */
	int password_after_boot;
	int password_max_age; /* hours, 0 = off */
	int password_after_enroll_change;
	int require_password_set;
	/* Where the laptop lids are (a directory of <lid>/state files). */
	char lid_dir[CONFIG_PATH_MAX + 1];
};

/* What went wrong, precisely enough for tests/config_dump to print it. */
enum options_error_kind {
	OPTERR_NONE,
	OPTERR_LINE, /* "invalid line N" */
	OPTERR_KEY,  /* "invalid KEY" */
	OPTERR_FILE, /* missing, unreadable, unsafe or too big */
	OPTERR_ARG,  /* a module argument that is not key=value */
};

struct options_error {
	enum options_error_kind kind;
	unsigned int line;
	char key[32];
};

/*
 * Load the config file (config= among argv, else the default path; a missing
 * default file means defaults), then apply argv in order on top of it.
 * pamh may be NULL (tests): messages then go to stderr.
 * Returns PAM_SUCCESS, or PAM_AUTHINFO_UNAVAIL with *err filled in and the
 * reason logged.
 */
int options_load(pam_handle_t *pamh, int argc, const char **argv, struct options *opts,
		 struct options_error *err);

/* Defaults, then one file that must exist; no module arguments. */
struct stat;

/*
 * DESIGN.md §5.3, one check for every file that configures or runs
 * authentication (the config, the helper): a regular file, owned by root, not
 * writable by group or others.  Logs why not and returns -1; 0 when trusted.
 */
int trusted_by_root(pam_handle_t *pamh, const char *path, const struct stat *st);

int options_load_file(pam_handle_t *pamh, const char *path, struct options *opts,
		      struct options_error *err);

/* One "key=value" line per known key, in table order (tests/config/README.md). */
void options_dump(const struct options *opts, FILE *out);

#endif /* TOUCHAUTH_OPTIONS_H */
