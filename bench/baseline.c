/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The floor the helper is measured against (issue 8): a plain C process that
 * does what `touchauth pam-verify` must do on the sensor side and nothing else:
 * libfprint context, enumerate, open the first sensor, read one print file
 * (fprintd's format), verify one scan against it, close, exit 0 on a match.
 *   baseline [-a] [-s STATE_FILE] PRINT_FILE   (the sensor from FP_VIRTUAL_DEVICE etc.)
 * -a prints "armed" just before the verify and "result success" after the
 * close on a match, as the helper does, so a driver can time scan -> result.
 * -s adds the two writes the trust rules require of any helper (issue 24), done
 * as StateStore does them: the strike charged before the verify (a temporary
 * file written and fsync'd, renamed over STATE_FILE, its directory fsync'd),
 * and the match's reset after it (written and renamed, no fsync). That is the
 * floor of a helper that keeps the rules; without -s, of one that does not.
 */
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fprint.h>
#include <glib.h>
#include <unistd.h>

/* STATE_FILE's contents replaced atomically: STATE_FILE.tmp written, renamed over it. */
static int write_state(const char *path, int strikes, int durable)
{
	char tmp[4096], dir[4096], body[128];
	int fd, n = snprintf(body, sizeof(body), "touchauth-state 1\nstrikes %d\nlocked_at -\n", strikes);

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, body, (size_t)n) != n || (durable && fsync(fd) != 0) || close(fd) != 0)
		return -1;
	if (rename(tmp, path) != 0)
		return -1;
	if (durable) {
		fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 || fsync(fd) != 0 || close(fd) != 0)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *data = NULL;
	gsize len = 0;
	gboolean match = FALSE;
	FpContext *ctx;
	GPtrArray *devices;
	FpDevice *dev;
	FpPrint *print;
	int armed = 0, opt;
	const char *state = NULL;

	while ((opt = getopt(argc, argv, "as:")) != -1) {
		if (opt == 'a')
			armed = 1;
		else if (opt == 's')
			state = optarg;
		else
			return 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: baseline [-a] [-s STATE_FILE] PRINT_FILE\n");
		return 2;
	}
	ctx = fp_context_new();
	devices = fp_context_get_devices(ctx);
	if (devices == NULL || devices->len == 0) {
		fprintf(stderr, "baseline: no sensor\n");
		return 3;
	}
	dev = g_ptr_array_index(devices, 0);
	if (!fp_device_open_sync(dev, NULL, &error)) {
		fprintf(stderr, "baseline: open: %s\n", error->message);
		return 4;
	}
	if (!g_file_get_contents(argv[optind], &data, &len, &error)) {
		fprintf(stderr, "baseline: %s\n", error->message);
		return 5;
	}
	print = fp_print_deserialize((const guchar *)data, len, &error);
	if (print == NULL) {
		fprintf(stderr, "baseline: deserialize: %s\n", error->message);
		return 6;
	}
	if (state != NULL && write_state(state, 1, 1) != 0) {
		perror("baseline: the strike's write");
		return 8;
	}
	if (armed) {
		fputs("armed\n", stdout);
		fflush(stdout);
	}
	if (!fp_device_verify_sync(dev, print, NULL, NULL, NULL, &match, NULL, &error)) {
		fprintf(stderr, "baseline: verify: %s\n", error->message);
		return 7;
	}
	if (state != NULL && write_state(state, match ? 0 : 1, 0) != 0) {
		perror("baseline: the settlement's write");
		return 8;
	}
	fp_device_close_sync(dev, NULL, NULL);
	g_object_unref(print);
	g_object_unref(ctx);
	if (armed && match) {
		fputs("result success\n", stdout);
		fflush(stdout);
	}
	return match ? 0 : 1;
}
