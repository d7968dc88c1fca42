#!/usr/bin/env bats
# Static tree of tests/topologies/sev-tio.json (the SEV-TIO host as Linux 7.3 shows it).

load helper

setup() {
	build_tree sev-tio
	S=$T/sys
	HB40=$S/devices/pci0000:40
	RP=$HB40/0000:40:01.1
	NIC=$RP/0000:41:00.0
	NIC1=$RP/0000:41:00.1
	GPU=$S/devices/pci0000:80/0000:80:01.1/0000:81:00.0
	NVME=$S/devices/pci0000:80/0000:80:03.1/0000:82:00.0
	PSP=$S/devices/pci0000:00/0000:00:07.1/0000:02:00.1
}

teardown() {
	teardown_sim
}

@test "host bridges and nested device dirs" {
	[ -d "$S/devices/pci0000:00" ]
	[ -d "$S/devices/pci0000:40" ]
	[ -d "$S/devices/pci0000:80" ]
	[ -d "$NIC" ]
	[ -d "$NIC1" ]
	[ -d "$GPU" ]
	[ -d "$NVME" ]
	[ -d "$PSP" ]
	[ -d "$S/devices/pci0000:00/0000:00:07.1/0000:02:00.0" ]
}

@test "bus links are relative and resolve" {
	[ "$(readlink "$S/bus/pci/devices/0000:41:00.0")" = "../../../devices/pci0000:40/0000:40:01.1/0000:41:00.0" ]
	for l in "$S"/bus/pci/devices/*; do
		[ -d "$l/" ] || { echo "dangling $l"; return 1; }
	done
	[ "$(ls "$S/bus/pci/devices" | wc -l)" -eq 10 ]
}

@test "id attributes are printed as the kernel prints them" {
	[ "$(cat "$NIC/vendor")" = "0x15b3" ]
	[ "$(cat "$NIC/device")" = "0x101d" ]
	[ "$(cat "$NIC/class")" = "0x020000" ]
	[ "$(cat "$NIC/revision")" = "0x00" ]
	[ "$(cat "$NIC/subsystem_vendor")" = "0x15b3" ]
	[ "$(cat "$PSP/class")" = "0x108000" ]
	[ "$(cat "$PSP/vendor")" = "0x1022" ]
	[ "$(cat "$PSP/device")" = "0x14ca" ]
	[ "$(cat "$NVME/class")" = "0x010802" ]
	[ "$(cat "$GPU/class")" = "0x030200" ]
	grep -qx 'PCI_SLOT_NAME=0000:41:00.0' "$NIC/uevent"
	grep -qx 'DRIVER=mlx5_core' "$NIC/uevent"
}

@test "driver and subsystem links" {
	[ "$(basename "$(readlink "$NIC/driver")")" = mlx5_core ]
	[ "$(basename "$(readlink "$PSP/driver")")" = ccp ]
	[ "$(basename "$(readlink "$NVME/driver")")" = nvme ]
	[ "$(basename "$(readlink "$RP/driver")")" = pcieport ]
	[ ! -e "$GPU/driver" ]
	[ -d "$NIC/driver/" ]
	[ "$(readlink -f "$NIC/subsystem")" = "$(readlink -f "$S/bus/pci")" ]
	[ -L "$S/bus/pci/drivers/mlx5_core/0000:41:00.0" ]
}

@test "tsm0 sits in the PSP's class glue dir and links back" {
	[ -d "$PSP/tsm/tsm0" ]
	[ "$(readlink "$S/class/tsm/tsm0")" = "../../devices/pci0000:00/0000:00:07.1/0000:02:00.1/tsm/tsm0" ]
	[ "$(readlink -f "$S/class/tsm/tsm0/device")" = "$(readlink -f "$PSP")" ]
	[ -f "$S/class/tsm/tsm0/uevent" ]
	[ "$(readlink -f "$S/class/tsm/tsm0/subsystem")" = "$(readlink -f "$S/class/tsm")" ]
	# v6.19: no proposed ABI
	[ ! -e "$S/class/tsm/tsm0/pci_mode" ]
	[ -z "$(ls "$S/class/tsm/tsm0/" | grep '^pci[0-9a-f]')" ]
	# the glue dir is not the PCI tsm/ attribute group
	[ ! -e "$PSP/tsm/connect" ]
	[ ! -e "$PSP/authenticated" ]
}

@test "ccp module is loaded with tio=Y" {
	[ "$(cat "$S/module/ccp/initstate")" = live ]
	[ "$(cat "$S/module/ccp/parameters/tio")" = Y ]
}

@test "available_secure_streams: 256 default, 255 where stream0 is in use" {
	[ "$(cat "$S/devices/pci0000:00/available_secure_streams")" = 256 ]
	[ "$(cat "$HB40/available_secure_streams")" = 255 ]
	[ "$(cat "$S/devices/pci0000:80/available_secure_streams")" = 256 ]
}

@test "stream0.0.0 links to the NIC PF0 and is the only stream" {
	[ "$(readlink "$HB40/stream0.0.0")" = "0000:40:01.1/0000:41:00.0" ]
	[ "$(readlink -f "$HB40/stream0.0.0")" = "$(readlink -f "$NIC")" ]
	[ "$(ls "$S"/devices/pci0000:*/ | grep -c '^stream')" -eq 1 ]
}

@test "connected PF0: tsm/ attributes and authenticated" {
	[ "$(cat "$NIC/tsm/connect")" = tsm0 ]
	[ "$(cat "$NIC/tsm/dsm")" = 0000:41:00.0 ]
	[ "$(cat "$NIC/tsm/bound")" = "" ]
	[ "$(cat "$NIC/authenticated")" = tsm0 ]
	[ "$(stat -c %a "$NIC/tsm/connect")" = 644 ]
	[ "$(stat -c %a "$NIC/tsm/disconnect")" = 200 ]
	[ "$(stat -c %a "$NIC/tsm/dsm")" = 444 ]
	[ "$(stat -c %a "$NIC/tsm/bound")" = 444 ]
	[ "$(stat -c %a "$NIC/authenticated")" = 444 ]
	[ ! -e "$NIC/tsm/lock" ]
}

@test "SEV-TIO gives dependent functions no context: PF1 has no tsm/ or authenticated" {
	[ ! -e "$NIC1/tsm" ]
	[ ! -e "$NIC1/authenticated" ]
}

@test "unconnected TEE GPU has an empty tsm/ group; NVMe and ports have none" {
	[ "$(cat "$GPU/tsm/connect")" = "" ]
	[ "$(cat "$GPU/tsm/dsm")" = "" ]
	[ "$(cat "$GPU/tsm/bound")" = "" ]
	[ "$(cat "$GPU/authenticated")" = "" ]
	[ -e "$GPU/tsm/disconnect" ]
	[ ! -e "$NVME/tsm" ]
	[ ! -e "$NVME/authenticated" ]
	[ ! -e "$RP/tsm" ]
	[ ! -e "$RP/authenticated" ]
}

@test "doe_features on DOE devices only" {
	[ "$(ls "$NIC/doe_features" | tr '\n' ' ')" = "0001:01 0001:02 doe_discovery " ]
	[ "$(cat "$NIC/doe_features/doe_discovery")" = 0001:00 ]
	[ "$(cat "$NIC/doe_features/0001:02")" = 0001:02 ]
	[ -d "$GPU/doe_features" ]
	[ ! -e "$NVME/doe_features" ]
	[ ! -e "$RP/doe_features" ]
}

@test "config sizes: 4096 for PCIe functions" {
	[ "$(stat -c %s "$NIC/config")" = 4096 ]
	[ "$(stat -c %s "$RP/config")" = 4096 ]
	[ "$(stat -c %a "$NIC/config")" = 644 ]
}

@test "config header: ids, status cap list, class, header types, bus numbers" {
	[ "$(u32 "$NIC/config" 0)" = 101d15b3 ]
	[ $((16#$(u16 "$NIC/config" 6) & 0x10)) -eq 16 ]
	[ "$(u32 "$NIC/config" 8)" = 02000000 ]
	# PF0 of a two-function slot: header type 0 with the multi-function bit
	[ "$(od -A n -t x1 -j 14 -N 1 "$NIC/config" | tr -d ' ')" = 80 ]
	[ "$(od -A n -t x1 -j 14 -N 1 "$GPU/config" | tr -d ' ')" = 00 ]
	# root port: type 1, primary 40, secondary 41, subordinate 41
	[ "$(od -A n -t x1 -j 14 -N 1 "$RP/config" | tr -d ' ')" = 01 ]
	[ "$(od -A n -t x1 -j 24 -N 3 "$RP/config" | tr -d ' ')" = 404141 ]
	[ "$(od -A n -t x1 -j 52 -N 1 "$RP/config" | tr -d ' ')" = 40 ]
}

@test "PCIe capability: port types and DEVCAP.TEE" {
	[ "$(u16 "$NIC/config" 0x40)" = 0010 ]
	[ $(((16#$(u16 "$NIC/config" 0x42) >> 4) & 0xf)) -eq 0 ]
	[ $(((16#$(u16 "$RP/config" 0x42) >> 4) & 0xf)) -eq 4 ]
	[ $((16#$(u32 "$NIC/config" 0x44) & 0x40000000)) -ne 0 ]
	[ $((16#$(u32 "$GPU/config" 0x44) & 0x40000000)) -ne 0 ]
	[ $((16#$(u32 "$NVME/config" 0x44) & 0x40000000)) -eq 0 ]
	[ $((16#$(u32 "$RP/config" 0x44) & 0x40000000)) -eq 0 ]
}

@test "extended capabilities chain: DOE then IDE on PF0, IDE alone on the RP, none on NVMe" {
	[ "$(ext_cap "$NIC/config" 0x2e)" = 256 ]
	[ "$(ext_cap "$NIC/config" 0x30)" = 280 ]
	[ "$(ext_cap "$RP/config" 0x30)" = 256 ]
	run ext_cap "$NVME/config" 0x30
	[ "$status" -ne 0 ]
	run ext_cap "$RP/config" 0x2e
	[ "$status" -ne 0 ]
	[ "$(u32 "$NVME/config" 0x100)" = 00000000 ]
}

@test "IDE capability registers" {
	ide=$(ext_cap "$RP/config" 0x30)
	[ "$(u32 "$RP/config" $((ide + 4)))" = 00030043 ]
	ide=$(ext_cap "$NIC/config" 0x30)
	[ "$(u32 "$NIC/config" $((ide + 4)))" = 01010043 ]
	# each Selective block reports 1 address association
	[ "$(sel_reg "$RP/config" 3 cap)" = 00000001 ]
}

@test "stream0.0.0 is programmed on both partners as SEV-TIO does" {
	# RP block 0: Stream ID 0, cfg-over-IDE on, TEE-limited off, enabled, SECURE
	[ "$(sel_reg "$RP/config" 0 ctl)" = 00000201 ]
	[ "$(sel_reg "$RP/config" 0 sts)" = 00000002 ]
	[ "$(sel_reg "$RP/config" 0 rid1)" = 00ffff00 ]
	[ "$(sel_reg "$RP/config" 0 rid2)" = 00000001 ]
	# address association from the RP's memory window a0000000-a1ffffff
	[ "$(sel_reg "$RP/config" 0 assoc1)" = a1fa0001 ]
	# EP block 0: default stream, TEE-limited, cfg off, enabled, SECURE
	[ "$(sel_reg "$NIC/config" 0 ctl)" = 00c00001 ]
	[ "$(sel_reg "$NIC/config" 0 sts)" = 00000002 ]
	[ "$(sel_reg "$NIC/config" 0 rid1)" = 00ffff00 ]
	[ "$(sel_reg "$NIC/config" 0 rid2)" = 00000001 ]
	[ "$(sel_reg "$NIC/config" 0 assoc1)" = 00000000 ]
}

@test "idle blocks carry the reserved Stream ID 255" {
	[ "$(sel_reg "$RP/config" 1 ctl)" = ff000000 ]
	[ "$(sel_reg "$RP/config" 3 ctl)" = ff000000 ]
	[ "$(sel_reg "$NIC/config" 1 ctl)" = ff000000 ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = ff000000 ]
	# Link IDE block 0 control, right after the IDE control register
	ide=$(ext_cap "$GPU/config" 0x30)
	[ "$(u32 "$GPU/config" $((ide + 12)))" = ff000000 ]
}

@test "rebuilding into the same dir is idempotent" {
	before=$(cd "$T" && find . -printf '%p %l %s\n' | sort | md5sum)
	"$SIM" build "$TOPO/sev-tio.json" "$T"
	after=$(cd "$T" && find . -printf '%p %l %s\n' | sort | md5sum)
	[ "$before" = "$after" ]
}
