#!/usr/bin/env bats
# Functions added while tsmctl looks (ABI.md §2.2, §2.8): a new VF below a
# connected DSM sends its add uevent before pci_tsm_init() gives it a
# context, and its tsm/ group comes with no uevent of its own. watch must
# report it once the group is there, however late.

load lib/helpers
load lib/netns

teardown() {
	release_holds "${ROOT:-}"	# a VF add a failed test left held: its writer could not be reaped
	stop_bg "${WPID:-}"
	stop_bg "${SPID:-}"
	unmount_live
	netns_teardown
}

GPU_JQ='(.. | objects | select(.bdf? == "0000:27:00.0"))'

# watch_bg ARGS: tsmctl -v watch -i 0.1 ARGS in the background (in the
# namespace when the test made one), once its baseline is taken; each of its
# scans ends with a config-stats line on stderr ($ERR)
watch_bg() {
	OUT=$BATS_TEST_TMPDIR/watch.out
	ERR=$BATS_TEST_TMPDIR/watch.err
	${NS:+nsenter --net=$NS} env TSMCTL_DEBUG=config-stats "$TSMCTL" --sysroot "$ROOT" -v watch -i 0.1 "$@" > "$OUT" 2> "$ERR" &
	WPID=$!
	wait_for_line "$ERR" "checking every"
}

# scans_at_least N: watch has finished N scans (the baseline is the first)
scans_at_least() {
	[ "$(grep -c 'config space: ' "$ERR")" -ge "$1" ]
}

# drained: the background watch has read every uevent sent so far (its socket,
# netlink port = its pid, holds nothing in the namespace's /proc/net/netlink)
drained() {
	in_ns awk -v pid="$WPID" '$2 == 15 && $3 == pid { found = 1; rmem = $5 }
		END { exit !(found && rmem == 0) }' /proc/net/netlink
}

# vf_held BDF: VF BDF is there and its pci_tsm_init() held: no tsm/ group yet
vf_held() {
	wait_until [ -d "$(dev "$1")" ] || return 1
	holding "$ROOT" pci-tsm-init "$1" || { echo "$1: pci_tsm_init() not held"; return 1; }
	[ ! -e "$(dev "$1")/tsm" ] || { echo "$1 has a tsm/ group already"; return 1; }
}

# nothing_reported_yet: watch, having scanned since the VF came, says nothing of it
nothing_reported_yet() {
	sleep "$SETTLE_MARGIN"	# after the positive event: the margin an absence gets
	! grep -q dependent-added "$OUT" || { cat "$OUT"; return 1; }
}

@test "watch: VFs added below a connected DSM are reported when their tsm/ group comes, after their add uevent" {
	netns_setup
	mount_late tdx-connect "$GPU_JQ.vfs |= (.count = 0 | .total = 4 | .tsm_init_manually = true)"
	run t connect 27:00.0 tsm0
	expect_status 0
	watch_bg
	( echo 2 > "$(dev 0000:27:00.0)/sriov_numvfs" ) &
	SPID=$!
	# each VF in turn: added, its add uevent read and a scan taken, no group yet, nothing said
	vf_held 0000:27:00.1
	wait_until drained
	wait_until scans_at_least 2
	nothing_reported_yet
	release_step "$ROOT" pci-tsm-init 0000:27:00.1
	wait_for_line "$OUT" "dependent-added 0000:27:00.1"
	vf_held 0000:27:00.2
	wait_until drained
	sleep "$SETTLE_MARGIN"	# the add read: the margin its scan gets to say something it must not
	[ "$(grep -c dependent-added "$OUT")" -eq 1 ]
	release_step "$ROOT" pci-tsm-init 0000:27:00.2
	wait_for_line "$OUT" "dependent-added 0000:27:00.2"
	wait "$SPID"
	SPID=
	grep -Eq " dependent-added 0000:27:00.1 a function of DSM 0000:27:00.0 \(tsm0\)$" "$OUT"
	# what the kernel shows: both VFs in the DSM's context
	[ "$(cat "$(dev 0000:27:00.1)/tsm/dsm")" = 0000:27:00.0 ]
	[ "$(cat "$(dev 0000:27:00.2)/tsm/dsm")" = 0000:27:00.0 ]
	# and when they go, so do their contexts
	echo 0 > "$(dev 0000:27:00.0)/sriov_numvfs"
	wait_for_line "$OUT" "dependent-removed 0000:27:00.2"
	grep -q " dependent-removed 0000:27:00.1 " "$OUT"
}

@test "watch: a group that comes without any uevent is still seen (no netlink events reach the watch)" {
	# outside the namespace the simulator sends no uevents: only the looks see the VF come
	mount_live_jq tdx-connect "$GPU_JQ.vfs |= (.count = 0 | .total = 4 | .tsm_init_manually = true)"
	run t connect 27:00.0 tsm0
	expect_status 0
	watch_bg
	( echo 1 > "$(dev 0000:27:00.0)/sriov_numvfs" ) &
	SPID=$!
	# a look saw the VF come and watch scanned again: no group, nothing said
	vf_held 0000:27:00.1
	wait_until scans_at_least 2
	nothing_reported_yet
	release_step "$ROOT" pci-tsm-init 0000:27:00.1
	wait_for_line "$OUT" "dependent-added 0000:27:00.1"
	wait "$SPID"
	SPID=
}

@test "watch -J: dependent events validate" {
	mount_live_jq tdx-connect "$GPU_JQ.vfs |= (.count = 0 | .total = 4)"
	run t connect 27:00.0 tsm0
	watch_bg -J
	echo 1 > "$(dev 0000:27:00.0)/sriov_numvfs"
	wait_for_line "$OUT" '"dependent-added"'
	echo 0 > "$(dev 0000:27:00.0)/sriov_numvfs"
	wait_for_line "$OUT" '"dependent-removed"'
	while read -r line; do
		python3 -c 'import json, sys, jsonschema; jsonschema.validate(json.loads(sys.argv[1]), json.load(open(sys.argv[2])))' \
			"$line" "$TOP/schema/watch.schema.json"
	done < "$OUT"
	run jq -c 'select(.event == "dependent-added") | del(.time)' "$OUT"
	[ "$output" = '{"schema_version":1,"event":"dependent-added","severity":"info","kind":"device","object":"0000:27:00.1","detail":"a function of DSM 0000:27:00.0 (tsm0)"}' ]
}

@test "wait: a steady stream of other uevents does not put off the look that finds a silent change" {
	netns_setup
	mount_late sev-tio 'del(.. | .connected?) | .tsms[0] += { "register_manually": true, "uevents": false }'
	OUT=$BATS_TEST_TMPDIR/wait.out
	ERR=$BATS_TEST_TMPDIR/wait.err
	noise_start 0.3 pci	# a busy host: a pci uevent every 0.3 s, none of them about the TSM
	nsenter --net="$NS" "$TSMCTL" --sysroot "$ROOT" -v wait --timeout infinity tsm0 > "$OUT" 2> "$ERR" &
	WPID=$!
	wait_for_line "$ERR" "still waiting (looked at sysfs: listening now)"
	sim_ctl register tsm0	# silent: only the periodic look can see it
	wait_gone "$WPID"	# the old code, whose every event put the look off, never ended
	wait "$WPID"
	WPID=
	grep -qx "tsmctl wait: ready (looked at sysfs: due 5 s after the last look)" "$ERR"
	[ "$(cat "$OUT")" = tsm0 ]
}
