/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The presence rules (presence.h, docs/POLICY.md#presence), all of them, in the order
 * presence_decide() applies them.
 */
#include "presence.h"

#include "contract.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <systemd/sd-login.h>

#include "clients.h"

/*
 * sshd's variables (POLICY.md#a-network-login-is-never-offered-it); the
 * environment is read here only because it can do nothing but refuse.
 */
static const char *const ssh_vars[] = { "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY",
					"SSH_AUTH_INFO_0" };
#define NSSH_VARS   (sizeof(ssh_vars) / sizeof(ssh_vars[0]))
#define ENVIRON_MAX (128 * 1024)

static int ssh_in_environ_file(const char *path)
{
	char *buf;
	size_t len = 0;
	int fd, found = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	buf = malloc(ENVIRON_MAX + 1);
	while (buf != NULL && len < ENVIRON_MAX) {
		ssize_t n = read(fd, buf + len, ENVIRON_MAX - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf == NULL)
		return 0;
	buf[len] = '\0';
	for (size_t off = 0; off < len && !found; off += strlen(buf + off) + 1) {
		for (size_t i = 0; i < NSSH_VARS; i++) {
			size_t vlen = strlen(ssh_vars[i]);

			if (strncmp(buf + off, ssh_vars[i], vlen) == 0 && buf[off + vlen] == '=')
				found = 1;
		}
	}
	free(buf);
	return found;
}

/*
 * AGENT_PID: when the host is polkit's agent helper, started with an empty
 * environment by its agent (agent.h), the agent (its parent: pkexec's text
 * agent, pkttyagent; the socket's peer for the socket-activated helper),
 * whose environment is read too; 0 otherwise.
 */
static int ssh_session(pam_handle_t *pamh, pid_t agent_pid)
{
	char parent[64];

	for (size_t i = 0; i < NSSH_VARS; i++) {
		if (pam_getenv(pamh, ssh_vars[i]) != NULL || getenv(ssh_vars[i]) != NULL)
			return 1;
	}
	if (ssh_in_environ_file("/proc/self/environ"))
		return 1;
	snprintf(parent, sizeof(parent), "/proc/%d/environ", (int)agent_pid);
	return agent_pid > 0 && ssh_in_environ_file(parent);
}

static const char *item(pam_handle_t *pamh, int type)
{
	const void *value = NULL;

	if (pam_get_item(pamh, type, &value) != PAM_SUCCESS || value == NULL)
		return "";
	return value;
}

/* "tty3" or "/dev/tty3": a virtual console, where a text login asks before its session exists. */
static int virtual_console(const char *tty)
{
	size_t digits;

	if (strncmp(tty, "/dev/", 5) == 0)
		tty += 5;
	if (strncmp(tty, "tty", 3) != 0)
		return 0;
	digits = strspn(tty + 3, "0123456789");
	return digits >= 1 && digits <= 2 && tty[3 + digits] == '\0';
}

/* A small file of the kernel's, NUL-terminated in BUF: 1, or 0 when it cannot be read. */
static int read_small(const char *path, int flags, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | flags);

	if (fd < 0)
		return 0;
	do {
		n = read(fd, buf, size - 1);
	} while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return 1;
}

/*
 * The virtual console on screen: /sys/class/tty/tty0/active names it
 * ("tty3").  A console login left on another VT has nobody looking at it.
 */
static int console_on_screen(const char *tty)
{
	char on[32];

	if (strncmp(tty, "/dev/", 5) == 0)
		tty += 5;
	if (!read_small("/sys/class/tty/tty0/active", O_NOFOLLOW, on, sizeof(on)))
		return 0;
	on[strcspn(on, "\n")] = '\0';
	return strcmp(on, tty) == 0;
}

int presence_subject(int agent, struct presence_subject *subject)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct stat st;

	*subject = (struct presence_subject){ .pid = 0, .uid = getuid(), .peer = 0 };
	/*
	 * Started by systemd as root (the real uid: a setuid helper's is its caller's), for
	 * polkit's service, with a socket on stdin: nobody else can point us at a peer of theirs.
	 */
	if (!agent || getuid() != 0 || getppid() != 1)
		return 0;
	if (fstat(STDIN_FILENO, &st) != 0 || !S_ISSOCK(st.st_mode))
		return 0;
	if (getsockopt(STDIN_FILENO, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    len != sizeof(cred) || cred.pid <= 0)
		return -1;
	*subject = (struct presence_subject){ .pid = cred.pid, .uid = cred.uid, .peer = 1 };
	return 0;
}

/*
 * PID has a controlling terminal (/proc/PID/stat's tty_nr): a text agent (pkttyagent), which
 * blocks reading its terminal once it gets a password request, and would hear our match only
 * after Enter.  Unreadable counts as one: no request is sent, the finger comes first.
 */
static int has_terminal(pid_t pid)
{
	char path[64], buf[1024], *p;
	long tty = 1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!read_small(path, 0, buf, sizeof(buf)))
		return 1;
	p = strrchr(buf, ')');
	/* ") S ppid pgrp session tty_nr" */
	if (p == NULL || sscanf(p + 1, " %*c %*d %*d %*d %ld", &tty) != 1)
		return 1;
	return tty != 0;
}

/* What the PAM items and logind say is there to show the conversation. */
struct screen {
	/* A display item (PAM_XDISPLAY, or a PAM_TTY like ":0"): its VT is not ours. */
	int display_item;
	/* A screen shows the conversation: a display item, or a local active graphical session. */
	int display;
	/* Outside any session, the caller's user sits at a local active graphical session. */
	int user_display;
	/* The session whose lock decides (presence.h), or "". */
	char session[TA_SESSION_MAX + 1];
};

/* SESSION as the one whose lock decides, when it fits the protocol (else none: "nothing says"). */
static void lock_session(struct screen *p, const char *session)
{
	if (session != NULL && ta_session_ok(session))
		snprintf(p->session, sizeof(p->session), "%s", session);
}

/*
 * sd-login, loaded only where logind runs and for a user with prints: linking
 * libsystemd slows every PAM host's load (bench/README.md#since-issue-11).
 */
struct sd {
	void *lib;
	__typeof__(sd_pid_get_session) *pid_get_session;
	__typeof__(sd_session_is_remote) *session_is_remote;
	__typeof__(sd_session_is_active) *session_is_active;
	__typeof__(sd_session_get_seat) *session_get_seat;
	__typeof__(sd_session_get_type) *session_get_type;
	__typeof__(sd_session_get_class) *session_get_class;
	__typeof__(sd_get_seats) *get_seats;
	__typeof__(sd_seat_get_active) *seat_get_active;
	__typeof__(sd_uid_get_display) *uid_get_display;
};

#define SD_SYM(sd, name) ((*(void **)&(sd)->name = dlsym((sd)->lib, "sd_" #name)) != NULL)

/* 0, or -1 when libsystemd or one of its functions is missing. */
static int sd_open(struct sd *sd)
{
	memset(sd, 0, sizeof(*sd));
	sd->lib = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
	if (sd->lib == NULL)
		return -1;
	if (SD_SYM(sd, pid_get_session) && SD_SYM(sd, session_is_remote) &&
	    SD_SYM(sd, session_is_active) && SD_SYM(sd, session_get_seat) &&
	    SD_SYM(sd, session_get_type) && SD_SYM(sd, session_get_class) &&
	    SD_SYM(sd, get_seats) && SD_SYM(sd, seat_get_active) && SD_SYM(sd, uid_get_display))
		return 0;
	dlclose(sd->lib);
	sd->lib = NULL;
	return -1;
}

static int has_seat(const struct sd *sd, const char *session)
{
	char *seat = NULL;
	int r = sd->session_get_seat(session, &seat);

	free(seat);
	return r >= 0;
}

static int graphical_session(const struct sd *sd, const char *session)
{
	char *type = NULL;
	int graphical = 0;

	if (sd->session_get_type(session, &type) >= 0)
		graphical = strcmp(type, "x11") == 0 || strcmp(type, "wayland") == 0 ||
			    strcmp(type, "mir") == 0;
	free(type);
	return graphical;
}

/* A person sits at it: not remote (an error counts as remote), active, on a seat. */
static const char *session_refusal(const struct sd *sd, const char *session)
{
	if (sd->session_is_remote(session) != 0)
		return "remote session (logind)";
	if (sd->session_is_active(session) <= 0)
		return "session not active on its seat (logind)";
	if (!has_seat(sd, session))
		return "session has no seat (logind)";
	return NULL;
}

/* A display manager's login screen is up: the active session of a local seat is a greeter. */
static int greeter_active(const struct sd *sd)
{
	char **seats = NULL;
	int n = sd->get_seats(&seats), found = 0;

	for (int i = 0; i < n && seats != NULL && !found; i++) {
		char *session = NULL, *class = NULL;

		if (sd->seat_get_active(seats[i], &session, NULL) >= 0 &&
		    sd->session_get_class(session, &class) >= 0)
			found =
			    strcmp(class, "greeter") == 0 && session_refusal(sd, session) == NULL;
		free(class);
		free(session);
	}
	for (int i = 0; i < n && seats != NULL; i++)
		free(seats[i]);
	free(seats);
	return found;
}

/*
 * The real uid (who ran sudo, su, the locker; the agent's, for the socket-activated polkit
 * helper) sits here in a graphical session: past the session rule only
 * (POLICY.md#the-session: GNOME's terminals run outside the session).
 */
static int user_at_display(const struct sd *sd, uid_t uid, struct screen *p)
{
	char *session = NULL;
	int yes = 0;

	if (sd->uid_get_display(uid, &session) >= 0) {
		yes = session_refusal(sd, session) == NULL && graphical_session(sd, session);
		if (yes)
			lock_session(p, session);
	}
	free(session);
	return yes;
}

static const char *session_check(pam_handle_t *pamh, const struct sd *sd,
				 const struct presence_subject *subject, struct screen *p)
{
	char *session = NULL;
	const char *why = NULL;

	if (sd->pid_get_session(subject->pid, &session) >= 0) {
		why = session_refusal(sd, session);
		/* The socket's peer is the agent: it shows the conversation itself. */
		if (why == NULL && (graphical_session(sd, session) || subject->peer))
			p->display = 1;
		lock_session(p, session);
		free(session);
		return why;
	}
	/* Outside any session (systemd-run --user escapes the ssh session that started it). */
	/* A greeter's screen: GDM sets PAM_XDISPLAY for X11, only PAM_TTY=/dev/ttyN for Wayland. */
	if ((p->display_item || virtual_console(item(pamh, PAM_TTY))) && greeter_active(sd)) {
		p->display = 1;
		return NULL;
	}
	if (virtual_console(item(pamh, PAM_TTY)))
		return console_on_screen(item(pamh, PAM_TTY))
			   ? NULL
			   : "virtual console not the one on screen (/sys/class/tty/tty0/active)";
	/* Not a display by itself: someone must still answer (nobody_to_answer). */
	if (user_at_display(sd, subject->uid, p)) {
		p->user_display = 1;
		return NULL;
	}
	return "outside any session, not on a virtual console or a greeter's display (logind)";
}

/* The network rule, then (where logind runs) the session rule; fills *screen. */
static const char *network_or_session(pam_handle_t *pamh, const char *service, int logind,
				      int agent, const struct presence_subject *subject,
				      struct screen *screen)
{
	const char *tty = item(pamh, PAM_TTY);
	struct sd sd;
	const char *why;

	screen->display_item = item(pamh, PAM_XDISPLAY)[0] != '\0' || tty[0] == ':';
	screen->display = screen->display_item;

	/* Empty means local (login sets ""); loopback and the host's own name are tunnels' too. */
	if (item(pamh, PAM_RHOST)[0] != '\0')
		return "remote session (PAM_RHOST is set)";
	if (strcmp(service, "sshd") == 0)
		return "remote session (the sshd service)";
	if (ssh_session(pamh, agent ? (subject->peer ? subject->pid : getppid()) : 0))
		return "remote session (SSH_* in the PAM or process environment)";
	if (!logind)
		return subject->peer
			   ? "polkit's socket-activated helper without logind: no session "
			     "says who the agent's person is"
			   : NULL;
	/* logind runs but cannot be asked: the careful side. */
	if (sd_open(&sd) != 0)
		return "logind runs, but libsystemd.so.0 cannot be loaded";
	why = session_check(pamh, &sd, subject, screen);
	dlclose(sd.lib);
	return why;
}

/*
 * `touchauth disable`'s marker <state_dir>/<uid>.disabled (POLICY.md#the-users-switch):
 * anything there counts; a caller that cannot see it leaves it to the helper.
 */
static int switched_off(const struct config_values *opts, uid_t uid)
{
	char path[CONFIG_PATH_MAX + 32];
	struct stat st;
	int n = snprintf(path, sizeof(path), "%s/%u" TA_DISABLED_SUFFIX, opts->state_dir,
			 (unsigned)uid);

	return n > 0 && (size_t)n < sizeof(path) && lstat(path, &st) == 0;
}

/*
 * A terminal a person types into, or a screen that shows the conversation
 * (POLICY.md#someone-must-be-able-to-answer; without logind, POLICY.md#without-logind).
 */
static const char *nobody_to_answer(const struct config_values *opts, const char *service,
				    int logind, const struct screen *screen, enum terminal_use use)
{
	if (use == TERMINAL_NOBODY ||
	    (use == TERMINAL_NONE && (!screen->display || client_needs_terminal(service))))
		return "nobody at a terminal or a screen to answer";
	if (use == TERMINAL_OWNED && !logind && !opts->terminal_without_logind)
		return "no logind: a terminal proves nobody is at the machine "
		       "(terminal_without_logind)";
	return NULL;
}

/*
 * polkit's socket-activated helper (the subject is its peer): the person is the agent's, and
 * the unit's sandbox must let us work, which only our drop-in does
 * (examples/systemd/polkit-agent-helper-touchauth.conf). Without it (the state directory
 * read-only: ProtectSystem=strict), the password at once, rather than a reader out of reach or
 * a strike that cannot be written.
 */
static const char *polkit_socket_helper(const struct config_values *opts, int agent,
					struct presence_subject *subject)
{
	if (presence_subject(agent, subject) != 0)
		return "polkit's socket-activated helper: its peer (SO_PEERCRED) cannot be read";
	if (subject->peer && access(opts->state_dir, W_OK) != 0)
		return "polkit's socket-activated helper without touchauth's drop-in "
		       "(polkit-agent-helper@.service.d/touchauth.conf): the state directory is "
		       "read-only there";
	return NULL;
}

struct presence presence_decide(pam_handle_t *pamh, const struct config_values *opts,
				const char *service, uid_t uid, int agent, struct terminal *term)
{
	struct presence p = { .refusal = NULL, .use = TERMINAL_NONE, .session = "" };
	struct presence_subject subject;
	struct screen screen = { 0, 0, 0, "" };
	int logind;

	/* The user's switch: one lstat, before the network and session rules' reads. */
	if (switched_off(opts, uid)) {
		p.refusal = "fingerprint turned off for this user";
		return p;
	}
	p.refusal = polkit_socket_helper(opts, agent, &subject);
	if (p.refusal != NULL)
		return p;
	logind = logind_running("");
	p.refusal = network_or_session(pamh, service, logind, agent, &subject, &screen);
	memcpy(p.session, screen.session, sizeof(p.session));
	if (p.refusal != NULL || client_asks_first(service))
		return p; /* a locker asked first: the answer is the person's (TERMINAL_NONE) */
	p.use = screen.display_item ? TERMINAL_NONE : terminal_open_for(term, agent);
	/* A polkit agent's dialog (no terminal) is on the screen of the user at the seat. */
	if (agent && p.use == TERMINAL_NONE && screen.user_display)
		screen.display = 1;
	p.agent_line =
	    agent && p.use == TERMINAL_NONE && !(subject.peer && has_terminal(subject.pid));
	p.refusal = nobody_to_answer(opts, service, logind, &screen, p.use);
	if (p.refusal != NULL)
		terminal_close(term);
	return p;
}
