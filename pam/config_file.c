/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The config file (SECURITY.md#root-owned-files): opened without following a link, and
 * read only if root alone could have written it: a regular file, root's, not
 * writable by group or others, its only name, at most CONFIG_FILE_MAX bytes.
 * Then its lines go to the grammar (config_parse.c).  config_load puts the
 * defaults, the file and the module arguments together.  Built into the
 * module and the helper alike (config.h); the grammar needs nothing here.
 */
#include "config.h"
#include "contract.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

/* Fills in *err for a refused file and returns -1. */
static int refuse(struct config_error *err, const char *path, enum config_file_problem problem,
		  int errnum)
{
	memset(err, 0, sizeof(*err));
	err->kind = CONFIG_ERR_FILE;
	err->argument = -1;
	err->file = problem;
	err->errnum = errnum;
	snprintf(err->path, sizeof(err->path), "%s", path);
	return -1;
}

enum config_file_problem config_trusted_by_root(const struct config_log *log, const char *path,
						const struct stat *st)
{
	enum config_file_problem problem = CONFIG_FILE_TRUSTED;
	const char *why = NULL;

	if (!S_ISREG(st->st_mode))
		problem = CONFIG_FILE_NOT_REGULAR, why = "is not a regular file";
	else if (st->st_uid != 0)
		problem = CONFIG_FILE_NOT_ROOT, why = "is not owned by root";
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		problem = CONFIG_FILE_WRITABLE, why = "is group- or other-writable";
	if (why != NULL)
		config_say(log, LOG_ERR, "%s %s", path, why);
	return problem;
}

/*
 * Open the file and check that only root could have written it: trusted, and
 * its only name (a hard link is a second name, perhaps where someone else
 * put it; SECURITY.md#root-owned-files).  0 with the file
 * in *fd_out, or with *fd_out -1 when a non-explicit file does not exist; -1
 * with *err filled in.
 */
static int open_trusted(const struct config_log *log, const char *path, int explicit, int *fd_out,
			struct config_error *err)
{
	enum config_file_problem problem;
	struct stat st;
	int fd;

	/* O_NONBLOCK: a FIFO planted here must not hang the open; fstat rejects it. */
	*fd_out = -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT && !explicit)
			return 0;
		config_say(log, LOG_ERR, "cannot open %s: %m", path);
		problem = errno == ENOENT  ? CONFIG_FILE_MISSING
			  : errno == ELOOP ? CONFIG_FILE_SYMLINK
					   : CONFIG_FILE_IO;
		return refuse(err, path, problem, errno);
	}
	if (fstat(fd, &st) != 0) {
		config_say(log, LOG_ERR, "cannot stat %s: %m", path);
		problem = CONFIG_FILE_IO;
	} else {
		problem = config_trusted_by_root(log, path, &st);
	}
	if (problem == CONFIG_FILE_TRUSTED && st.st_nlink != 1) {
		config_say(log, LOG_ERR, "%s has other hard links", path);
		problem = CONFIG_FILE_LINKED;
	} else if (problem == CONFIG_FILE_TRUSTED && st.st_size > CONFIG_FILE_MAX) {
		config_say(log, LOG_ERR, "%s is larger than %d bytes", path, CONFIG_FILE_MAX);
		problem = CONFIG_FILE_TOO_BIG;
	}
	if (problem != CONFIG_FILE_TRUSTED) {
		refuse(err, path, problem, errno);
		close(fd);
		return -1;
	}
	*fd_out = fd;
	return 0;
}

/* The whole file, at most CONFIG_FILE_MAX bytes, into a malloc'ed *buf. */
static int read_all(const struct config_log *log, const char *path, int fd, char **buf, size_t *len,
		    struct config_error *err)
{
	/* One byte more than allowed, to notice a file that grew after fstat. */
	char *data = malloc(CONFIG_FILE_MAX + 1);
	size_t got = 0;

	if (data == NULL) {
		config_say(log, LOG_ERR, "out of memory");
		return refuse(err, path, CONFIG_FILE_NO_MEMORY, ENOMEM);
	}
	for (;;) {
		ssize_t r = read(fd, data + got, CONFIG_FILE_MAX + 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			config_say(log, LOG_ERR, "cannot read %s: %m", path);
			refuse(err, path, CONFIG_FILE_IO, errno);
			break;
		}
		if (r == 0) {
			*buf = data;
			*len = got;
			return 0;
		}
		got += (size_t)r;
		if (got > CONFIG_FILE_MAX) {
			config_say(log, LOG_ERR, "%s is larger than %d bytes", path,
				   CONFIG_FILE_MAX);
			refuse(err, path, CONFIG_FILE_TOO_BIG, 0);
			break;
		}
	}
	free(data);
	return -1;
}

int config_apply_file(const struct config_log *log, struct config_values *values, const char *path,
		      int explicit, struct config_error *err)
{
	char *data = NULL;
	size_t len = 0;
	int fd, rc;

	if (open_trusted(log, path, explicit, &fd, err) != 0)
		return -1;
	if (fd < 0)
		return 0; /* the default file is missing: the defaults */
	rc = read_all(log, path, fd, &data, &len, err);
	close(fd);
	if (rc == 0)
		rc = config_apply_text(log, values, data, len, path, err);
	free(data);
	return rc;
}

/* An error of config_load's own (CONFIG_OK: none yet); -1 unless CONFIG_OK. */
static int load_error(struct config_error *err, enum config_error_kind kind)
{
	memset(err, 0, sizeof(*err));
	err->kind = kind;
	err->argument = -1;
	return kind == CONFIG_OK ? 0 : -1;
}

/* The defaults, then the file, then the module arguments over it (config.h). */
int config_load(const struct config_log *log, const char *explicit_path, int argc,
		const char *const *argv, struct config_values *values, struct config_error *err)
{
	char config[CONFIG_PATH_MAX + 1] = "";
	const char *path = explicit_path;

	config_defaults(values);
	load_error(err, CONFIG_OK);

	/* The helper receives at most this many; both sides must see the same set. */
	if (argc < 0 || argc > TA_REQUEST_ARGS_MAX) {
		config_say(log, LOG_ERR, "more than %d module arguments", TA_REQUEST_ARGS_MAX);
		return load_error(err, CONFIG_ERR_ARGS);
	}
	/* config= first, wherever it is, since the other arguments override the file. */
	if (path == NULL) {
		if (config_find_path(log, argc, argv, config, err) != 0)
			return -1;
		path = config;
	}
	if (config_apply_file(log, values, path[0] != '\0' ? path : DEFAULT_CONFIG_PATH,
			      path[0] != '\0', err) != 0)
		return -1;
	for (int i = 0; i < argc; i++) {
		if (config_apply_argument(log, values, argv[i], i, err) != 0)
			return -1;
	}
	return 0;
}
