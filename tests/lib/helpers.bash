# Shared bats helpers for tsmctl's suites.
bats_require_minimum_version 1.5.0
# TSMCTL: the binary under test (make check sets it; defaults to ./tsmctl).

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
: "${TSMCTL:=$TOP/tsmctl}"
SIM=$TOP/tests/sim/tsm-sim
TOPO=$TOP/tests/topologies
# u32, cfg_word, ext_cap, sel_block, ...: shared with the simulator's tests
source "$TOP/tests/lib/cfg-space.bash"
# wait_until, wait_for_line, wait_gone, wait_held: waits on a condition
source "$TOP/tests/lib/poll.bash"
# wait_holding, wait_blocked, release_step, release_holds: the simulator's held steps
source "$TOP/tests/lib/sim-holds.bash"

# Build a static tree for topology NAME (without .json) once per test file; prints its root.
# Tests of one file may run at once (bats --jobs): each builds aside and renames
# it into place, so a reader never sees a half-built tree.
static_tree() {
	local name=$1 dir="$BATS_FILE_TMPDIR/static-$1" tmp
	if [ ! -d "$dir/sys" ]; then
		tmp=$(mktemp -d "$BATS_FILE_TMPDIR/.static-$1.XXXXXX") || return 1
		"$SIM" build "$TOPO/$name.json" "$tmp/tree" >/dev/null || return 1
		# the first rename wins; a later builder finds the target there and drops its own
		mv -T "$tmp/tree" "$dir" 2>/dev/null || [ -d "$dir/sys" ] || return 1
		rm -rf "$tmp"
	fi
	echo "$dir"
}

# Mount topology NAME live in a fresh dir; sets ROOT. Pair with unmount_live in teardown.
mount_live() {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	"$SIM" mount "$TOPO/$1.json" "$ROOT" || return 1
}

# Mount topology NAME changed by the jq FILTER live, as mount_live does; sets ROOT.
mount_live_jq() {
	local topo
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	topo=$(mktemp --suffix=.json "$BATS_TEST_TMPDIR/topo.XXXXXX")
	jq "$2" "$TOPO/$1.json" > "$topo" || return 1
	"$SIM" mount "$topo" "$ROOT" || return 1
}

# stop_bg PID: end a background command started by a test and reap it (teardown).
stop_bg() {
	[ -n "${1:-}" ] || return 0
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

unmount_live() {
	release_holds "${ROOT:-}"
	if [ -n "${ROOT:-}" ] && mountpoint -q "$ROOT" 2>/dev/null; then
		fusermount3 -u "$ROOT" 2>/dev/null || fusermount3 -uz "$ROOT"
	fi
}

# Let an unprivileged user reach ROOT below bats' private tmp dirs.
open_path_to_root() {
	local d
	d=$(dirname "$ROOT")
	while [ "$d" != / ] && [ "$d" != "${TMPDIR:-/tmp}" ]; do
		chmod o+x "$d"
		d=$(dirname "$d")
	done
}

# tsmctl against ROOT; use with bats' run.
t() {
	"$TSMCTL" --sysroot "$ROOT" "$@"
}

# Assert that the jq FILTER over JSON in $output yields EXPECTED.
json_is() {
	local got
	got=$(printf '%s' "$output" | jq -c "$1") || { echo "jq failed on: $output"; return 1; }
	if [ "$got" != "$2" ]; then
		echo "jq '$1': expected $2, got $got"
		return 1
	fi
}

# Helpers the action and audit suites share.

# The last run's exit status is N; otherwise show what it printed.
expect_status() {
	[ "$status" -eq "$1" ] && return 0
	printf 'exit %s, expected %s\n--- stdout\n%s\n--- stderr\n%s\n' "$status" "$1" "$output" "${stderr:-}"
	return 1
}

dev() {
	echo "$ROOT/sys/bus/pci/devices/$1"
}

# sel_reg BDF K ctl|sts: that register of Selective block K, as 0x%08x.
sel_reg() {
	local cfg b
	cfg=$(dev "$1")/config
	b=$(sel_block "$cfg" "$2") || return 1
	case $3 in
	ctl) cfg_word "$cfg" $((b + 4)) ;;
	sts) cfg_word "$cfg" $((b + 8)) ;;
	esac
}

avail() {
	cat "$ROOT/sys/devices/$1/available_secure_streams"
}

stream_links() {
	find "$ROOT/sys/devices" -maxdepth 3 -name 'stream*' -type l -printf '%f\n' | sort | tr '\n' ' '
}

# Everything a reader can see: readable files' contents and every link.
tree_digest() {
	(
		cd "$ROOT" || exit 1
		find sys -type f -perm -u=r -print0 | sort -z | xargs -0 md5sum
		find sys -type l -printf '%p -> %l\n' | sort
	)
}

# Write the little-endian 32-bit VALUE at OFFSET of FILE (as setpci would).
poke32() {
	local v=$(($3))
	printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $(((v >> 8) & 255)) \
		$(((v >> 16) & 255)) $(((v >> 24) & 255)))" |
		dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none
}

# A private copy of topology NAME's static tree in ROOT, to edit.
edit_tree() {
	ROOT="$BATS_TEST_TMPDIR/tree-$1"
	cp -a "$(static_tree "$1")" "$ROOT"
}
