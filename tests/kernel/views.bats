#!/usr/bin/env bats
# tsmctl's read views on the real kernel: every table and -J document (the
# documents validated by schema/ through tests/lib/check-json), audit on a
# healthy provider and on one whose stream fell INSECURE, and metrics.

load kernel

setup_file() {
	tt_load || return 1
	# two connected devices: one stream on each host bridge, and a dependent
	"$TSMCTL" connect "$EP0" "$EP2" tsm0 >/dev/null
}

teardown_file() {
	tt_unload
}

@test "every read view prints its table, and its -J validates against the schema" {
	man=$BATS_TEST_TMPDIR/manifest
	: >"$man"
	while read -r schema args; do
		out=$BATS_TEST_TMPDIR/$(echo "$args" | tr ' ' _).json
		# shellcheck disable=SC2086 # the words of a case split on purpose
		run "$TSMCTL" $args
		[ "$status" -le 1 ] || { echo "tsmctl $args: exit $status: $output"; return 1; }
		[ -n "$output" ] || { echo "tsmctl $args printed nothing"; return 1; }
		# shellcheck disable=SC2086
		"$TSMCTL" $args -J >"$out" || [ $? -eq 1 ]
		printf '%s\tdoc\t%s\t%s\n' "$schema" "$out" "kernel: tsmctl $args -J" >>"$man"
	done <<-EOF
		list list
		devices devices
		devices devices --all
		devices devices -v
		streams streams
		host-bridges host-bridges
		tree tree
		tree tree --all
		audit audit
		audit audit --short --strict
		wait wait --timeout 0
	EOF
	run "$TOP/tests/lib/check-json" "$TOP/schema" "$man"
	expect_status 0
	[ "$(wc -l <"$man")" -eq 11 ]
}

@test "tables name what the kernel shows" {
	run "$TSMCTL" streams
	expect_status 0
	awk -v ep=$EP0 -v rp=$RP0 '$1 == "pci10000:00" && $2 == "stream0.0.0" && $3 == 0 &&
		$4 == "tsm0" && $5 == ep && $6 == "secure" && $7 == rp && $8 == "secure" { ok = 1 }
		END { exit !ok }' <<<"$output"
	run "$TSMCTL" devices -o BDF,CONNECTED,DSM
	expect_status 0
	awk -v ep=$EP0 '$1 == ep && $2 == "tsm0" && $3 == ep { a = 1 }
		$1 == "10000:01:00.1" && $2 == ep { b = 1 } END { exit !(a && b) }' <<<"$output"
	run "$TSMCTL" tree
	expect_status 0
	[[ "$output" == *stream0.0.0* && "$output" == *"$EP2"* ]]
}

@test "audit on a healthy provider: no failure, each stream secure on both partners" {
	run --separate-stderr "$TSMCTL" audit -J
	expect_status 0
	json_is '[.checks[] | select(.status == "fail")] | length' '0'
	json_is '[.checks[] | select(.id == "stream.secure") | {object, status}]' \
		'[{"object":"pci10000:00/stream0.0.0","status":"pass"},{"object":"pci10001:00/stream0.0.0","status":"pass"}]'
	json_is '[.checks[] | select(.id == "hostbridge.pool" and .object == "pci10000:00") | .message]' \
		'["3 available, 1 in use"]'
}

@test "audit on a faulted provider: the endpoint's stream fell INSECURE" {
	echo "$EP0" >/sys/module/tsmtest_bus/parameters/insecure
	run --separate-stderr "$TSMCTL" audit -J
	echo >/sys/module/tsmtest_bus/parameters/insecure
	expect_status 1
	json_is '[.checks[] | select(.id == "stream.secure" and .status == "fail") | .object]' \
		'["pci10000:00/stream0.0.0"]'
	[ "$(sel_sts $EP0 0)" = 0x00000002 ]	# and back once the fault is gone
	run --separate-stderr "$TSMCTL" audit -J
	expect_status 0
}

@test "metrics: the exposition reads as Prometheus's parsers read it, with the kernel's counts" {
	run "$TSMCTL" metrics
	expect_status 0
	grep -qx 'tsmctl_tsms 1' <<<"$output"
	grep -qx 'tsmctl_devices_connected 2' <<<"$output"
	grep -qx 'tsmctl_streams{host_bridge="pci10000:00",state="secure"} 1' <<<"$output"
	grep -qx 'tsmctl_available_secure_streams{host_bridge="pci10001:00"} 3' <<<"$output"
	grep -qx 'tsmctl_available_secure_streams{host_bridge="pci0000:00"} 256' <<<"$output"
	if command -v promtool >/dev/null; then
		printf '%s\n' "$output" | "$TOP/tests/lib/promtext-check"
	fi
}
