# Shared helpers for the simulator's own tests.
SIM="$BATS_TEST_DIRNAME/../tsm-sim"
TOPO="$BATS_TEST_DIRNAME/../../topologies"

# build_tree NAME: static tree of tests/topologies/NAME.json in $T
build_tree() {
	T=$(mktemp -d)
	"$SIM" build "$TOPO/$1.json" "$T"
}

# mount_sim FILE: live tree of topology FILE at $M
mount_sim() {
	M=$(mktemp -d)
	"$SIM" mount "$1" "$M"
}

# mount_topo NAME: live tree of a shipped topology
mount_topo() {
	mount_sim "$TOPO/$1.json"
}

# mount_jq NAME JQ-FILTER: live tree of a shipped topology changed by a jq filter
mount_jq() {
	J=$(mktemp --suffix=.json)
	jq "$2" "$TOPO/$1.json" > "$J"
	mount_sim "$J"
}

# mount_listening FILE: mount topology FILE in a fresh network namespace ($NS, $M)
# and listen there (events to $EV, pid $LPID); skips without namespaces.
# End with: listen_end; umount "$NS".
mount_listening() {
	NS=$(mktemp)
	unshare --net="$NS" true || skip "cannot create a network namespace"
	M=$(mktemp -d)
	nsenter --net="$NS" "$SIM" mount "$1" "$M"
	EV=$(mktemp)
	# a bound, not a window: listen_end stops it once the events are in
	nsenter --net="$NS" "$BATS_TEST_DIRNAME/../uevent-listen" "$POLL_SECONDS" > "$EV" 2> "$EV.err" &
	LPID=$!
	wait_for_line "$EV.err" listening
}

# listen_end: stop the listener $LPID once every event sent so far is in $EV. A
# marker sent now is queued behind them (a socket's queue keeps the order of the
# sends), so its line comes after theirs; then it is dropped from $EV.
listen_end() {
	nsenter --net="$NS" perl -e 'socket(my $s, 16, 2, 15) or die "socket: $!";
		send($s, "mark\@/tsm-sim-test\0ACTION=mark\0DEVPATH=/tsm-sim-test\0", 0,
			pack("S x2 L L", 16, 0, 1)) or die "send: $!";' || return 1
	wait_for_line "$EV" "^mark /tsm-sim-test " || return 1
	kill "$LPID" 2>/dev/null
	wait "$LPID" 2>/dev/null || true
	LPID=
	sed -i '\|^mark /tsm-sim-test |d' "$EV"
}

teardown_sim() {
	if [ -n "${LPID:-}" ]; then
		kill "$LPID" 2>/dev/null || true	# a listener a failed test left
	fi
	if [ -n "${M:-}" ]; then
		release_holds "$M"	# a held write a failed test left, which would keep the mount
		if mountpoint -q "$M"; then
			fusermount3 -u "$M" || umount -l "$M"
		fi
		rmdir "$M" 2>/dev/null || true
	fi
	if [ -n "${T:-}" ]; then
		rm -rf "$T"
	fi
	if [ -n "${J:-}" ]; then
		rm -f "$J"
	fi
}

# topo_file: a temp file for a test-local topology, read from stdin
topo_file() {
	J=$(mktemp --suffix=.json)
	cat > "$J"
}

# u32, u16, ext_cap, ext_cap_count, sel_block: shared with tsmctl's suites
source "$BATS_TEST_DIRNAME/../../lib/cfg-space.bash"
# wait_until, wait_for_line, wait_gone, wait_held: waits on a condition, as tsmctl's suites
source "$BATS_TEST_DIRNAME/../../lib/poll.bash"
# wait_holding, wait_blocked, release_step, release_holds: the held steps
source "$BATS_TEST_DIRNAME/../../lib/sim-holds.bash"

# sel_reg FILE K REG: REG is ctl, sts, rid1, rid2, assoc1, assoc2, assoc3
sel_reg() {
	local b o
	b=$(sel_block "$1" "$2") || return 1
	case $3 in
	cap) o=0 ;; ctl) o=4 ;; sts) o=8 ;; rid1) o=12 ;; rid2) o=16 ;;
	assoc1) o=20 ;; assoc2) o=24 ;; assoc3) o=28 ;;
	esac
	u32 "$1" $((b + o))
}

# try_write VALUE FILE: one write(2) of VALUE to FILE (shell printf may split
# at newlines, dd with fullblock does not); $status/$output via run
try_write() {
	run bash -c 'printf "%s" "$1" | dd of="$2" bs=4096 iflag=fullblock conv=notrunc status=none' _ "$1" "$2"
}

# expect_errno TEXT: the last try_write failed with that strerror text
expect_errno() {
	[ "$status" -ne 0 ] || { echo "write succeeded, expected: $1"; return 1; }
	[[ "$output" == *"$1"* ]] || { echo "got: $output, expected: $1"; return 1; }
}

ENXIO="No such device or address"
EBUSY="Device or resource busy"
EINVAL="Invalid argument"
EFAULT="Bad address"
ENOMEM="Cannot allocate memory"
EIO="Input/output error"
EACCES="Permission denied"
EPERM="Operation not permitted"
EOPNOTSUPP="Operation not supported"
ENODEV="No such device"
EFBIG="File too large"
ERANGE="Numerical result out of range"
ENOENT="No such file or directory"
EEXIST="File exists"

# put_blob SRC DST: SRC's bytes to DST in one write(2); $status/$output via run
put_blob() {
	run dd if="$1" of="$2" bs=4096 iflag=fullblock conv=notrunc status=none
}
