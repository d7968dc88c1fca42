#!/usr/bin/env bats
# Host bridges where real kernels put them: below a PCI device (Intel VMD),
# below nested platform devices (Arm SoCs), below ACPI device dirs (Hyper-V
# vPCI), with an ACPI companion; and the pci_bus class devices of every bus.

load helper

teardown() {
	teardown_sim
}

@test "VMD: the domain's host bridge sits below the VMD endpoint" {
	build_tree hosts-anywhere
	V=$T/sys/devices/pci0000:00/0000:00:0e.0
	[ -f "$V/vendor" ]
	[ "$(cat "$V/class")" = 0x010400 ]
	[ -d "$V/pci10000:e0" ]
	[ -f "$V/pci10000:e0/available_secure_streams" ]
	[ "$(readlink -f "$T/sys/bus/pci/devices/10000:e1:00.0")" = "$V/pci10000:e0/10000:e0:1d.0/10000:e1:00.0" ]
	[ "$(readlink -f "$V/pci10000:e0/stream0.0.0")" = "$V/pci10000:e0/10000:e0:1d.0/10000:e1:00.0" ]
	[ "$(cat "$V/pci10000:e0/available_secure_streams")" = 7 ]
	# its buses are class devices with the owner as "device"
	[ "$(readlink "$T/sys/class/pci_bus/10000:e0")" = ../../devices/pci0000:00/0000:00:0e.0/pci10000:e0/pci_bus/10000:e0 ]
	[ "$(readlink -f "$T/sys/class/pci_bus/10000:e0/device")" = "$V/pci10000:e0" ]
	[ "$(readlink -f "$T/sys/class/pci_bus/10000:e1/device")" = "$V/pci10000:e0/10000:e0:1d.0" ]
	[ "$(readlink "$T/sys/class/pci_bus/10000:e1/subsystem")" = ../../../../../../../class/pci_bus ]
}

@test "ACPI: companion links both ways; vPCI below the VMBus device" {
	build_tree hosts-anywhere
	H=$T/sys/devices/pci0000:00
	[ "$(readlink "$H/firmware_node")" = ../LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00 ]
	[ "$(readlink -f "$T/sys/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/physical_node")" = "$H" ]
	P=$T/sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/VMBUS:00/78700000-0001-4e3f-8a6c-6a1b2c3d4e5f
	[ -d "$P/pci7870:00/7870:00:02.0" ]
	# every directory on the way is a kobject with a uevent file
	for d in "$P" "${P%/*}" "$T/sys/devices/LNXSYSTM:00"; do
		[ -f "$d/uevent" ]
	done
	# streams 0: no pool, no available_secure_streams
	[ ! -e "$P/pci7870:00/available_secure_streams" ]
	[ "$(readlink -f "$T/sys/class/pci_bus/7870:00/device")" = "$P/pci7870:00" ]
}

@test "Arm SoC: host bridges below nested platform devices, at any depth" {
	build_tree soc-pcie
	A=$T/sys/devices/platform/soc@0/1c00000.pcie/pci0000:00
	B=$T/sys/devices/platform/soc@0/soc@0:bus@1/1d00000.pcie/pci0001:00
	[ -d "$A/0000:00:00.0/0000:01:00.0" ]
	[ -d "$B/0001:00:00.0/0001:01:00.0" ]
	[ "$(readlink -f "$B/stream0.0.0")" = "$B/0001:00:00.0/0001:01:00.0" ]
	[ ! -e "$A/stream0.0.0" ]
	[ "$(ls "$T/sys/class/pci_bus" | tr '\n' ' ')" = "0000:00 0000:01 0001:00 0001:01 " ]
	[ "$(readlink -f "$T/sys/class/pci_bus/0001:00/device")" = "$B" ]
}

@test "topology: host bridge parent and acpi must stay below sys/devices" {
	for bad in '"parent": "../x"' '"parent": "/abs"' '"acpi": ""'; do
		topo_file <<-EOF
		{ "host_bridges": [ { $bad, "devices": [] } ] }
		EOF
		run "$SIM" build "$J" "$BATS_TEST_TMPDIR/t"
		[ "$status" -eq 1 ]
		[[ "$output" == *"below sys/devices"* ]]
	done
}

@test "a bus module's host bridge takes its pci_bus class device along" {
	mount_topo devsec-staging
	"$SIM" modprobe "$M" devsec_bus
	[ "$(readlink -f "$M/sys/class/pci_bus/10001:03/device")" = "$M/sys/devices/faux/devsec_bus/pci10001:02/10001:02:00.0" ]
	"$SIM" modprobe "$M" -r devsec_bus
	[ -z "$(ls "$M/sys/class/pci_bus")" ]
}
