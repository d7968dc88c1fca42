#!/usr/bin/env bats
# SEV-TIO as Linux 7.2 and 7.3 run it (ABI.md §2.3, §2.5): the endpoint
# enabled before the root port with both enable bits kept, the stream
# registered last, after the slow SPDM phase that holds pci_tsm_rwsem. What
# connect and audit say of a half-secure stream follows the order its
# registers show; audit, metrics and watch started while a connect is in
# flight report what the kernel shows once it is done, never a torn picture.

load lib/helpers

teardown() {
	release_holds "${ROOT:-}"	# a connect a failed test left held: its writer could not be reaped
	stop_bg "${CPID:-}"
	stop_bg "${WPID:-}"
	stop_bg "${APID:-}"
	unmount_live
}

GPU=0000:81:00.0

# gpu: the jq path of the GPU in sev-tio.json
gpu() {
	echo '(.. | objects | select(.bdf? == "0000:81:00.0"))'
}

# status / hint of the result of check ID about OBJECT in audit -J's $output
field_of() {
	printf '%s' "$output" | jq -r --arg id "$2" --arg obj "$3" \
		"[.checks[] | select(.id == \$id and .object == \$obj) | .$1] | if length == 1 then .[0] else \"\(length) results\" end"
}

# connect_in_flight: a topology whose GPU connect is held in its SPDM phase
# (spdm_manually), and the kernel's store to its tsm/connect in the background
# ($CPID), once the simulator holds it there: the pool shows the slot SEV-TIO
# takes at alloc, no link (ABI.md §2.5), and the store keeps pci_tsm_rwsem
connect_in_flight() {
	mount_live_jq sev-tio "$(gpu).faults = { \"spdm_manually\": true }"
	printf tsm0 > "$(dev $GPU)/tsm/connect" &
	CPID=$!
	wait_holding "$ROOT" spdm-done $GPU
	[ "$(avail pci0000:80)" = 255 ]
	[ -z "$(ls "$ROOT/sys/devices/pci0000:80" | grep '^stream')" ]
}

# started_in_flight PID: tsmctl (PID) started during the SPDM phase reads the
# tree until a tsm/ show() blocks it behind the held connect; then the phase
# ends and the connect's store returns
started_in_flight() {
	wait_blocked "$ROOT" "$1"
	release_step "$ROOT" spdm-done $GPU
	wait "$CPID"
	CPID=
}

# tsmctl_bg ARGS: tsmctl ARGS in the background ($APID), its output into files
tsmctl_bg() {
	"$TSMCTL" --sysroot "$ROOT" "$@" > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err" &
	APID=$!
}

# tsmctl_done: once it ends, its exit status, stdout and stderr in status, output
# and stderr, as run --separate-stderr leaves them
tsmctl_done() {
	status=0
	wait "$APID" || status=$?
	APID=
	output=$(cat "$BATS_TEST_TMPDIR/out")
	stderr=$(cat "$BATS_TEST_TMPDIR/err")
}

@test "7.x: connect says the endpoint came first and both stay enabled" {
	mount_live_jq sev-tio "$(gpu).faults = { \"insecure\": \"rp\" }"
	run --separate-stderr t connect -J $GPU tsm0
	expect_status 1
	json_is '.results[0] | [.result, .streams[0].endpoint_state, .streams[0].root_port_state]' \
		'["insecure","secure","insecure"]'
	[ "$stderr" = "tsmctl connect $GPU: connected to tsm0, but the stream is not SECURE on both partners (stream0.0.0 on pci0000:80: endpoint secure, root port insecure: both partners are enabled and the root port is not SECURE: it failed at the enable (SEV-TIO since Linux 7.x enables the endpoint, then the root port, and keeps both enabled whatever either answers) or dropped since (the only way on v6.19, which enabled the root port first)); the TSM kept it registered: 'tsmctl disconnect $GPU' releases it" ]
	# what the kernel shows: both enable bits, the root port's block INSECURE
	[ "$(sel_reg $GPU 0 ctl)" = 0x00c00001 ]
	[ "$(sel_reg 0000:80:01.1 0 ctl)" = 0x00000201 ]
	[ "$(sel_reg 0000:80:01.1 0 sts)" = 0x00000000 ]
}

@test "v6.19: connect says the root port came first and the endpoint was never enabled" {
	mount_live_jq sev-tio ".abi = \"v6.19\" | $(gpu).faults = { \"insecure\": \"rp\" }"
	run --separate-stderr t connect -J $GPU tsm0
	expect_status 1
	json_is '.results[0].streams[0] | [.endpoint_state, .root_port_state]' '["disabled","insecure"]'
	[[ "$stderr" == *"(stream0.0.0 on pci0000:80: endpoint disabled, root port insecure: SEV-TIO enabled the root port first and, as it did not reach SECURE, never enabled the endpoint (v6.19's order; 7.x enables the endpoint first and keeps both enabled));"* ]]
	[ "$(sel_reg $GPU 0 ctl)" = 0x00c00000 ]
	[ "$(sel_reg 0000:80:01.1 0 ctl)" = 0x00000201 ]
}

# audit_connected JQ: mount sev-tio.json changed by JQ, connect the GPU, audit -J it
audit_connected() {
	unmount_live
	mount_live_jq sev-tio "$1"
	run t connect $GPU tsm0
	run --separate-stderr t audit -J -d $GPU
}

@test "audit's hints follow the order the blocks show: 7.x, and each v6.19 shape" {
	audit_connected "$(gpu).faults = { \"insecure\": \"ep\" }"
	expect_status 1
	[ "$(field_of status stream.enabled pci0000:80/stream0.0.0)" = pass ]
	[ "$(field_of status stream.secure pci0000:80/stream0.0.0)" = fail ]
	[ "$(field_of hint stream.secure pci0000:80/stream0.0.0)" = "both partners are enabled and the endpoint is not SECURE: it failed at the enable (SEV-TIO since Linux 7.x enables the endpoint, then the root port, and keeps both enabled whatever either answers) or dropped since (the only way on v6.19, which enabled the root port first); disconnect and reconnect the endpoint; the kernel treats a drop to INSECURE like link-down: check the link (AER, dmesg)" ]
	audit_connected ".abi = \"v6.19\" | $(gpu).faults = { \"insecure\": \"ep\" }"
	[ "$(field_of status stream.enabled pci0000:80/stream0.0.0)" = fail ]
	[ "$(field_of hint stream.enabled pci0000:80/stream0.0.0)" = "the endpoint did not reach SECURE, so SEV-TIO disabled the root port it had enabled first again (v6.19's order; 7.x enables the endpoint first and keeps both enabled); disconnect and reconnect the endpoint" ]
	audit_connected ".abi = \"v6.19\" | $(gpu).faults = { \"insecure\": \"rp\" }"
	[[ "$(field_of hint stream.secure pci0000:80/stream0.0.0)" == "SEV-TIO enabled the root port first and, as it did not reach SECURE, never enabled the endpoint (v6.19's order;"*"like link-down: check the link (AER, dmesg)" ]]
}

@test "a stream that dropped on a v6.19 host is told as a drop, not as an enable order" {
	# broken.json (v6.19): stream0.0.0's root port dropped to INSECURE after a good connect
	ROOT=$(static_tree broken)
	run --separate-stderr t audit -J -b pci0000:40
	[ "$(field_of status stream.enabled pci0000:40/stream0.0.0)" = pass ]
	[[ "$(field_of hint stream.secure pci0000:40/stream0.0.0)" == "both partners are enabled and the root port is not SECURE: "*"or dropped since (the only way on v6.19, which enabled the root port first)"* ]]
}

@test "in flight: audit started during the SPDM phase reports the connect's outcome, no missing stream" {
	connect_in_flight
	tsmctl_bg audit -J
	started_in_flight "$APID"
	tsmctl_done
	[ "$(field_of status device.has-stream $GPU)" = pass ]
	[ "$(field_of status stream.link pci0000:80/stream0.0.0)" = pass ]
	[ "$(field_of status ide.untracked $GPU)" = pass ]
	printf '%s' "$output" | jq -e '[.checks[] | select(.id == "hostbridge.pool" and .object == "pci0000:80")][0].message == "255 available, 1 in use (the kernel'"'"'s default pool of 256: capacity unknown)"'
}

@test "in flight: metrics written during the SPDM phase count the stream the connect made" {
	connect_in_flight
	tsmctl_bg metrics
	started_in_flight "$APID"
	tsmctl_done
	expect_status 0
	[[ "$output" == *'tsmctl_streams{host_bridge="pci0000:80",state="secure"} 1'* ]]
	[[ "$output" == *'tsmctl_devices_connected 2'* ]]
	[[ "$output" == *'tsmctl_available_secure_streams{host_bridge="pci0000:80"} 255'* ]]
	[[ "$output" == *'tsmctl_audit_check_status{check="device.has-stream",status="pass"} 1'* ]]
}

@test "in flight: watch started during the SPDM phase knows the stream and sees it drop" {
	connect_in_flight
	OUT=$BATS_TEST_TMPDIR/watch.out
	ERR=$BATS_TEST_TMPDIR/watch.err
	"$TSMCTL" --sysroot "$ROOT" -v watch -i 0.1 > "$OUT" 2> "$ERR" &
	WPID=$!
	started_in_flight "$WPID"
	wait_for_line "$ERR" "checking every"
	# the baseline is the connect's outcome: both streams
	grep -q "1 TSM, 2 streams, " "$ERR"
	echo "drop $GPU rp" > "$ROOT/tsm-sim-control"
	wait_for_line "$OUT" "stream-insecure pci0000:80/stream0.0.0"
}
