# Runs a command under a Wayland compositor. Sourced by the Scripts.
#
# With WAYLAND_DISPLAY set, the command runs in that session. Otherwise an embedded headless
# weston is started on a private 0700 XDG_RUNTIME_DIR, in its own process group, and the whole
# group is stopped and the directory removed when the command ends, however it ends.
#
# strata_start_sway starts a headless sway the same way, for the tests that need a seat: sway's
# seat gains a pointer or keyboard once a test creates a virtual one. It never replaces the
# session's compositor (a virtual device there would move your pointer and type into your
# windows), so it is started whether or not WAYLAND_DISPLAY is set, and exports its socket as
# STRATA_SWAY_DISPLAY instead of touching WAYLAND_DISPLAY.

strata_weston_pgid=""
strata_weston_dir=""
strata_sway_pgid=""
strata_sway_dir=""

# Stops a process group: TERM, up to five seconds for it to go, then KILL, and reaps its leader.
# Runs from an EXIT trap, possibly under `set -e`: every step must tolerate failure.
strata_stop_group() {
    kill -TERM -- "-$1" 2>/dev/null || true
    local waited=0
    while strata_group_alive "$1" && [ $waited -lt 50 ]; do
        sleep 0.1; waited=$((waited + 1))
    done
    kill -KILL -- "-$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

strata_stop_weston() {
    if [ -n "$strata_weston_pgid" ]; then strata_stop_group "$strata_weston_pgid"; strata_weston_pgid=""; fi
    if [ -n "$strata_weston_dir" ]; then rm -rf "$strata_weston_dir" || true; strata_weston_dir=""; fi
}

strata_stop_sway() {
    if [ -n "$strata_sway_pgid" ]; then strata_stop_group "$strata_sway_pgid"; strata_sway_pgid=""; fi
    if [ -n "$strata_sway_dir" ]; then rm -rf "$strata_sway_dir" || true; strata_sway_dir=""; fi
    # Nothing may find the stopped sway's socket and take it for a running one.
    unset STRATA_SWAY_DISPLAY STRATA_SWAY_IPC STRATA_SWAY_LOG
}

# The one EXIT trap, whichever compositors were started.
strata_stop_compositors() {
    strata_stop_sway
    strata_stop_weston
}

strata_trap_exit() {
    trap strata_stop_compositors EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# Whether a process group has a member that is not a zombie (weston stays one until reaped).
strata_group_alive() {
    ps -e -o pgid=,stat= | awk -v group="$1" '$1 == group && $2 !~ /^Z/ { found = 1 } END { exit !found }'
}

# Starts weston and exports XDG_RUNTIME_DIR, WAYLAND_DISPLAY and STRATA_WESTON_LOG.
strata_start_weston() {
    strata_weston_dir=$(mktemp -d "${TMPDIR:-/tmp}/strata-weston.XXXXXX") || return 1
    chmod 700 "$strata_weston_dir"
    local socket="strata-$$"
    export XDG_RUNTIME_DIR="$strata_weston_dir"
    export STRATA_WESTON_LOG="$strata_weston_dir/weston.log"
    strata_trap_exit
    # --debug enables weston-screenshooter; desktop-shell because kiosk-shell sends no frame callbacks.
    setsid weston --backend=headless-backend.so --use-pixman --shell=desktop-shell.so \
        --socket="$socket" --idle-time=0 --debug >"$STRATA_WESTON_LOG" 2>&1 </dev/null &
    strata_weston_pgid=$!
    local waited=0
    until [ -S "$strata_weston_dir/$socket" ]; do
        if ! kill -0 "$strata_weston_pgid" 2>/dev/null || [ $waited -ge 100 ]; then
            echo "strata: weston did not start; its log:" >&2
            cat "$STRATA_WESTON_LOG" >&2
            return 1
        fi
        sleep 0.1; waited=$((waited + 1))
    done
    export WAYLAND_DISPLAY="$socket"
    echo "strata: started headless weston on $XDG_RUNTIME_DIR/$socket" >&2
}

strata_with_compositor() {
    if [ -n "${WAYLAND_DISPLAY:-}" ]; then
        "$@"
        return
    fi
    strata_start_weston || return 1
    "$@"
}

# Starts a headless sway with one 1024x768 output, and exports STRATA_SWAY_DISPLAY (the absolute
# path of its Wayland socket, which libwayland accepts as WAYLAND_DISPLAY), STRATA_SWAY_IPC (its
# IPC socket, for swaymsg -s) and STRATA_SWAY_LOG. XDG_RUNTIME_DIR and WAYLAND_DISPLAY are left
# alone: sway gets its own private runtime directory.
strata_start_sway() {
    # sway refuses to run as root: as root it runs as nobody, which must own the 0700 runtime
    # directory and reach it (hence /tmp rather than TMPDIR); clients running as root can still
    # connect. Run by another user (the sudo case), it runs as that user.
    local as_user=() base="${TMPDIR:-/tmp}" root=""
    if [ "$(id -u)" -eq 0 ]; then
        root=1
        as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
        base=/tmp
    fi
    strata_sway_dir=$(mktemp -d "$base/strata-sway.XXXXXX") || return 1
    chmod 700 "$strata_sway_dir"
    if [ -n "$root" ]; then chown nobody:nogroup "$strata_sway_dir"; fi
    export STRATA_SWAY_LOG="$strata_sway_dir/sway.log"
    strata_trap_exit
    # One output at the origin; a single tiled window fills it at 0,0 with no border, title bar,
    # gap or bar (a config without `bar` blocks has none). No Xwayland, no focus or pointer
    # warping behind a test's back, and no key bindings to swallow what a test types.
    cat >"$strata_sway_dir/config" <<'CONFIG'
output HEADLESS-1 resolution 1024x768 position 0 0
default_border none
default_floating_border none
gaps inner 0
gaps outer 0
focus_follows_mouse no
mouse_warping none
xwayland disable
# Strata's example apps draw their own title bar here, so tests can reach its close button.
for_window [app_id="^strata-"] border csd
CONFIG
    chmod 644 "$strata_sway_dir/config"
    # setsid: sway leads its own process group, so stopping the group reaches what it spawns.
    # env -u: a sway nested in a session must not see that session's sockets.
    setsid env -u WAYLAND_DISPLAY -u DISPLAY -u SWAYSOCK -u WAYLAND_SOCKET \
        XDG_RUNTIME_DIR="$strata_sway_dir" HOME="$strata_sway_dir" \
        WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 \
        "${as_user[@]}" sway -c "$strata_sway_dir/config" >"$STRATA_SWAY_LOG" 2>&1 </dev/null &
    strata_sway_pgid=$!
    # Ready when its IPC answers with the output configured: the main loop runs by then.
    local deadline=$((SECONDS + 11)) socket ipc  # SECONDS counts whole seconds: 10 to 11 s
    while :; do
        socket=$(find "$strata_sway_dir" -maxdepth 1 -type s -name 'wayland-*' | head -n 1)
        ipc=$(find "$strata_sway_dir" -maxdepth 1 -type s -name 'sway-ipc.*' | head -n 1)
        if [ -n "$socket" ] && [ -n "$ipc" ] \
            && timeout 2 swaymsg -s "$ipc" -t get_outputs 2>/dev/null | grep -q '"HEADLESS-1"'; then
            break
        fi
        local problem=""
        if ! kill -0 "$strata_sway_pgid" 2>/dev/null; then problem="sway exited"; fi
        if [ -z "$problem" ] && [ $SECONDS -ge $deadline ]; then problem="sway did not start within 10 s"; fi
        if [ -n "$problem" ]; then
            echo "strata: $problem; its log:" >&2
            cat "$STRATA_SWAY_LOG" >&2
            return 1
        fi
        sleep 0.1
    done
    export STRATA_SWAY_DISPLAY="$socket" STRATA_SWAY_IPC="$ipc"
    echo "strata: started headless sway on $STRATA_SWAY_DISPLAY" >&2
}
