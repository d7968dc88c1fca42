#!/usr/bin/env bats
# tsmctl tree: the PCI hierarchy below each host bridge, streams along their paths.

load lib/helpers
load lib/netns

setup() {
	ROOT=$(static_tree sev-tio)
}

teardown() {
	unmount_live
}

# jq over tree -J: the node named $1, wherever it hangs
node() {
	printf '%s' "$output" | jq -c --arg n "$1" '[.. | objects | select(.name? == $n and has("children"))][0]'
}

@test "tree -J on SEV-TIO: host bridge, root port, DSM, nested as the bus is" {
	run t tree -J
	[ "$status" -eq 0 ]
	json_is '.schema_version' 1
	json_is '[.tree[].name]' '["pci0000:00","pci0000:40","pci0000:80"]'
	json_is '[.tree[].kind] | unique' '["host_bridge"]'
	json_is '.tree[1] | [.host_bridge.available_secure_streams, .host_bridge.tsms, .device]' '[255,["tsm0"],null]'
	json_is '.tree[1].children | map(.name)' '["0000:40:01.1"]'
	json_is '.tree[1].children[0].children | map(.name)' '["0000:41:00.0"]'
	json_is '.tree[1].children[0].children[0] | [.kind, .relation, .device.connected, .host_bridge]' \
		'["function",null,"tsm0",null]'
	# the stream on its two partners, each with its block and state
	json_is '.tree[1].children[0].streams' \
		'[{"name":"stream0.0.0","host_bridge":"pci0000:40","role":"root_port","block":0,"summary":"secure"}]'
	json_is '.tree[1].children[0].children[0].streams' \
		'[{"name":"stream0.0.0","host_bridge":"pci0000:40","role":"endpoint","block":0,"summary":"secure"}]'
	json_is '.tree[1].children[0].children[0].selective_blocks' \
		'[{"block":0,"stream_id":0,"state":"secure","ide_fail":false,"stream":"stream0.0.0"}]'
	# nothing connected below pci0000:80, and the NVMe without TEE/IDE/DOE is not in the tree
	json_is '.tree[2].children[0].children | map([.name, .device.connected, .streams])' '[["0000:81:00.0",null,[]]]'
	json_is '[.. | objects | select(.name? == "0000:82:00.0")] | length' 0
}

@test "the table: ASCII in the C locale, line drawing in UTF-8, and -r/-P list rows without drawing" {
	run env LC_ALL=C "$TSMCTL" --sysroot "$ROOT" tree -o NAME,STREAMS
	[ "$status" -eq 0 ]
	[ "${lines[3]}" = '`-0000:40:01.1   stream0.0.0 R0 secure' ]
	[ "${lines[4]}" = '  `-0000:41:00.0 stream0.0.0 E0 secure' ]
	run env LC_ALL=C.UTF-8 "$TSMCTL" --sysroot "$ROOT" tree -o NAME
	[ "${lines[3]}" = $'\u2514\u25000000:40:01.1' ]
	run env LC_ALL=C.UTF-8 "$TSMCTL" --sysroot "$ROOT" tree -r -n -o NAME,TYPE
	[ "${lines[*]}" = "pci0000:00 host-bridge pci0000:40 host-bridge 0000:40:01.1 root_port 0000:41:00.0 endpoint pci0000:80 host-bridge 0000:80:01.1 root_port 0000:81:00.0 endpoint" ]
	run env LC_ALL=C.UTF-8 "$TSMCTL" --sysroot "$ROOT" tree -P -o NAME -d 41:00.0
	[ "${lines[*]}" = 'NAME="pci0000:40" NAME="0000:40:01.1" NAME="0000:41:00.0"' ]
}

@test "a stream through a switch is drawn along its path: endpoint E, the ports it passes, root port R" {
	ROOT=$(static_tree tdx-connect)
	run t tree -J -b pci0000:15
	[ "$status" -eq 0 ]
	[ "$(node 0000:15:01.0 | jq -c '.streams | map([.role, .block, .summary])')" = '[["root_port",0,"secure"]]' ]
	[ "$(node 0000:16:00.0 | jq -c '.streams | map([.role, .block, .summary])')" = '[["switch",null,null]]' ]
	[ "$(node 0000:17:00.0 | jq -c '.streams | map([.role, .block, .summary])')" = '[["switch",null,null]]' ]
	[ "$(node 0000:18:00.0 | jq -c '.streams | map([.role, .block, .summary])')" = '[["endpoint",0,"secure"]]' ]
	[ "$(node 0000:17:00.0 | jq -c '.children | map(.name)')" = '["0000:18:00.0"]' ]
	run env LC_ALL=C "$TSMCTL" --sysroot "$ROOT" tree -b pci0000:15 -o NAME,TYPE,STREAMS
	[ "${lines[3]}" = '  `-0000:16:00.0       upstream_port   stream0.0.0 via' ]
	[ "${lines[4]}" = '    `-0000:17:00.0     downstream_port stream0.0.0 via' ]
}

@test "dependents and VFs hang under their DSM; what the bus puts beside it is moved, not lost" {
	ROOT=$(static_tree tdx-connect)
	run t tree -J --all
	[ "$(node 0000:18:00.0 | jq -c '.children | map([.name, .relation, .device.dsm])')" = \
		'[["0000:18:00.1","dependent","0000:18:00.0"]]' ]
	[ "$(node 0000:27:00.0 | jq -c '.children | map([.name, .relation])')" = \
		'[["0000:27:00.1","vf"],["0000:27:00.2","vf"],["0000:27:00.3","vf"],["0000:27:00.4","vf"]]' ]
	[ "$(node 0000:26:01.0 | jq -c '.children | map(.name)')" = '["0000:27:00.0"]' ]
	# without --all only the functions with tsm/: the connected DSM's dependent is one
	run t tree -J
	[ "$(node 0000:18:00.0 | jq -c '.children | map(.name)')" = '["0000:18:00.1"]' ]
	[ "$(node 0000:27:00.0 | jq -c '.children')" = '[]' ]
	# a VF of a DSM that is connected (audit-generic) shares its TSM
	ROOT=$(static_tree audit-generic)
	run t tree -J
	[ "$(node 0000:41:00.0 | jq -c '.children | map([.name, .relation, .device.dsm])')" = \
		'[["0000:41:00.1","vf","0000:41:00.0"],["0000:41:00.2","vf","0000:41:00.0"]]' ]
	run t tree -n -r -o NAME,TSM,STATE -d 41:00.2
	[ "${lines[3]}" = "0000:41:00.2 tsm0 dependent" ]
}

@test "a dangling link is told on its host bridge, an enabled block without a link on its function" {
	ROOT=$(static_tree broken)
	run t tree -J
	[ "$status" -eq 0 ]
	[ "$(node pci0000:40 | jq -c '.streams')" = \
		'[{"name":"stream3.2.0","host_bridge":"pci0000:40","role":"host_bridge","block":null,"summary":"dangling"}]' ]
	[ "$(node 0000:43:00.0 | jq -c '.selective_blocks')" = \
		'[{"block":0,"stream_id":7,"state":"secure","ide_fail":false,"stream":null}]' ]
	[ "$(node 0000:42:00.0 | jq -c '.streams[0].summary')" = '"secure+ide-fail"' ]
	[ "$(node 0000:40:01.1 | jq -c '.streams[0].summary')" = '"insecure"' ]
	# the block's registers are the config file's: block 0 of 0000:43:00.0 carries Stream ID 7, enabled
	cfg=$ROOT/sys/bus/pci/devices/0000:43:00.0/config
	ctl=$(cfg_word "$cfg" $(($(sel_block "$cfg" 0) + 4)))
	[ $((ctl & 1)) -eq 1 ]
	[ $(((ctl >> 24) & 255)) -eq 7 ]
	run t tree -n -r -o NAME,STREAMS -d 43:00.0
	[ "${lines[2]}" = '0000:43:00.0 block0\x20ID7\x20secure\x20(no\x20link)' ]
}

@test "filters: -d keeps the path to a device and what hangs below it, -t and -b as elsewhere, ANDed" {
	ROOT=$(static_tree tdx-connect)
	run t tree -n -r -o NAME -d 18:00.0
	[ "${lines[*]}" = "pci0000:15 0000:15:01.0 0000:16:00.0 0000:17:00.0 0000:18:00.0 0000:18:00.1" ]
	run t tree -n -r -o NAME -d 17:00.0 --all
	[ "${lines[*]}" = "pci0000:15 0000:15:01.0 0000:16:00.0 0000:17:00.0 0000:18:00.0 0000:18:00.1" ]
	run t tree -n -r -o NAME -d 18:00.1
	[ "${lines[*]}" = "pci0000:15 0000:15:01.0 0000:16:00.0 0000:17:00.0 0000:18:00.0 0000:18:00.1" ]
	run t tree -n -r -o NAME -t tsm0
	[ "${lines[*]}" = "pci0000:15 0000:15:01.0 0000:16:00.0 0000:17:00.0 0000:18:00.0 0000:18:00.1" ]
	run t tree -n -r -o NAME -b pci0000:37
	[ "${lines[*]}" = "pci0000:37 0000:37:01.0 0000:38:00.0" ]
	run t tree -n -r -o NAME -d 27:00 --all
	[ "${lines[*]}" = "pci0000:26 0000:26:01.0 0000:27:00.0 0000:27:00.1 0000:27:00.2 0000:27:00.3 0000:27:00.4" ]
	# AND: a device below another host bridge, or of no TSM, leaves nothing
	run --separate-stderr t tree -d 38:00.0 -b pci0000:15
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$stderr" = "tsmctl tree: no host bridge or function matches -d 0000:38:00.0 -b pci0000:15" ]
	run --separate-stderr t tree -d 38:00.0 -t tsm0 -J
	json_is '.tree' '[]'
}

@test "a -d device that is not in the tree, or not in sysfs, says so" {
	run --separate-stderr t tree -d 82:00.0
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"0000:82:00.0 is not in the tree: it has no tsm/ group and is neither an IDE port nor a stream partner ('tsmctl tree --all' shows every function)" ]]
	run --separate-stderr t tree -d 82:00.0 --all -n -r -o NAME
	[ "${lines[*]}" = "pci0000:80 0000:80:03.1 0000:82:00.0" ]
	run --separate-stderr t tree -d 99:00.0 -J
	[ "$status" -eq 1 ]
	[ "$stderr" = "tsmctl tree: 0000:99:00.0: no such PCI device" ]
	json_is '.tree' '[]'
	run --separate-stderr t tree --state secure
	[ "$status" -eq 2 ]
}

@test "every shipped topology, static: each device of devices (and --all) is a node, each stream on both partners" {
	local topo n
	for topo in "$TOPO"/*.json; do
		ROOT=$(static_tree "$(basename "$topo" .json)")
		for all in "" --all; do
			run --separate-stderr t tree -J $all
			[ "$status" -eq 0 ] || { echo "$topo tree $all: exit $status"; return 1; }
			tree=$output
			for bdf in $(t devices -J $all 2>/dev/null | jq -r '.devices[].bdf'); do
				n=$(printf '%s' "$tree" | jq --arg b "$bdf" '[.. | objects | select(.kind? == "function" and .name == $b)] | length')
				[ "$n" -eq 1 ] || { echo "$topo tree $all: $bdf appears $n times"; return 1; }
			done
			# every stream whose endpoint is below its host bridge: endpoint and root port roles
			for s in $(t streams -J 2>/dev/null | jq -r '.streams[] | select(.dangling | not) | .host_bridge + "/" + .name'); do
				n=$(printf '%s' "$tree" | jq --arg s "$s" '[.. | objects | select(has("children")) | .streams[] | select(.host_bridge + "/" + .name == $s) | .role] | map(select(. == "endpoint" or . == "root_port")) | length')
				[ "$n" -eq 2 ] || { echo "$topo tree $all: $s has $n partners"; return 1; }
			done
		done
	done
}

@test "tree --all on every shipped topology: exactly sys/bus/pci/devices, each function below its bus parent or its DSM" {
	local topo want got dir up bdf rel parent dsm
	for topo in "$TOPO"/*.json; do
		ROOT=$(static_tree "$(basename "$topo" .json)")
		run --separate-stderr t tree --all -J
		[ "$status" -eq 0 ] || { echo "$topo: exit $status"; return 1; }
		want=$(ls "$ROOT/sys/bus/pci/devices" | sort)
		got=$(printf '%s' "$output" | jq -r '.. | objects | select(.kind? == "function") | .name' | sort)
		[ "$got" = "$want" ] || { echo "$topo: tree --all has"; echo "$got"; echo "sysfs has"; echo "$want"; return 1; }
		# each node's parent: the directory the kernel put it in (a bridge or a host bridge),
		# or for a dependent or VF its DSM (the RELATION column says which)
		while read -r bdf rel parent; do
			dir=$(readlink -f "$ROOT/sys/bus/pci/devices/$bdf")
			up=$(basename "$(dirname "$dir")")
			if [ "$rel" = null ]; then
				[ "$parent" = "$up" ] || { echo "$topo: $bdf below $parent, sysfs has it below $up"; return 1; }
			elif [ "$rel" = dependent ]; then
				# the DSM tsm/dsm names, else function 0 of its slot
				dsm=$(printf '%s' "$output" | jq -r --arg b "$bdf" '[.. | objects | select(.name? == $b)][0].device.dsm // empty')
				[ "$parent" = "${dsm:-${bdf%.*}.0}" ] || { echo "$topo: $bdf (dependent) below $parent"; return 1; }
			else
				# a VF: function 0 of its PF's slot
				[ "$parent" = "$(basename "$(readlink -f "$dir/physfn")" | sed 's/\.[0-7]$/.0/')" ] ||
					{ echo "$topo: $bdf (vf) below $parent"; return 1; }
			fi
		done < <(printf '%s' "$output" | jq -r '.. | objects | select(has("children")) | .name as $p |
			.children[] | "\(.name) \(.relation) \($p)"')
		# the table draws the same rows
		[ "$(t tree --all -n -r -o NAME | grep -vc '^pci')" -eq "$(printf '%s\n' "$want" | grep -c .)" ]
	done
}

@test "tree --all names the TSM on its provider function (the PSP on SEV-TIO); the default tree leaves it out" {
	run --separate-stderr t tree --all -n -r -o NAME,TYPE,TSM,STATE
	[ "$status" -eq 0 ]
	[[ " ${lines[*]} " == *" 0000:02:00.1 endpoint tsm0 provider "* ]]
	[ "$(t list -J | jq -r '.tsms[0].provider')" = 0000:02:00.1 ]
	run t tree --all -J
	[ "$(node 0000:02:00.1 | jq -c '.provides')" = '["tsm0"]' ]
	[ "$(node 0000:00:07.1 | jq -c '[.provides, (.children | map(.name))]')" = '[[],["0000:02:00.0","0000:02:00.1"]]' ]
	[ "$(node pci0000:00 | jq -c '.provides')" = '[]' ]
	run t tree -J
	[ "$(node 0000:02:00.1)" = null ]
	# a faux provider (TDX Connect's tdx_host) is no PCI function: no node names it
	ROOT=$(static_tree tdx-connect)
	run t tree --all -J
	[ "$(printf '%s' "$output" | jq -c '[.. | objects | select(.provides? != null and .provides != []) | .name]')" = '[]' ]
}

@test "live: a connect draws its stream from the endpoint to the root port, a disconnect removes it" {
	mount_live tdx-connect
	run t tree -J -d 27:00.0
	[ "$(node 0000:27:00.0 | jq -c '[.streams, .children]')" = '[[],[]]' ]
	run t connect --no-syslog 27:00 tsm0
	[ "$status" -eq 0 ]
	link=$(basename "$(ls -d "$ROOT"/sys/devices/pci0000:26/stream*)")
	run t tree -J -d 27:00.0
	[ "$(node 0000:27:00.0 | jq -c --arg l "$link" '.streams | map([.name == $l, .role, .summary])')" = '[[true,"endpoint","secure"]]' ]
	[ "$(node 0000:26:01.0 | jq -c --arg l "$link" '.streams | map([.name == $l, .role, .summary])')" = '[[true,"root_port","secure"]]' ]
	# TDX Connect gives the VFs a context: they join the tree, under their DSM
	[ "$(node 0000:27:00.0 | jq -c '.children | map([.relation, .device.dsm])')" = \
		'[["vf","0000:27:00.0"],["vf","0000:27:00.0"],["vf","0000:27:00.0"],["vf","0000:27:00.0"]]' ]
	run t tree -n -r -o NAME,STATE -d 27:00.1
	[ "${lines[3]}" = "0000:27:00.1 dependent" ]
	run t disconnect --no-syslog 27:00.0
	[ "$status" -eq 0 ]
	run t tree -J -d 27:00.0
	[ "$(node 0000:27:00.0 | jq -c '[.streams, .children]')" = '[[],[]]' ]
	[ "$(node 0000:26:01.0 | jq -c '.streams')" = '[]' ]
}

@test "live on every topology: tree and tree --all exit 0 and show every device devices shows" {
	local topo
	for topo in "$TOPO"/*.json; do
		# topologies with late TSMs send uevents: those mount only in a namespace of their own
		jq -e '[.tsms[]? | .register_after_ms, .register_manually] | any' "$topo" >/dev/null && continue
		mount_live "$(basename "$topo" .json)"
		for all in "" --all; do
			run --separate-stderr t tree -J $all
			[ "$status" -eq 0 ] || { echo "$topo tree $all: exit $status"; return 1; }
			want=$(t devices -J $all 2>/dev/null | jq -c '[.devices[].bdf] | sort')
			got=$(printf '%s' "$output" | jq -c --argjson w "$want" '[.. | objects | select(.kind? == "function") | .name] as $n | $w - $n')
			[ "$got" = '[]' ] || { echo "$topo tree $all misses $got"; return 1; }
		done
		unmount_live
	done
}

@test "tsm/dsm naming each other (no kernel does) cannot loop the tree" {
	edit_tree sev-tio
	d=$ROOT/sys/devices/pci0000:40/0000:40:01.1
	mkdir -p "$d/0000:41:00.1/tsm"
	echo 0000:41:00.1 > "$d/0000:41:00.0/tsm/dsm"
	echo 0000:41:00.0 > "$d/0000:41:00.1/tsm/dsm"
	echo > "$d/0000:41:00.1/tsm/bound"
	run --separate-stderr timeout 60 "$TSMCTL" --sysroot "$ROOT" tree -J	# a bound for a loop
	[ "$status" -eq 0 ]
	json_is '[.. | objects | select(.kind? == "function") | .name] | sort' \
		'["0000:40:01.1","0000:41:00.0","0000:41:00.1","0000:80:01.1","0000:81:00.0"]'
}

@test "needs root: ports and functions are still placed, their IDE unknown" {
	mount_live sev-tio
	open_path_to_root
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$TSMCTL" --sysroot "$ROOT" tree -J
	[ "$status" -eq 0 ]
	[ "$(node 0000:41:00.0 | jq -c '[.device.config_access, .selective_blocks, (.streams | map(.summary))]')" = \
		'["needs_root",null,["needs-root"]]' ]
	[[ "$stderr" == *"config space past 64 bytes needs root"* ]]
}

@test "a node's device is the device devices shows: DOE features known for DSMs and for ports alike" {
	local devs bdfs
	devs=$(t devices --all -J | jq -c '[.devices[] | {bdf, doe_features, connected}] | sort_by(.bdf)')
	run t tree --all -J
	[ "$status" -eq 0 ]
	# a connected DSM's mailboxes are read, as devices reads them (not left unknown); tree --all
	# holds every function, devices --all the IDE or TEE-IO capable ones: those are the same
	bdfs=$(printf '%s' "$devs" | jq -c 'map(.bdf)')
	json_is '[.. | objects | select(.kind? == "function") | .device | {bdf, doe_features, connected} |
		select(.bdf as $b | '"$bdfs"' | index($b))] | sort_by(.bdf)' "$devs"
	json_is '[.. | objects | select(has("doe_features") and .doe_features == null)] | length' 0
}
