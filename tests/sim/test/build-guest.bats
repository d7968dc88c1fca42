#!/usr/bin/env bats
# Static trees of the guest topologies, boot-time TDISP state, driver dirs.

load helper

teardown() {
	teardown_sim
}

@test "guest-sev: devsec tsm0 on the sev-guest platform device, no link group" {
	build_tree guest-sev
	S=$T/sys
	[ "$(ls "$S/class/tsm")" = tsm0 ]
	[ "$(readlink "$S/class/tsm/tsm0")" = "../../devices/platform/sev-guest/tsm/tsm0" ]
	[ "$(cat "$S/class/tsm/tsm0/pci_mode")" = devsec ]
	[ "$(readlink "$S/devices/platform/sev-guest/driver")" = "../../../bus/platform/drivers/sev-guest" ]
	[ "$(readlink "$S/devices/platform/sev-guest/subsystem")" = "../../../bus/platform" ]
	[ "$(readlink "$S/bus/platform/devices/sev-guest")" = "../../../devices/platform/sev-guest" ]
	grep -qx MODALIAS=platform:sev-guest "$S/devices/platform/sev-guest/uevent"
	[ "$(ls "$S/devices/pci0000:00" | tr '\n' ' ')" = "0000:00:01.0 0000:00:05.0 0000:00:06.0 available_secure_streams pci_bus uevent " ]
}

@test "guest-sev: 05.0 unbound, 06.0 bound to mlx5_core, both with lock/accept/unlock" {
	build_tree guest-sev
	D=$T/sys/devices/pci0000:00
	[ "$(ls "$D/0000:00:05.0/tsm" | tr '\n' ' ')" = "accept lock unlock " ]
	[ "$(ls "$D/0000:00:06.0/tsm" | tr '\n' ' ')" = "accept lock unlock " ]
	[ ! -e "$D/0000:00:01.0/tsm" ]
	[ "$(cat "$D/0000:00:05.0/tsm/lock")" = "" ]
	[ "$(cat "$D/0000:00:05.0/tsm/accept")" = 0 ]
	[ ! -e "$D/0000:00:05.0/driver" ]
	[ "$(readlink "$D/0000:00:06.0/driver")" = "../../../bus/pci/drivers/mlx5_core" ]
	grep -qx DRIVER=mlx5_core "$D/0000:00:06.0/uevent"
	# DEVCAP.TEE (bit 30) in the PCIe capability, type RCiEP
	[ $((0x$(u32 "$D/0000:00:05.0/config" 0x44) & 0x40000000)) -ne 0 ]
	[ $(((0x$(u16 "$D/0000:00:05.0/config" 0x42) >> 4) & 0xf)) -eq 9 ]
}

@test "driver dirs: bind, unbind and uevent (0200), also for drivers nothing uses" {
	build_tree guest-sev
	for d in mlx5_core vfio-pci virtio-pci; do
		for f in bind unbind uevent new_id remove_id; do
			[ "$(stat -c %a "$T/sys/bus/pci/drivers/$d/$f")" = 200 ]
		done
	done
	[ "$(ls "$T/sys/bus/pci/drivers/vfio-pci" | tr '\n' ' ')" = "bind new_id remove_id uevent unbind " ]
}

@test "guest-sev: configfs report group exists, empty (items are made by mkdir)" {
	build_tree guest-sev
	[ -d "$T/sys/kernel/config/tsm/report" ]
	[ -z "$(ls -A "$T/sys/kernel/config/tsm/report")" ]
}

@test "guest-tdx: no TSM, no tsm/ dirs, report group present" {
	build_tree guest-tdx
	S=$T/sys
	[ ! -e "$S/class/tsm" ]
	[ ! -e "$S/devices/pci0000:00/0000:00:02.0/tsm" ]
	[ -d "$S/kernel/config/tsm/report" ]
	[ -z "$(ls -A "$S/kernel/config/tsm/report")" ]
	[ "$(cat "$S/module/tdx_guest/initstate")" = live ]
}

@test "host topologies have no configfs-tsm at all" {
	for t in sev-tio devsec-proposed no-tsm; do
		T=$(mktemp -d)
		"$SIM" build "$TOPO/$t.json" "$T"
		[ ! -e "$T/sys/kernel" ] || { echo "$t has sys/kernel"; return 1; }
		rm -rf "$T"
		T=
	done
}

@test "state knobs: locked and accepted at boot, with the driver bound afterwards" {
	topo_file <<-'EOF'
	{ "abi": "proposed",
	  "tsms": [ { "kind": "devsec", "parent": "platform:sev-guest" } ],
	  "host_bridges": [ { "devices": [
	    { "bdf": "0000:00:05.0", "type": "rciep", "tee": true, "locked": "tsm0",
	      "accepted": true, "driver": "mlx5_core" },
	    { "bdf": "0000:00:06.0", "type": "rciep", "tee": true, "locked": "tsm0" } ] } ] }
	EOF
	T=$(mktemp -d)
	"$SIM" build "$J" "$T"
	D=$T/sys/devices/pci0000:00
	[ "$(cat "$D/0000:00:05.0/tsm/lock")" = tsm0 ]
	[ "$(cat "$D/0000:00:05.0/tsm/accept")" = 1 ]
	[ -L "$D/0000:00:05.0/driver" ]
	[ "$(cat "$D/0000:00:06.0/tsm/lock")" = tsm0 ]
	[ "$(cat "$D/0000:00:06.0/tsm/accept")" = 0 ]
}

@test "state knobs: accepted without locked, or a lock nothing can take, are errors" {
	topo_file <<-'EOF'
	{ "abi": "proposed",
	  "tsms": [ { "kind": "devsec", "parent": "platform:sev-guest" } ],
	  "host_bridges": [ { "devices": [
	    { "bdf": "0000:00:05.0", "type": "rciep", "tee": true, "accepted": true } ] } ] }
	EOF
	T=$(mktemp -d)
	run "$SIM" build "$J" "$T/1"
	[ "$status" -eq 1 ]
	[[ "$output" == *"accepted needs locked"* ]]
	jq '.host_bridges[0].devices[0] += {"locked": "tsm0"} | .host_bridges[0].devices[0].tee = false' "$J" > "$T/no-tee.json"
	run "$SIM" build "$T/no-tee.json" "$T/2"
	[ "$status" -eq 1 ]
	[[ "$output" == *"build-time lock to tsm0 failed"* ]]
	jq '.host_bridges[0].devices[0] += {"locked": "tsm3"}' "$J" > "$T/no-tsm.json"
	run "$SIM" build "$T/no-tsm.json" "$T/3"
	[ "$status" -eq 1 ]
	[[ "$output" == *"No such device or address"* ]]
}

@test "report topology errors are reported" {
	T=$(mktemp -d)
	for bad in '{"provider": "sev-guest"}' '{"privlevel_floor": 4}' \
		'{"provider": "tdx_guest", "svsm": true}' '{"faults": {"outblob_errno": "EWHAT"}}' \
		'{"faults": {"concurrent": 1}}' '{"provdier": "sev_guest"}'; do
		jq --argjson r "$bad" '.report = $r' "$TOPO/guest-sev.json" > "$T/t.json"
		run "$SIM" build "$T/t.json" "$T/out"
		[ "$status" -eq 1 ] || { echo "accepted: $bad"; return 1; }
		[[ "$output" == *report* ]] || { echo "$bad: $output"; return 1; }
	done
}
