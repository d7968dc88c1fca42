#!/usr/bin/env bats
# Static trees of devsec.json, devsec-proposed.json, no-tsm.json, broken.json.

load helper

teardown() {
	teardown_sim
}

devsec_paths() {
	S=$T/sys
	HB0=$S/devices/faux/devsec_bus/pci10000:00
	HB1=$S/devices/faux/devsec_bus/pci10001:02
	RP0=$HB0/10000:00:00.0
	PF0=$RP0/10000:01:00.0
	PF1=$RP0/10000:01:00.1
	RP1=$HB1/10001:02:00.0
	PF0B=$RP1/10001:03:00.0
	PF1B=$RP1/10001:03:00.1
}

@test "devsec: faux devices, host bridges under devsec_bus, wide domains" {
	build_tree devsec
	devsec_paths
	[ -d "$S/devices/faux/devsec_bus" ]
	[ -d "$S/devices/faux/devsec_link_tsm" ]
	[ ! -e "$S/devices/faux/devsec_tsm" ]
	[ "$(readlink "$S/bus/faux/devices/devsec_bus")" = "../../../devices/faux/devsec_bus" ]
	[ -d "$S/bus/faux/devices/devsec_link_tsm/" ]
	[ -d "$PF0" ]
	[ -d "$PF1" ]
	[ -d "$PF0B" ]
	[ -d "$PF1B" ]
	[ "$(readlink "$S/bus/pci/devices/10001:03:00.1")" = "../../../devices/faux/devsec_bus/pci10001:02/10001:02:00.0/10001:03:00.1" ]
	[ -d "$S/bus/pci/devices/10001:03:00.1/" ]
}

@test "devsec: one link TSM under devsec_link_tsm, no proposed files" {
	build_tree devsec
	devsec_paths
	[ "$(ls "$S/class/tsm")" = tsm0 ]
	[ "$(readlink "$S/class/tsm/tsm0")" = "../../devices/faux/devsec_link_tsm/tsm/tsm0" ]
	[ "$(readlink -f "$S/class/tsm/tsm0/device")" = "$(readlink -f "$S/devices/faux/devsec_link_tsm")" ]
	[ ! -e "$S/class/tsm/tsm0/pci_mode" ]
	[ ! -e "$PF0/tsm/lock" ]
}

@test "devsec: pools of 4, nothing connected" {
	build_tree devsec
	devsec_paths
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
	[ "$(cat "$HB1/available_secure_streams")" = 4 ]
	[ -z "$(ls "$HB0" "$HB1" | grep '^stream')" ]
}

@test "devsec: PF0 has tsm/ (connect disconnect dsm bound), PF1 and ports do not" {
	build_tree devsec
	devsec_paths
	[ "$(ls "$PF0/tsm" | tr '\n' ' ')" = "bound connect disconnect dsm " ]
	[ "$(cat "$PF0/tsm/connect")" = "" ]
	[ "$(cat "$PF0/tsm/dsm")" = "" ]
	[ "$(cat "$PF0/authenticated")" = "" ]
	[ ! -e "$PF1/tsm" ]
	[ ! -e "$PF1/authenticated" ]
	[ ! -e "$RP0/tsm" ]
	[ -d "$PF0B/tsm" ]
}

@test "devsec: ids, DOE with CMA only, IDE capability 0x01006043 on RP and PF0" {
	build_tree devsec
	devsec_paths
	[ "$(cat "$PF0/vendor")" = 0x8086 ]
	[ "$(cat "$PF0/device")" = 0xffff ]
	[ "$(cat "$PF0/class")" = 0x120000 ]
	[ "$(cat "$RP0/class")" = 0x060400 ]
	[ "$(ls "$PF0/doe_features" | tr '\n' ' ')" = "0001:01 doe_discovery " ]
	[ ! -e "$PF1/doe_features" ]
	ide=$(ext_cap "$RP0/config" 0x30)
	[ "$(u32 "$RP0/config" $((ide + 4)))" = 01006043 ]
	ide=$(ext_cap "$PF0/config" 0x30)
	[ "$(u32 "$PF0/config" $((ide + 4)))" = 01006043 ]
	run ext_cap "$PF1/config" 0x30
	[ "$status" -ne 0 ]
	# DEVCAP: FLR + TEE on both functions
	[ "$(u32 "$PF0/config" 0x44)" = 50000002 ]
	[ "$(u32 "$PF1/config" 0x44)" = 50000002 ]
	# 4 Link IDE blocks and 1 Selective block: block 0 is right after them
	[ "$(sel_block "$PF0/config" 0)" = $((ide + 12 + 32)) ]
	[ "$(sel_reg "$PF0/config" 0 ctl)" = ff000000 ]
	[ "$(sel_reg "$RP0/config" 0 ctl)" = ff000000 ]
	# BAR0: 2 MiB 64-bit prefetchable
	[ "$(u32 "$PF0/config" 0x10)" = 0000000c ]
	[ "$(u32 "$PF0/config" 0x14)" = 00000040 ]
}

@test "devsec-proposed: two TSMs with pci_mode, lock/accept/unlock on every TEE function" {
	build_tree devsec-proposed
	devsec_paths
	[ "$(ls "$S/class/tsm" | tr '\n' ' ')" = "tsm0 tsm1 " ]
	[ "$(cat "$S/class/tsm/tsm0/pci_mode")" = link ]
	[ "$(cat "$S/class/tsm/tsm1/pci_mode")" = devsec ]
	[ "$(readlink -f "$S/class/tsm/tsm1/device")" = "$(readlink -f "$S/devices/faux/devsec_tsm")" ]
	[ -d "$S/bus/faux/devices/devsec_tsm/" ]
	[ "$(cat "$S/module/devsec_tsm/initstate")" = live ]
	[ "$(ls "$PF0/tsm" | tr '\n' ' ')" = "accept bound connect disconnect dsm lock unlock " ]
	[ "$(ls "$PF1/tsm" | tr '\n' ' ')" = "accept lock unlock " ]
	[ "$(cat "$PF1/tsm/lock")" = "" ]
	[ "$(cat "$PF1/tsm/accept")" = 0 ]
	[ "$(stat -c %a "$PF1/tsm/unlock")" = 200 ]
	[ ! -e "$PF1/authenticated" ]
	[ ! -e "$RP0/tsm" ]
	[ -z "$(ls "$S/class/tsm/tsm0/" | grep '^pci[0-9a-f]')" ]
}

@test "no-tsm: no class, no pool files, no tsm/ dirs, registers untouched" {
	build_tree no-tsm
	S=$T/sys
	HB=$S/devices/pci0000:00
	EP=$HB/0000:00:01.1/0000:01:00.0
	USB=$HB/0000:00:14.0
	[ ! -e "$S/class/tsm" ]
	[ ! -e "$HB/available_secure_streams" ]
	[ ! -e "$EP/tsm" ]
	[ ! -e "$EP/authenticated" ]
	[ -d "$EP/doe_features" ]
	[ $((16#$(u32 "$EP/config" 0x44) & 0x40000000)) -ne 0 ]
	ide=$(ext_cap "$EP/config" 0x30)
	[ "$(u32 "$EP/config" $((ide + 4)))" = 01010043 ]
	# no CONFIG_PCI_IDE: nobody stamped Stream ID 255 into idle blocks
	[ "$(sel_reg "$EP/config" 0 ctl)" = 00000000 ]
	[ "$(cat "$USB/class")" = 0x0c0330 ]
	# RC integrated endpoint, no IDE
	[ $(((16#$(u16 "$USB/config" 0x42) >> 4) & 0xf)) -eq 9 ]
	run ext_cap "$USB/config" 0x30
	[ "$status" -ne 0 ]
	[ -d "$S/bus/pci/devices/0000:00:14.0/" ]
}

broken_paths() {
	S=$T/sys
	HB=$S/devices/pci0000:40
	RPA=$HB/0000:40:01.1
	EPA=$RPA/0000:41:00.0
	RPB=$HB/0000:40:03.1
	EPB=$RPB/0000:42:00.0
	RPC=$HB/0000:40:05.1
	EPC=$RPC/0000:43:00.0
}

@test "broken: stream links, one dangling, pool counts the two real streams" {
	build_tree broken
	broken_paths
	[ "$(ls "$HB" | grep '^stream' | tr '\n' ' ')" = "stream0.0.0 stream1.1.0 stream3.2.0 " ]
	[ "$(readlink -f "$HB/stream0.0.0")" = "$(readlink -f "$EPA")" ]
	[ "$(readlink -f "$HB/stream1.1.0")" = "$(readlink -f "$EPB")" ]
	[ -L "$HB/stream3.2.0" ]
	[ ! -e "$HB/stream3.2.0" ]
	[ "$(cat "$HB/available_secure_streams")" = 254 ]
	[ "$(cat "$EPA/tsm/connect")" = tsm0 ]
	[ "$(cat "$EPB/tsm/connect")" = tsm0 ]
	[ "$(cat "$EPC/tsm/connect")" = "" ]
}

@test "broken: stream0 root port dropped to INSECURE, endpoint still SECURE" {
	build_tree broken
	broken_paths
	[ "$(sel_reg "$RPA/config" 0 ctl)" = 00000201 ]
	[ "$(sel_reg "$RPA/config" 0 sts)" = 00000000 ]
	[ "$(sel_reg "$EPA/config" 0 ctl)" = 00c00001 ]
	[ "$(sel_reg "$EPA/config" 0 sts)" = 00000002 ]
}

@test "broken: stream1.1.0 uses RP block 1 and the endpoint reports IDE_FAIL" {
	build_tree broken
	broken_paths
	[ "$(sel_reg "$RPB/config" 0 ctl)" = ff000000 ]
	[ "$(sel_reg "$RPB/config" 1 ctl)" = 01000201 ]
	[ "$(sel_reg "$RPB/config" 1 sts)" = 00000002 ]
	[ "$(sel_reg "$EPB/config" 0 ctl)" = 01c00001 ]
	[ "$(sel_reg "$EPB/config" 0 sts)" = 80000002 ]
}

@test "broken: 0000:43:00.0 has an enabled block nobody accounts for" {
	build_tree broken
	broken_paths
	[ "$(sel_reg "$EPC/config" 0 ctl)" = 07000001 ]
	[ "$(sel_reg "$EPC/config" 0 sts)" = 00000002 ]
	[ "$(sel_reg "$EPC/config" 0 rid2)" = 00402901 ]
	[ "$(sel_reg "$EPC/config" 1 ctl)" = ff000000 ]
	[ "$(sel_reg "$RPC/config" 0 ctl)" = ff000000 ]
	[ -z "$(ls -l "$HB" | grep '0000:43:00.0')" ]
}

@test "topology errors are reported, not ignored" {
	topo_file <<'JSON'
{ "host_bridges": [ { "bus": 0, "devices": [ { "bdf": "0000:00:01.0", "type": "endpoint", "tea": true } ] } ] }
JSON
	T=$(mktemp -d)
	run "$SIM" build "$J" "$T/x"
	[ "$status" -eq 1 ]
	[[ "$output" == *'unknown key "tea"'* ]]
	topo_file <<'JSON'
{ "abi": "none", "tsms": [ { "parent": "faux:x" } ], "host_bridges": [] }
JSON
	run "$SIM" build "$J" "$T/y"
	[ "$status" -eq 1 ]
	# DOE mailboxes: a list of features, or a list of such lists, never a mix; at most 8
	topo_file <<'JSON'
{ "host_bridges": [ { "bus": 0, "devices": [ { "bdf": "0000:00:01.0", "type": "rciep", "doe": [ ["0001:01"], "0001:02" ] } ] } ] }
JSON
	run "$SIM" build "$J" "$T/m"
	[ "$status" -eq 1 ]
	[[ "$output" == *'doe mailboxes are arrays of "VVVV:TT"'* ]]
	jq '.host_bridges[0].devices[0].doe = [[],[],[],[],[],[],[],[],[]]' "$J" > "$J.9"
	run "$SIM" build "$J.9" "$T/n"
	rm -f "$J.9"
	[ "$status" -eq 1 ]
	[[ "$output" == *'at most 8 DOE mailboxes'* ]]
	run "$SIM" build /nonexistent.json "$T/z"
	[ "$status" -eq 1 ]
	run "$SIM"
	[ "$status" -eq 2 ]
}

@test "VFs: siblings of the PF with physfn/virtfnN links, RID offset/stride" {
	topo_file <<'JSON'
{ "tsms": [ { "provider": "generic", "parent": "faux:t" } ],
  "host_bridges": [ { "bus": 0, "devices": [
    { "bdf": "0000:00:01.0", "type": "root_port", "ide": { "streams": 2 },
      "mem_window": { "base": "0x80000000", "limit": "0x80ffffff" },
      "children": [
        { "bdf": "0000:01:00.0", "type": "endpoint", "tee": true, "ide": { "streams": 2 },
          "doe": [ "0001:01" ], "vfs": { "count": 3, "offset": 2, "stride": 2, "device": "0x1234" } } ] } ] } ] }
JSON
	T=$(mktemp -d)
	"$SIM" build "$J" "$T"
	RP=$T/sys/devices/pci0000:00/0000:00:01.0
	[ -d "$RP/0000:01:00.2" ]
	[ -d "$RP/0000:01:00.4" ]
	[ -d "$RP/0000:01:00.6" ]
	[ "$(readlink "$RP/0000:01:00.2/physfn")" = "../0000:01:00.0" ]
	[ "$(readlink "$RP/0000:01:00.0/virtfn2")" = "../0000:01:00.6" ]
	[ "$(cat "$RP/0000:01:00.0/sriov_totalvfs")" = 3 ]
	[ "$(cat "$RP/0000:01:00.4/device")" = 0x1234 ]
	# SR-IOV extended capability: offset 2 stride 2, chained between DOE and IDE
	sr=$(ext_cap "$RP/0000:01:00.0/config" 0x10)
	[ "$(u16 "$RP/0000:01:00.0/config" $((sr + 0x14)))" = 0002 ]
	[ "$(u16 "$RP/0000:01:00.0/config" $((sr + 0x16)))" = 0002 ]
	ext_cap "$RP/0000:01:00.0/config" 0x30
	# VFs are not DSM candidates
	[ ! -e "$RP/0000:01:00.2/tsm" ]
	# the root port's bus range covers the VFs
	[ "$(od -A n -t x1 -j 25 -N 2 "$RP/config" | tr -d ' ')" = 0101 ]
}

@test "IDE-only PF0 without DEVCAP.TEE: connect/dsm but no bound; connected, it probes no dependents" {
	topo_file <<'JSON'
{ "tsms": [ { "provider": "generic", "parent": "faux:t" } ],
  "host_bridges": [ { "bus": 0, "devices": [
    { "bdf": "0000:00:01.0", "type": "root_port", "ide": { "streams": 2 },
      "children": [
        { "bdf": "0000:01:00.0", "type": "endpoint", "ide": { "streams": 2 },
          "doe": [ "0001:01" ], "connected": "tsm0" },
        { "bdf": "0000:01:00.1", "type": "endpoint", "tee": true } ] },
    { "bdf": "0000:00:02.0", "type": "root_port",
      "children": [
        { "bdf": "0000:02:00.0", "type": "endpoint", "ide": { "streams": 2 } } ] } ] } ] }
JSON
	T=$(mktemp -d)
	"$SIM" build "$J" "$T"
	HB=$T/sys/devices/pci0000:00
	EP=$HB/0000:00:01.0/0000:01:00.0
	[ "$(ls "$EP/tsm" | tr '\n' ' ')" = "connect disconnect dsm " ]
	[ "$(cat "$EP/tsm/connect")" = tsm0 ]
	[ -L "$HB/stream0.0.0" ]
	[ ! -e "$HB/0000:00:01.0/0000:01:00.1/tsm" ]
	# IDE behind a root port without IDE is not usable: not a DSM candidate
	[ ! -e "$HB/0000:00:02.0/0000:02:00.0/tsm" ]
	[ "$(sel_reg "$HB/0000:00:02.0/0000:02:00.0/config" 0 ctl)" = 00000000 ]
}

@test "state knob: bound at boot on a connected PF0 and its dependent" {
	J=$(mktemp --suffix=.json)
	jq '(.. | objects | select(.bdf? == "10000:01:00.0")) += { "connected": "tsm0", "bound": true }
	    | (.. | objects | select(.bdf? == "10000:01:00.1")).bound = true' \
		"$TOPO/devsec.json" > "$J"
	T=$(mktemp -d)
	"$SIM" build "$J" "$T"
	devsec_paths
	[ "$(cat "$PF0/tsm/bound")" = tsm0 ]
	[ "$(cat "$PF1/tsm/bound")" = tsm0 ]
	[ "$(cat "$PF1/tsm/dsm")" = 10000:01:00.0 ]
	[ "$(cat "$HB0/available_secure_streams")" = 3 ]
	jq '(.. | objects | select(.bdf? == "10000:01:00.1")).bound = true' "$TOPO/devsec.json" > "$J"
	run "$SIM" build "$J" "$T/2"
	[ "$status" -eq 1 ]
	[[ "$output" == *"needs a TSM context"* ]]
}

@test "every shipped topology: links resolve (but broken's deliberate one), standard files present" {
	for t in sev-tio devsec devsec-proposed no-tsm broken guest-sev guest-tdx; do
		T=$(mktemp -d)
		"$SIM" build "$TOPO/$t.json" "$T"
		bad=$(cd "$T" && find . -type l ! -exec test -e {} \; -print)
		if [ "$t" = broken ]; then
			[ "$bad" = "./sys/devices/pci0000:40/stream3.2.0" ]
		else
			[ -z "$bad" ] || { echo "$t: dangling: $bad"; return 1; }
		fi
		for d in "$T"/sys/bus/pci/devices/*; do
			for f in vendor device class subsystem_vendor subsystem_device revision uevent config; do
				[ -f "$d/$f" ] || { echo "$t: $d/$f missing"; return 1; }
			done
			[ "$(readlink -f "$d/subsystem")" = "$(readlink -f "$T/sys/bus/pci")" ]
			[ "$(stat -c %s "$d/config")" = 4096 ]
			name=$(basename "$d")
			grep -qx "PCI_SLOT_NAME=$name" "$d/uevent"
		done
		rm -rf "$T"
		T=
	done
}

# all_kinds: a topology ($J) with one object of every kind the loader has a key table for
all_kinds() {
	topo_file <<'JSON'
{ "abi": "v6.19", "comment": "one object of every kind",
  "modules": [ { "name": "m1", "parameters": { "p": "1" } } ],
  "drivers": [ { "name": "d1" } ],
  "report": { "provider": "sev_guest", "faults": { "concurrent_writer": 1 } },
  "tdx_host": { "version": "1.5.16" },
  "tsms": [ { "provider": "generic", "parent": "faux:t" } ],
  "host_bridges": [ { "bus": 0,
    "dangling_links": [ { "name": "x", "target": "../nowhere" } ],
    "windows": [ { "name": "w", "base": 0, "limit": 4095 } ],
    "devices": [
      { "bdf": "0000:00:01.0", "type": "root_port", "ide": { "streams": 2 }, "link": { "speed": 5 },
        "mem_window": { "base": "0x80000000", "limit": "0x80ffffff" },
        "children": [
          { "bdf": "0000:01:00.0", "type": "endpoint", "device": "0xabcd", "tee": true,
            "ide": { "streams": 2 }, "doe": [ "0001:01" ],
            "bars": [ { "base": "0x80000000", "size": "0x10000" }, { "base": "0x80010000" } ],
            "msix": { "vectors": 4 }, "faults": { "write_delay_ms": 1 },
            "preset_streams": [ { "block": 1, "stream_id": 3 } ],
            "connected": { "tsm": "tsm0" }, "evidence": { "firmware": "x" },
            "vfs": { "count": 2 } } ] } ] } ] }
JSON
}

RP0='.host_bridges[0].devices[0]'
EP0="$RP0.children[0]"

# refused FILTER MESSAGE: the all_kinds topology changed by jq FILTER fails to load with MESSAGE
refused() {
	jq "$1" "$J" > "$J.bad"
	run "$SIM" build "$J.bad" "$T/bad"
	rm -f "$J.bad"
	[ "$status" -eq 1 ] || { echo "$1: loaded"; return 1; }
	[ "$output" = "tsm-sim: $2" ] || { echo "$1: $output, expected: $2"; return 1; }
}

@test "key tables: every object refuses a key it has not, naming the object" {
	all_kinds
	T=$(mktemp -d)
	"$SIM" build "$J" "$T/good"
	while IFS='|' read -r path what; do
		refused "$path.zz = 1" "${what}unknown key \"zz\""
	done <<EOF2
|topology: 
.modules[0]|module: 
.drivers[0]|driver: 
.report|report: 
.report.faults|report: faults: 
.tdx_host|tdx_host: 
.tsms[0]|tsm: 
.host_bridges[0]|host bridge: 
.host_bridges[0].dangling_links[0]|pci0000:00: 
.host_bridges[0].windows[0]|pci0000:00: 
$RP0|0000:00:01.0: 
$RP0.link|0000:00:01.0: 
$RP0.mem_window|0000:00:01.0: mem_window: 
$EP0|0000:01:00.0: 
$EP0.ide|0000:01:00.0: ide: 
$EP0.bars[0]|0000:01:00.0: bars: 
$EP0.msix|0000:01:00.0: 
$EP0.faults|0000:01:00.0: faults: 
$EP0.preset_streams[0]|0000:01:00.0: preset_streams: 
$EP0.connected|0000:01:00.0: 
$EP0.evidence|0000:01:00.0: 
$EP0.vfs|0000:01:00.0: vfs: 
EOF2
	# a TSM's tdx_module shares tdx_host's table under its own name
	refused 'del(.tdx_host) | .abi = "proposed" | .tsms[0] += { "provider": "tdx-connect",
		"parent": "faux:tdx_host", "tdx_module": { "zz": 1 } }' 'tdx_module: unknown key "zz"'
}

@test "key tables: each key README documents is one the loader knows" {
	all_kinds
	T=$(mktemp -d)
	README=$BATS_TEST_DIRNAME/../README.md
	while IFS='|' read -r heading path; do
		keys=$(awk -v h="$heading" '$0 == h { on = 1; next } on && /^#/ { exit }
			on && /^\| `/' "$README" | cut -d'|' -f2 | grep -o '`[a-z_0-9]*`' | tr -d '`')
		[ -n "$keys" ] || { echo "no keys under $heading"; return 1; }
		for k in $keys; do
			# a null value passes the key check and reads as absent
			jq "$path.$k = null" "$J" > "$J.k"
			run "$SIM" build "$J.k" "$T/k"
			rm -rf "$J.k" "$T/k"
			[[ "$output" != *"unknown key"* ]] || { echo "$heading: $k: $output"; return 1; }
		done
	done <<EOF2
### Top level|
### \`report\` (top level)|.report
### \`tsms[]\`|.tsms[0]
### \`host_bridges[]\`|.host_bridges[0]
### Devices (\`devices[]\`, \`children[]\`)|$EP0
### \`faults\` (on the endpoint that is the DSM, unless noted)|$EP0.faults
EOF2
}

@test "key tables: a value above a key's bound is refused, an absent key takes its default" {
	all_kinds
	T=$(mktemp -d)
	while IFS='|' read -r filter message; do
		refused "$filter" "$message"
	done <<EOF2
.report.privlevel_floor = 4|report: privlevel_floor out of range (max 0x3)
.report.faults.concurrent_writer = 1000001|report: faults: concurrent_writer out of range (max 0xf4240)
.tdx_host.num_remaining_updates = 4294967296|tdx_host: num_remaining_updates out of range (max 0xffffffff)
.tsms[0].change_after_ms = 60001|tsm: change_after_ms out of range (max 0xea60)
.host_bridges[0].bus = 256|host bridge: bus out of range (max 0xff)
.host_bridges[0].keyp_streams = 256|host bridge: keyp_streams out of range (max 0xff)
.host_bridges[0].windows[0].name = 1|pci0000:00: name must be a string
.host_bridges[0].dangling_links[0].target = 1|pci0000:00: target must be a string
.modules[0].loaded = 1|m1: loaded must be true or false
.drivers[0].override_only = 1|d1: override_only must be true or false
.debugfs = 1|topology: debugfs must be true or false
$RP0.revision = 256|0000:00:01.0: revision out of range (max 0xff)
$RP0.ext_caps = 65|0000:00:01.0: ext_caps out of range (max 0x40)
$RP0.link.speed = 16|0000:00:01.0: speed out of range (max 0xf)
$RP0.mem_window.base = true|0000:00:01.0: mem_window: base must be a number or a numeric string
$EP0.ide.link_tcs = 9|0000:01:00.0: ide: link_tcs out of range (max 0x8)
$EP0.bars[0].index = 6|0000:01:00.0: bars: index out of range (max 0x5)
$EP0.msix.vectors = 2049|0000:01:00.0: vectors out of range (max 0x800)
$EP0.faults.write_delay_ms = 600001|0000:01:00.0: faults: write_delay_ms out of range (max 0x927c0)
$EP0.faults.connect_errno = "EFOO"|0000:01:00.0: faults: unknown errno name "EFOO"
$EP0.faults.lock_errno = 4096|0000:01:00.0: faults: errno out of range
$EP0.faults.accept_errno = true|0000:01:00.0: faults: errno must be a name like "EIO" or a number
$EP0.preset_streams[0].stream_id = 256|0000:01:00.0: preset_streams: stream_id out of range (max 0xff)
$EP0.connected.stream = 1|0000:01:00.0: stream must be a string
$EP0.evidence.firmware = 1|0000:01:00.0: firmware must be a string
$EP0.vfs.count = 257|0000:01:00.0: vfs: count out of range (max 0x100)
EOF2
	"$SIM" build "$J" "$T/good"
	RP=$T/good/sys/devices/pci0000:00/0000:00:01.0
	EP=$RP/0000:01:00.0
	# a device's ids, and its class and FLR by its type
	[ "$(cat "$EP/vendor")" = 0x1234 ]
	[ "$(cat "$EP/revision")" = 0x00 ]
	[ "$(cat "$EP/subsystem_vendor")" = 0x0000 ]
	[ "$(cat "$EP/class")" = 0xff0000 ]
	[ "$(cat "$RP/class")" = 0x060400 ]
	[[ "$(cat "$EP/reset_method")" == flr* ]]
	# link: speed 4 (16 GT/s) and width 16 unless given
	[ "$(cat "$EP/current_link_speed")" = "16.0 GT/s PCIe" ]
	[ "$(cat "$RP/current_link_speed")" = "32.0 GT/s PCIe" ]
	[ "$(cat "$EP/current_link_width")" = 16 ]
	# BAR 1: index by position, size 0x1000
	[ "$(sed -n 2p "$EP/resource")" = "0x0000000080010000 0x0000000080010fff 0x0000000000040200" ]
	# VFs: offset 1, stride 1, the PF's device ID
	[ "$(cat "$EP/sriov_offset")" = 1 ]
	[ "$(cat "$EP/sriov_stride")" = 1 ]
	[ "$(cat "$EP/sriov_vf_device")" = abcd ]
	[ "$(cat "$RP/0000:01:00.1/device")" = 0xabcd ]
	# IDE flags: selective and ide_km on, the rest off; 2 Selective blocks
	ide=$(ext_cap "$EP/config" 0x30)
	[ "$(u32 "$EP/config" $((ide + 4)))" = 00010042 ]
	# a preset stream's RID range: the root port's RID for both ends
	[ "$(sel_reg "$EP/config" 1 ctl)" = 03000001 ]
	[ "$(sel_reg "$EP/config" 1 rid1)" = 00000800 ]
	[ "$(sel_reg "$EP/config" 1 rid2)" = 00000801 ]
	# a TSM's id: its place in the array
	[ -d "$T/good/sys/class/tsm/tsm0" ]
}
