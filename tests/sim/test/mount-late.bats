#!/usr/bin/env bats
# Late TSM registration on the live mount: KOBJ_ADD, then the tsm/ groups and
# KOBJ_CHANGE (ABI.md §1.1, §2.8), sent only from a private network namespace;
# and the test-only control file.

load helper

LISTEN="$BATS_TEST_DIRNAME/../uevent-listen"

setup() {
	NS=$(mktemp)
	unshare --net="$NS" true || skip "cannot create a network namespace"
}

teardown() {
	teardown_sim
	umount "$NS" 2>/dev/null || true
	rm -f "$NS"
}

in_ns() {
	nsenter --net="$NS" "$@"
}

# sev-tio without its boot connect, tsm0 given the JSON KNOBS
late_topology() {
	J=$(mktemp --suffix=.json)
	jq ".tsms[0] += $1 | del(.. | .connected?)" "$TOPO/sev-tio.json" > "$J"
}

# Mount $J live in the namespace at $M.
mount_in_ns() {
	M=$(mktemp -d)
	in_ns "$SIM" mount "$J" "$M"
}

# Start the listener in the namespace; events go to $EV once it is bound (listen_end stops it).
listen() {
	EV=$(mktemp)
	# nsenter itself, not in_ns: a function would run in a subshell that keeps the pid
	nsenter --net="$NS" "$LISTEN" "$POLL_SECONDS" > "$EV" 2> "$EV.err" &
	LPID=$!
	wait_for_line "$EV.err" listening
}

@test "register_after_ms: tsmN and the tsm/ groups appear later, add then change" {
	late_topology '{ "register_after_ms": 1500 }'
	listen
	start=$EPOCHREALTIME
	mount_in_ns
	S=$M/sys
	wait_until [ -e "$S/class/tsm/tsm0" ]
	# not before its time (a lower bound: a busy machine only adds to it); what
	# the tree shows before it is the held registration's test, below
	awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { exit !((e - s) * 1000 >= 1500) }'
	[ "$(readlink "$S/class/tsm/tsm0")" = "../../devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm/tsm0" ]
	dp=/devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm/tsm0
	wait_for_line "$EV" "^change $dp SUBSYSTEM=tsm "
	sleep "$SETTLE_MARGIN"	# for a third tsm event, which must not come
	listen_end
	[ -f "$S/bus/pci/devices/0000:81:00.0/tsm/connect" ]
	[ "$(cat "$S/bus/pci/devices/0000:81:00.0/authenticated")" = "" ]
	run grep "SUBSYSTEM=tsm" "$EV"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == "add $dp SUBSYSTEM=tsm SEQNUM=1 SENDER="* ]]
	[[ "${lines[1]}" == "change $dp SUBSYSTEM=tsm SEQNUM=2 SENDER="* ]]
	echo tsm0 > "$S/bus/pci/devices/0000:81:00.0/tsm/connect"
	[ "$(cat "$S/bus/pci/devices/0000:81:00.0/tsm/connect")" = tsm0 ]
}

@test "uevents: false registers without a word on the netlink socket" {
	late_topology '{ "register_after_ms": 300, "uevents": false }'
	listen
	mount_in_ns
	# the registration, seen in sysfs, closes the window: its events would have been sent by now
	wait_until [ -f "$M/sys/bus/pci/devices/0000:81:00.0/tsm/connect" ]
	[ -e "$M/sys/class/tsm/tsm0" ]
	sleep "$SETTLE_MARGIN"	# KOBJ_CHANGE follows the groups' sync: a margin for it
	listen_end
	if grep -q "SUBSYSTEM=tsm" "$EV"; then false; fi
}

@test "a late TSM with uevents is refused in PID 1's network namespace" {
	late_topology '{ "register_after_ms": 300 }'
	M=$(mktemp -d)
	run "$SIM" mount "$J" "$M"
	[ "$status" -eq 1 ]
	[[ "$output" == *"runs in PID 1's network namespace"*"unshare -n"* ]]
	if mountpoint -q "$M"; then false; fi
}

@test "control: register, unregister (tearing a connection down), errors" {
	late_topology '{ "register_manually": true }'
	mount_in_ns
	C=$M/tsm-sim-control
	S=$M/sys
	[ "$(stat -c %a "$C")" = 200 ]
	# no timer: it waits for the control file. No event closes this window: the margin
	# can only miss a timer that fires later, never fail a right simulator
	sleep "$SETTLE_MARGIN"
	# the class exists (the TSM core is loaded), the device does not yet, nor its groups
	[ -d "$S/class/tsm" ]
	[ -z "$(ls "$S/class/tsm")" ]
	[ ! -e "$S/devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm" ]
	[ ! -e "$S/bus/pci/devices/0000:81:00.0/tsm" ]
	[ ! -e "$S/bus/pci/devices/0000:81:00.0/authenticated" ]
	listen
	echo "register tsm0" > "$C"
	[ -e "$M/sys/class/tsm/tsm0" ]
	[ -f "$M/sys/bus/pci/devices/0000:81:00.0/tsm/connect" ]
	run bash -c "echo 'register tsm0' > '$C'"
	[ "$status" -ne 0 ]
	[[ "$output" == *"File exists"* ]]
	echo tsm0 > "$M/sys/bus/pci/devices/0000:81:00.0/tsm/connect"
	pool=$(cat "$M/sys/devices/pci0000:80/available_secure_streams")
	[ "$(ls "$M/sys/devices/pci0000:80" | grep -c '^stream')" = 1 ]
	# tsm_unregister() with a live connection tears it down
	echo "unregister tsm0" > "$C"
	[ "$(ls "$M/sys/devices/pci0000:80" | grep -c '^stream')" = 0 ]
	[ "$(cat "$M/sys/devices/pci0000:80/available_secure_streams")" = $((pool + 1)) ]
	[ ! -e "$M/sys/class/tsm/tsm0" ]
	[ ! -e "$M/sys/devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm" ]
	[ ! -e "$M/sys/bus/pci/devices/0000:81:00.0/tsm" ]
	listen_end	# the control file's writes send their events before they return
	run grep -o "^[a-z]* [^ ]*tsm0" "$EV"
	[ "${lines[*]}" = "add /devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm/tsm0 change /devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm/tsm0 remove /devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm/tsm0" ]
	for bad in "register tsm9" "bogus" "drop 0000:81:00.0 xx" "register"; do
		run bash -c "echo '$bad' > '$C'"
		[ "$status" -ne 0 ]
	done
}

@test "change_manually: the PCI registration waits for the control file's pci-register" {
	late_topology '{ "register_manually": true, "change_manually": true }'
	mount_in_ns
	C=$M/tsm-sim-control
	S=$M/sys
	dp=/devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm/tsm0
	try_write "pci-register tsm0" "$C"
	expect_errno "$ENXIO"	# not registered yet
	listen
	echo "register tsm0" > "$C"
	[ -e "$S/class/tsm/tsm0" ]	# device_add() done ...
	[ ! -e "$S/bus/pci/devices/0000:81:00.0/tsm" ]	# ... the PCI registration not
	echo "pci-register tsm0" > "$C"
	[ -f "$S/bus/pci/devices/0000:81:00.0/tsm/connect" ]
	try_write "pci-register tsm0" "$C"
	expect_errno "$EEXIST"
	listen_end
	run grep -o "^[a-z]* [^ ]*tsm0" "$EV"
	[ "${lines[*]}" = "add $dp change $dp" ]
	# only a late TSM has the two steps, and one way from the first to the second
	for f in '.tsms[0].change_manually = true' \
		 '.tsms[0] += { "register_manually": true, "change_manually": true, "change_after_ms": 5 }'; do
		jq "$f" "$TOPO/sev-tio.json" > "$J"
		run "$SIM" build "$J" "$M.static"
		[ "$status" -eq 1 ]
		[[ "$output" == *"change_manually"* ]]
	done
}

@test "control: drop and ide-fail change a live stream's status registers" {
	mount_topo sev-tio
	C=$M/tsm-sim-control
	EP=$M/sys/bus/pci/devices/0000:41:00.0/config
	RP=$M/sys/bus/pci/devices/0000:40:01.1/config
	# Selective block 0 status: after the one Link block of both ports (sev-tio)
	ep_sts() { local o; o=$(ext_cap "$EP" 0x30); u32 "$EP" $((o + 12 + 8 * $1 + 8)); }
	rp_sts() { local o; o=$(ext_cap "$RP" 0x30); u32 "$RP" $((o + 12 + 8 * $1 + 8)); }
	[ "$(ep_sts 1)" = 00000002 ]
	[ "$(rp_sts 1)" = 00000002 ]
	echo "ide-fail 0000:41:00.0 ep" > "$C"
	[ "$(ep_sts 1)" = 80000002 ]
	[ "$(rp_sts 1)" = 00000002 ]
	echo "drop 0000:41:00.0 rp" > "$C"
	[ "$(rp_sts 1)" = 00000000 ]
	[ "$(ep_sts 1)" = 80000002 ]
	# the stream link and accounting stay, as after the kernel's async transition
	[ -L "$M/sys/devices/pci0000:40/stream0.0.0" ]
	[ "$(cat "$M/sys/devices/pci0000:40/available_secure_streams")" = 255 ]
	run bash -c "echo 'drop 0000:81:00.0 ep' > '$C'"	# not connected: no stream
	[ "$status" -ne 0 ]
	run bash -c "echo 'drop 0000:99:00.0 ep' > '$C'"
	[ "$status" -ne 0 ]
}

@test "a write to a uevent file sends a synthetic event (kobject_synth_uevent), as udevadm trigger makes" {
	M=$(mktemp -d)
	in_ns "$SIM" mount "$TOPO/sev-tio.json" "$M"
	S=$M/sys
	U=01234567-89ab-cdef-0123-456789abcdef
	listen
	dp=/devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm/tsm0
	echo add > "$S/class/tsm/tsm0/uevent"
	echo "change $U A=1 bB2=xy" > "$S/bus/pci/devices/0000:81:00.0/uevent"
	printf 'add %s' "$U" > "$S/bus/pci/drivers/nvme/uevent"
	echo add > "$S/devices/pci0000:80/uevent"	# a host bridge: no bus, no class, no event
	# kobject_action_type() and kobject_action_args() refuse these, and nothing is sent
	for bad in bogus "add " "add x" "add 0123" "add $U a" "add $U =1" "add $U a=" \
		   "add $U a=b-c" "add ${U}x" "add $U  a=1" "Add"; do
		try_write "$bad" "$S/class/tsm/tsm0/uevent"
		expect_errno "$EINVAL"
	done
	listen_end	# a uevent file's write sends its event before it returns
	# the kernel's own events (other FUSE mounts' bdi devices) reach every namespace: not ours
	if grep -q "^add /devices/pci0000:80 " "$EV"; then false; fi
	run grep SYNTH_ "$EV"
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == "add $dp SUBSYSTEM=tsm SEQNUM="*" SYNTH_UUID=0" ]]
	[[ "${lines[1]}" == "change /devices/pci0000:80/0000:80:01.1/0000:81:00.0 SUBSYSTEM=pci SEQNUM="*" SYNTH_UUID=$U SYNTH_ARG_A=1 SYNTH_ARG_bB2=xy" ]]
	[[ "${lines[2]}" == "add /bus/pci/drivers/nvme SUBSYSTEM=drivers SEQNUM="*" SYNTH_UUID=$U" ]]
}
