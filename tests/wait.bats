#!/usr/bin/env bats
# tsmctl wait: the state first, then the tsm uevents (ABI.md §2.8), never a poll.

load lib/helpers
load lib/netns

LATE='del(.. | .connected?) | .tsms[0] += '

teardown() {
	release_held	# a process a failed test left held
	stop_bg "${WPID:-}"
	unmount_live
	netns_teardown
}

# Start "tsmctl -v wait ARGS" in the namespace; returns once it listens.
wait_bg() {
	OUT=$BATS_TEST_TMPDIR/wait.out
	ERR=$BATS_TEST_TMPDIR/wait.err
	# nsenter itself, not the in_ns function: a function would run in a subshell that keeps the pid
	nsenter --net="$NS" "$TSMCTL" --sysroot "$ROOT" -v wait "$@" > "$OUT" 2> "$ERR" &
	WPID=$!
	wait_for_line "$ERR" "listening for tsm uevents"
}

# wait_drained: until the background wait has read every uevent sent so far (its
# socket, netlink port = its pid, holds nothing in the namespace's /proc/net/netlink)
wait_drained() {
	wait_until drained
}

drained() {
	in_ns awk -v pid="$WPID" '$2 == 15 && $3 == pid { found = 1; rmem = $5 }
		END { exit !(found && rmem == 0) }' /proc/net/netlink
}

# The background wait's exit status into WRC.
wait_rc() {
	WRC=0
	wait "$WPID" || WRC=$?
	WPID=
}

@test "a TSM that is there already: exit 0 at once, its name on stdout, -J with mode" {
	ROOT=$(static_tree devsec-proposed)
	run --separate-stderr t wait
	expect_status 0
	[ "$output" = "$(printf 'tsm0\ntsm1')" ]
	run --separate-stderr t wait -J tsm1
	expect_status 0
	json_is '.schema_version' 1
	json_is '.tsms' '[{"name":"tsm1","id":1,"mode":"devsec","provider":"devsec_tsm"}]'
	run --separate-stderr t wait --timeout 0 tsm0
	expect_status 0
	[ "$output" = tsm0 ]
}

@test "usage: TSM names and --timeout are checked before anything waits" {
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t wait tsm01
	expect_status 2
	[[ "$stderr" == *"'tsm01' is not a TSM name (tsmN)"* ]]
	for bad in -1 abc 1e9 nan ""; do
		run --separate-stderr t wait --timeout "$bad" tsm0
		expect_status 2
		[[ "$stderr" == *"invalid --timeout value"* ]]
	done
	run --separate-stderr t wait -o NAME
	expect_status 2
}

@test "timeout: exit 1 with the TSM named and the provider modules" {
	ROOT=$(static_tree sev-tio)
	start=$EPOCHREALTIME
	run --separate-stderr t wait --timeout 0.4 tsm3
	expect_status 1
	[ "${stderr_lines[0]}" = "tsmctl wait: tsm3 not ready after 0.4 s" ]
	[[ "${stderr_lines[1]}" == "tsmctl wait: TSM provider modules: "*"ccp (AMD SEV-TIO): loaded"* ]]
	[ -z "$output" ]
	# a lower bound: a busy machine only makes it longer
	awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { exit !(e - s >= 0.4) }'
	run --separate-stderr t wait --timeout 0 tsm3
	expect_status 1
	[ "${stderr_lines[0]}" = "tsmctl wait: tsm3 not ready (--timeout 0: checked once)" ]
	ROOT=$(static_tree no-tsm)
	run --separate-stderr t wait --timeout 0
	expect_status 1
	[[ "$stderr" == "tsmctl wait: any TSM not ready (--timeout 0: checked once)"* ]]
}

@test "a TSM registering while it listens wakes it: exit 0, groups visible" {
	netns_setup
	mount_late sev-tio "$LATE"'{ "register_manually": true }'
	[ ! -e "$ROOT/sys/class/tsm/tsm0" ]
	wait_bg --timeout 60 tsm0
	wait_for_line "$ERR" "still waiting (looked at sysfs: listening now)"	# nothing registered
	kill -0 "$WPID"
	sim_ctl register tsm0
	wait_rc
	[ "$WRC" = 0 ]
	# woken by the event, not by the look due every 5 s or the deadline's
	grep -qx "tsmctl wait: ready (looked at sysfs: a tsm uevent)" "$ERR"
	[ "$(cat "$OUT")" = tsm0 ]
	[ -f "$ROOT/sys/bus/pci/devices/0000:81:00.0/tsm/connect" ]
}

@test "without a uevent (a container) it looks again: at the deadline, and every few seconds" {
	netns_setup
	mount_late sev-tio "$LATE"'{ "register_manually": true, "uevents": false }'
	command -v strace >/dev/null || skip "strace not installed"
	OUT=$BATS_TEST_TMPDIR/wait.out
	ERR=$BATS_TEST_TMPDIR/wait.err
	# held as it has written its second note, after the look once listening: the silent
	# register comes between that look and the deadline's, however slow the machine
	: > "$ERR"
	nsenter --net="$NS" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o "$BATS_TEST_TMPDIR/trace" -P "$ERR" -e trace=write -e inject=write:signal=SIGSTOP:when=2 \
		"$TSMCTL" --sysroot "$ROOT" -v wait --timeout 1 tsm0 > "$OUT" 2> "$ERR" &
	WPID=$!
	wait_held "$BATS_TEST_TMPDIR/trace"
	[ "$(tail -1 "$ERR")" = "tsmctl wait: still waiting (looked at sysfs: listening now)" ]
	sim_ctl register tsm0	# silent
	kill -CONT "$HELD"
	wait_rc
	[ "$WRC" = 0 ]
	grep -qx "tsmctl wait: ready (looked at sysfs: the deadline)" "$ERR"	# the deadline's own look
	[ "$(cat "$OUT")" = tsm0 ]
	sim_ctl unregister tsm0
	wait_bg --timeout infinity tsm0
	wait_for_line "$ERR" "still waiting (looked at sysfs: listening now)"
	sim_ctl register tsm0	# silent again: only the periodic look can end this wait
	wait_gone "$WPID"
	wait_rc
	[ "$WRC" = 0 ]
	grep -qx "tsmctl wait: ready (looked at sysfs: due 5 s after the last look)" "$ERR"
	[ "$(cat "$OUT")" = tsm0 ]
	# connect --wait decides as wait does: ready, so it connects
	run --separate-stderr in_ns "$TSMCTL" --sysroot "$ROOT" connect --no-syslog --wait 1 81:00.0 tsm0
	expect_status 0
	[ "$(cat "$ROOT/sys/bus/pci/devices/0000:81:00.0/tsm/connect")" = tsm0 ]
	[[ "$stderr" != *"gave up"* ]]
}

@test "other subsystems' uevents, however many, do not put off the look every 5 s (issue 45)" {
	netns_setup
	mount_late sev-tio "$LATE"'{ "register_manually": true, "uevents": false }'
	noise_start 0.5	# as the bdi adds of FUSE mounts coming and going on the host
	wait_bg --timeout infinity tsm0
	wait_for_line "$ERR" "still waiting (looked at sysfs: listening now)"
	sim_ctl register tsm0	# silent: only the look due every 5 s can see it
	wait_gone "$WPID"	# the old code, whose every event put the look off, never ended
	wait_rc
	[ "$WRC" = 0 ]
	grep -qx "tsmctl wait: ready (looked at sysfs: due 5 s after the last look)" "$ERR"
	[ "$(cat "$OUT")" = tsm0 ]
}

@test "ready means the PCI side is there: registered, not yet taken on, is not ready (proposed ABI: pci_mode)" {
	netns_setup
	# the PCI registration waits for pci-register: the checks below never race it
	mount_late tdx-connect-tiny '.tsms[0] += { "register_after_ms": 300, "change_manually": true }'
	D=$ROOT/sys/bus/pci/devices/0000:16:00.0
	wait_until [ -e "$ROOT/sys/class/tsm/tsm0" ]	# registered ...
	[ ! -e "$ROOT/sys/class/tsm/tsm0/pci_mode" ]	# ... not taken on for PCI yet
	[ ! -e "$D/tsm" ]
	run --separate-stderr in_ns "$TSMCTL" --sysroot "$ROOT" wait --timeout 0 tsm0
	expect_status 1
	[ "${stderr_lines[0]}" = "tsmctl wait: tsm0 not ready (--timeout 0: checked once)" ]
	# the advice for the missing tsm/connect in that window
	run --separate-stderr in_ns "$TSMCTL" --sysroot "$ROOT" connect --no-syslog 16:00.0 tsm0
	expect_status 1
	[[ "$stderr" == *"tsm0 is registered but not ready yet: "*"'tsmctl wait tsm0'"* ]]
	# connect --wait that runs out writes nothing, as wait says not ready
	run --separate-stderr in_ns "$TSMCTL" --sysroot "$ROOT" connect --no-syslog -J --wait 0.2 16:00.0 tsm0
	expect_status 1
	json_is '.results' '[]'
	[ "${stderr_lines[0]}" = "tsmctl connect: tsm0 not ready after 0.2 s" ]
	[ "${stderr_lines[-1]}" = "tsmctl connect: nothing written" ]
	sim_ctl pci-register tsm0
	run --separate-stderr in_ns "$TSMCTL" --sysroot "$ROOT" wait --timeout 60 tsm0
	expect_status 0
	[ -f "$D/tsm/connect" ]
	[ "$(cat "$ROOT/sys/class/tsm/tsm0/pci_mode")" = link ]
}

@test "ready means the PCI side is there: v6.19 without events, tsm/ on the DSM candidates decides" {
	netns_setup
	mount_late sev-tio "$LATE"'{ "register_manually": true, "uevents": false, "change_manually": true }'
	sim_ctl register tsm0	# device_add() only: the PCI registration waits for pci-register
	[ -e "$ROOT/sys/class/tsm/tsm0" ]
	[ ! -e "$ROOT/sys/bus/pci/devices/0000:81:00.0/tsm" ]
	run in_ns "$TSMCTL" --sysroot "$ROOT" wait --timeout 0 tsm0
	expect_status 1
	run in_ns "$TSMCTL" --sysroot "$ROOT" wait --timeout 0
	expect_status 1
	sim_ctl pci-register tsm0
	run in_ns "$TSMCTL" --sysroot "$ROOT" wait --timeout 0 tsm0
	expect_status 0
	# a host without any DSM candidate shows no tsm/ at all, and its TSM is ready all the same
	unmount_live
	mount_late sev-tio 'del(.. | .connected?) | del(.. | .tee?) | del(.. | .ide?)'
	[ -z "$(ls "$ROOT"/sys/bus/pci/devices/*/tsm/connect 2>/dev/null)" ]
	run in_ns "$TSMCTL" --sysroot "$ROOT" wait --timeout 0 tsm0
	expect_status 0
}

@test "a synthetic add (udevadm trigger at coldplug) of a ready TSM keeps it ready" {
	netns_setup
	mount_late devsec-proposed '.tsms[1] += { "register_manually": true }'
	wait_bg --timeout 60 tsm0 tsm1
	echo add > "$ROOT/sys/class/tsm/tsm0/uevent"	# SYNTH_UUID=0, after tsm0's real events
	printf 'add 01234567-89ab-cdef-0123-456789abcdef\n' > "$ROOT/sys/class/tsm/tsm0/uevent"
	wait_drained	# it took both in
	kill -0 "$WPID"	# tsm1 is not there yet
	sim_ctl register tsm1
	wait_rc
	[ "$WRC" = 0 ]
	[ "$(cat "$OUT")" = "$(printf 'tsm0\ntsm1')" ]
}

@test "KOBJ_ADD is not readiness: it waits for the KOBJ_CHANGE after the PCI registration" {
	netns_setup
	mount_late sev-tio "$LATE"'{ "register_manually": true, "change_manually": true }'
	wait_bg --timeout 60 tsm0
	sim_ctl register tsm0	# KOBJ_ADD; the PCI registration waits for pci-register
	[ -e "$ROOT/sys/class/tsm/tsm0" ]	# added ...
	[ ! -e "$ROOT/sys/bus/pci/devices/0000:81:00.0/tsm" ]	# ... not on the PCI side yet
	wait_for_line "$ERR" "still waiting (looked at sysfs: a tsm uevent)"	# it heard the add
	kill -0 "$WPID"
	sim_ctl pci-register tsm0
	wait_rc
	[ "$WRC" = 0 ]
	grep -qx "tsmctl wait: ready (looked at sysfs: a tsm uevent)" "$ERR"	# on the change
	[ -f "$ROOT/sys/bus/pci/devices/0000:81:00.0/tsm/connect" ]
}

@test "a forged tsm event only causes a re-check: the wait goes on" {
	netns_setup
	mount_late sev-tio "$LATE"'{ "register_manually": true }'
	wait_bg --timeout 60 tsm0
	wait_for_line "$ERR" "still waiting (looked at sysfs: listening now)"
	in_ns perl -e '
		socket(my $s, 16, 2, 15) or die "socket: $!";
		my $m = join("\0", "change\@/devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm/tsm0",
			"ACTION=change", "DEVPATH=/devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm/tsm0",
			"SUBSYSTEM=tsm", "SEQNUM=1") . "\0";
		send($s, $m, 0, pack("S x2 L L", 16, 0, 1)) or die "send: $!";
		send($s, "garbage without an at sign\0", 0, pack("S x2 L L", 16, 0, 1)) or die;'
	wait_for_line "$ERR" "still waiting (looked at sysfs: a tsm uevent)"	# the forged one
	wait_drained
	kill -0 "$WPID"	# and it goes on
	kill -TERM "$WPID"
	wait_rc
	[ "$WRC" = 143 ]
	[ ! -e "$ROOT/sys/class/tsm/tsm0" ]
}

# send_uevent FIELD...: one message of the NUL-joined FIELDs to group 1, from inside the namespace.
send_uevent() {
	in_ns perl -e 'socket(my $s, 16, 2, 15) or die "socket: $!";
		send($s, join("\0", @ARGV) . "\0", 0, pack("S x2 L L", 16, 0, 1)) or die "send: $!";' "$@"
}

@test "only a well-formed tsm uevent makes it look again" {
	netns_setup
	mount_late sev-tio "$LATE"'{ "register_manually": true }'
	dp=/devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm/tsm0
	wait_bg --timeout 60 tsm0
	send_uevent "change@$dp" ACTION=change "DEVPATH=$dp" SUBSYSTEM=pci SEQNUM=7	# not tsm
	send_uevent "change@$dp" ACTION=change DEVPATH=/devices/other SUBSYSTEM=tsm	# contradicts the header
	send_uevent "change@$dp" ACTION=add "DEVPATH=$dp" SUBSYSTEM=tsm	# likewise
	send_uevent "change$dp" SUBSYSTEM=tsm	# no ACTION@DEVPATH header
	send_uevent "change@/devices/x/tsm/tsmX" SUBSYSTEM=tsm	# not a TSM name
	wait_drained	# it has read them all, and none made it look
	if grep -q "(looked at sysfs: a tsm uevent)" "$ERR"; then false; fi
	send_uevent "change@$dp" ACTION=change "DEVPATH=$dp" SUBSYSTEM=tsm SEQNUM=8
	wait_for_line "$ERR" "still waiting (looked at sysfs: a tsm uevent)"
	sim_ctl register tsm0
	wait_rc
	[ "$WRC" = 0 ]
	[ "$(cat "$OUT")" = tsm0 ]
}

@test "a socket overrun (ENOBUFS) makes it decide from sysfs" {
	netns_setup
	mount_late sev-tio "$LATE"'{ "register_manually": true, "uevents": false }'
	wait_bg --timeout 60 tsm0
	wait_for_line "$ERR" "still waiting (looked at sysfs: listening now)"	# then it sleeps on the socket
	kill -STOP "$WPID"
	sim_ctl register tsm0	# silent
	# far more than its receive buffer holds, none of them a tsm event
	in_ns perl -e 'socket(my $s, 16, 2, 15) or die; my $to = pack("S x2 L L", 16, 0, 1);
		for my $i (1 .. 30000) {
			send($s, "add\@/devices/virtual/x/y$i\0ACTION=add\0DEVPATH=/devices/virtual/x/y$i\0SUBSYSTEM=x\0", 0, $to) or die "send: $!";
		}'
	kill -CONT "$WPID"
	wait_rc
	[ "$WRC" = 0 ]
	grep -qx "tsmctl wait: ready (looked at sysfs: a socket overrun, events lost)" "$ERR"
	[ "$(cat "$OUT")" = tsm0 ]
}

@test "any TSM, several named: returns once all named are ready" {
	netns_setup
	mount_late devsec-proposed '.tsms[1] += { "register_manually": true }'
	run in_ns "$TSMCTL" --sysroot "$ROOT" wait --timeout 0
	expect_status 0
	[ "$output" = tsm0 ]
	wait_bg --timeout 60 tsm0 tsm1
	wait_for_line "$ERR" "still waiting (looked at sysfs: listening now)"
	kill -0 "$WPID"
	sim_ctl register tsm1
	wait_rc
	[ "$WRC" = 0 ]
	[ "$(cat "$OUT")" = "$(printf 'tsm0\ntsm1')" ]
}

@test "a coldplug's synthetic add of a ready TSM leaves it ready (udevadm trigger between two registrations)" {
	netns_setup
	mount_late devsec-proposed '.tsms[0] += { "register_manually": true } | .tsms[1] += { "register_manually": true }'
	wait_bg --timeout 60 tsm0 tsm1
	sim_ctl register tsm0	# add, change: ready
	echo add > "$ROOT/sys/class/tsm/tsm0/uevent"	# what udevadm trigger writes: add with SYNTH_UUID=0
	wait_drained	# it took the events in; tsm1 is still missing
	kill -0 "$WPID"
	sim_ctl register tsm1
	wait_rc
	[ "$WRC" = 0 ]
	[ "$(cat "$OUT")" = "$(printf 'tsm0\ntsm1')" ]
}

@test "SIGINT exits 130, SIGTERM 143, with a message" {
	netns_setup
	mount_late sev-tio "$LATE"'{ "register_manually": true }'
	wait_bg tsm0
	kill -INT "$WPID"
	wait_rc
	[ "$WRC" = 130 ]
	grep -qx "tsmctl wait: interrupted while waiting for tsm0" "$ERR"
	wait_bg --timeout infinity tsm0
	kill -TERM "$WPID"
	wait_rc
	[ "$WRC" = 143 ]
}

@test "a TSM named twice is a usage error (as a device given twice to connect), not printed twice" {
	ROOT=$(static_tree devsec-proposed)
	run --separate-stderr t wait tsm0 tsm0
	expect_status 2
	[ "${stderr%%$'\n'*}" = "tsmctl wait: tsm0 is given twice" ]
	[ -z "$output" ]
	run --separate-stderr t wait tsm1 tsm0
	expect_status 0
	[ "$output" = "$(printf 'tsm1\ntsm0')" ]
}
