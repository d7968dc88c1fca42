#!/usr/bin/env bats
# tsmctl on Intel TDX Connect hosts (ABI.md §2.6) against the simulator's
# tdx-connect provider: what an administrator meets on day one, checked by
# what the kernel shows afterwards.

load lib/helpers

teardown() {
	unmount_live
}

# mount_variant JQ-FILTER [TOPOLOGY]: a changed copy of a shipped topology, mounted at ROOT
mount_variant() {
	local j="$BATS_TEST_TMPDIR/variant.json"
	jq "$1" "$TOPO/${2:-tdx-connect-tiny}.json" > "$j"
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	"$SIM" mount "$j" "$ROOT"
}

nic() {
	echo '(.. | objects | select(.bdf? == "0000:16:00.0"))'
}

# Assert: audit check ID on OBJECT has STATUS and its message contains TEXT (audit -J in $output).
has() {
	local got
	got=$(printf '%s' "$output" | jq -r --arg id "$1" --arg obj "$2" \
		'[.checks[] | select(.id == $id and .object == $obj) | "\(.status)|\(.message)"] | .[0] // "none"')
	[[ "$got" == "$3|"*"${4:-}"* ]] || { echo "$1 $2: expected $3 '${4:-}', got $got"; return 1; }
}

# A Selective block register of FUNCTION's config: block K, byte OFFSET within it.
blk_off() {
	local b
	b=$(sel_block "$(dev "$1")/config" "$2") || return 1
	echo $((b + $3))
}

@test "list: the TDX module's version from tdx_host, a default column; -J provider_version" {
	ROOT=$(static_tree tdx-connect)
	run --separate-stderr t list
	expect_status 0
	[ "${lines[0]}" = "NAME   MODE   PROVIDER       DRIVER      VERSION DEVICES STREAMS HOST-BRIDGES" ]
	[[ "${lines[1]}" == "tsm0   link   tdx_host       faux_driver 2.0.08 "* ]]
	run --separate-stderr t list -J
	json_is '.tsms[0] | [.provider, .provider_version, .mode]' '["tdx_host","2.0.08","link"]'
	# a provider without a version attribute (the PSP) keeps the old default columns
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t list
	[[ "${lines[0]}" != *VERSION* ]]
	run --separate-stderr t list -J
	json_is '.tsms[0].provider_version' null
}

@test "host-bridges: no pool (no file, no KEYP entry) reads 'none' and null; a full pool 0" {
	ROOT=$(static_tree tdx-connect)
	run --separate-stderr t host-bridges -n -r -o NAME,AVAILABLE
	expect_status 0
	[ "$output" = "$(printf '%s\n' 'pci0000:00 none' 'pci0000:15 3' 'pci0000:26 2' 'pci0000:37 none' \
		'pci0000:6a 1' 'pci10000:00 none')" ]
	run --separate-stderr t host-bridges -J
	json_is '[.host_bridges[] | [.name, .available_secure_streams]]' \
		'[["pci0000:00",null],["pci0000:15",3],["pci0000:26",2],["pci0000:37",null],["pci0000:6a",1],["pci10000:00",null]]'
	# KEYP 0: a pool of one; after the one connect it is full, which is not "none"
	mount_variant '.host_bridges[0].keyp_streams = 0'
	run t connect 16:00.0 tsm0
	expect_status 0
	[ "$(avail pci0000:15)" = 0 ]
	run --separate-stderr t host-bridges -n -r -o NAME,AVAILABLE
	[ "$output" = "$(printf '%s\n' 'pci0000:15 0' 'pci0000:37 none')" ]
	run --separate-stderr t host-bridges -J
	json_is '[.host_bridges[].available_secure_streams]' '[0,null]'
}

@test "devices: a TEE device a connect would fail for (no pool, an RCiEP) is named on stderr, the others are not" {
	ROOT=$(static_tree tdx-connect)
	why=$'tsmctl devices: 0000:38:00.0 cannot be connected: its host bridge pci0000:37 has no IDE stream pool (no available_secure_streams)\ntsmctl devices: 0000:6a:01.0 cannot be connected: it is a root complex integrated endpoint, and the kernel\'s IDE helpers set up streams only for PCIe endpoints'
	run --separate-stderr t devices
	expect_status 0
	[ "$stderr" = "$why" ]
	[[ "$output" == *"0000:38:00.0 NVMe SSD Controller PM174X"* ]]
	run --separate-stderr t devices -J
	[ "$stderr" = "$why" ]
	json_is '[.devices[] | select(.bdf == "0000:38:00.0") | .host_bridge]' '["pci0000:37"]'
	# filtered out of the view: not said
	run --separate-stderr t devices -d 27:00.0
	[ -z "$stderr" ]
}

@test "connect --dry-run: a device below a host bridge without a pool would fail, and counts as failing; nothing written" {
	mount_live tdx-connect-tiny
	before=$(tree_digest)
	run --separate-stderr t connect --dry-run 38:00.0 tsm0
	expect_status 1
	[ "${lines[0]}" = "0000:38:00.0: failed" ]
	[ "${lines[1]}" = "would connect 0 of 1 device (1 failed)" ]
	[[ "$stderr" == "tsmctl connect 0000:38:00.0: would write 'tsm0' to "*"/sys/bus/pci/devices/0000:38:00.0/tsm/connect, but the connect would fail: its host bridge pci0000:37 has no IDE stream pool (no available_secure_streams), so tsm0 cannot set up an IDE stream" ]]
	run --separate-stderr t connect --dry-run -J 38:00.0 tsm0
	expect_status 1
	json_is '.results[0] | [.result, .errno, .available_secure_streams]' '["failed",null,null]'
	json_is '.results[0].message | test("but the connect would fail: its host bridge pci0000:37 has no IDE stream pool")' true
	# a batch stops there as it would for a real failure; --keep-going goes on
	run --separate-stderr t connect --dry-run -J 38:00.0 16:00.0 tsm0
	expect_status 1
	json_is '[.results[].result]' '["failed","skipped"]'
	run --separate-stderr t connect --dry-run -J --keep-going 38:00.0 16:00.0 tsm0
	expect_status 1
	json_is '[.results[].result]' '["failed","dry-run"]'
	# a device with a pool: would connect
	run --separate-stderr t connect --dry-run 16:00.0 tsm0
	expect_status 0
	[[ "${lines[0]}" == "0000:16:00.0: would write 'tsm0' to "* ]]
	[ -z "$stderr" ]
	[ "$(tree_digest)" = "$before" ]
}

@test "connect below a host bridge without a pool: ENOMEM, told why, nothing left behind" {
	mount_live tdx-connect-tiny
	run --separate-stderr t connect 38:00.0 tsm0
	expect_status 1
	[ "${lines[0]}" = "0000:38:00.0: failed (ENOMEM)" ]
	[[ "$stderr" == "tsmctl connect 0000:38:00.0: tsm0 could not set up an IDE stream: its host bridge pci0000:37 has no IDE stream pool (no available_secure_streams), so no TSM can connect a device below it (on Intel TDX Connect the pool comes from the ACPI KEYP table: this host bridge has no entry); nothing is left behind (tsm/connect reads empty, no stream) (ENOMEM)" ]]
	[ -z "$(cat "$(dev 0000:38:00.0)/tsm/connect")" ]
	[ -z "$(stream_links pci0000:37)" ]
}

@test "connect and disconnect: the module's Stream ID in the result, streams, and the registers" {
	mount_live tdx-connect-tiny
	run --separate-stderr t connect 16:00.0 tsm0
	expect_status 0
	[ "${lines[0]}" = "0000:16:00.0: connected to tsm0: stream0.0.0 on pci0000:15 (Stream ID 40), endpoint secure, root port secure" ]
	[ "$(cat "$(dev 0000:16:00.0)/tsm/connect")" = tsm0 ]
	[ "$(readlink -f "$ROOT/sys/class/tsm/tsm0/pci0000:15")" = "$(readlink -f "$ROOT/sys/devices/pci0000:15")" ]
	[ "$(avail pci0000:15)" = 1 ]
	run --separate-stderr t streams -n -r -o NAME,ID,EP-STATE,RP-STATE
	[ "$output" = "stream0.0.0 40 secure secure" ]
	run --separate-stderr t streams -J
	json_is '[.streams[] | [.name, .stream_id]]' '[["stream0.0.0",40]]'
	# the endpoint block is the default stream (control bit 22)
	ctl=$(cfg_word "$(dev 0000:16:00.0)/config" "$(blk_off 0000:16:00.0 0 4)")
	[ $((ctl & 0x400000)) -ne 0 ]
	[ $((ctl >> 24)) -eq 40 ]
	run --separate-stderr t disconnect 16:00.0
	expect_status 0
	[[ "${lines[0]}" == "0000:16:00.0: disconnected from tsm0; removed stream0.0.0 on pci0000:15 (Stream ID 40)"*"; 2 secure streams available" ]]
	[ -z "$(cat "$(dev 0000:16:00.0)/tsm/connect")" ]
	[ ! -e "$ROOT/sys/class/tsm/tsm0/pci0000:15" ]
	[ "$(avail pci0000:15)" = 2 ]
}

@test "connect ENOMEM from the stream resources (fault knob): pool or TSM resources, see the kernel log" {
	mount_variant "$(nic) .faults = {\"stream_alloc_fail\": true}"
	run --separate-stderr t connect -J 16:00.0 tsm0
	expect_status 1
	json_is '.results[0] | [.result, .errno, .available_secure_streams, .streams]' '["failed","ENOMEM",2,[]]'
	json_is '.results[0].message | startswith("tsm0 could not set up an IDE stream: no free Selective IDE register block in the endpoint or in its root port 0000:15:01.0, or the TSM itself ran out of stream resources (the TDX module'"'"'s, with TDX Connect); see the kernel log")' true
	[ -z "$(cat "$(dev 0000:16:00.0)/tsm/connect")" ]
}

@test "connect EFAULT (a SEAMCALL failed): the TDX module refused, with its version and what to check" {
	mount_variant "$(nic) .faults = {\"seamcall_fail\": true}"
	run --separate-stderr t connect 16:00.0 tsm0
	expect_status 1
	[ "${lines[0]}" = "0000:16:00.0: failed (EFAULT)" ]
	[ "$stderr" = "tsmctl connect 0000:16:00.0: the TDX module refused (a SEAMCALL failed, which tsm0 reports as EFAULT): check that TDX Connect is enabled in the firmware and the module supports it (tdx_host version 2.0.08), and the kernel log for the SEAMCALL's status code; nothing is left behind (tsm/connect reads empty, no stream) (EFAULT)" ]
	[ -z "$(cat "$(dev 0000:16:00.0)/tsm/connect")" ]
	[ -z "$(stream_links pci0000:15)" ]
	[ "$(avail pci0000:15)" = 2 ]
	# the module out of Stream IDs is the same SEAMCALL failure
	unmount_live
	mount_variant '.tsms[0].stream_ids = []'
	run --separate-stderr t connect 16:00.0 tsm0
	expect_status 1
	[[ "$stderr" == *"the TDX module refused (a SEAMCALL failed"* ]]
}

# jq: the NIC's bridge without a prefetchable window, the NIC with one non-prefetchable BAR (an NVMe's shape)
no_pref() {
	echo '.host_bridges[0].devices[0] |= del(.pref_window) | (.host_bridges[0].devices[0].children[0].bars[0] |= (.base = "0xa4000000" | .size = "0x8000" | .prefetchable = false))'
}

@test "TDX's association rule: EFAULT explained after a connect, and predicted by --dry-run, --all, devices and audit" {
	mount_variant "$(no_pref)"
	why="the bridge above it (0000:15:01.0) has no prefetchable memory window, and TDX Connect refuses a stream whose root port has no address association left but that window (EFAULT): a device with non-prefetchable BARs alone cannot be connected"
	# a dry run that knows the connect fails counts as failing (as a host bridge without a pool)
	run --separate-stderr t connect --dry-run 16:00.0 tsm0
	expect_status 1
	[ "${lines[0]}" = "0000:16:00.0: failed" ]
	[[ "$stderr" == "tsmctl connect 0000:16:00.0: would write 'tsm0' to "*"/tsm/connect, but the connect would fail: $why" ]]
	run --separate-stderr t devices
	[[ "$stderr" == *"tsmctl devices: 0000:16:00.0 cannot be connected: $why"* ]]
	run --separate-stderr t audit -J
	has device.connected 0000:16:00.0 skip "$why"
	run --separate-stderr t connect --all tsm0
	[[ "$stderr" == *"--all leaves out 0000:16:00.0: $why"* ]]
	[ -z "$(cat "$(dev 0000:16:00.0)/tsm/connect")" ]
	# named, it is tried: the kernel's EFAULT, and its cause
	run --separate-stderr t connect 16:00.0 tsm0
	expect_status 1
	[ "${lines[0]}" = "0000:16:00.0: failed (EFAULT)" ]
	[ "$stderr" = "tsmctl connect 0000:16:00.0: tsm0 could not set up an IDE stream: $why; nothing is left behind (tsm/connect reads empty, no stream) (EFAULT)" ]
	[ -z "$(stream_links pci0000:15)" ]
	[ "$(avail pci0000:15)" = 2 ]
	# a root port without address-association blocks: the same refusal, told so
	unmount_live
	mount_variant '.host_bridges[0].devices[0].ide.addr_assoc = 0'
	run --separate-stderr t connect 16:00.0 tsm0
	expect_status 1
	[[ "$stderr" == *"tsm0 could not set up an IDE stream: its root port 0000:15:01.0 has no IDE address-association blocks, and TDX Connect refuses a stream without one for the prefetchable window (EFAULT)"* ]]
	run --separate-stderr t audit -J
	has device.connected 0000:16:00.0 skip "its root port 0000:15:01.0 has no IDE address-association blocks"
}

@test "list: the TDX module's version on a TDX host without TDX Connect (no TSM), said on stderr" {
	ROOT=$BATS_TEST_TMPDIR/no-connect
	jq 'del(.tsms) | .tdx_host = {"version": "1.5.16", "seamldr_version": "1.5.02"}' \
		"$TOPO/tdx-connect-tiny.json" > "$BATS_TEST_TMPDIR/no-connect.json"
	"$SIM" build "$BATS_TEST_TMPDIR/no-connect.json" "$ROOT"
	run --separate-stderr t list
	expect_status 0
	[[ "$stderr" == *"tsmctl list: a TDX host: tdx_host shows TDX module 1.5.16, but it registered no TSM (its kernel driver or the TDX module has no TDX Connect)"* ]]
	run --separate-stderr t list -J
	json_is '.tsms' '[]'
	# with TDX Connect the version is a column (above), and nothing more is said
	ROOT=$(static_tree tdx-connect)
	run --separate-stderr t list
	[ -z "$stderr" ]
}

@test "audit: clean on the TDX host; the no-pool device is skip, the TDX TSM named, the RP association checked" {
	ROOT=$(static_tree tdx-connect)
	run --separate-stderr t audit -J
	expect_status 0
	[ "$(printf '%s' "$output" | jq -c '[.checks[] | select(.status == "fail")]')" = '[]' ]
	has device.connected 0000:38:00.0 skip "its host bridge pci0000:37 has no IDE stream pool (no available_secure_streams): no TSM can connect it"
	has device.connected 0000:27:00.0 warn "not connected"
	has platform.tsm-mode tsm0 pass "pci_mode link: Intel TDX Connect on tdx_host (TDX module 2.0.08)"
	has stream.addr pci0000:15/stream0.0.0 pass "root port 0000:15:01.0 block 0: the prefetchable window 0x21000000000-0x2100fffffff alone"
	has stream.id pci0000:15/stream0.0.0 pass "Stream ID 32 on both partners"
	# --strict: the skip does not count, the unconnected GPU does
	run --separate-stderr t audit --strict -d 38:00.0
	expect_status 0
	run --separate-stderr t audit --strict -d 27:00.0
	expect_status 1
	# a SEV-TIO host has no rule of its own: no stream.addr result at all
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t audit -J
	json_is '[.checks[] | select(.id == "stream.addr")]' '[]'
}

@test "audit stream.addr: the memory window programmed, or the prefetchable one missing, fails by the TDX rule" {
	edit_tree tdx-connect
	cfg=$(dev 0000:15:01.0)/config
	# association 1 gets the non-prefetchable memory window 0xa4000000-0xa41fffff
	poke32 "$cfg" "$(blk_off 0000:15:01.0 0 32)" 0xa41a4001
	run --separate-stderr t audit -J
	expect_status 1
	has stream.addr pci0000:15/stream0.0.0 fail "association 1 0xa4000000-0xa41fffff is the non-prefetchable memory window (TDX Connect programs the prefetchable window alone)"
	# association 0 cleared: the prefetchable window is missing too
	poke32 "$cfg" "$(blk_off 0000:15:01.0 0 20)" 0
	run --separate-stderr t audit -J
	has stream.addr pci0000:15/stream0.0.0 fail "the prefetchable window 0x21000000000-0x2100fffffff is not programmed"
}

@test "audit stream.addr as a non-root reader: skipped (needs root), not failed" {
	mount_live tdx-connect
	open_path_to_root
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" audit -J
	has stream.addr pci0000:15/stream0.0.0 skip "address associations of 0000:15:01.0 unreadable (needs root"
}

@test "audit platform.tsm-mode: the TDX TSM with a pci_mode other than link fails" {
	edit_tree tdx-connect
	printf 'devsec\n' > "$ROOT/sys/devices/faux/tdx_host/tsm/tsm0/pci_mode"
	run --separate-stderr t audit -J
	has platform.tsm-mode tsm0 fail "pci_mode 'devsec' on tdx_host: the TDX Connect TSM registers as a link TSM"
}

@test "the realistic host end to end: connect everything connectable, audit, disconnect everything" {
	mount_live tdx-connect
	# --all leaves out what a connect would fail for (no pool, an RCiEP): nothing fails
	run --separate-stderr t connect --all --keep-going tsm0
	expect_status 0
	[[ "$output" == *"0000:27:00.0: connected to tsm0: stream0.0.0 on pci0000:26 (Stream ID 32)"* ]]
	[[ "$output" != *"0000:38:00.0"* && "$output" != *"0000:6a:01.0"* ]]
	[[ "$stderr" == *"--all leaves out 0000:38:00.0: its host bridge pci0000:37 has no IDE stream pool"* ]]
	[[ "$stderr" == *"--all leaves out 0000:6a:01.0: it is a root complex integrated endpoint"* ]]
	# named, they are tried, and the kernel's refusal is explained
	run --separate-stderr t connect --keep-going 38:00.0 6a:01.0 tsm0
	expect_status 1
	[[ "$output" == *"0000:38:00.0: failed (ENOMEM)"* ]]
	[[ "$output" == *"0000:6a:01.0: failed (ENOMEM)"* ]]
	[[ "$stderr" == *"0000:6a:01.0: tsm0 could not set up an IDE stream: the device is a root complex integrated endpoint"* ]]
	# the GPU's VFs are dependents of its DSM now
	run --separate-stderr t devices -n -r -o BDF,DSM -d 0000:27:00.4
	[ "$output" = "0000:27:00.4 0000:27:00.0" ]
	run --separate-stderr t audit -J
	has stream.addr pci0000:26/stream0.0.0 pass "the prefetchable window 0x22000000000-0x2203fffffff alone"
	has stream.rid pci0000:26/stream0.0.0 pass "and its VFs"
	[ "$(printf '%s' "$output" | jq -c '[.checks[] | select(.status == "fail")]')" = '[]' ]
	run --separate-stderr t disconnect --all
	expect_status 0
	[ -z "$(stream_links pci0000:15)$(stream_links pci0000:26)" ]
	[ "$(avail pci0000:15)" = 4 ]
	[ "$(avail pci0000:26)" = 2 ]
	[ -z "$(ls "$ROOT/sys/class/tsm/tsm0" | grep '^pci[0-9]' || true)" ]
}
