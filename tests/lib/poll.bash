# Waits on a condition, never for a fixed time (tests/README.md, "Timing"):
# each polls until its condition holds, up to POLL_SECONDS, a bound far above
# what a loaded machine needs, and then fails saying what it saw. Sourced by
# tests/lib/helpers.bash and the simulator's tests/sim/test/helper.bash.

: "${POLL_SECONDS:=60}"
# After the positive event that closes its window, how long a test that
# asserts an absence (no uevent, no exit) still gives the absent thing to come.
SETTLE_MARGIN=0.5

# wait_until CMD...: until CMD succeeds.
wait_until() {
	local end=$((SECONDS + POLL_SECONDS))
	until "$@"; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "still not so after $POLL_SECONDS s: $*"
			return 1
		fi
		sleep 0.05
	done
}

# wait_for_line FILE PATTERN: until FILE holds a line matching PATTERN (grep).
wait_for_line() {
	local end=$((SECONDS + POLL_SECONDS))
	until grep -q -e "$2" "$1" 2>/dev/null; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "no line matching '$2' in $1 after $POLL_SECONDS s:"
			cat "$1"
			return 1
		fi
		sleep 0.05
	done
}

# wait_gone PID: until process PID has ended (a zombie counts as ended).
wait_gone() {
	local end=$((SECONDS + POLL_SECONDS))
	while [ -e "/proc/$1" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "process $1 still running after $POLL_SECONDS s: $(tr '\0' ' ' < "/proc/$1/cmdline")"
			return 1
		fi
		sleep 0.05
	done
}

# release_held: end a process wait_held left stopped, for a teardown (a test that
# failed while it was held would leave it, and strace, waiting for ever).
release_held() {
	if [ -n "${HELD:-}" ] && grep -qs tsmctl "/proc/$HELD/cmdline"; then
		kill -KILL "$HELD" 2>/dev/null
	fi
	HELD=
	return 0
}

# wait_held TRACE: until strace (-f -o TRACE, -e inject=...:signal=SIGSTOP) has a
# tracee stopped right after the injected system call; its pid into HELD. The
# test acts while it is held and resumes it with kill -CONT "$HELD".
wait_held() {
	wait_for_line "$1" '--- stopped by SIGSTOP ---' || return 1
	HELD=$(grep -m1 -e '--- stopped by SIGSTOP ---' "$1" | awk '{ print $1 }')
}
