# A private network namespace for the suites that need kobject uevents: the
# simulator sends them there, so they reach tsmctl and never the host's udev
# (tests/sim/README.md). Load after lib/helpers.

# Create it (a bind-mounted namespace file); skips the test where that is not allowed.
netns_setup() {
	NS=$(mktemp "$BATS_TEST_TMPDIR/netns.XXXXXX")
	unshare --net="$NS" true 2>/dev/null || skip "cannot create a network namespace"
}

netns_teardown() {
	stop_bg "${NOISE_PID:-}"
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

# noise_start SECONDS [SUBSYSTEM]: another subsystem's uevent into the namespace every
# SECONDS, in the background (NOISE_PID; netns_teardown stops it). By default a bdi
# device's add, which every FUSE mount on the host sends into every namespace.
noise_start() {
	local rt=
	# real-time where allowed, so that a busy machine opens no gaps in the stream
	chrt -f 1 true 2>/dev/null && rt="chrt -f 1"
	# nsenter itself, not in_ns: a function would run in a subshell that keeps the pid
	nsenter --net="$NS" $rt perl -MTime::HiRes=sleep -e '
		my ($every, $sub) = @ARGV;
		socket(my $s, 16, 2, 15) or die "socket: $!";
		my $to = pack("S x2 L L", 16, 0, 1);
		for (my $i = 1;; $i++) {
			my $dp = $sub eq "bdi" ? "/devices/virtual/bdi/0:$i" : "/devices/pci0000:99/0000:99:00.0";
			my $act = $sub eq "bdi" ? "add" : "change";
			send($s, join("\0", "$act\@$dp", "ACTION=$act", "DEVPATH=$dp", "SUBSYSTEM=$sub",
				"SEQNUM=$i") . "\0", 0, $to) or die "send: $!";
			sleep($every);
		}' "$1" "${2:-bdi}" &
	NOISE_PID=$!
}
