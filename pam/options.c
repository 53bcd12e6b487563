/*
 * One parser for /etc/security/touchauth.conf and the module arguments
 * (pam_faillock's set_conf_opt, pam-u2f's cfg_load_arg): arguments are lines
 * of the same grammar, applied after the file.  Everything lands in a
 * caller-owned struct options; there is no static mutable state, because a
 * display manager keeps many PAM handles alive in one process.
 */
#include "options.h"
#include "protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>

enum value_type {
	VT_INT,
	VT_BOOL,
	VT_TEXT,
	VT_ABSPATH,
	VT_SOCKET, /* empty, or an absolute path that fits sun_path */
};

struct key_spec {
	const char *name;
	enum value_type type;
	int min, max;	 /* VT_INT */
	size_t maxlen;	 /* strings: longest value in bytes */
	const char *def; /* parsed like a value, so defaults obey the rules */
	size_t offset;	 /* into struct options */
	size_t size;	 /* of that field */
};

#define FIELD(f) offsetof(struct options, f), sizeof(((struct options *)0)->f)

/* The order of this table is the order of the dump. */
static const struct key_spec keys[] = {
	{ "max_tries", VT_INT, 1, 10, 0, "3", FIELD(max_tries) },
	{ "timeout", VT_INT, 1, 600, 0, "30", FIELD(timeout) },
	{ "reason", VT_TEXT, 0, 0, CONFIG_LINE_MAX, "", FIELD(reason) },
	{ "fallback_title", VT_TEXT, 0, 0, CONFIG_LINE_MAX, "Enter Password",
	  FIELD(fallback_title) },
	{ "print_dir", VT_ABSPATH, 0, 0, CONFIG_PATH_MAX, "/var/lib/fprint", FIELD(print_dir) },
	{ "helper", VT_ABSPATH, 0, 0, CONFIG_PATH_MAX, HELPER_PATH, FIELD(helper) },
	{ "debug", VT_BOOL, 0, 0, 0, "no", FIELD(debug) },
	{ "virtual_device", VT_SOCKET, 0, 0, CONFIG_SOCKET_PATH_MAX, "", FIELD(virtual_device) },
	{ "virtual_device_storage", VT_SOCKET, 0, 0, CONFIG_SOCKET_PATH_MAX, "",
	  FIELD(virtual_device_storage) },
	{ "state_dir", VT_ABSPATH, 0, 0, CONFIG_PATH_MAX, "/var/lib/touchauth", FIELD(state_dir) },
	{ "lockout_threshold", VT_INT, 1, 1000, 0, "5", FIELD(lockout_threshold) },
	{ "unlock_time", VT_INT, 0, 31536000, 0, "0", FIELD(unlock_time) },
	{ "password_after_boot", VT_BOOL, 0, 0, 0, "yes", FIELD(password_after_boot) },
	{ "password_max_age", VT_INT, 0, 8760, 0, "48", FIELD(password_max_age) },
	{ "password_after_enroll_change", VT_BOOL, 0, 0, 0, "yes",
	  FIELD(password_after_enroll_change) },
	{ "require_password_set", VT_BOOL, 0, 0, 0, "yes", FIELD(require_password_set) },
	{ "lid_dir", VT_ABSPATH, 0, 0, CONFIG_PATH_MAX, "/proc/acpi/button/lid", FIELD(lid_dir) },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* Only a module argument may name the config file; inside a file it is unknown. */
static const char config_key[] = "config";

enum line_kind { LINE_SKIP, LINE_KV, LINE_INVALID };

__attribute__((format(printf, 3, 4))) static void say(pam_handle_t *pamh, int prio, const char *fmt,
						      ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (pamh != NULL) {
		pam_vsyslog(pamh, prio, fmt, ap);
	} else {
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static char *trim(char *s)
{
	size_t n;

	while (is_blank(*s))
		s++;
	n = strlen(s);
	while (n > 0 && is_blank(s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* TAB is the only control byte a line may hold. */
static int has_control_byte(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return 1;
	}
	return 0;
}

/*
 * Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF): the
 * helper's Swift parser decodes values with String(validating:), which refuses
 * exactly these, so both parsers reject the same files.
 */
static int is_valid_utf8(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s != '\0') {
		unsigned char c = *s;
		size_t n;
		unsigned int cp;

		if (c < 0x80) {
			s++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			n = 1, cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2, cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3, cp = c & 0x07;
		} else {
			return 0;
		}
		for (size_t i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (s[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		s += n + 1;
	}
	return 1;
}

/*
 * Split one line (len bytes, no '\n') into key and value inside buf, which
 * must hold CONFIG_LINE_MAX + 1 bytes.
 */
static enum line_kind split_line(const char *line, size_t len, char *buf, char **key, char **value)
{
	char *s, *eq;

	if (len > CONFIG_LINE_MAX || has_control_byte(line, len))
		return LINE_INVALID;
	memcpy(buf, line, len);
	buf[len] = '\0';

	s = trim(buf);
	if (*s == '\0' || *s == '#')
		return LINE_SKIP;
	eq = strchr(s, '=');
	if (eq == NULL)
		return LINE_INVALID;
	*eq = '\0';
	*key = trim(s);
	*value = trim(eq + 1);
	if (**key == '\0' || (*key)[strspn(*key, "abcdefghijklmnopqrstuvwxyz_")] != '\0')
		return LINE_INVALID;
	if (!is_valid_utf8(*value))
		return LINE_INVALID;
	return LINE_KV;
}

static const struct key_spec *find_key(const char *name)
{
	for (size_t i = 0; i < NKEYS; i++) {
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	}
	return NULL;
}

/* 1 to 9 ASCII digits, no sign, no blanks: the same on every parser. */
static int parse_int(const char *s, int min, int max, int *out)
{
	size_t n = strlen(s);
	long v = 0;

	if (n < 1 || n > 9 || strspn(s, "0123456789") != n)
		return -1;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	if (v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_bool(const char *s, int *out)
{
	static const struct {
		const char *word;
		int value;
	} words[] = {
		{ "yes", 1 }, { "no", 0 },  { "true", 1 }, { "false", 0 },
		{ "on", 1 },  { "off", 0 }, { "1", 1 },	   { "0", 0 },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcmp(s, words[i].word) == 0) {
			*out = words[i].value;
			return 0;
		}
	}
	return -1;
}

static int is_abspath(const char *s, size_t maxlen)
{
	size_t n = strlen(s);

	return n >= 1 && n <= maxlen && s[0] == '/';
}

/* Validate value for spec and store it; on error opts is unchanged. */
static int set_value(const struct key_spec *spec, const char *value, struct options *opts)
{
	char *field = (char *)opts + spec->offset;
	size_t n = strlen(value);

	switch (spec->type) {
	case VT_INT:
		return parse_int(value, spec->min, spec->max, (int *)(void *)field);
	case VT_BOOL:
		return parse_bool(value, (int *)(void *)field);
	case VT_TEXT:
		if (n > spec->maxlen)
			return -1;
		break;
	case VT_ABSPATH:
		if (!is_abspath(value, spec->maxlen))
			return -1;
		break;
	case VT_SOCKET:
		if (n != 0 && !is_abspath(value, spec->maxlen))
			return -1;
		break;
	default:
		return -1;
	}
	if (n >= spec->size)
		return -1;
	memcpy(field, value, n + 1);
	return 0;
}

static void set_defaults(struct options *opts)
{
	memset(opts, 0, sizeof(*opts));
	for (size_t i = 0; i < NKEYS; i++)
		(void)set_value(&keys[i], keys[i].def, opts);
}

static void set_error(struct options_error *err, enum options_error_kind kind, unsigned int line,
		      const char *key)
{
	err->kind = kind;
	err->line = line;
	err->key[0] = '\0';
	if (key != NULL)
		snprintf(err->key, sizeof(err->key), "%s", key);
}

/* One line of a config file (lineno counts from 1). */
static int apply_file_line(pam_handle_t *pamh, const char *path, const char *line, size_t len,
			   unsigned int lineno, struct options *opts, struct options_error *err)
{
	char buf[CONFIG_LINE_MAX + 1];
	char *key = NULL, *value = NULL;
	const struct key_spec *spec;

	switch (split_line(line, len, buf, &key, &value)) {
	case LINE_SKIP:
		return PAM_SUCCESS;
	case LINE_INVALID:
		say(pamh, LOG_ERR, "invalid line %u in %s", lineno, path);
		set_error(err, OPTERR_LINE, lineno, NULL);
		return PAM_AUTHINFO_UNAVAIL;
	case LINE_KV:
	default:
		break;
	}

	spec = find_key(key);
	if (spec == NULL) {
		/* Logged, not fatal: a newer helper may know keys this shim does not. */
		if (pamh != NULL)
			pam_syslog(pamh, LOG_WARNING, "unknown key %s in %s", key, path);
		else
			fprintf(stderr, "unknown key %s\n", key);
		return PAM_SUCCESS;
	}
	if (set_value(spec, value, opts) != 0) {
		say(pamh, LOG_ERR, "invalid %s in %s", spec->name, path);
		set_error(err, OPTERR_KEY, lineno, spec->name);
		return PAM_AUTHINFO_UNAVAIL;
	}
	return PAM_SUCCESS;
}

int trusted_by_root(pam_handle_t *pamh, const char *path, const struct stat *st)
{
	const char *why = NULL;

	if (!S_ISREG(st->st_mode))
		why = "is not a regular file";
	else if (st->st_uid != 0)
		why = "is not owned by root";
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		why = "is group- or other-writable";
	if (why == NULL)
		return 0;
	say(pamh, LOG_ERR, "%s %s", path, why);
	return -1;
}

/*
 * Read the whole file into a malloc'ed buffer after checking that only root
 * could have written it.  *buf is NULL and PAM_SUCCESS is returned when a
 * non-explicit file does not exist.
 */
static int read_config(pam_handle_t *pamh, const char *path, int explicit, char **buf, size_t *len)
{
	struct stat st;
	char *data = NULL;
	size_t got = 0;
	int fd, retval = PAM_AUTHINFO_UNAVAIL;

	*buf = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO planted here must not hang the open; fstat rejects it. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT && !explicit)
			return PAM_SUCCESS;
		say(pamh, LOG_ERR, "cannot open %s: %m", path);
		return PAM_AUTHINFO_UNAVAIL;
	}
	if (fstat(fd, &st) != 0) {
		say(pamh, LOG_ERR, "cannot stat %s: %m", path);
		goto out;
	}
	if (trusted_by_root(pamh, path, &st) != 0)
		goto out;
	if (st.st_size > CONFIG_FILE_MAX) {
		say(pamh, LOG_ERR, "%s is larger than %d bytes", path, CONFIG_FILE_MAX);
		goto out;
	}

	/* One byte more than allowed, to notice a file that grew after fstat. */
	data = malloc(CONFIG_FILE_MAX + 1);
	if (data == NULL) {
		say(pamh, LOG_ERR, "out of memory");
		retval = PAM_BUF_ERR;
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, data + got, CONFIG_FILE_MAX + 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			say(pamh, LOG_ERR, "cannot read %s: %m", path);
			goto out;
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (got > CONFIG_FILE_MAX) {
			say(pamh, LOG_ERR, "%s is larger than %d bytes", path, CONFIG_FILE_MAX);
			goto out;
		}
	}
	*buf = data;
	*len = got;
	data = NULL;
	retval = PAM_SUCCESS;
out:
	free(data);
	close(fd);
	return retval;
}

static int apply_file(pam_handle_t *pamh, const char *path, int explicit, struct options *opts,
		      struct options_error *err)
{
	char *data = NULL;
	size_t len = 0, start = 0;
	unsigned int lineno = 0;
	int retval;

	retval = read_config(pamh, path, explicit, &data, &len);
	if (retval != PAM_SUCCESS) {
		set_error(err, OPTERR_FILE, 0, NULL);
		goto out;
	}
	while (start < len) {
		const char *nl = memchr(data + start, '\n', len - start);
		size_t end = nl != NULL ? (size_t)(nl - data) : len;

		retval =
		    apply_file_line(pamh, path, data + start, end - start, ++lineno, opts, err);
		if (retval != PAM_SUCCESS)
			goto out;
		start = end + 1;
	}
	retval = PAM_SUCCESS;
out:
	free(data);
	return retval;
}

/*
 * A module argument is a line of the same grammar; the bare word "debug" is
 * accepted as pam_unix and friends do.  Only here is "config" a known key.
 * With config non-NULL (CONFIG_LINE_MAX + 1 bytes) only config= is applied,
 * into config; otherwise config= is skipped and the rest applied to opts.
 */
static int apply_argument(pam_handle_t *pamh, const char *arg, struct options *opts, char *config,
			  struct options_error *err)
{
	char buf[CONFIG_LINE_MAX + 1];
	char *key = NULL, *value = NULL;
	const struct key_spec *spec;
	size_t len = strlen(arg);

	if (strcmp(arg, "debug") == 0)
		arg = "debug=yes", len = strlen(arg);
	if (len > CONFIG_ARG_MAX) {
		say(pamh, LOG_ERR, "invalid module argument (longer than %d bytes)",
		    CONFIG_ARG_MAX);
		set_error(err, OPTERR_ARG, 0, NULL);
		return PAM_AUTHINFO_UNAVAIL;
	}

	switch (split_line(arg, len, buf, &key, &value)) {
	case LINE_SKIP:
		return PAM_SUCCESS;
	case LINE_INVALID:
		/* Do not copy control bytes or a whole overlong argument into syslog. */
		if (len > CONFIG_LINE_MAX || has_control_byte(arg, len))
			say(pamh, LOG_ERR, "invalid module argument (too long or control byte)");
		else
			say(pamh, LOG_ERR, "invalid module argument %s", arg);
		set_error(err, OPTERR_ARG, 0, NULL);
		return PAM_AUTHINFO_UNAVAIL;
	case LINE_KV:
	default:
		break;
	}

	if (strcmp(key, config_key) == 0) {
		if (!is_abspath(value, CONFIG_PATH_MAX)) {
			say(pamh, LOG_ERR, "invalid module argument %s", arg);
			set_error(err, OPTERR_KEY, 0, config_key);
			return PAM_AUTHINFO_UNAVAIL;
		}
		if (config != NULL)
			memcpy(config, value, strlen(value) + 1);
		return PAM_SUCCESS;
	}
	if (config != NULL)
		return PAM_SUCCESS; /* first pass: looking for config= only */

	spec = find_key(key);
	if (spec == NULL) {
		say(pamh, LOG_WARNING, "unknown key %s in module arguments", key);
		return PAM_SUCCESS;
	}
	if (set_value(spec, value, opts) != 0) {
		say(pamh, LOG_ERR, "invalid module argument %s", arg);
		set_error(err, OPTERR_KEY, 0, spec->name);
		return PAM_AUTHINFO_UNAVAIL;
	}
	return PAM_SUCCESS;
}

int options_load(pam_handle_t *pamh, int argc, const char **argv, struct options *opts,
		 struct options_error *err)
{
	char config[CONFIG_LINE_MAX + 1] = "";
	int retval;

	set_defaults(opts);
	set_error(err, OPTERR_NONE, 0, NULL);

	/* The helper receives at most this many; both sides must see the same set. */
	if (argc < 0 || argc > TA_REQUEST_ARGS_MAX) {
		say(pamh, LOG_ERR, "more than %d module arguments", TA_REQUEST_ARGS_MAX);
		set_error(err, OPTERR_ARG, 0, NULL);
		return PAM_AUTHINFO_UNAVAIL;
	}

	/* config= first, wherever it is, since the other arguments override the file. */
	for (int i = 0; i < argc; i++) {
		retval = apply_argument(pamh, argv[i], opts, config, err);
		if (retval != PAM_SUCCESS)
			return retval;
	}

	if (config[0] != '\0')
		retval = apply_file(pamh, config, 1, opts, err);
	else
		retval = apply_file(pamh, DEFAULT_CONFIG_PATH, 0, opts, err);
	if (retval != PAM_SUCCESS)
		return retval;

	for (int i = 0; i < argc; i++) {
		retval = apply_argument(pamh, argv[i], opts, NULL, err);
		if (retval != PAM_SUCCESS)
			return retval;
	}
	return PAM_SUCCESS;
}

int options_load_file(pam_handle_t *pamh, const char *path, struct options *opts,
		      struct options_error *err)
{
	set_defaults(opts);
	set_error(err, OPTERR_NONE, 0, NULL);
	return apply_file(pamh, path, 1, opts, err);
}

void options_dump(const struct options *opts, FILE *out)
{
	for (size_t i = 0; i < NKEYS; i++) {
		const char *field = (const char *)opts + keys[i].offset;
		int n;

		switch (keys[i].type) {
		case VT_INT:
			memcpy(&n, field, sizeof(n));
			fprintf(out, "%s=%d\n", keys[i].name, n);
			break;
		case VT_BOOL:
			memcpy(&n, field, sizeof(n));
			fprintf(out, "%s=%s\n", keys[i].name, n ? "yes" : "no");
			break;
		default:
			fprintf(out, "%s=%s\n", keys[i].name, field);
			break;
		}
	}
}
