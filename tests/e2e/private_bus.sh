# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# private_bus DIR NAME [ADDRESS [SERVICEDIR]]: starts a private "system" D-Bus (for fprintd and polkit)
# listening on the abstract socket NAME (polkitd drops to its own user and could not reach a
# socket inside a root 0700 dir), or on ADDRESS (fprintd.sh: the system bus's own path, under a
# tmpfs of its mount namespace). With SERVICEDIR, a bus that starts the services named there
# itself (no <type>system</type>: no setuid launch helper). Appends dbus-daemon's pid to PIDS (the caller stops it) and sets
# BUS to the address; fails when the bus did not come up (its log is DIR/bus.log).
private_bus() {
    local dir=$1 listen=${3:-unix:abstract=$2} kind="<type>system</type>"
    # PRIVATE_BUS_ALSO=ADDRESS: a second address it listens on too (clients_gnome.sh: the system
    # bus's own path for the helper, beside the abstract socket the user's processes reach).
    [ -n "${PRIVATE_BUS_ALSO:-}" ] && listen+="</listen><listen>$PRIVATE_BUS_ALSO"
    [ -n "${4:-}" ] && kind="<servicedir>$4</servicedir>"
    cat > "$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  $kind
  <listen>$listen</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/> <allow own="*"/>
    <allow send_type="method_call"/> <allow send_type="signal"/>
    <allow send_type="method_return"/> <allow send_type="error"/>
    <allow receive_type="method_call"/> <allow receive_type="signal"/>
    <allow receive_type="method_return"/> <allow receive_type="error"/>
  </policy>
</busconfig>
CONF
    dbus-daemon --config-file="$dir/bus.conf" --nofork --print-address=3 3> "$dir/bus.addr" > "$dir/bus.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 100); do [ -s "$dir/bus.addr" ] && break; sleep 0.02; done
    BUS=$(head -n 1 "$dir/bus.addr")
    [ -n "$BUS" ]
}
