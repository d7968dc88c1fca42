#!/usr/bin/env bats
# tsmctl devices: TSM-capable functions, and --all.

load lib/helpers

setup() {
	ROOT=$(static_tree sev-tio)
}

teardown() {
	unmount_live
}

@test "devices -J: the connected NIC, field by field" {
	run t devices -J -d 0000:41:00.0
	[ "$status" -eq 0 ]
	json_is '.schema_version' 1
	json_is '.devices | length' 1
	json_is '.devices[0] | keys' '["accepted","authenticated","bdf","bound","class","config_access","connected","detail","device","device_id","doe_features","driver","dsm","host_bridge","ide","locked","pcie_type","read_errors","root_port","tee_io","tsm_dir","vendor","vendor_id"]'
	json_is '.devices[0].read_errors' '{}'
	json_is '.devices[0].detail' null
	json_is '.devices[0].bdf' '"0000:41:00.0"'
	json_is '.devices[0].vendor_id' 5555
	json_is '.devices[0].device_id' 4125
	json_is '.devices[0].class' 131072
	json_is '.devices[0].vendor' '"Mellanox Technologies"'
	json_is '.devices[0].pcie_type' '"endpoint"'
	json_is '.devices[0].tee_io' true
	json_is '.devices[0].ide' '{"link_ide":true,"selective_streams":2,"link_tcs":1,"flags":["link_ide","selective_ide","ide_km","tee_limited"],"algorithms":["aes-gcm-256-96b"],"malformed":false}'
	json_is '.devices[0].doe_features' '["0001:00","0001:01","0001:02"]'
	json_is '.devices[0].tsm_dir' true
	json_is '.devices[0].connected' '"tsm0"'
	json_is '.devices[0].dsm' '"0000:41:00.0"'
	json_is '.devices[0].bound' null
	json_is '.devices[0].authenticated' '"tsm0"'
	json_is '.devices[0].locked' null
	json_is '.devices[0].driver' '"mlx5_core"'
	json_is '.devices[0].root_port' '"0000:40:01.1"'
	json_is '.devices[0].host_bridge' '"pci0000:40"'
	json_is '.devices[0].config_access' '"full"'
}

@test "devices lists DSM candidates only: not the PSP's glue tsm/ dir, not PF1 under SEV-TIO" {
	run t devices -J
	[ "$status" -eq 0 ]
	json_is '[.devices[].bdf]' '["0000:41:00.0","0000:81:00.0"]'
	json_is '.devices[1].connected' null
	json_is '.devices[1].dsm' null
	json_is '.devices[1].tee_io' true
}

@test "devices --all: every IDE/TEE-capable PCIe function, plain NVMe and PSP left out" {
	run t devices --all -J
	[ "$status" -eq 0 ]
	json_is '[.devices[].bdf]' '["0000:40:01.1","0000:41:00.0","0000:41:00.1","0000:80:01.1","0000:81:00.0"]'
	json_is '[.devices[] | select(.bdf=="0000:40:01.1") | .pcie_type, .tee_io, .tsm_dir]' '["root_port",false,false]'
	json_is '[.devices[] | select(.bdf=="0000:41:00.1") | .ide, .tee_io]' '[null,true]'
}

@test "devices on the devsec rig: wide domains, faux host bridge parents" {
	ROOT=$(static_tree devsec)
	run t devices -J
	[ "$status" -eq 0 ]
	json_is '[.devices[] | [.bdf, .root_port, .host_bridge, .vendor_id, .device_id]]' \
		'[["10000:01:00.0","10000:00:00.0","pci10000:00",32902,65535],["10001:03:00.0","10001:02:00.0","pci10001:02",32902,65535]]'
	json_is '.devices[0].ide.flags' '["link_ide","selective_ide","ide_km","tee_limited"]'
	json_is '.devices[0].ide.link_tcs' 4
	json_is '.devices[0].ide.selective_streams' 1
	json_is '.devices[0].doe_features' '["0001:00","0001:01"]'
	json_is '.devices[0].dsm' null
	json_is '.devices[0].bound' null
}

@test "devices on the proposed ABI: every TEE function has lock/accept" {
	ROOT=$(static_tree devsec-proposed)
	run t devices -J
	json_is '[.devices[].bdf]' '["10000:01:00.0","10000:01:00.1","10001:03:00.0","10001:03:00.1"]'
	json_is '[.devices[].locked]' '[null,null,null,null]'
	json_is '[.devices[].accepted]' '[false,false,false,false]'
}

@test "devices -d accepts the short form and wide domains" {
	run t devices -J -d 41:00.0
	json_is '[.devices[].bdf]' '["0000:41:00.0"]'
	ROOT=$(static_tree devsec)
	run t devices -J -d 10001:03:00.0,10000:01:00.0
	json_is '[.devices[].bdf]' '["10000:01:00.0","10001:03:00.0"]'
	run t devices -J -d "10001:03:00.0 all"
	json_is '.devices | length' 2
}

@test "devices -t and -b filter by connection and host bridge" {
	run t devices -J -t tsm0
	json_is '[.devices[].bdf]' '["0000:41:00.0"]'
	run t devices -J -b pci0000:80
	json_is '[.devices[].bdf]' '["0000:81:00.0"]'
	run --separate-stderr t devices -J -b pci0000:00
	json_is '.devices' '[]'
}

@test "devices: malformed and unknown device arguments" {
	run t devices -d zz:zz.z
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid PCI address 'zz:zz.z'"* ]]
	[[ "$output" == *"Try 'tsmctl devices --help'."* ]]
	for bad in ../41:00.0 0000:41:00.0/ 41:00.8 41:20.0 "41:00.0 x" 0000:41; do
		run t devices -d "$bad"
		[ "$status" -eq 2 ]
	done
	run t devices -d 0000:99:00.0
	[ "$status" -eq 1 ]
	[[ "$output" == *"0000:99:00.0: no such PCI device"* ]]
	run t devices -b pci0000:99
	[ "$status" -eq 1 ]
	run t devices -b PCI0000:40
	[ "$status" -eq 2 ]
}

@test "devices without TSM support: explains, suggests --all; --all still finds IDE hardware" {
	ROOT=$(static_tree no-tsm)
	run --separate-stderr t devices -J
	[ "$status" -eq 0 ]
	json_is '.devices' '[]'
	[[ "$stderr" == *"CONFIG_PCI_TSM"* ]]
	run --separate-stderr t devices --all -J
	[ "$status" -eq 0 ]
	json_is '[.devices[] | [.bdf, .tsm_dir, .tee_io]]' '[["0000:00:01.1",false,false],["0000:01:00.0",false,true]]'
}

@test "devices with a TSM but no tsm/ dirs explains that" {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/r.XXXXXX")
	cp -a "$(static_tree devsec)/." "$ROOT"
	rm -rf "$ROOT"/sys/devices/faux/devsec_bus/pci1000*/*/*/tsm
	run --separate-stderr t devices
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"no PCI function has a tsm/ directory yet"* ]]
}

@test "devices: a 64-byte config (non-root reader) is needs-root, never 'no IDE'" {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/r.XXXXXX")
	cp -a "$(static_tree sev-tio)/." "$ROOT"
	cfg=$ROOT/sys/devices/pci0000:80/0000:80:01.1/0000:81:00.0/config
	head -c 64 "$cfg" > "$cfg.short" && mv "$cfg.short" "$cfg"
	run --separate-stderr t devices -J -d 81:00.0
	[ "$status" -eq 0 ]
	json_is '.devices[0].vendor_id' 4318
	json_is '.devices[0].ide' null
	json_is '.devices[0].tee_io' null
	json_is '.devices[0].pcie_type' null
	json_is '.devices[0].config_access' '"needs_root"'
	[[ "$stderr" == *"needs root"* ]]
	run t devices -d 81:00.0 -o BDF,TEE,IDE -n
	[[ "$output" == *"needs-root"* ]]
	[[ "$output" != *" no "* ]]
	# the type is what the header, readable to every user, says: a type 0 header, a bridge's
	rp=$ROOT/sys/devices/pci0000:80/0000:80:01.1/config
	head -c 64 "$rp" > "$rp.short" && mv "$rp.short" "$rp"
	run --separate-stderr t tree --all -b pci0000:80 -n -r -o NAME,TYPE,IDE
	[ "$status" -eq 0 ]
	[[ " ${lines[*]} " == *" 0000:80:01.1 bridge needs-root 0000:81:00.0 endpoint needs-root "* ]]
	run --separate-stderr t devices -v 81:00.0
	[[ "$output" == *$'\n    Type: endpoint (by its header; its PCIe type is past it), TEE-IO?\n'* ]]
	run --separate-stderr t devices -J -d 81:00.0
	json_is '.devices[0].pcie_type' null
}

@test "devices -o with every column, and -H" {
	run t devices --output-all -r -n -d 41:00.0
	[ "$status" -eq 0 ]
	[[ "$output" == "0000:41:00.0 15b3 101d "* ]]
	run t devices -H
	for c in BDF VENDOR-ID DEVICE-ID VENDOR DEVICE TYPE TEE IDE DOE TSM-DIR CONNECTED DSM BOUND AUTH LOCKED ACCEPTED DRIVER ROOT-PORT HOST-BRIDGE; do
		[[ "$output" == *"$c "* ]]
	done
	run t devices -o DOE -n -d 41:00.0
	[ "$output" = "0001:00,0001:01,0001:02" ]
}

# The functions whose tsm/ holds the attribute group, found without tsmctl.
group_funcs() {
	local d
	for d in "$ROOT"/sys/bus/pci/devices/*; do
		[ -e "$d/tsm/connect" ] || [ -e "$d/tsm/dsm" ] || [ -e "$d/tsm/bound" ] || [ -e "$d/tsm/lock" ] &&
			basename "$d"
	done | sort
}

@test "devices lists exactly the functions with a tsm/ group, on every topology" {
	local t n=0
	for t in "$TOPO"/*.json; do
		ROOT=$(static_tree "$(basename "$t" .json)")
		run --separate-stderr t devices -J
		[ "$status" -le 1 ]
		diff <(group_funcs) <(jq -r '.devices[]?.bdf' <<<"${output:-{\}}" | sort) ||
			{ echo "in $(basename "$t")"; return 1; }
		n=$((n + $(group_funcs | wc -l)))
	done
	[ "$n" -ge 20 ]
}

@test "devices with a TSM whose dependents get contexts probes every function" {
	ROOT=$(static_tree audit-generic)
	# a dependent that is neither a function 0 nor the sibling sampled after it
	ls "$ROOT/sys/bus/pci/devices/0000:41:00.2/tsm/dsm"
	[ "$(cat "$ROOT/sys/bus/pci/devices/0000:41:00.2/tsm/dsm")" = 0000:41:00.0 ]
	[ -e "$ROOT/sys/bus/pci/devices/0000:41:00.1" ]
	diff <(group_funcs) <(t devices -J | jq -r '.devices[].bdf' | sort)
	t devices -J -d 41:00.2 | jq -e '.devices[0].dsm == "0000:41:00.0"'
}

@test "devices on a link-TSM host probes slots, not every VF: function 0s and one sibling per DSM" {
	command -v strace >/dev/null || skip "strace not installed"
	"$SIM" gen-large --functions 600 --host-bridges 4 --streams 16 "$BATS_TEST_TMPDIR/h.json" >/dev/null
	ROOT=$BATS_TEST_TMPDIR/h
	"$SIM" build "$BATS_TEST_TMPDIR/h.json" "$ROOT" >/dev/null
	# LeakSanitizer cannot run under ptrace
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -e trace=openat2 -o "$BATS_TEST_TMPDIR/trace" "$TSMCTL" --sysroot "$ROOT" devices -J \
		>"$BATS_TEST_TMPDIR/out"
	local probed want all
	probed=$(grep -o 'sys/bus/pci/devices/[^/"]*/tsm"' "$BATS_TEST_TMPDIR/trace" | cut -d/ -f5 | sort -u)
	all=$(ls "$ROOT/sys/bus/pci/devices" | wc -l)
	# function 0s, plus the next function of each connected DSM's slot
	want=$( (ls "$ROOT/sys/bus/pci/devices" | grep '\.0$'
		for d in $(group_funcs); do
			[ -s "$ROOT/sys/bus/pci/devices/$d/tsm/connect" ] || continue
			ls "$ROOT/sys/bus/pci/devices" | grep "^${d%.0}\." | grep -v '\.0$' | head -1
		done) | sort -u)
	diff <(echo "$want") <(echo "$probed")
	echo "$(echo "$probed" | wc -l) of $all functions probed"
	[ "$(echo "$probed" | wc -l)" -lt "$((all / 2))" ]
	diff <(group_funcs) <(jq -r '.devices[].bdf' "$BATS_TEST_TMPDIR/out" | sort)
}

@test "doe_features: null when unknown (a DOE mailbox but no doe_features/), [] only when there is no DOE mailbox" {
	edit_tree sev-tio
	run t devices -J --all -d 81:00.0,82:00.0,40:01.1
	json_is '[.devices[] | [.bdf, .doe_features]]' '[["0000:40:01.1",[]],["0000:81:00.0",["0001:00","0001:01","0001:02"]]]'
	rm -r "$ROOT/sys/devices/pci0000:80/0000:80:01.1/0000:81:00.0/doe_features"
	run t devices -J -d 81:00.0
	[ "$status" -eq 0 ]
	json_is '.devices[0].doe_features' null
	json_is '.devices[0].config_access' '"full"'
}

@test "IDE algorithm ids the kernel does not define show as reserved(N), as stream states do" {
	jq '.host_bridges[2].devices[0].children[0].ide.algorithms = 3' "$TOPO/sev-tio.json" > "$BATS_TEST_TMPDIR/alg.json"
	ROOT=$BATS_TEST_TMPDIR/alg
	"$SIM" build "$BATS_TEST_TMPDIR/alg.json" "$ROOT" >/dev/null
	run t devices -J -d 81:00.0
	json_is '.devices[0].ide.algorithms' '["reserved(3)"]'
	run t devices -J -d 41:00.0
	json_is '.devices[0].ide.algorithms' '["aes-gcm-256-96b"]'
}

@test "non-root and a config file it may not open: IDs and names from the ID files, one note on stderr" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to switch to nobody"
	command -v setpriv >/dev/null || skip "setpriv not installed"
	edit_tree sev-tio
	find "$ROOT" -name config -exec chmod 0600 {} +
	open_path_to_root
	chmod o+rx "$ROOT"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" devices -J -d 41:00.0
	[ "$status" -eq 0 ]
	json_is '.devices[0] | [.vendor_id, .device_id, .class, .vendor, .device]' \
		'[5555,4125,131072,"Mellanox Technologies","MT2892 Family [ConnectX-6 Dx]"]'
	json_is '.devices[0] | [.config_access, .ide, .tee_io, .pcie_type]' '["unreadable",null,null,null]'
	[[ "$stderr" == "tsmctl devices: config space of "[0-9]" functions could not be read (Permission denied; run as root): IDE, TEE and DOE fields are unknown (null), not absent; IDs and names come from the vendor, device and class files" ]]
	# no header either: the kernel's class file says what it is (020000 a NIC, 060400 a bridge)
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" tree --all -b pci0000:40 -n -r -o NAME,TYPE
	[ "${lines[*]}" = "pci0000:40 host-bridge 0000:40:01.1 bridge 0000:41:00.0 endpoint 0000:41:00.1 endpoint" ]
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" streams
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == "pci0000:40  stream0.0.0"*"unreadable"*"unreadable" ]]
	[ "$(grep -c 'could not be read (Permission denied; run as root)' <<<"$stderr")" -eq 1 ]
}

@test "an empty view always says why on stderr; -J prints the (empty) document even when a filter names nothing" {
	run --separate-stderr t devices -d 40:01.1
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$stderr" = "tsmctl devices: no device matches -d 0000:40:01.1: 0000:40:01.1 has no tsm/ group: it is no TSM-capable function 0 (nor a connected DSM's dependent); 'tsmctl devices --all' shows every IDE or TEE-IO capable function" ]
	run --separate-stderr t devices --all -d 82:00.0
	[ "$status" -eq 0 ]
	[ "$stderr" = "tsmctl devices: no device matches -d 0000:82:00.0: 0000:82:00.0 shows neither an IDE capability nor DEVCAP.TEE-IO" ]
	run --separate-stderr t devices -d 81:00.0 -t tsm0
	[ "$stderr" = "tsmctl devices: no device matches -d 0000:81:00.0 -t tsm0" ]
	run --separate-stderr t streams -J -d 81:00.0
	[ "$status" -eq 0 ]
	json_is '.streams' '[]'
	[ "$stderr" = "tsmctl streams: no stream matches -d 0000:81:00.0" ]
	run --separate-stderr t host-bridges -b pci0000:80 -t tsm0
	[ "$stderr" = "tsmctl host-bridges: no host bridge matches -t tsm0 -b pci0000:80: no stream of that TSM uses one" ]
	# a filter naming nothing: exit 1, and with -J the document all the same
	for c in devices streams host-bridges list; do
		case $c in list|host-bridges) f="-t tsm9" ;; *) f="-d 99:00.0" ;; esac
		# shellcheck disable=SC2086
		run --separate-stderr t $c -J $f
		[ "$status" -eq 1 ]
		json_is 'keys | length' 2
		# each document its own number: host_bridges is at 2 (a host bridge's tsm became tsms)
		json_is '.schema_version' "$([ "$c" = host-bridges ] && echo 2 || echo 1)"
		json_is 'to_entries[1].value | length' 0
		[[ "$stderr" == *": no such "* ]]
	done
}

@test "devices -t: a dependent function belongs to its DSM's TSM, as in audit -t" {
	ROOT=$(static_tree audit-generic)
	# 41:00.1 and 41:00.2 are VFs with tsm/dsm naming 41:00.0, connected to tsm0
	run --separate-stderr t devices -n -r -o BDF,CONNECTED,DSM -t tsm0
	[ "$status" -eq 0 ]
	[ "${lines[*]}" = "0000:41:00.0 tsm0 0000:41:00.0 0000:41:00.1  0000:41:00.0 0000:41:00.2  0000:41:00.0" ]
	run --separate-stderr t audit -J -t tsm0
	json_is '[.checks[].object | select(startswith("0000:"))] | unique' '["0000:41:00.0","0000:41:00.1","0000:41:00.2"]'
}

@test "an attribute that exists but cannot be read is marked, never empty: a FIFO, a huge file, an unreadable one" {
	edit_tree sev-tio
	tsm=$ROOT/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/tsm
	rm "$tsm/connect"
	mkfifo "$tsm/connect"
	truncate -s 200M "$tsm/dsm"
	run --separate-stderr t devices -J -d 41:00.0
	expect_status 0
	json_is '.devices[0] | [.connected, .dsm, .read_errors]' '[null,null,{"tsm/connect":"EINVAL","tsm/dsm":"EFBIG"}]'
	[ "$(grep -c 'could not be read or' <<<"$stderr")" -eq 1 ]
	[[ "$stderr" == *"2 attributes could not be read or are malformed (0000:41:00.0/tsm/connect:"* ]]
	run --separate-stderr t devices -n -r -o BDF,CONNECTED,DSM -d 41:00.0
	[ "$output" = "0000:41:00.0 (unreadable) (unreadable)" ]
	run --separate-stderr t streams -n -r -o NAME,TSM
	[ "$output" = "stream0.0.0 (unreadable)" ]
	# text the kernel never prints in tsm/connect: malformed, kept as read in JSON
	rm "$tsm/connect"
	echo 'tsm0 junk' > "$tsm/connect"
	run --separate-stderr t devices -J -d 41:00.0
	json_is '.devices[0] | [.connected, .read_errors."tsm/connect"]' '["tsm0 junk","malformed"]'
	run --separate-stderr t devices -n -o BDF,CONNECTED -d 41:00.0
	[ "$output" = "0000:41:00.0 (malformed) tsm0 junk" ]
	# unreadable for this user
	[ "$(id -u)" -eq 0 ] || skip "needs root to switch to nobody"
	command -v setpriv >/dev/null || skip "setpriv not installed"
	echo tsm0 > "$tsm/connect"
	rm "$tsm/dsm"
	echo 0000:41:00.0 > "$tsm/dsm"
	open_path_to_root
	chmod -R o+rX "$ROOT"
	chmod 000 "$tsm/connect"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" devices -J -d 41:00.0
	json_is '.devices[0] | [.connected, .read_errors]' '[null,{"tsm/connect":"EACCES"}]'
}

# ---- devices -v: one function in full ----

@test "devices -v: every field of the function, its registers as the config file holds them" {
	run --separate-stderr t devices -v 41:00.0
	expect_status 0
	cfg=$ROOT/sys/bus/pci/devices/0000:41:00.0/config
	sel=$(sel_block "$cfg" 0)
	ctl=$(cfg_word "$cfg" $((sel + 4)))
	sts=$(cfg_word "$cfg" $((sel + 8)))
	[ "${lines[0]}" = "0000:41:00.0 MT2892 Family [ConnectX-6 Dx]" ]
	for want in $'    Vendor: Mellanox Technologies [15b3], device [101d], class 020000' \
		    $'    Type: endpoint, TEE-IO+' \
		    $'    Host bridge: pci0000:40, root port: 0000:40:01.1' \
		    $'    Driver: mlx5_core, IOMMU group: none' \
		    $'    TSM: tsm0; state: connected' $'        tsm/connect: tsm0' $'        tsm/bound: (empty)' \
		    $'        authenticated: tsm0' \
		    $'    DOE features: 0001:00 (discovery), 0001:01 (CMA/SPDM), 0001:02 (secure CMA/SPDM)' \
		    $'    Region 0: Memory at 0x20000000000 (64-bit, prefetchable) [size=32M]' \
		    "$(printf '        Selective stream 0 at %#x: capability 00000001, control %08x, status %08x' "$sel" "$ctl" "$sts")" \
		    $'            enable+, state secure, IDE_FAIL-, Stream ID 0, TC 0, aes-gcm-256-96b' \
		    $'            default stream+, TEE-limited+, config requests-' \
		    $'            RID association: 0000-ffff, valid+, segment 00' \
		    $'        Selective stream 1 at' \
		    $'    Stream pci0000:40/stream0.0.0 (Stream ID 0): endpoint here, block 0 secure; root port 0000:40:01.1, block 0 secure'; do
		printf '%s\n' "$output" | grep -qxF -- "$want" || printf '%s\n' "$output" | grep -qF -- "$want" ||
			{ echo "missing: $want"; echo "$output"; return 1; }
	done
	# the BAR is the resource file's first line
	read -r start end flags < "$ROOT/sys/bus/pci/devices/0000:41:00.0/resource"
	[ "$start" = 0x0000020000000000 ]
	[ $((end - start + 1)) -eq $((32 << 20)) ]
	[ $((flags & 0x2000)) -ne 0 ]
	# the root port sees the same stream from its side
	run --separate-stderr t devices -v --all 40:01.1
	[[ "$output" == *$'    Stream pci0000:40/stream0.0.0 (Stream ID 0): root port here, block 0 secure; endpoint 0000:41:00.0, block 0 secure'* ]]
	[[ "$output" == *$'    TSM: no tsm/ attribute group'* ]]
}

@test "devices -v -J: the devices document, each device with its detail as the registers hold it" {
	run --separate-stderr t devices -v -J 41:00.0
	expect_status 0
	cfg=$ROOT/sys/bus/pci/devices/0000:41:00.0/config
	sel=$(sel_block "$cfg" 0)
	json_is '.devices | length' 1
	json_is '.devices[0].detail | keys' '["bars","connect_blocker","ide_registers","ide_unusable","iommu_group","physfn","serial_number","serial_number_error","sriov","streams"]'
	json_is '.devices[0].detail.bars' '[{"index":0,"type":"memory","start":2199023255552,"size":33554432,"is_64bit":true,"prefetchable":true}]'
	json_is '.devices[0].detail.ide_registers.selective | length' 2
	json_is '.devices[0].detail.ide_registers.selective[0] | [.offset, .control, .status, .enabled, .stream_id, .default_stream]' \
		"[$sel,$(($(cfg_word "$cfg" $((sel + 4))))),$(($(cfg_word "$cfg" $((sel + 8))))),true,0,true]"
	json_is '.devices[0].detail.ide_registers.link | map([.index, .enabled])' '[[0,false]]'
	json_is '.devices[0].detail.streams | map([.name, .role, .endpoint_state, .root_port_state, .root_port])' \
		'[["stream0.0.0","endpoint","secure","secure","0000:40:01.1"]]'
	json_is '.devices[0].detail | [.iommu_group, .physfn, .sriov, .connect_blocker]' '[null,null,null,null]'
	# the same selection as the table: devices -J without -v has detail null
	run --separate-stderr t devices -J 41:00.0
	json_is '.devices[0].detail' null
	# an unconnected DSM a connect would fail for says why (tdx-connect: no pool)
	ROOT=$(static_tree tdx-connect)
	run --separate-stderr t devices -v -J 38:00.0 27:00.0
	json_is '.devices | map([.bdf, .detail.connect_blocker])' \
		'[["0000:27:00.0",null],["0000:38:00.0","its host bridge pci0000:37 has no IDE stream pool (no available_secure_streams)"]]'
	json_is '.devices[0].detail.sriov' '{"numvfs":4,"offset":1,"stride":1}'
	run --separate-stderr t devices -v 38:00.0
	[[ "$output" == *$'    Connect: would fail: its host bridge pci0000:37 has no IDE stream pool'* ]]
	run --separate-stderr t devices -v -a 27:00.2
	[[ "$output" == *$'    SR-IOV: a VF of 0000:27:00.0'* ]]
}

@test "devices -v: an IOMMU group link is read; a resource file the kernel would not print is unknown, not none" {
	edit_tree sev-tio
	d=$ROOT/sys/bus/pci/devices/0000:41:00.0
	mkdir -p "$ROOT/sys/kernel/iommu_groups/12"
	ln -s ../../../../../kernel/iommu_groups/12 "$d/iommu_group"
	run --separate-stderr t devices -v -J 41:00.0
	json_is '.devices[0].detail.iommu_group' 12
	run --separate-stderr t devices -v 41:00.0
	[[ "$output" == *$'    Driver: mlx5_core, IOMMU group: 12'* ]]
	printf '0x20000000000 junk\n' > "$d/resource"
	run --separate-stderr t devices -v -J 41:00.0
	json_is '.devices[0].detail.bars' null
	run --separate-stderr t devices -v 41:00.0
	[[ "$output" == *$'    BARs: unknown (no resource file could be read)'* ]]
}

@test "devices -v takes no table options; BDF arguments select as -d" {
	for o in "-o BDF" --output-all -n -r -P -y; do
		# shellcheck disable=SC2086
		run --separate-stderr t devices -v $o
		[ "$status" -eq 2 ] || { echo "-v $o: exit $status"; return 1; }
		[[ "$stderr" == *"-v prints each device in full: it takes no"* ]]
	done
	run --separate-stderr t devices -n -o BDF 81:00.0 41:00
	[ "${lines[*]}" = "0000:41:00.0 0000:81:00.0" ]
	run --separate-stderr t devices 41:00.0 -d 81:00.0 -n -o BDF
	[ "${lines[*]}" = "0000:41:00.0 0000:81:00.0" ]
	run --separate-stderr t devices 41:0g
	[ "$status" -eq 2 ]
	run --separate-stderr t devices 99:00.0
	[ "$status" -eq 1 ]
	[ "$stderr" = "tsmctl devices: 0000:99:00.0: no such PCI device" ]
	# two devices in full: a blank line between
	run --separate-stderr t devices -v
	[ "$(printf '%s\n' "$output" | grep -c '^0000:')" -eq 2 ]
	[ "$(printf '%s\n' "$output" | grep -c '^$')" -eq 1 ]
}

# ---- state filters ----

@test "state filters select by the model's state, ANDed with each other and the filters" {
	run --separate-stderr t devices -n -o BDF --connected
	[ "$output" = "0000:41:00.0" ]
	run --separate-stderr t devices -n -o BDF --not-connected
	[ "$output" = "0000:81:00.0" ]
	run --separate-stderr t devices -n -o BDF --can-connect
	[ "$output" = "0000:81:00.0" ]
	run --separate-stderr t devices -n -o BDF --connected -d 81:00.0
	[ -z "$output" ]
	[ "$stderr" = "tsmctl devices: no device that is connected matches -d 0000:81:00.0" ]
	run --separate-stderr t devices --locked
	[ "$stderr" = "tsmctl devices: no device that is locked" ]
	# --can-connect leaves out what a connect would fail for, as connect --all does
	ROOT=$(static_tree tdx-connect)
	run --separate-stderr t devices -n -o BDF --not-connected
	[ "${lines[*]}" = "0000:27:00.0 0000:38:00.0 0000:6a:01.0" ]
	run --separate-stderr t devices -n -o BDF --can-connect
	[ "${lines[*]}" = "0000:27:00.0" ]
	run --separate-stderr t connect --dry-run --all tsm0
	[[ "$stderr" == *"--all leaves out 0000:38:00.0"*"--all leaves out 0000:6a:01.0"* ]]
	[[ "$output" == *"0000:27:00.0: would write"* ]]
	# contradictions and views they do not fit are usage errors
	run --separate-stderr t devices --connected --not-connected
	[ "$status" -eq 2 ]
	run --separate-stderr t devices --connected --can-connect
	[ "$status" -eq 2 ]
	for c in streams host-bridges list tree audit; do
		for o in --connected --not-connected --locked --accepted --can-connect; do
			run --separate-stderr t "$c" "$o"
			[ "$status" -eq 2 ] || { echo "$c $o: exit $status"; return 1; }
		done
	done
}

@test "live guest: --locked and --accepted follow lock and accept" {
	mount_live guest-sev
	run --separate-stderr t devices -n -o BDF --locked
	[ -z "$output" ]
	run t lock --no-syslog 00:05 tsm0
	expect_status 0
	[ "$(cat "$(dev 0000:00:05.0)/tsm/lock")" = tsm0 ]
	run --separate-stderr t devices -n -o BDF --locked
	[ "$output" = "0000:00:05.0" ]
	run --separate-stderr t devices -n -o BDF --accepted
	[ -z "$output" ]
	run t accept --no-syslog 00:05.0
	expect_status 0
	run --separate-stderr t devices -n -o BDF --locked --accepted
	[ "$output" = "0000:00:05.0" ]
	run --separate-stderr t devices -n -r -o BDF,STATE --locked
	[ "$output" = "0000:00:05.0 accepted" ]
	run t unlock --no-syslog 00:05.0
	run --separate-stderr t devices -n -o BDF --accepted
	[ -z "$output" ]
}
