/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bench driver (issue 8): runs one command RUNS times and prints, per run,
 * what it measured, with nothing of its own in the timed window but
 * posix_spawn and wait4 (and, for the sensor modes, the socket handshake
 * described below, whose cost it reports separately).
 *
 *   runner -n RUNS [-w WARMUP] [-i STDIN] [-x STATUS] [-C] [-E VAR=VAL]... [-e FILE]
 *          [-s SOCKET -c COMMAND] [-a ARMED_TEXT -d DELAY_MS -o DONE_TEXT] -- PROGRAM ARG...
 *
 * Modes:
 *   plain            spawn, wait; t = spawn -> exit.
 *   queued  (-s -c)  the socket's directory is watched with inotify; when the
 *                    child creates SOCKET (libfprint's virtual_device listens
 *                    there from fp_device_open on), COMMAND is sent at once on
 *                    one connection (connect retried while bind() is not yet
 *                    followed by listen()).  The driver then blocks until the
 *                    connection is closed (the driver's acknowledgement) and
 *                    the child exits.  t = spawn -> exit; also sock = spawn ->
 *                    socket created, react = socket created -> command written
 *                    (the driver's own latency), ack = spawn -> connection closed.
 *   armed   (-a -s -c -o)  the child's stdout and stderr are a pty; when
 *                    ARMED_TEXT has been printed (the prompt), the driver
 *                    sleeps DELAY_MS (so the sensor is surely armed and idle),
 *                    then sends COMMAND.  scan_done = command sent -> DONE_TEXT
 *                    read on the pty; scan_exit = command sent -> exit;
 *                    prompt = spawn -> ARMED_TEXT read; t = spawn -> exit
 *                    (includes the delay).
 * -C: the child gets only the -E variables (else the runner's environment plus them).
 * -e FILE: the child's stderr is appended to FILE (not in the armed mode), and each run's line
 *   also has start= and end=, spawn and exit on CLOCK_MONOTONIC in microseconds: for
 *   bench/phases.sh, whose instrumented helper writes its own marks on that clock to stderr.
 * Each run must exit with STATUS (default 0), or the runner stops with status 1.
 * Output: one line per measured run, "key=value" words, times in microseconds,
 * rss = the child's ru_maxrss from wait4 (KiB; Linux reports the maximum over
 * the child and the descendants it waited for).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <pty.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int runs = 10, warmup = 2, expect = 0, delay_ms = 20;
static const char *stdin_path = "/dev/null", *stderr_path = "/dev/null", *sock_path, *command, *armed_text, *done_text;
static char **child_env;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static long long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* Connect (retrying while the listener is not there yet) and write the command. */
static int send_command(long long deadline)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	strncpy(addr.sun_path, sock_path, sizeof(addr.sun_path) - 1);
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			die("socket");
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
			break;
		close(fd);
		if ((errno != ECONNREFUSED && errno != ENOENT) || now_us() > deadline) {
			fprintf(stderr, "runner: cannot connect to %s: %s\n", sock_path,
				strerror(errno));
			return -1;
		}
		sched_yield();
	}
	if (write(fd, command, strlen(command)) != (ssize_t)strlen(command))
		die("write command");
	return fd;
}

struct result {
	long long t, sock, react, ack, prompt, scan_done, scan_exit, start, end;
	long rss;
};

static void check_status(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == expect)
		return;
	if (WIFSIGNALED(status))
		fprintf(stderr, "runner: child killed by signal %d\n", WTERMSIG(status));
	else
		fprintf(stderr, "runner: child exit status %d, expected %d\n", WEXITSTATUS(status),
			expect);
	exit(1);
}

static int run_once(char **argv, struct result *r)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	int status, pidfd, ino = -1, sfd = -1, master = -1, slave = -1, sent = 0, done = 0;
	char textbuf[65536];
	size_t textlen = 0;
	long long t0, t_scan = 0, deadline;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->sock = r->react = r->ack = r->prompt = r->scan_done = r->scan_exit = -1;
	if (sock_path != NULL) {
		char dir[4096];

		(void)unlink(sock_path);
		snprintf(dir, sizeof(dir), "%s", sock_path);
		ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
		if (ino < 0 || inotify_add_watch(ino, dirname(dir), IN_CREATE) < 0)
			die("inotify");
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, stdin_path, O_RDONLY, 0);
	if (armed_text != NULL) {
		struct termios tio;

		if (openpty(&master, &slave, NULL, NULL, NULL) != 0)
			die("openpty");
		tcgetattr(slave, &tio);
		cfmakeraw(&tio);
		tcsetattr(slave, TCSANOW, &tio);
		fcntl(master, F_SETFD, FD_CLOEXEC);
		posix_spawn_file_actions_adddup2(&fa, slave, 1);
		posix_spawn_file_actions_adddup2(&fa, slave, 2);
		posix_spawn_file_actions_addclose(&fa, slave);
	} else {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, stderr_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	}

	t0 = now_us();
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, child_env) != 0)
		die("posix_spawn");
	posix_spawn_file_actions_destroy(&fa);
	if (slave >= 0)
		close(slave);
	pidfd = pidfd_open_(pid);
	if (pidfd < 0)
		die("pidfd_open");
	deadline = t0 + 60 * 1000000LL;

	for (;;) {
		struct pollfd p[3] = { { .fd = pidfd, .events = POLLIN },
				       { .fd = -1, .events = POLLIN },
				       { .fd = -1, .events = POLLIN } };
		int ms = (int)((deadline - now_us()) / 1000);

		if (ms <= 0) {
			fprintf(stderr, "runner: child still runs after 60 s; killing it\n");
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			exit(1);
		}
		/* The pty before the pidfd: its last output must be read first. */
		if (master >= 0)
			p[1].fd = master;
		else if (ino >= 0 && !sent)
			p[1].fd = ino;
		if (sfd >= 0 && r->ack < 0)
			p[2].fd = sfd;
		if (poll(p, 3, ms) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (p[1].revents && p[1].fd == ino) {
			char buf[4096] __attribute__((aligned(8)));
			ssize_t n = read(ino, buf, sizeof(buf));
			char tmp[4096];
			const char *base;

			snprintf(tmp, sizeof(tmp), "%s", sock_path);
			base = basename(tmp);
			for (ssize_t off = 0; n > 0 && off < n;) {
				struct inotify_event *ev = (struct inotify_event *)(buf + off);

				if (!sent && ev->len > 0 && strcmp(ev->name, base) == 0) {
					long long t_created = now_us();

					r->sock = t_created - t0;
					sfd = send_command(deadline);
					if (sfd < 0)
						exit(1);
					r->react = now_us() - t_created;
					sent = 1;
				}
				off += (ssize_t)sizeof(*ev) + ev->len;
			}
			continue;
		}
		if (p[1].revents && p[1].fd == master) {
			ssize_t n = read(master, textbuf + textlen, sizeof(textbuf) - 1 - textlen);

			if (n <= 0) {
				close(master); /* EIO: every slave fd is closed */
				master = -1;
				continue;
			}
			textlen += (size_t)n;
			textbuf[textlen] = '\0';
			if (!sent && strstr(textbuf, armed_text) != NULL) {
				struct timespec d = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };

				r->prompt = now_us() - t0;
				nanosleep(&d, NULL);
				t_scan = now_us();
				sfd = send_command(deadline);
				if (sfd < 0)
					exit(1);
				sent = 1;
			}
			if (sent && !done && strstr(textbuf, done_text) != NULL) {
				r->scan_done = now_us() - t_scan;
				done = 1;
			}
			if (textlen > sizeof(textbuf) / 2) { /* keep the tail only */
				memmove(textbuf, textbuf + textlen - 1024, 1024);
				textlen = 1024;
			}
			continue;
		}
		if (p[2].revents) {
			char buf[256];

			if (read(sfd, buf, sizeof(buf)) <= 0)
				r->ack = now_us() - t0;
			continue;
		}
		if (p[0].revents) {
			if (wait4(pid, &status, 0, &ru) != pid)
				die("wait4");
			break;
		}
	}
	r->end = now_us();
	r->start = t0;
	r->t = r->end - t0;
	if (t_scan)
		r->scan_exit = now_us() - t_scan;
	r->rss = ru.ru_maxrss;
	if (master >= 0) {
		char buf[4096];
		ssize_t n;

		/* Whatever is still in the pty: the done text may be in it. */
		while ((n = read(master, buf, sizeof(buf))) > 0) {
			if (textlen + (size_t)n >= sizeof(textbuf))
				textlen = 0;
			memcpy(textbuf + textlen, buf, (size_t)n);
			textlen += (size_t)n;
			textbuf[textlen] = '\0';
		}
		close(master);
	}
	close(pidfd);
	if (sfd >= 0)
		close(sfd);
	if (ino >= 0)
		close(ino);
	check_status(status);
	if (armed_text != NULL && (!sent || !done)) {
		fprintf(stderr, "runner: %s\n", !sent ? "the prompt never appeared" :
						       "no success line after the scan");
		fprintf(stderr, "runner: output tail: %s\n", textbuf);
		exit(1);
	}
	if (sock_path != NULL && !sent) {
		fprintf(stderr, "runner: the socket never appeared\n");
		exit(1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *extra[64];
	int nextra = 0, opt, n = 0, clear_env = 0;

	while ((opt = getopt(argc, argv, "+n:w:i:x:CE:e:s:c:a:d:o:")) != -1) {
		switch (opt) {
		case 'n': runs = atoi(optarg); break;
		case 'w': warmup = atoi(optarg); break;
		case 'i': stdin_path = optarg; break;
		case 'e': stderr_path = optarg; break;
		case 'x': expect = atoi(optarg); break;
		case 'C': clear_env = 1; break;
		case 'E':
			if (nextra == 63) {
				fprintf(stderr, "runner: too many -E\n");
				return 2;
			}
			extra[nextra++] = optarg;
			break;
		case 's': sock_path = optarg; break;
		case 'c': command = optarg; break;
		case 'a': armed_text = optarg; break;
		case 'd': delay_ms = atoi(optarg); break;
		case 'o': done_text = optarg; break;
		default:
			fprintf(stderr, "usage: see the comment at the top of bench/runner.c\n");
			return 2;
		}
	}
	if (optind >= argc || (sock_path != NULL) != (command != NULL) ||
	    (armed_text != NULL && (sock_path == NULL || done_text == NULL))) {
		fprintf(stderr, "usage: see the comment at the top of bench/runner.c\n");
		return 2;
	}
	for (char **e = environ; *e; e++)
		n++;
	child_env = calloc((size_t)(n + nextra + 1), sizeof(char *));
	if (child_env == NULL)
		die("calloc");
	n = 0;
	for (char **e = environ; *e && !clear_env; e++)
		child_env[n++] = *e;
	for (int i = 0; i < nextra; i++)
		child_env[n++] = extra[i];
	child_env[n] = NULL;
	signal(SIGPIPE, SIG_IGN);

	for (int i = 0; i < warmup + runs; i++) {
		struct result r;

		run_once(argv + optind, &r);
		if (i < warmup)
			continue;
		printf("t=%lld rss=%ld", r.t, r.rss);
		if (strcmp(stderr_path, "/dev/null") != 0)
			printf(" start=%lld end=%lld", r.start, r.end);
		if (r.sock >= 0)
			printf(" sock=%lld react=%lld ack=%lld", r.sock, r.react, r.ack);
		if (r.scan_done >= 0)
			printf(" prompt=%lld scan_done=%lld scan_exit=%lld", r.prompt, r.scan_done,
			       r.scan_exit);
		printf("\n");
		fflush(stdout);
	}
	return 0;
}
