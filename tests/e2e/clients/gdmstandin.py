#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gdmstandin: GDM 43's side of GNOME Shell's unlock, for a machine where GDM cannot run.

The real gnome-shell (js/gdm/util.js, through libgdm's GdmClient) unlocks its screen this way:
- on the system bus, org.gnome.DisplayManager's /org/gnome/DisplayManager/Manager must answer
  `Version` (>= 3.5.91, js/misc/loginManager.js: no lock screen otherwise) and
  `OpenReauthenticationChannel(username) -> address`;
- the shell connects to that address peer to peer (G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT)
  and calls org.gnome.DisplayManager.UserVerifier at /org/gnome/DisplayManager/Session
  (daemon/gdm-session.xml): BeginVerificationForUser(service, user) per conversation
  (gdm-password, and gdm-fingerprint beside it when fprintd offers a reader), AnswerQuery,
  Cancel; it listens to Info, Problem, InfoQuery, SecretInfoQuery, ServiceUnavailable,
  VerificationFailed, VerificationComplete, ConversationStopped.
What GDM does with them, done the same here (gdm-session.c, gdm-session-worker.c of 43.0):
one worker process per conversation (clients/gdmworker.c -1: the real libpam, PAM_TTY
/dev/tty1), each PAM message forwarded as its signal (ECHO_ON -> InfoQuery, ECHO_OFF ->
SecretInfoQuery, TEXT_INFO -> Info, ERROR_MSG -> Problem); a failed pam_authenticate reported
as GDM reports it (PAM_AUTHINFO_UNAVAIL -> ServiceUnavailable with no message, PAM_MAXTRIES ->
ServiceUnavailable with the "maximum ... attempts" message, any other -> Problem with the
"Sorry, ... didn't work" message; then VerificationFailed), then ConversationStopped when the
worker has exited; success -> VerificationComplete, and every other conversation's worker
stopped with SIGTERM (stop_all_other_conversations), and the session unlocked as gdm-manager.c
does it: logind's UnlockSession(the caller's session), whose Unlock signal makes the shell drop
its shield. What GDM checks and this does not: that the caller has a session of that user (the
test runs one user's shell only; its session id is given).

Usage: gdmstandin.py LOG SESSION-ID WORKER-COMMAND...  (the command runs one conversation; USER
SERVICE are appended). Each event is a line in LOG ("begin gdm-password", "signal Info gdm-fingerprint ...",
"worker gdm-password exit 0", ...).
"""
import os
import signal
import sys

from gi.repository import Gio, GLib

MANAGER_XML = """<node><interface name="org.gnome.DisplayManager.Manager">
  <method name="OpenReauthenticationChannel"><arg name="username" direction="in" type="s"/>
    <arg name="address" direction="out" type="s"/></method>
  <method name="OpenSession"><arg name="address" direction="out" type="s"/></method>
  <method name="RegisterDisplay"><arg name="details" direction="in" type="a{ss}"/></method>
  <method name="RegisterSession"><arg name="details" direction="in" type="a{sv}"/></method>
  <property name="Version" type="s" access="read"/>
</interface></node>"""
VERIFIER_XML = """<node><interface name="org.gnome.DisplayManager.UserVerifier">
  <method name="EnableExtensions"><arg name="extensions" direction="in" type="as"/></method>
  <method name="BeginVerification"><arg name="service_name" direction="in" type="s"/></method>
  <method name="BeginVerificationForUser"><arg name="service_name" direction="in" type="s"/>
    <arg name="username" direction="in" type="s"/></method>
  <method name="AnswerQuery"><arg name="service_name" direction="in" type="s"/>
    <arg name="answer" direction="in" type="s"/></method>
  <method name="Cancel"/>
  <signal name="ConversationStarted"><arg name="service_name" type="s"/></signal>
  <signal name="ConversationStopped"><arg name="service_name" type="s"/></signal>
  <signal name="ReauthenticationStarted"><arg name="pid_of_caller" type="i"/></signal>
  <signal name="Info"><arg name="service_name" type="s"/><arg name="info" type="s"/></signal>
  <signal name="Problem"><arg name="service_name" type="s"/><arg name="problem" type="s"/></signal>
  <signal name="InfoQuery"><arg name="service_name" type="s"/><arg name="query" type="s"/></signal>
  <signal name="SecretInfoQuery"><arg name="service_name" type="s"/><arg name="query" type="s"/></signal>
  <signal name="Reset"/>
  <signal name="ServiceUnavailable"><arg name="service_name" type="s"/><arg name="message" type="s"/></signal>
  <signal name="VerificationFailed"><arg name="service_name" type="s"/></signal>
  <signal name="VerificationComplete"><arg name="service_name" type="s"/></signal>
</interface></node>"""
SESSION_PATH = "/org/gnome/DisplayManager/Session"
VERIFIER = "org.gnome.DisplayManager.UserVerifier"
# pam_strerror's texts (Linux-PAM), as gdmworker prints them after "authenticate: ".
UNAVAIL = "Authentication service cannot retrieve authentication info"
MAXTRIES = "Have exhausted maximum number of retries for service"
# gdm-session-worker.c's messages for gdm-password and gdm-fingerprint.
MAX_MSG = {"gdm-password": "You reached the maximum password authentication attempts, please try another method",
           "gdm-fingerprint": "You reached the maximum fingerprint authentication attempts, please try another method"}
GENERIC_MSG = {"gdm-password": "Sorry, password authentication didn’t work. Please try again.",
               "gdm-fingerprint": "Sorry, fingerprint authentication didn’t work. Please try again."}

log_file = open(sys.argv[1], "a", buffering=1)
session_id = sys.argv[2]
worker_cmd = sys.argv[3:]
loop = GLib.MainLoop()


def log(line):
    log_file.write(line + "\n")


class Conversation:
    def __init__(self, channel, service, user):
        self.channel, self.service, self.user = channel, service, user
        self.result = None
        self.done = False
        self.status, self.eof, self.reported = None, False, False
        self.proc = Gio.Subprocess.new(worker_cmd + [user, service],
                                       Gio.SubprocessFlags.STDIN_PIPE | Gio.SubprocessFlags.STDOUT_PIPE)
        self.pid = int(self.proc.get_identifier())
        log(f"begin {service} pid {self.pid}")
        self.stdin = self.proc.get_stdin_pipe()
        self.out = Gio.DataInputStream.new(self.proc.get_stdout_pipe())
        self.out.read_line_async(GLib.PRIORITY_DEFAULT, None, self.on_line)
        self.proc.wait_async(None, self.on_exit)

    def on_line(self, stream, res):
        try:
            line, _ = stream.read_line_finish_utf8(res)
        except GLib.Error:
            line = None
        if line is None:
            self.eof = True
            self.finish()
            return
        log(f"worker {line}")
        prefix = f"[{self.service}] "
        if line.startswith(prefix):
            kind, _, text = line[len(prefix):].partition(": ")
            text = text.rsplit(" (", 1)[0] if text.endswith(" ms)") else text
            if kind == "started":
                self.channel.started(self)
            elif kind == "info":
                self.channel.emit("Info", self.service, text)
            elif kind == "error":
                self.channel.emit("Problem", self.service, text)
            elif kind == "question":
                self.channel.emit("InfoQuery", self.service, text)
            elif kind == "prompt":
                self.channel.emit("SecretInfoQuery", self.service, text)
            elif kind == "authenticate":
                self.result = text
        stream.read_line_async(GLib.PRIORITY_DEFAULT, None, self.on_line)

    def answer(self, text):
        try:
            self.stdin.write_all((text + "\n").encode(), None)
            self.stdin.flush(None)
        except GLib.Error as e:
            log(f"answer to {self.service} lost: {e.message}")

    def stop(self):
        if self.done:
            return
        log(f"stopping {self.service} pid {self.pid} with SIGTERM")
        self.proc.send_signal(signal.SIGTERM)

    def on_exit(self, proc, res):
        try:
            proc.wait_finish(res)
        except GLib.Error:
            pass
        self.done = True
        self.status = proc.get_exit_status() if proc.get_if_exited() else -proc.get_term_sig()
        log(f"worker {self.service} exit {self.status}")
        self.finish()

    def finish(self):
        # The worker's end counts once it has exited and its last lines are read (its result
        # line may come after the exit is seen), as GDM reads the worker's messages in order.
        if self.status is not None and self.eof and not self.reported:
            self.reported = True
            self.channel.exited(self, self.status)


class Channel:
    """One reauthentication channel: a peer-to-peer D-Bus server for one shell connection."""

    def __init__(self, user):
        self.user = user
        self.conn = None
        self.conversations = {}
        self.closed = False     # a conversation verified the user: nothing more starts
        self.pending = []       # pam_wrapper copies its service dir in pam_start: one at a time
        self.starting = None
        # An abstract socket: the shell runs as the user, this as root.
        guid = Gio.dbus_generate_guid()
        self.server = Gio.DBusServer.new_sync(f"unix:abstract=gdm-standin-{guid}", Gio.DBusServerFlags.NONE,
                                              guid, None, None)
        self.server.connect("new-connection", self.on_connection)
        self.server.start()

    def on_connection(self, server, conn):
        self.conn = conn
        info = Gio.DBusNodeInfo.new_for_xml(VERIFIER_XML).interfaces[0]
        conn.register_object(SESSION_PATH, info, self.on_call, None, None)
        conn.connect("closed", lambda *a: self.cancel("connection closed"))
        log("shell connected")
        return True

    def emit(self, name, *args):
        log(f"signal {name} {' | '.join(args)}")
        if self.conn is not None and not self.conn.is_closed():
            sig = "(" + "s" * len(args) + ")"
            self.conn.emit_signal(None, SESSION_PATH, VERIFIER, name, GLib.Variant(sig, args))

    def on_call(self, conn, sender, path, iface, method, params, invocation):
        args = params.unpack()
        log(f"call {method} {' | '.join(str(a) for a in args) if method != 'AnswerQuery' else args[0]}")
        if method in ("BeginVerificationForUser", "BeginVerification"):
            service = args[0]
            user = args[1] if len(args) > 1 else self.user
            if self.closed:
                invocation.return_dbus_error("org.gnome.DisplayManager.Session.Error.WrongState",
                                             "the reauthentication is over")
                return
            if service in self.conversations:
                invocation.return_dbus_error("org.gnome.DisplayManager.Session.Error.WrongState",
                                             "conversation already running")
                return
            self.pending.append((service, user))
            self.start_next()
        elif method == "AnswerQuery":
            conv = self.conversations.get(args[0])
            if conv is not None:
                conv.answer(args[1])
        elif method == "Cancel":
            self.cancel("Cancel")
        invocation.return_value(None)

    def start_next(self):
        if self.starting is None and self.pending:
            service, user = self.pending.pop(0)
            self.starting = Conversation(self, service, user)
            self.conversations[service] = self.starting

    def started(self, conv):
        if self.starting is conv:
            self.starting = None
            self.emit("ConversationStarted", conv.service)
            self.start_next()

    def exited(self, conv, status):
        if self.starting is conv:
            self.starting = None
            self.start_next()
        if self.conversations.get(conv.service) is not conv:
            return
        # Verified: pam_authenticate, pam_acct_mgmt and pam_setcred succeeded (a worker stopped
        # with SIGTERM exits 0 too, as gdm-session-worker's handler does, with no result).
        if status == 0 and conv.result == "Success" and not self.closed:
            self.emit("VerificationComplete", conv.service)
            unlock_session()
            # close_transient_session: the channel's other conversations end with it.
            self.closed = True
            for other in list(self.conversations.values()):
                if other is not conv:
                    other.stop()
        elif conv.result is not None and conv.result != "Success":
            if conv.result.startswith(UNAVAIL):
                self.emit("ServiceUnavailable", conv.service, "")
            elif conv.result.startswith(MAXTRIES):
                self.emit("ServiceUnavailable", conv.service, MAX_MSG.get(conv.service, ""))
            else:
                self.emit("Problem", conv.service, GENERIC_MSG.get(conv.service, ""))
            self.emit("VerificationFailed", conv.service)
        del self.conversations[conv.service]
        self.emit("ConversationStopped", conv.service)

    def cancel(self, why):
        log(f"cancel ({why})")
        self.pending.clear()
        for conv in list(self.conversations.values()):
            conv.stop()


channels = []


def unlock_session():
    log(f"logind UnlockSession {session_id}")
    try:
        Gio.bus_get_sync(Gio.BusType.SYSTEM, None).call_sync(
            "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager",
            "UnlockSession", GLib.Variant("(s)", (session_id,)), None, Gio.DBusCallFlags.NONE, -1, None)
    except GLib.Error as e:
        log(f"UnlockSession failed: {e.message}")


def on_manager_call(conn, sender, path, iface, method, params, invocation):
    args = params.unpack()
    log(f"manager {method} {args}")
    if method == "OpenReauthenticationChannel":
        ch = Channel(args[0])
        channels.append(ch)
        invocation.return_value(GLib.Variant("(s)", (ch.server.get_client_address(),)))
    elif method == "RegisterSession":  # the shell registers its session at start: nothing to do
        invocation.return_value(None)
    else:
        invocation.return_dbus_error("org.gnome.DisplayManager.Manager.Error.NotSupported", "stand-in")


def on_manager_get(conn, sender, path, iface, prop):
    return GLib.Variant("s", "43.0")


def on_bus(conn, name):
    info = Gio.DBusNodeInfo.new_for_xml(MANAGER_XML).interfaces[0]
    conn.register_object("/org/gnome/DisplayManager/Manager", info, on_manager_call, on_manager_get, None)


def on_name(conn, name):
    log(f"owns {name}")


def on_lost(conn, name):
    log(f"lost {name}")
    loop.quit()


def on_term():
    for ch in channels:
        ch.cancel("SIGTERM")
    loop.quit()
    return GLib.SOURCE_REMOVE


GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, on_term)
Gio.bus_own_name(Gio.BusType.SYSTEM, "org.gnome.DisplayManager", Gio.BusNameOwnerFlags.NONE,
                 on_bus, on_name, on_lost)
loop.run()
