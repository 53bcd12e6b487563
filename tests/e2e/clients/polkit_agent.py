#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A polkit authentication agent without a terminal, as GNOME Shell's and KDE's are.

polkit_agent.py --session ID | --process PID  --log FILE --control FIFO

It registers with the real polkitd (org.freedesktop.PolicyKit1.Authority on the system bus) for
a login session (what gnome-shell and polkit-kde-authentication-agent-1 do) or for a process,
and serves org.freedesktop.PolicyKit1.AuthenticationAgent itself. Each authentication runs
through libpolkit-agent-1's PolkitAgentSession, which spawns the setuid polkit-agent-helper-1
with pipes, exactly as the graphical agents do: the helper has no controlling terminal (start
this with setsid) and its stdin is the agent's pipe.

What a dialog would show goes to FILE, one line each, flushed: `registered`, `begin ACTION`,
`message TEXT`, `identity NAME`, `info TEXT` and `error TEXT` (the PAM messages, shown in the
dialog), `request TEXT` (a password field with that label), `completed 0|1`,
`cancelled-by-polkitd`, `register-failed ERROR`. What the person does comes from FIFO, a line
each: `password TEXT` (typed into the field, then OK) and `cancel` (the dialog's Cancel button).
Uses /usr/bin/python3 with Debian's gi (python3-gi, gir1.2-polkit-1.0).
"""
import argparse
import os
import sys

import gi

gi.require_version("Polkit", "1.0")
gi.require_version("PolkitAgent", "1.0")
from gi.repository import Gio, GLib, Polkit, PolkitAgent  # noqa: E402

PATH = "/org/touchauth/e2e/PolkitAgent"
IFACE = """<node><interface name="org.freedesktop.PolicyKit1.AuthenticationAgent">
<method name="BeginAuthentication"><arg type="s" direction="in"/><arg type="s" direction="in"/>
<arg type="s" direction="in"/><arg type="a{ss}" direction="in"/><arg type="s" direction="in"/>
<arg type="a(sa{sv})" direction="in"/></method>
<method name="CancelAuthentication"><arg type="s" direction="in"/></method>
</interface></node>"""


class Agent:
    def __init__(self, log):
        self.log_file = log
        self.session = None      # the PolkitAgentSession under way
        self.invocation = None   # BeginAuthentication's, answered when it completes
        self.cookie = None

    def log(self, *words):
        self.log_file.write(" ".join(str(w) for w in words).replace("\n", " ") + "\n")
        self.log_file.flush()

    def method_call(self, conn, sender, path, iface, method, params, invocation):
        if method == "BeginAuthentication":
            action_id, message, _icon, _details, cookie, identities = params.unpack()
            if self.session is not None:
                invocation.return_dbus_error("org.freedesktop.PolicyKit1.Error.Failed",
                                             "An authentication session is already underway.")
                return
            self.log("begin", action_id)
            self.log("message", message)
            kind, fields = identities[0]
            identity = Polkit.UnixUser.new(fields["uid"]) if kind == "unix-user" else None
            if identity is None:
                invocation.return_dbus_error("org.freedesktop.PolicyKit1.Error.Failed", "not a user")
                return
            self.log("identity", identity.get_name() if hasattr(identity, "get_name") else fields["uid"])
            self.invocation, self.cookie = invocation, cookie
            self.session = PolkitAgent.Session.new(identity, cookie)
            self.session.connect("show-info", lambda s, t: self.log("info", t))
            self.session.connect("show-error", lambda s, t: self.log("error", t))
            self.session.connect("request", lambda s, t, echo: self.log("request", t))
            self.session.connect("completed", self.completed)
            self.session.initiate()
        elif method == "CancelAuthentication":
            (cookie,) = params.unpack()
            if self.session is not None and cookie == self.cookie:
                self.log("cancelled-by-polkitd")
                self.session.cancel()   # kills the helper; "completed" follows
            invocation.return_value(None)

    def completed(self, session, gained):
        self.log("completed", int(gained))
        invocation, self.invocation, self.session, self.cookie = self.invocation, None, None, None
        if invocation is not None:
            invocation.return_value(None)

    def control(self, channel, condition):
        ok, line, _len, _term = channel.read_line()
        line = (line or "").rstrip("\n")
        if line.startswith("password ") and self.session is not None:
            self.session.response(line[len("password "):])
        elif line == "cancel" and self.session is not None:
            # As GNOME Shell's Cancel button: the session ends, the call fails as dismissed.
            invocation, self.invocation = self.invocation, None
            self.log("cancel")
            self.session.cancel()
            if invocation is not None:
                invocation.return_dbus_error("org.freedesktop.PolicyKit1.Error.Cancelled",
                                             "Authentication dialog was dismissed by the user")
        return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--session")
    ap.add_argument("--process", type=int)
    ap.add_argument("--log", required=True)
    ap.add_argument("--control", required=True)
    args = ap.parse_args()
    log = open(args.log, "a", buffering=1)
    agent = Agent(log)
    bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    info = Gio.DBusNodeInfo.new_for_xml(IFACE).interfaces[0]
    bus.register_object(PATH, info, agent.method_call, None, None)
    if args.session is not None:
        subject = Polkit.UnixSession.new(args.session)
    else:
        subject = Polkit.UnixProcess.new_for_owner(args.process, 0, os.getuid())
    # O_RDWR: the FIFO never reads as closed, and opening it does not wait for a writer.
    fd = os.open(args.control, os.O_RDWR | os.O_NONBLOCK)
    channel = GLib.IOChannel.unix_new(fd)
    GLib.io_add_watch(channel, GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN, agent.control)
    authority = Polkit.Authority.get_sync(None)
    try:
        authority.register_authentication_agent_sync(subject, "C", PATH, None)
    except GLib.Error as e:
        agent.log("register-failed", e.message)
        return 1
    agent.log("registered")
    GLib.MainLoop().run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
