#!/usr/bin/env bats
# tsmctl disconnect against the live simulator: the streams that went away,
# the pool afterwards, and what the kernel shows (files, links, registers).

load lib/helpers

teardown() {
	release_held	# a process a failed test left held
	unmount_live
}

# Control register (0x%08x) of Selective IDE block 0 in BDF's config (ABI.md §3).
sel0_ctl() {
	local cfg b
	cfg=$(dev "$1")/config
	b=$(sel_block "$cfg" 0) || return 1
	cfg_word "$cfg" $((b + 4))
}

@test "disconnect: the stream goes away, the pool is reported, both partners are torn down (SEV-TIO)" {
	mount_live sev-tio
	[ "$(sel0_ctl 0000:41:00.0)" = 0x00c00001 ]
	run --separate-stderr t disconnect 41:00.0
	expect_status 0
	[ "${lines[0]}" = "0000:41:00.0: disconnected from tsm0; removed stream0.0.0 on pci0000:40 (Stream ID 0), last state: endpoint secure, root port secure; 256 secure streams available" ]
	[ "${lines[1]}" = "disconnected 1 of 1 device" ]
	[ -z "$stderr" ]
	[ "$(cat "$(dev 0000:41:00.0)/tsm/connect")" = "" ]
	[ "$(cat "$(dev 0000:41:00.0)/authenticated")" = "" ]
	[ ! -e "$ROOT/sys/devices/pci0000:40/stream0.0.0" ]
	[ ! -L "$ROOT/sys/devices/pci0000:40/stream0.0.0" ]
	[ "$(avail pci0000:40)" = 256 ]
	[ "$(sel0_ctl 0000:41:00.0)" = 0x00000000 ]
	[ "$(sel0_ctl 0000:40:01.1)" = 0x00000000 ]
}

@test "a pool of one: the count is said in the singular" {
	jq '(.host_bridges[] | select(.bus == "0x40")).streams = 1' "$TOPO/sev-tio.json" >"$BATS_TEST_TMPDIR/one.json"
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	"$SIM" mount "$BATS_TEST_TMPDIR/one.json" "$ROOT"
	[ "$(avail pci0000:40)" = 0 ]
	run --separate-stderr t disconnect 41:00.0
	expect_status 0
	[[ "${lines[0]}" == "0000:41:00.0: disconnected from tsm0; removed stream0.0.0 on pci0000:40"*"; 1 secure stream available" ]]
	[ "$(avail pci0000:40)" = 1 ]
}

@test "disconnect -J: the streams that went away with their last state, and the pool afterwards" {
	mount_live sev-tio
	run --separate-stderr t disconnect -J 0000:41:00.0
	expect_status 0
	json_is 'keys' '["results","schema_version"]'
	json_is '.results[0] | keys' '["action","available_secure_streams","bdf","errno","message","result","streams","tsm"]'
	json_is '.results[0] | [.bdf, .action, .result, .errno, .message, .tsm, .available_secure_streams]' \
		'["0000:41:00.0","disconnect","ok",null,"disconnected from tsm0","tsm0",256]'
	json_is '.results[0].streams' \
		'[{"name":"stream0.0.0","host_bridge":"pci0000:40","stream_id":0,"endpoint_state":"secure","root_port_state":"secure"}]'
}

@test "devsec round trip: available_secure_streams 4 -> 3 -> 4, links, tsm/dsm on both functions, all gone after" {
	mount_live devsec
	hb=faux/devsec_bus/pci10000:00
	pf0=$(dev 10000:01:00.0)
	pf1=$(dev 10000:01:00.1)
	# disconnected state (as devsec.sh checks it)
	[ "$(avail $hb)" = 4 ]
	[ "$(cat "$pf0/tsm/dsm")" = "" ]
	[ "$(cat "$pf0/tsm/bound")" = "" ]
	[ ! -e "$pf1/tsm" ]
	run t connect 10000:01:00.0 tsm0
	expect_status 0
	[ "$(avail $hb)" = 3 ]
	[ "$(cat "$pf0/tsm/connect")" = tsm0 ]
	[ "$(cat "$pf0/tsm/dsm")" = 10000:01:00.0 ]
	[ "$(cat "$pf1/tsm/dsm")" = 10000:01:00.0 ]
	[ "$(readlink -f "$ROOT/sys/devices/$hb/stream0.0.0")" = "$(readlink -f "$pf0")" ]
	# bound through the sample's test trigger: disconnect unbinds implicitly
	echo 10000:01:00.1 > "$ROOT/sys/devices/faux/devsec_link_tsm/tsm_bind"
	[ "$(cat "$pf1/tsm/bound")" = tsm0 ]
	run --separate-stderr t disconnect -J 10000:01:00.0
	expect_status 0
	json_is '.results[0] | [.result, .tsm, .available_secure_streams, [.streams[].name]]' \
		'["ok","tsm0",4,["stream0.0.0"]]'
	[ "$(avail $hb)" = 4 ]
	[ ! -L "$ROOT/sys/devices/$hb/stream0.0.0" ]
	[ "$(cat "$pf0/tsm/connect")" = "" ]
	[ "$(cat "$pf0/tsm/dsm")" = "" ]
	[ "$(cat "$pf0/tsm/bound")" = "" ]
	for f in dsm bound connect disconnect; do
		[ ! -e "$pf1/tsm/$f" ]
	done
	[ ! -e "$pf1/authenticated" ]
}

@test "the TSM defaults to the connected one; naming it works too" {
	mount_live devsec
	run t connect --all tsm0
	expect_status 0
	run --separate-stderr t disconnect 10000:01:00.0 tsm0
	expect_status 0
	[[ "${lines[0]}" == "10000:01:00.0: disconnected from tsm0; removed stream0.0.0 on pci10000:00"*"; 4 secure streams available" ]]
	run --separate-stderr t disconnect 10001:03:00.0
	expect_status 0
	[[ "${lines[0]}" == "10001:03:00.0: disconnected from tsm0; removed stream0.0.0 on pci10001:02"* ]]
	[ "$(stream_links)" = "" ]
}

@test "EINVAL: the wrong TSM is refused before writing, and the right one named" {
	mount_live connect-generic
	run t connect 01:00.0 tsm0
	expect_status 0
	before=$(tree_digest)
	run --separate-stderr t disconnect -J 01:00.0 tsm1
	expect_status 1
	[ "$stderr" = "tsmctl disconnect 0000:01:00.0: connected to tsm0, not tsm1: run 'tsmctl disconnect 0000:01:00.0' (the TSM may be left out) (EINVAL)" ]
	json_is '.results[0] | [.result, .errno, .tsm, [.streams[].name]]' '["failed","EINVAL","tsm1",["stream0.0.0"]]'
	# a TSM that does not exist is refused once, before any device
	run --separate-stderr t disconnect 01:00.0 tsm9
	expect_status 1
	[[ "$stderr" == "tsmctl disconnect tsm9: there is no TSM named tsm9; registered: "*"(EINVAL)" ]]
	[ -z "$output" ]
	[ "$(tree_digest)" = "$before" ]
	[ "$(cat "$(dev 0000:01:00.0)/tsm/connect")" = tsm0 ]
	unmount_live

	# a devsec TSM on the proposed ABI is just as wrong
	mount_live devsec-proposed
	run t connect 10000:01:00.0 tsm0
	run --separate-stderr t disconnect 10000:01:00.0 tsm1
	expect_status 1
	[[ "$stderr" == "tsmctl disconnect 10000:01:00.0: connected to tsm0, not tsm1:"*"(EINVAL)" ]]
	[ "$(cat "$(dev 10000:01:00.0)/tsm/connect")" = tsm0 ]
}

@test "a device that is not connected: done already, exit 0 (--strict: ENXIO); ENOENT for one without tsm/disconnect" {
	mount_live sev-tio
	before=$(tree_digest)
	run --separate-stderr t disconnect 81:00.0
	expect_status 0
	[ -z "$stderr" ]
	[ "$output" = "$(printf '0000:81:00.0: not connected\ndisconnected 1 of 1 device (1 already)')" ]
	run --separate-stderr t disconnect -J 81:00.0 tsm0
	expect_status 0
	json_is '.results[0] | [.result, .errno, .message, .tsm]' '["already",null,"not connected","tsm0"]'
	run --separate-stderr t disconnect --strict 81:00.0
	expect_status 1
	[ "$stderr" = "tsmctl disconnect 0000:81:00.0: not connected to any TSM; nothing to disconnect; a failure with --strict (ENXIO)" ]
	[ "$output" = "$(printf '0000:81:00.0: failed (ENXIO)\ndisconnected 0 of 1 device (1 failed)')" ]
	run --separate-stderr t disconnect -J 41:00.1
	expect_status 1
	json_is '.results[0] | [.result, .errno, .tsm]' '["failed","ENOENT",null]'
	[[ "$stderr" == *"has no tsm/disconnect: the kernel connects a slot through its function 0 (0000:41:00.0)"* ]]
	[ "$(tree_digest)" = "$before" ]
}

@test "--all disconnects every connected device, or those of one TSM" {
	mount_live connect-generic
	run t connect 01:00.0 tsm0
	run t connect 03:00.0 0001:01:00.0 tsm1
	[ "$(stream_links)" = "stream0.0.0 stream0.0.0 stream1.0.0 " ]
	run --separate-stderr t disconnect -J --all tsm1
	expect_status 0
	json_is '[.results[] | [.bdf, .result, .tsm, .available_secure_streams]]' \
		'[["0000:03:00.0","ok","tsm1",7],["0001:01:00.0","ok","tsm1",1]]'
	[ "$(cat "$(dev 0000:01:00.0)/tsm/connect")" = tsm0 ]
	[ "$(cat "$(dev 0000:03:00.0)/tsm/connect")" = "" ]
	run --separate-stderr t disconnect --all
	expect_status 0
	[[ "${lines[0]}" == "0000:01:00.0: disconnected from tsm0; removed stream0.0.0 on pci0000:00"*"; 8 secure streams available" ]]
	[ "${lines[1]}" = "disconnected 1 of 1 device" ]
	[ "$(stream_links)" = "" ]
	[ "$(avail pci0000:00)" = 8 ]
	[ "$(avail pci0001:00)" = 1 ]
	run --separate-stderr t disconnect --all
	expect_status 0
	[ "$output" = "disconnected 0 of 0 devices" ]
	[ "$stderr" = "tsmctl disconnect: no device is connected" ]
}

@test "--dry-run says what would be written and removed, and leaves the tree byte for byte" {
	mount_live sev-tio
	before=$(tree_digest)
	run --separate-stderr t disconnect --dry-run 41:00.0
	expect_status 0
	[ "${lines[0]}" = "0000:41:00.0: would write 'tsm0' to $ROOT/sys/bus/pci/devices/0000:41:00.0/tsm/disconnect; would remove stream0.0.0 on pci0000:40 (Stream ID 0), endpoint secure, root port secure" ]
	[ "${lines[1]}" = "would disconnect 1 of 1 device" ]
	run --separate-stderr t disconnect --dry-run -J --all
	expect_status 0
	json_is '[.results[] | [.bdf, .result, .tsm, [.streams[].name]]]' '[["0000:41:00.0","dry-run","tsm0",["stream0.0.0"]]]'
	[ "$(tree_digest)" = "$before" ]
	[ "$(cat "$(dev 0000:41:00.0)/tsm/connect")" = tsm0 ]
}

@test "default stops at the first failure; --keep-going goes on" {
	mount_live sev-tio
	run --separate-stderr t disconnect 41:00.1 41:00.0
	expect_status 1
	[ "${lines[0]}" = "0000:41:00.1: failed (ENOENT)" ]
	[ "${lines[1]}" = "0000:41:00.0: skipped (not attempted after 0000:41:00.1 failed; --keep-going goes on)" ]
	[ "${lines[2]}" = "disconnected 0 of 2 devices (1 failed, 1 skipped)" ]
	[ "$(cat "$(dev 0000:41:00.0)/tsm/connect")" = tsm0 ]
	run --separate-stderr t disconnect -J 41:00.1 41:00.0
	json_is '[.results[] | [.result, .errno, .tsm]]' '[["failed","ENOENT",null],["skipped",null,"tsm0"]]'
	run --separate-stderr t disconnect --keep-going 41:00.1 41:00.0
	expect_status 1
	[[ "${lines[1]}" == "0000:41:00.0: disconnected from tsm0;"* ]]
	[ "${lines[2]}" = "disconnected 1 of 2 devices (1 failed)" ]
	[ "$(cat "$(dev 0000:41:00.0)/tsm/connect")" = "" ]
}

@test "a stream SEV-TIO left INSECURE is released by disconnect" {
	mount_live connect-sev-tio
	run t connect 43:00.0 tsm0
	expect_status 1
	[ -L "$ROOT/sys/devices/pci0000:40/stream0.0.0" ]
	run --separate-stderr t disconnect -J 43:00.0
	expect_status 0
	json_is '.results[0] | [.result, .available_secure_streams, .streams]' \
		'["ok",256,[{"name":"stream0.0.0","host_bridge":"pci0000:40","stream_id":0,"endpoint_state":"insecure","root_port_state":"disabled"}]]'
	[ ! -L "$ROOT/sys/devices/pci0000:40/stream0.0.0" ]
	[ "$(cat "$(dev 0000:43:00.0)/tsm/connect")" = "" ]
}

@test "two processes disconnecting the same device at once: one disconnects, the other finds nothing" {
	command -v strace >/dev/null || skip "strace not installed"
	mount_live connect-generic
	run t connect 04:00.0 tsm0
	expect_status 0
	# Every time a race: b has checked the device and opened its store, and strace holds
	# b's write back (at its entry, for up to 60 s) while a runs whole; then strace is told
	# to let go (SIGTERM detaches it: -I1 leaves it the signal) and the write goes on. Left to the scheduler, a loaded
	# machine ran them one after the other, and the second found the device disconnected
	# (exit 0). b's status comes from the shell around it: strace's is strace's own.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -I1 -qq -f -P "$ROOT" -P "$(dev 0000:04:00.0)/tsm/disconnect" -e trace=openat2,write \
		-e inject=write:delay_enter=60000000 -o "$BATS_TEST_TMPDIR/trace" \
		sh -c '"$@"; echo $? > "$0"' "$BATS_TEST_TMPDIR/b.rc" \
		"$TSMCTL" --sysroot "$ROOT" disconnect -J 04:00.0 > "$BATS_TEST_TMPDIR/b" &
	st=$!
	wait_for_line "$BATS_TEST_TMPDIR/trace" '^[0-9]* *write('	# held at the write's entry
	grep -q 'openat2(.*0000:04:00.0/tsm/disconnect' "$BATS_TEST_TMPDIR/trace"
	rc=0
	t disconnect -J 04:00.0 > "$BATS_TEST_TMPDIR/a" || rc=$((rc + $?))
	kill -TERM "$st"
	wait "$st" || true
	wait_until [ -s "$BATS_TEST_TMPDIR/b.rc" ]
	rc=$((rc + $(cat "$BATS_TEST_TMPDIR/b.rc")))
	[ "$rc" -eq 1 ]
	results=$(jq -r '.results[0] | "\(.result):\(.errno)"' "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b" | sort | tr '\n' ' ')
	[ "$results" = "failed:ENXIO ok:null " ]
	[ "$(stream_links)" = "" ]
	[ "$(avail pci0000:00)" = 8 ]
}

@test "SIGTERM during a batch: the current disconnect completes, the rest is skipped, exit 143" {
	mount_live connect-generic
	run t connect 04:00.0 03:00.0 tsm0
	expect_status 0
	command -v strace >/dev/null || skip "strace not installed"
	# the signal comes while 0000:04:00.0's store is under way: tsmctl is held (stopped)
	# as the store returns, the signal queued, then let go; a signal during the store is
	# taken at that same point (LeakSanitizer cannot run under ptrace)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -o "$BATS_TEST_TMPDIR/trace" -P "$(dev 0000:04:00.0)/tsm/disconnect" \
		-e trace=write -e inject=write:signal=SIGSTOP \
		"$TSMCTL" --sysroot "$ROOT" disconnect -v 04:00.0 03:00.0 > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_held "$BATS_TEST_TMPDIR/trace"
	kill -TERM "$HELD"
	kill -CONT "$HELD"
	rc=0
	wait $pid || rc=$?
	[ "$rc" -eq 143 ]
	mapfile -t out < "$BATS_TEST_TMPDIR/out"
	[[ "${out[0]}" == "0000:04:00.0: disconnected from tsm0; removed stream0.0.0 on pci0000:00"* ]]
	[ "${out[1]}" = "0000:03:00.0: skipped (not attempted: interrupted by SIGTERM)" ]
	[ "${out[2]}" = "disconnected 1 of 2 devices (1 skipped)" ]
	[ "$(cat "$(dev 0000:04:00.0)/tsm/connect")" = "" ]
	[ "$(cat "$(dev 0000:03:00.0)/tsm/connect")" = tsm0 ]
}

@test "bad input is refused with exit 2 before anything is written" {
	mount_live sev-tio
	before=$(tree_digest)
	for args in "../x" "41:00.0/.." "41:00.0 tsm01" "41:00.0 tsmX" "41:00.0 tsm0 tsm0" \
		"--all 41:00.0" "" "41:00.0 41:00.0" "tsm0"; do
		# shellcheck disable=SC2086
		run --separate-stderr t disconnect $args
		expect_status 2 || { echo "accepted: '$args'"; return 1; }
	done
	run --separate-stderr t disconnect 41:00.0 TSM0
	expect_status 2
	[[ "$stderr" == "tsmctl disconnect: invalid PCI address 'TSM0' (expected [DDDD:]BB:DD.F, or [DDDD:]BB:DD for a slot)"* ]]
	run --separate-stderr t disconnect 41:00.0 tsm00
	[[ "$stderr" == "tsmctl disconnect: invalid TSM name 'tsm00' (expected tsmN)"* ]]
	run t disconnect --wait 1 41:00.0
	expect_status 2
	# well-formed but no such device: exit 1, as for a filter
	run --separate-stderr t disconnect 41:00.0 0000:99:00.0
	expect_status 1
	[ "$stderr" = "tsmctl disconnect: 0000:99:00.0: no such PCI device (see 'tsmctl devices --all')" ]
	[ "$(tree_digest)" = "$before" ]
}

@test "-v prints the path written; not root: EACCES says root is needed" {
	mount_live sev-tio
	open_path_to_root
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" disconnect 41:00.0
	expect_status 1
	[ "$stderr" = "tsmctl disconnect 0000:41:00.0: writing tsm/disconnect needs root (CAP_SYS_ADMIN): run tsmctl as root (EACCES)" ]
	[ "$(cat "$(dev 0000:41:00.0)/tsm/connect")" = tsm0 ]
	run --separate-stderr t disconnect -v 41:00.0
	expect_status 0
	[ "$stderr" = "tsmctl disconnect: writing 'tsm0' to $ROOT/sys/bus/pci/devices/0000:41:00.0/tsm/disconnect" ]
}
