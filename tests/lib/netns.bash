# A private network namespace for the suites that need kobject uevents: the
# simulator sends them there, so they reach tsmctl and never the host's udev
# (tests/sim/README.md). Load after lib/helpers.

# Create it (a bind-mounted namespace file); skips the test where that is not allowed.
netns_setup() {
	NS=$(mktemp "$BATS_TEST_TMPDIR/netns.XXXXXX")
	unshare --net="$NS" true 2>/dev/null || skip "cannot create a network namespace"
}

netns_teardown() {
	if [ -n "${NS:-}" ]; then
		umount "$NS" 2>/dev/null || true
	fi
}

in_ns() {
	nsenter --net="$NS" "$@"
}

# mount_late NAME FILTER: topology NAME passed through the jq FILTER, mounted
# live inside the namespace; sets ROOT (unmount_live ends it).
mount_late() {
	local j="$BATS_TEST_TMPDIR/late-$1.json"
	jq "$2" "$TOPO/$1.json" > "$j" || return 1
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	in_ns "$SIM" mount "$j" "$ROOT"
}

# sim_ctl WORDS...: one command to the live simulator's test-only control file.
sim_ctl() {
	echo "$*" > "$ROOT/tsm-sim-control"
}

