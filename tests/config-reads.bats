#!/usr/bin/env bats
# What tsmctl reads of config space: on a host every dword is a config cycle,
# so each view reads only what it shows. The simulator's live mount counts
# what it serves (tsm-sim-stats); bench/minimal computes, apart from tsmctl,
# the least each view must read; tsmctl counts its own reads
# (TSMCTL_CONFIG_STATS). All three must agree.

load lib/helpers

teardown() {
	unmount_live
}

# served → "reads bytes accesses" the mount served since the last reset
served() {
	awk '$1 == "total" { print $2, $3, $4 }' "$ROOT/tsm-sim-stats"
}

# cost VIEW...: reset the counts, run tsmctl VIEW -J; BYTES, ACCESSES, READS served, OWN its own line
cost() {
	echo stats-reset >"$ROOT/tsm-sim-control"
	TSMCTL_CONFIG_STATS=1 "$TSMCTL" --sysroot "$ROOT" "$@" -J >/dev/null 2>"$BATS_TEST_TMPDIR/err" || true
	read -r READS BYTES ACCESSES <<<"$(served)"
	cp "$ROOT/tsm-sim-stats" "$BATS_TEST_TMPDIR/stats"
	OWN=$(grep -o 'config space: .*' "$BATS_TEST_TMPDIR/err")
}

# minimal NAME: the least VIEW must read, from bench/minimal on the mount
minimal() {
	"$TOP/bench/minimal" "$ROOT" | awk -v k="$1" '$1 == k { print $2 }'
}

@test "streams and audit read exactly the minimal set, each byte once, on every topology with streams" {
	local topo n=0
	for topo in sev-tio broken devsec audit-live-insecure audit-stale-link audit-generic; do
		mount_live "$topo"
		t streams >/dev/null	# links exist: something to read
		cost streams
		echo "$topo streams: $BYTES bytes, $ACCESSES accesses in $READS reads; $OWN"
		[ "$BYTES" -eq "$(minimal streams_bytes)" ]
		[ "$ACCESSES" -eq "$(minimal streams_accesses)" ]
		[[ "$OWN" == *" $READS reads, $BYTES bytes, $ACCESSES config cycles" ]]
		[ "$BYTES" -gt 0 ] && n=$((n + 1))
		cost audit
		echo "$topo audit: $BYTES bytes, $ACCESSES accesses in $READS reads; $OWN"
		# no config file is read as a whole
		awk 'NR > 2 && $3 >= 4096 { print; bad = 1 } END { exit bad }' "$BATS_TEST_TMPDIR/stats"
		[ "$BYTES" -eq "$(minimal audit_bytes)" ]
		[[ "$OWN" == *" $READS reads, $BYTES bytes, $ACCESSES config cycles" ]]
		unmount_live
	done
	[ "$n" -ge 3 ]
}

@test "streams reads no header and no Selective block it does not show; the SEV-TIO figures" {
	mount_live sev-tio
	cost streams
	# NIC 41:00.0: DOE, IDE headers, IDE capability, block 0 (32 bytes); RP 40:01.1 likewise
	awk 'NR > 2 { print $1, $3 }' "$BATS_TEST_TMPDIR/stats" >"$BATS_TEST_TMPDIR/files"
	cat "$BATS_TEST_TMPDIR/files"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/files")" -eq 2 ]
	[ "$BYTES" -eq "$(minimal streams_bytes)" ]
	[ "$BYTES" -lt 200 ]
	# the same streams -J as a whole-config reader would print
	run t streams -J
	json_is '.streams[0].endpoint | [.state, .stream_id, (.address | length)]' '["secure",0,1]'
}

@test "devices reads the header, DEVCAP and the IDE layout of each function it lists, nothing more" {
	mount_live sev-tio
	cost devices
	echo "$OWN"
	# per function: 16 header bytes, the capability pointer, the PCIe capability's two dwords
	# and the extended chain: at most a few dozen bytes, never a whole space
	awk 'NR > 2 && ($3 > 128 || $3 < 24) { print; bad = 1 } END { exit bad }' "$BATS_TEST_TMPDIR/stats"
	[[ "$OWN" == *" $READS reads, $BYTES bytes, $ACCESSES config cycles" ]]
}

@test "not root (live): a partner's 64 bytes are needs-root, never 'no IDE', at the cost of two probes" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	[ "$(id -u)" -eq 0 ] || skip "needs root to switch to nobody"
	mount_live sev-tio
	local d
	d=$(dirname "$ROOT")
	while [ "$d" != / ] && [ "$d" != "${TMPDIR:-/tmp}" ]; do chmod o+x "$d"; d=$(dirname "$d"); done
	echo stats-reset >"$ROOT/tsm-sim-control"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" streams -J
	[ "$status" -eq 0 ]
	json_is '[.streams[0].endpoint.needs_root, .streams[0].root_port.needs_root]' '[true,true]'
	json_is '.streams[0].endpoint.state' 'null'
	[[ "$stderr" == *"needs root"* ]]
	# per partner: the extended header (nothing), the header's 16 bytes, bytes 63 and 64 (nothing)
	read -r READS BYTES ACCESSES <<<"$(served)"
	echo "$READS reads, $BYTES bytes"
	[ "$BYTES" -eq $((2 * (16 + 1))) ]
	[ "$READS" -eq $((2 * 4)) ]
}
