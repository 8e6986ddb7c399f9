# Runs a command under a Wayland compositor. Sourced by the Scripts.
#
# With WAYLAND_DISPLAY set, the command runs in that session. Otherwise an embedded headless
# weston is started on a private 0700 XDG_RUNTIME_DIR, in its own process group, and the whole
# group is stopped and the directory removed when the command ends, however it ends.

strata_weston_pgid=""
strata_weston_dir=""

strata_stop_weston() {
    # Runs from an EXIT trap, possibly under `set -e`: every step must tolerate failure.
    if [ -n "$strata_weston_pgid" ]; then
        kill -TERM -- "-$strata_weston_pgid" 2>/dev/null || true
        local waited=0
        while strata_group_alive "$strata_weston_pgid" && [ $waited -lt 50 ]; do
            sleep 0.1; waited=$((waited + 1))
        done
        kill -KILL -- "-$strata_weston_pgid" 2>/dev/null || true
        wait "$strata_weston_pgid" 2>/dev/null || true
        strata_weston_pgid=""
    fi
    if [ -n "$strata_weston_dir" ]; then rm -rf "$strata_weston_dir" || true; strata_weston_dir=""; fi
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
    trap strata_stop_weston EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
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
