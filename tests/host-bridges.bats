#!/usr/bin/env bats
# tsmctl host-bridges: pools, stream links, linked TSM.

load lib/helpers

setup() {
	ROOT=$(static_tree sev-tio)
}

@test "host-bridges -J on SEV-TIO: default pool 256, one stream used" {
	run t host-bridges -J
	[ "$status" -eq 0 ]
	json_is '.schema_version' 2
	json_is '.host_bridges[0] | keys' '["available_secure_streams","bus","domain","name","read_errors","streams","tsms"]'
	json_is '[.host_bridges[] | [.name, .domain, .bus, .available_secure_streams, .streams, .tsms, .read_errors]]' \
		'[["pci0000:00",0,0,256,[],[],{}],["pci0000:40",0,64,255,["stream0.0.0"],["tsm0"],{}],["pci0000:80",0,128,256,[],[],{}]]'
}

@test "host-bridges below a faux device, wide domains" {
	ROOT=$(static_tree devsec)
	run t host-bridges -J
	json_is '[.host_bridges[] | [.name, .domain, .bus, .available_secure_streams]]' \
		'[["pci10000:00",65536,0,4],["pci10001:02",65537,2,4]]'
}

@test "host-bridges: no pool file is null, not 0" {
	ROOT=$(static_tree no-tsm)
	run t host-bridges -J
	json_is '.host_bridges[0] | [.name, .available_secure_streams]' '["pci0000:00",null]'
}

@test "host-bridges: proposed tsmN/pciDDDD:BB link names the TSM" {
	mount_live devsec-proposed
	echo tsm0 > "$ROOT/sys/bus/pci/devices/10001:03:00.0/tsm/connect"
	[ -L "$ROOT/sys/class/tsm/tsm0/pci10001:02" ]
	run t host-bridges -J
	json_is '[.host_bridges[] | [.name, .available_secure_streams, .streams, .tsms]]' \
		'[["pci10000:00",4,[],[]],["pci10001:02",3,["stream0.0.0"],["tsm0"]]]'
	run t list -J
	json_is '.tsms[0].host_bridges' '["pci10001:02"]'
}

@test "host-bridges: a malformed pool value is null" {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/r.XXXXXX")
	cp -a "$(static_tree sev-tio)/." "$ROOT"
	echo -- -3 > "$ROOT/sys/devices/pci0000:80/available_secure_streams"
	printf '99999999999999999999999\n' > "$ROOT/sys/devices/pci0000:00/available_secure_streams"
	run --separate-stderr t host-bridges -J
	json_is '[.host_bridges[].available_secure_streams]' '[null,255,null]'
}

@test "host-bridges table, filters and columns" {
	run t host-bridges -n -r -o NAME,AVAILABLE,NSTREAMS -b pci0000:40
	[ "$output" = "pci0000:40 255 1" ]
	run t host-bridges -n -r -o NAME -t tsm0
	[ "$output" = "pci0000:40" ]
	run t host-bridges -o NAME,DOMAIN,BUS -n -r -b pci0000:80
	[ "$output" = "pci0000:80 0000 80" ]
	run t host-bridges -b 0000:40
	[ "$status" -eq 2 ]
}

@test "host-bridges found from the PCI side: VMD domain, ACPI tree, below the VMD endpoint" {
	ROOT=$(static_tree hosts-anywhere)
	run t host-bridges -J
	[ "$status" -eq 0 ]
	json_is '[.host_bridges[] | [.name, .available_secure_streams, .streams, .tsms]]' \
		'[["pci0000:00",16,[],[]],["pci7870:00",null,[],[]],["pci10000:e0",7,["stream0.0.0"],["tsm0"]]]'
	# a function belongs to its nearest host bridge: the VMD domain, not pci0000:00
	run t devices -J
	json_is '[.devices[] | select(.bdf == "10000:e1:00.0") | [.host_bridge, .root_port]]' '[["pci10000:e0","10000:e0:1d.0"]]'
	run t streams -J
	json_is '[.streams[] | [.host_bridge, .name, .tsm, .endpoint.bdf, .root_port.bdf]]' \
		'[["pci10000:e0","stream0.0.0","tsm0","10000:e1:00.0","10000:e0:1d.0"]]'
}

@test "host-bridges below nested platform devices (Arm SoC)" {
	ROOT=$(static_tree soc-pcie)
	run t host-bridges -J
	json_is '[.host_bridges[] | [.name, .available_secure_streams, .streams, .tsms]]' \
		'[["pci0000:00",4,[],[]],["pci0001:00",3,["stream0.0.0"],["tsm0"]]]'
}

@test "host-bridges without the pci_bus class: the old places still count" {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/r.XXXXXX")
	cp -a "$(static_tree devsec)/." "$ROOT"
	rm -rf "$ROOT/sys/class/pci_bus"
	run t host-bridges -n -r -o NAME
	[ "$output" = $'pci10000:00\npci10001:02' ]
}

@test "host-bridges costs the same whatever the number of functions" {
	command -v strace >/dev/null || skip "strace not installed"
	local n opens=()
	for n in 300 1200; do
		"$SIM" gen-large --functions $n --host-bridges 4 --streams 8 "$BATS_TEST_TMPDIR/h$n.json" >/dev/null
		"$SIM" build "$BATS_TEST_TMPDIR/h$n.json" "$BATS_TEST_TMPDIR/h$n" >/dev/null
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -qq -e trace=openat,openat2 -o "$BATS_TEST_TMPDIR/trace$n" \
			"$TSMCTL" --sysroot "$BATS_TEST_TMPDIR/h$n" host-bridges -J > "$BATS_TEST_TMPDIR/out$n"
		[ "$(jq '.host_bridges | length' "$BATS_TEST_TMPDIR/out$n")" = 4 ]
		opens+=("$(grep -c '"sys/' "$BATS_TEST_TMPDIR/trace$n")")
	done
	echo "sysfs opens: ${opens[*]}"
	[ "${opens[0]}" -eq "${opens[1]}" ]
}

teardown() {
	unmount_live
}

@test "host-bridges: a pool file with junk or one that cannot be read is marked, not 'no pool'" {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/r.XXXXXX")
	cp -a "$(static_tree sev-tio)/." "$ROOT"
	echo four > "$ROOT/sys/devices/pci0000:80/available_secure_streams"
	rm "$ROOT/sys/devices/pci0000:00/available_secure_streams"
	mkfifo "$ROOT/sys/devices/pci0000:00/available_secure_streams"
	run --separate-stderr t host-bridges -J
	expect_status 0
	json_is '[.host_bridges[] | [.name, .available_secure_streams, .read_errors]]' \
		'[["pci0000:00",null,{"available_secure_streams":"EINVAL"}],["pci0000:40",255,{}],["pci0000:80",null,{"available_secure_streams":"malformed"}]]'
	[ "$(grep -c 'could not be read or' <<<"$stderr")" -eq 1 ]
	run --separate-stderr t host-bridges -n -r -o NAME,AVAILABLE
	[ "$output" = $'pci0000:00 (unreadable)\npci0000:40 255\npci0000:80 (malformed)' ]
	# a host bridge with no pool at all stays "none"
	ROOT=$(static_tree no-tsm)
	run --separate-stderr t host-bridges -n -r -o NAME,AVAILABLE
	[ "${lines[0]}" = "pci0000:00 none" ]
}

@test "host-bridges without any host bridge names the tree it looked in, not /sys/devices" {
	ROOT=$(static_tree devsec-staging)
	run --separate-stderr t host-bridges
	expect_status 0
	[ "$stderr" = "tsmctl host-bridges: no PCI host bridge (pciDDDD:BB) found below $ROOT/sys/devices" ]
}

@test "host-bridges -d: the host bridge of any PCI function, a slot's, a VMD domain's" {
	run --separate-stderr t host-bridges -n -o NAME -d 41:00.0
	[ "$output" = "pci0000:40" ]
	# a function the devices view does not show (no TEE, IDE or DOE) has one too
	run --separate-stderr t host-bridges -n -o NAME -d 82:00.0,41:00
	[ "${lines[*]}" = "pci0000:40 pci0000:80" ]
	run --separate-stderr t host-bridges -n -o NAME -d 82:00.0 -b pci0000:40
	[ -z "$output" ]
	[ "$stderr" = "tsmctl host-bridges: no host bridge matches -d 0000:82:00.0 -b pci0000:40" ]
	run --separate-stderr t host-bridges -d 99:00.0 -J
	[ "$status" -eq 1 ]
	json_is '.host_bridges' '[]'
	ROOT=$(static_tree hosts-anywhere)
	run --separate-stderr t host-bridges -n -o NAME -d 10000:e1:00.0
	[ "$output" = "pci10000:e0" ]
	# the VMD endpoint that holds that domain sits below pci0000:00
	[ -d "$ROOT/sys/bus/pci/devices/0000:00:0e.0/pci10000:e0" ]
	run --separate-stderr t host-bridges -n -o NAME -d 00:0e.0
	[ "$output" = "pci0000:00" ]
}

@test "host-bridges --exhausted: the pools at 0, not those without one" {
	ROOT=$(static_tree audit-generic)
	run --separate-stderr t host-bridges -n -r -o NAME,AVAILABLE --exhausted
	[ "$output" = "pci0000:40 0" ]
	ROOT=$(static_tree tdx-connect)
	run --separate-stderr t host-bridges --exhausted
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$stderr" = "tsmctl host-bridges: no host bridge has an exhausted pool (available_secure_streams 0)" ]
	for c in devices streams list tree; do
		run --separate-stderr t "$c" --exhausted
		[ "$status" -eq 2 ] || { echo "$c: exit $status"; return 1; }
	done
}

@test "live: a pool used up is --exhausted, a disconnect takes it off" {
	mount_live audit-generic
	run --separate-stderr t host-bridges -n -o NAME --exhausted
	[ "$output" = "pci0000:40" ]
	run t disconnect --no-syslog 41:00
	expect_status 0
	[ "$(avail pci0000:40)" -eq 1 ]
	run --separate-stderr t host-bridges -n -o NAME --exhausted
	[ -z "$output" ]
	run t connect --no-syslog 41:00.0 tsm0
	[ "$(avail pci0000:40)" -eq 0 ]
	run --separate-stderr t host-bridges -n -o NAME --exhausted -d 41:00.2
	[ "$output" = "pci0000:40" ]
}
