#!/usr/bin/env bats
# Live mount of the Intel TDX Connect hosts (tdx-connect provider, ABI.md §2.6),
# and variants made with jq.

load helper

paths() {
	S=$M/sys
	TDX=$S/devices/faux/tdx_host
	HB15=$S/devices/pci0000:15
	RP15=$HB15/0000:15:01.0
	NIC=$RP15/0000:16:00.0
	HB37=$S/devices/pci0000:37
	NVME=$HB37/0000:37:01.0/0000:38:00.0
	NIC2=$HB15/0000:15:02.0/0000:17:00.0	# with second_nic
}

# mount_variant JQ-FILTER: tdx-connect-tiny.json changed by a jq filter
mount_variant() {
	mount_jq tdx-connect-tiny "$1"
	paths
}

nic() {
	echo '(.. | objects | select(.bdf? == "0000:16:00.0"))'
}

# jq: a second root port 0000:15:02.0 on pci0000:15 with its own TEE NIC 0000:17:00.0 ($NIC2)
second_nic() {
	echo '.host_bridges[0].devices += [.host_bridges[0].devices[0] | .bdf = "0000:15:02.0" |
		.mem_window = {"base": "0xa4100000", "limit": "0xa41fffff"} |
		.pref_window = {"base": "0x21010000000", "limit": "0x2101fffffff"} |
		.children[0] |= (.bdf = "0000:17:00.0" | .bars[0].base = "0x21010000000")]'
}

# build_bad JQ-FILTER: building tdx-connect-tiny.json changed so must fail; $output has why
build_bad() {
	J=$(mktemp --suffix=.json)
	jq "$1" "$TOPO/tdx-connect-tiny.json" > "$J"
	T=$(mktemp -d)
	run "$SIM" build "$J" "$T"
	[ "$status" -eq 1 ]
}

teardown() {
	teardown_sim
}

@test "tdx_host carries the TDX module's version (0444) and the P-SEAMLDR's (0400); tsm0 below it, pci_mode link" {
	build_tree tdx-connect
	F=$T/sys/devices/faux/tdx_host
	[ "$(cat "$F/version")" = 2.0.08 ]
	[ "$(cat "$F/seamldr_version")" = 2.0.00 ]
	[ "$(cat "$F/num_remaining_updates")" = 31 ]
	[ "$(stat -c %a "$F/version")" = 444 ]
	[ "$(stat -c %a "$F/seamldr_version")" = 400 ]
	[ "$(stat -c %a "$F/num_remaining_updates")" = 400 ]
	[ "$(readlink -f "$T/sys/class/tsm/tsm0")" = "$(readlink -f "$F/tsm/tsm0")" ]
	[ "$(cat "$T/sys/class/tsm/tsm0/pci_mode")" = link ]
	[ "$(readlink -f "$T/sys/class/tsm/tsm0/pci0000:15")" = "$(readlink -f "$T/sys/devices/pci0000:15")" ]
	# without runtime updates the P-SEAMLDR attributes are hidden
	build_tree tdx-connect-tiny
	[ "$(cat "$T/sys/devices/faux/tdx_host/version")" = 2.0.08 ]
	[ ! -e "$T/sys/devices/faux/tdx_host/seamldr_version" ]
	[ ! -e "$T/sys/devices/faux/tdx_host/num_remaining_updates" ]
}

@test "pools from KEYP: the entry's streams + 1; no entry, no available_secure_streams (VMD domain too)" {
	build_tree tdx-connect
	D=$T/sys/devices
	[ "$(cat "$D/pci0000:15/available_secure_streams")" = 3 ]	# KEYP 3: pool 4, one stream at boot
	[ "$(cat "$D/pci0000:26/available_secure_streams")" = 2 ]
	[ "$(cat "$D/pci0000:6a/available_secure_streams")" = 1 ]
	[ ! -e "$D/pci0000:00/available_secure_streams" ]
	[ ! -e "$D/pci0000:37/available_secure_streams" ]
	[ ! -e "$D/pci0000:00/0000:00:0e.0/pci10000:00/available_secure_streams" ]
	# the boot connect: Stream ID 32 from the module, not the pool index 0
	[ -L "$D/pci0000:15/stream0.0.0" ]
	[ "$(sel_reg "$D/pci0000:15/0000:15:01.0/config" 0 ctl)" = 20000001 ]
}

@test "connect: the module's Stream ID, EP default stream, only the prefetchable window in the RP's association" {
	mount_topo tdx-connect-tiny
	paths
	echo tsm0 > "$NIC/tsm/connect"
	[ "$(readlink -f "$HB15/stream0.0.0")" = "$(readlink -f "$NIC")" ]
	[ "$(cat "$HB15/available_secure_streams")" = 1 ]
	[ "$(readlink -f "$S/class/tsm/tsm0/pci0000:15")" = "$(readlink -f "$HB15")" ]
	# Stream ID 40 (0x28); EP: default stream (bit 22) and TEE-limited (its capability)
	[ "$(sel_reg "$RP15/config" 0 ctl)" = 28000001 ]
	[ "$(sel_reg "$NIC/config" 0 ctl)" = 28c00001 ]
	[ "$(sel_reg "$RP15/config" 0 sts)" = 00000002 ]
	[ "$(sel_reg "$NIC/config" 0 sts)" = 00000002 ]
	[ "$(sel_reg "$RP15/config" 0 rid1)" = 00160000 ]
	[ "$(sel_reg "$RP15/config" 0 rid2)" = 00160001 ]
	# association 0: the prefetchable window 0x21000000000-0x2100fffffff; association 1
	# (where the core helpers put the second window) stays clear: no memory window
	[ "$(sel_reg "$RP15/config" 0 assoc1)" = 0ff00001 ]
	[ "$(sel_reg "$RP15/config" 0 assoc2)" = 00000210 ]
	[ "$(sel_reg "$RP15/config" 0 assoc3)" = 00000210 ]
	b=$(sel_block "$RP15/config" 0)
	[ "$(u32 "$RP15/config" $((b + 32)))" = 00000000 ]
	# disconnect frees everything; the module hands out 40 again
	echo tsm0 > "$NIC/tsm/disconnect"
	[ ! -e "$HB15/stream0.0.0" ]
	[ ! -e "$S/class/tsm/tsm0/pci0000:15" ]
	[ "$(cat "$HB15/available_secure_streams")" = 2 ]
	[ "$(sel_reg "$RP15/config" 0 assoc1)" = 00000000 ]
	echo tsm0 > "$NIC/tsm/connect"
	[ "$(sel_reg "$NIC/config" 0 ctl)" = 28c00001 ]
}

@test "tdx_ide_stream_create(): EFAULT unless exactly one root port association is left" {
	# no prefetchable window above the NIC: the memory one is forced off and none is left
	mount_variant '.host_bridges[0].devices[0] |= del(.pref_window) | (.host_bridges[0].devices[0].children[0].bars[0] |= (.base = "0xa4000000" | .size = "0x8000" | .prefetchable = false))'
	try_write tsm0 "$NIC/tsm/connect"
	expect_errno "$EFAULT"
	[ -z "$(cat "$NIC/tsm/connect")" ]
	[ ! -e "$HB15/stream0.0.0" ]
	[ ! -e "$S/class/tsm/tsm0/pci0000:15" ]
	[ "$(cat "$HB15/available_secure_streams")" = 2 ]
	[ "$(sel_reg "$RP15/config" 0 ctl)" = ff000000 ]
	[ "$(sel_reg "$NIC/config" 0 ctl)" = ff000000 ]
	# a root port without address-association blocks: nothing to put the window in
	teardown_sim
	mount_variant '.host_bridges[0].devices[0].ide.addr_assoc = 0'
	try_write tsm0 "$NIC/tsm/connect"
	expect_errno "$EFAULT"
	[ -z "$(cat "$NIC/tsm/connect")" ]
	[ "$(cat "$HB15/available_secure_streams")" = 2 ]
	# the core helpers alone (generic) connect both: the difference is TDX's
	teardown_sim
	mount_variant '.tsms[0] |= (.provider = "generic" | del(.stream_ids, .tdx_module)) | .host_bridges[].streams = 2 | del(.host_bridges[].keyp_streams) | .host_bridges[0].devices[0].ide.addr_assoc = 0'
	echo tsm0 > "$NIC/tsm/connect"
	[ "$(cat "$NIC/tsm/connect")" = tsm0 ]
}

@test "the root port is the TDX module's: config requests, default stream, TEE-limited off; only the endpoint's enable checked" {
	# a root port whose capability offers config requests and TEE-limited streams
	mount_variant '.host_bridges[0].devices[0].ide += {"sel_cfg": true, "tee_limited": true}'
	echo tsm0 > "$NIC/tsm/connect"
	[ "$(sel_reg "$RP15/config" 0 ctl)" = 28000001 ]
	[ "$(sel_reg "$NIC/config" 0 ctl)" = 28c00001 ]
	# the kernel never reads the root port's state: one that stays INSECURE connects
	teardown_sim
	mount_variant "$(nic) .faults = {\"insecure\": \"rp\"}"
	echo tsm0 > "$NIC/tsm/connect"
	[ "$(cat "$NIC/tsm/connect")" = tsm0 ]
	[ "$(sel_reg "$RP15/config" 0 sts)" = 00000000 ]
	[ "$(sel_reg "$NIC/config" 0 sts)" = 00000002 ]
	# the endpoint's pci_ide_stream_enable() is: ENXIO, everything released
	teardown_sim
	mount_variant "$(nic) .faults = {\"insecure\": \"ep\"}"
	try_write tsm0 "$NIC/tsm/connect"
	expect_errno "$ENXIO"
	[ -z "$(cat "$NIC/tsm/connect")" ]
	[ ! -e "$HB15/stream0.0.0" ]
	[ "$(cat "$HB15/available_secure_streams")" = 2 ]
	[ "$(sel_reg "$RP15/config" 0 ctl)" = 00000000 ]
}

@test "pools: 256 on every host bridge until tdx_host loads, then KEYP's; unloading keeps them" {
	mount_variant '.modules[0].loaded = false'
	[ ! -e "$TDX" ]
	[ "$(cat "$HB15/available_secure_streams")" = 256 ]
	[ "$(cat "$HB37/available_secure_streams")" = 256 ]
	"$SIM" modprobe "$M" tdx_host
	[ "$(cat "$TDX/version")" = 2.0.08 ]
	[ "$(cat "$HB15/available_secure_streams")" = 2 ]
	[ ! -e "$HB37/available_secure_streams" ]
	"$SIM" modprobe "$M" -r tdx_host
	[ ! -e "$TDX" ]
	[ "$(cat "$HB15/available_secure_streams")" = 2 ]
	[ ! -e "$HB37/available_secure_streams" ]
}

@test "tdx_host on a TDX host without TDX Connect: version alone, or with the tdx_module upload device" {
	J=$(mktemp --suffix=.json)
	jq 'del(.tsms) | .tdx_host = {"version": "1.5.16"}' "$TOPO/tdx-connect-tiny.json" > "$J"
	T=$(mktemp -d)
	"$SIM" build "$J" "$T"
	F=$T/sys/devices/faux/tdx_host
	[ "$(cat "$F/version")" = 1.5.16 ]
	[ "$(stat -c %a "$F/version")" = 444 ]
	[ ! -e "$F/seamldr_version" ]
	[ ! -e "$F/tsm" ]
	[ ! -e "$F/firmware" ]
	[ ! -e "$T/sys/class/tsm" ]
	[ ! -e "$T/sys/class/firmware/tdx_module" ]
	# no TDX Connect: tdx_setup_nr_ide_stream() never runs, the pools stay 256
	[ "$(cat "$T/sys/devices/pci0000:37/available_secure_streams")" = 256 ]
	# runtime updates: the P-SEAMLDR attributes and firmware_upload_register(dev, "tdx_module")
	jq 'del(.tsms) | .tdx_host = {"version": "1.5.16", "seamldr_version": "1.5.02", "num_remaining_updates": 7}' "$TOPO/tdx-connect-tiny.json" > "$J"
	rm -rf "$T"
	"$SIM" build "$J" "$T"
	[ "$(cat "$F/seamldr_version")" = 1.5.02 ]
	[ "$(cat "$F/num_remaining_updates")" = 7 ]
	U=$F/firmware/tdx_module
	[ "$(readlink -f "$T/sys/class/firmware/tdx_module")" = "$(readlink -f "$U")" ]
	[ "$(readlink -f "$U/device")" = "$(readlink -f "$F")" ]
	[ "$(cat "$U/loading")" = 0 ]
	[ "$(cat "$U/status")" = idle ]
	[ "$(cat "$U/remaining_size")" = 0 ]
	[ "$(stat -c %s "$U/error")" = 0 ]
	[ "$(stat -c %a "$U/loading")" = 644 ]
	[ "$(stat -c %a "$U/data")" = 644 ]
	[ "$(stat -c %a "$U/cancel")" = 200 ]
	[ "$(stat -c %a "$U/status")" = 444 ]
	# with TDX Connect the same: the upload device beside tsm/tsm0
	rm -rf "$T"
	"$SIM" build "$TOPO/tdx-connect.json" "$T"
	[ -d "$F/firmware/tdx_module" ]
	[ -d "$F/tsm/tsm0" ]
	# the module described twice is an error
	jq '.tdx_host = {"version": "1.5.16"} | .tsms[0].tdx_module = {"version": "1.5.16"}' "$TOPO/tdx-connect-tiny.json" > "$J"
	run "$SIM" build "$J" "$T/x"
	[ "$status" -eq 1 ]
	[[ "$output" == *"described twice"* ]]
}

@test "two link TSMs on one host bridge: tsm_ide_streams is keyed by the host bridge alone" {
	mount_variant "$(second_nic) | .tsms += [{\"id\": 1, \"provider\": \"generic\", \"parent\": \"faux:host_tsm\"}]"
	T0=$S/class/tsm/tsm0
	T1=$S/class/tsm/tsm1
	echo tsm0 > "$NIC/tsm/connect"
	[ "$(readlink -f "$T0/pci0000:15")" = "$(readlink -f "$HB15")" ]
	# the second TSM's stream takes a reference on tsm0's entry: no link of its own
	echo tsm1 > "$NIC2/tsm/connect"
	[ -L "$HB15/stream1.0.0" ]
	[ ! -e "$T1/pci0000:15" ]
	# tsm0's last stream goes, tsm1's reference keeps the link
	echo tsm0 > "$NIC/tsm/disconnect"
	[ -L "$T0/pci0000:15" ]
	# tsm1's unregister hits the "no IDE streams associated" WARN and drops nothing
	echo tsm1 > "$NIC2/tsm/disconnect"
	[ -z "$(ls "$HB15" | grep '^stream' || true)" ]
	[ -L "$T0/pci0000:15" ]
	# the other way round: tsm1 first gets the link
	teardown_sim
	mount_variant "$(second_nic) | .tsms += [{\"id\": 1, \"provider\": \"generic\", \"parent\": \"faux:host_tsm\"}]"
	echo tsm1 > "$NIC2/tsm/connect"
	echo tsm0 > "$NIC/tsm/connect"
	[ -L "$S/class/tsm/tsm1/pci0000:15" ]
	[ ! -e "$S/class/tsm/tsm0/pci0000:15" ]
	# unregistering tsm1 takes its link with its directory; the entry stays, keyed by
	# the host bridge, so no later stream there gets a link
	echo "unregister tsm1" > "$M/tsm-sim-control"
	[ ! -e "$S/class/tsm/tsm1" ]
	echo tsm0 > "$NIC/tsm/disconnect"
	echo tsm0 > "$NIC/tsm/connect"
	[ ! -e "$S/class/tsm/tsm0/pci0000:15" ]
}

@test "the generic provider on the same host programs the memory window first (the difference TDX makes)" {
	mount_variant '.tsms[0] |= (.provider = "generic" | del(.stream_ids, .tdx_module)) | .host_bridges[].streams = 2 | del(.host_bridges[].keyp_streams)'
	echo tsm0 > "$NIC/tsm/connect"
	# generic: lowest free Stream ID (0), memory window 0xa4000000-0xa40fffff in association 0
	[ "$(sel_reg "$RP15/config" 0 ctl)" = 00000001 ]
	[ "$(sel_reg "$RP15/config" 0 assoc1)" = a40a4001 ]
}

@test "a host bridge without a KEYP entry has no pool: connect is ENOMEM, nothing left behind" {
	mount_topo tdx-connect-tiny
	paths
	[ ! -e "$HB37/available_secure_streams" ]
	try_write tsm0 "$NVME/tsm/connect"
	expect_errno "$ENOMEM"
	[ -z "$(cat "$NVME/tsm/connect")" ]
	[ -z "$(cat "$NVME/authenticated")" ]
	[ -z "$(ls "$HB37" | grep '^stream' || true)" ]
	[ ! -e "$S/class/tsm/tsm0/pci0000:37" ]
}

@test "a full pool (KEYP 0: one stream) is ENOMEM for the next connect" {
	mount_variant "$(second_nic) | .host_bridges[0].keyp_streams = 0"
	echo tsm0 > "$NIC/tsm/connect"
	[ "$(cat "$HB15/available_secure_streams")" = 0 ]
	try_write tsm0 "$NIC2/tsm/connect"
	expect_errno "$ENOMEM"
	[ -z "$(cat "$NIC2/tsm/connect")" ]
	echo tsm0 > "$NIC/tsm/disconnect"
	[ "$(cat "$HB15/available_secure_streams")" = 1 ]
	echo tsm0 > "$NIC2/tsm/connect"
	[ -L "$HB15/stream0.0.0" ]
}

@test "fault knobs: stream_alloc_fail is ENOMEM, seamcall_fail is EFAULT; both roll back" {
	mount_variant "$(nic) .faults = {\"stream_alloc_fail\": true}"
	try_write tsm0 "$NIC/tsm/connect"
	expect_errno "$ENOMEM"
	[ -z "$(cat "$NIC/tsm/connect")" ]
	[ "$(cat "$HB15/available_secure_streams")" = 2 ]
	teardown_sim
	mount_variant "$(nic) .faults = {\"seamcall_fail\": true}"
	try_write tsm0 "$NIC/tsm/connect"
	expect_errno "$EFAULT"
	[ -z "$(cat "$NIC/tsm/connect")" ]
	[ ! -e "$HB15/stream0.0.0" ]
	[ "$(cat "$HB15/available_secure_streams")" = 2 ]
	[ "$(sel_reg "$RP15/config" 0 ctl)" = ff000000 ]
	[ "$(sel_reg "$NIC/config" 0 ctl)" = ff000000 ]
}

@test "the module out of Stream IDs for the host bridge is EFAULT (the SEAMCALL fails)" {
	mount_variant "$(second_nic) | .tsms[0].stream_ids = [40, 41]"
	echo tsm0 > "$NIC2/tsm/connect"
	echo tsm0 > "$NIC/tsm/connect"
	[ "$(sel_reg "$NIC2/config" 0 ctl)" = 28c00001 ]
	[ "$(sel_reg "$NIC/config" 0 ctl)" = 29c00001 ]
	teardown_sim
	mount_variant "$(second_nic) | .tsms[0].stream_ids = [40]"
	echo tsm0 > "$NIC2/tsm/connect"
	[ "$(cat "$HB15/available_secure_streams")" = 1 ]
	try_write tsm0 "$NIC/tsm/connect"
	expect_errno "$EFAULT"
	[ -z "$(cat "$NIC/tsm/connect")" ]
	[ "$(cat "$HB15/available_secure_streams")" = 1 ]
	# a disconnect gives the ID back to the module
	echo tsm0 > "$NIC2/tsm/disconnect"
	echo tsm0 > "$NIC/tsm/connect"
	[ "$(sel_reg "$NIC/config" 0 ctl)" = 28c00001 ]
	# an ID taken on the host bridge by a stream found enabled at boot: the kernel's EBUSY
	teardown_sim
	mount_variant "$(nic) .preset_streams = [{\"block\": 1, \"stream_id\": 40}] | .tsms[0].stream_ids = [40]"
	try_write tsm0 "$NIC/tsm/connect"
	expect_errno "$EBUSY"
	[ -z "$(cat "$NIC/tsm/connect")" ]
	# without a list the module takes the lowest free ID
	teardown_sim
	mount_variant 'del(.tsms[0].stream_ids)'
	echo tsm0 > "$NIC/tsm/connect"
	[ "$(sel_reg "$NIC/config" 0 ctl)" = 00c00001 ]
}

@test "dependent functions get contexts (TDX, unlike SEV-TIO); GPU VFs" {
	mount_topo tdx-connect
	G=$M/sys/devices/pci0000:26/0000:26:01.0/0000:27:00.0
	echo tsm0 > "$G/tsm/connect"
	[ "$(cat "$G/tsm/dsm")" = 0000:27:00.0 ]
	for vf in 1 2 3 4; do
		[ "$(cat "$M/sys/devices/pci0000:26/0000:26:01.0/0000:27:00.$vf/tsm/dsm")" = 0000:27:00.0 ]
	done
	# the module hands out 32 again on this host bridge (per host bridge, ABI.md §2.3 step 3)
	[ "$(sel_reg "$M/sys/devices/pci0000:26/0000:26:01.0/config" 0 ctl)" = 20000001 ]
	# the RCiEP accelerator shows tsm/ but the core helpers set up streams only for endpoints
	try_write tsm0 "$M/sys/devices/pci0000:6a/0000:6a:01.0/tsm/connect"
	expect_errno "$ENOMEM"
}

@test "rmmod tdx_host: tsm0 and its streams go, the faux device with it" {
	mount_topo tdx-connect
	"$SIM" modprobe "$M" -r tdx_host
	[ ! -e "$M/sys/class/tsm/tsm0" ]
	[ ! -e "$M/sys/devices/faux/tdx_host" ]
	[ ! -e "$M/sys/devices/pci0000:15/stream0.0.0" ]
	"$SIM" modprobe "$M" tdx_host
	[ "$(cat "$M/sys/devices/faux/tdx_host/version")" = 2.0.08 ]
	[ -e "$M/sys/class/tsm/tsm0" ]
}

@test "modprobe tdx_host: faux device, the tdx_module upload device, then tsm0 (uevents); rmmod in reverse" {
	J=$(mktemp --suffix=.json)
	jq '.modules[0].loaded = false | .tsms[0].tdx_module.seamldr_version = "2.0.00"' "$TOPO/tdx-connect-tiny.json" > "$J"
	mount_listening "$J"
	"$SIM" modprobe "$M" tdx_host
	"$SIM" modprobe "$M" -r tdx_host
	listen_end	# each modprobe sends its events before it returns
	umount "$NS"; rm -f "$NS"
	grep " /devices/faux/" "$EV" > "$EV.ours" || true
	run grep -o "^[a-z]* [^ ]* SUBSYSTEM=[a-z]*" "$EV.ours"
	rm -f "$EV" "$EV.err" "$EV.ours"
	[ "${lines[0]}" = "add /devices/faux/tdx_host SUBSYSTEM=faux" ]
	[ "${lines[1]}" = "add /devices/faux/tdx_host/firmware/tdx_module SUBSYSTEM=firmware" ]
	[ "${lines[2]}" = "add /devices/faux/tdx_host/tsm/tsm0 SUBSYSTEM=tsm" ]
	[ "${lines[3]}" = "change /devices/faux/tdx_host/tsm/tsm0 SUBSYSTEM=tsm" ]
	[ "${lines[4]}" = "remove /devices/faux/tdx_host/tsm/tsm0 SUBSYSTEM=tsm" ]
	[ "${lines[5]}" = "remove /devices/faux/tdx_host/firmware/tdx_module SUBSYSTEM=firmware" ]
	[ "${lines[6]}" = "remove /devices/faux/tdx_host SUBSYSTEM=faux" ]
}

@test "topology errors: keyp_streams with streams, a tdx-connect TSM elsewhere, bad stream_ids" {
	build_bad '.host_bridges[0].streams = 4'
	[[ "$output" == *"keyp_streams sets the pool, streams must not"* ]]
	build_bad '.tsms[0].parent = "faux:host_tsm"'
	[[ "$output" == *"tdx-connect is a link TSM on faux:tdx_host"* ]]
	build_bad '.tsms[0].stream_ids = [255]'
	[[ "$output" == *"stream_ids holds numbers 0..254"* ]]
	build_bad '.tsms[0].provider = "generic"'
	[[ "$output" == *"stream_ids and tdx_module need the tdx-connect provider"* ]]
	build_bad '.tsms[0].tdx_module = {"num_remaining_updates": 3}'
	[[ "$output" == *"num_remaining_updates needs seamldr_version"* ]]
	build_bad '.host_bridges[0].keyp_streams = 256'
}
