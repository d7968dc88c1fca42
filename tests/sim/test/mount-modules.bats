#!/usr/bin/env bats
# Modules on the live mount: "tsm-sim modprobe" with kmod's messages and exit
# status, the devsec sample modules in both load orders, removal with live
# contexts (tsm_unregister(), surprise removal of the bus), TSM numbering by
# registration order, and the old tsmN/streamH.R.E flavour.

load helper

setup() {
	mount_topo devsec-staging
	paths
}

paths() {
	S=$M/sys
	D0=$S/bus/pci/devices/10000:01:00.0
	D1=$S/bus/pci/devices/10001:03:00.0
	HB0=$S/devices/faux/devsec_bus/pci10000:00
}

teardown() {
	teardown_sim
}

mp() {
	"$SIM" modprobe "$M" "$@"
}

@test "modprobe: nothing is loaded at mount; load order makes the TSM numbers" {
	[ ! -e "$S/devices/faux/devsec_bus" ]
	[ ! -e "$S/module/devsec_bus" ]
	[ -z "$(ls "$S/class/tsm")" ]
	[ -z "$(ls "$S/bus/pci/devices")" ]
	mp devsec_bus
	[ -d "$HB0" ]
	[ "$(readlink -f "$D0")" = "$(readlink -f "$HB0/10000:00:00.0/10000:01:00.0")" ]
	[ "$(cat "$S/module/devsec_bus/initstate")" = live ]
	# no TSM yet: the devices have no tsm/ group
	[ ! -e "$D0/tsm" ]
	mp devsec_link_tsm
	mp devsec_tsm
	[ "$(cat "$S/class/tsm/tsm0/pci_mode")" = link ]
	[ "$(cat "$S/class/tsm/tsm1/pci_mode")" = devsec ]
	[ "$(readlink "$S/class/tsm/tsm0")" = ../../devices/faux/devsec_link_tsm/tsm/tsm0 ]
	[ -f "$D0/tsm/connect" ]
	[ -f "$D0/tsm/lock" ]
	mp -r devsec_tsm
	mp -r devsec_link_tsm
	mp -r devsec_bus
	[ -z "$(ls "$S/class/tsm")" ]
	[ ! -e "$S/devices/faux/devsec_bus" ]
	[ ! -e "$D0" ]
	# the other order: the ida hands out tsm0 to the first to register
	mp devsec_tsm
	mp devsec_link_tsm
	mp devsec_bus
	[ "$(cat "$S/class/tsm/tsm0/pci_mode")" = devsec ]
	[ "$(cat "$S/class/tsm/tsm1/pci_mode")" = link ]
	[ "$(readlink "$S/class/tsm/tsm1")" = ../../devices/faux/devsec_link_tsm/tsm/tsm1 ]
	# a freed number is reused first
	mp -r devsec_tsm
	mp devsec_tsm
	[ "$(cat "$S/class/tsm/tsm0/pci_mode")" = devsec ]
}

@test "modprobe: kmod's messages and exit status" {
	run mp devsec_nope
	[ "$status" -eq 1 ]
	[[ "$output" == "modprobe: FATAL: Module devsec_nope not found in directory /lib/modules/"* ]]
	run mp -r devsec_nope
	[ "$status" -eq 1 ]
	[ "$output" = "modprobe: FATAL: Module devsec_nope not found." ]
	# not loaded: -r is a silent success, unless --first-time
	run mp -r devsec_pci
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run mp -r --first-time devsec_pci
	[ "$status" -eq 1 ]
	[ "$output" = "modprobe: FATAL: Module devsec_pci is not in kernel." ]
	mp devsec-bus	# '-' and '_' are one
	run mp devsec_bus
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run mp --first-time devsec_bus
	[ "$status" -eq 1 ]
	[ "$output" = "modprobe: ERROR: could not insert 'devsec_bus': Module already in kernel" ]
	# built in (a driver the topology names, not listed as a module)
	run mp -r pcieport
	[ "$status" -eq 1 ]
	[ "$output" = "modprobe: FATAL: Module pcieport is builtin." ]
	run mp devsec_pci bogus=1
	[ "$status" -eq 1 ]
	[ "$output" = "modprobe: ERROR: could not insert 'devsec_pci': Unknown symbol in module, or unknown parameter (see dmesg)" ]
	[ ! -e "$S/module/devsec_pci" ]
	[ ! -e "$S/bus/pci/drivers/devsec_pci" ]
	run mp devsec_pci trust=sometimes
	[ "$status" -eq 1 ]
	[ "$output" = "modprobe: ERROR: could not insert 'devsec_pci': Invalid argument" ]
	run mp -q devsec_nope
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	run mp
	[ "$status" -eq 1 ]
	[ "$output" = "modprobe: ERROR: missing parameters. See -h." ]
	run "$SIM" modprobe "$BATS_TEST_TMPDIR" devsec_bus
	[ "$status" -eq 1 ]
	[[ "$output" == *"is not a live tsm-sim mount"* ]]
}

@test "removing the link TSM module with live connections tears them down" {
	mp devsec_bus
	mp devsec_link_tsm
	mp devsec_tsm
	echo tsm0 > "$D0/tsm/connect"
	echo 10000:01:00.1 > "$S/devices/faux/devsec_link_tsm/tsm_bind"
	[ "$(cat "$HB0/available_secure_streams")" = 3 ]
	[ -L "$S/class/tsm/tsm0/pci10000:00" ]
	L=$S/bus/pci/devices/10001:03:00.1
	echo tsm1 > "$L/tsm/lock"
	echo 1 > "$L/tsm/accept"
	grep -q "PCI MMIO Encrypted" "$M/proc/iomem"
	mp -r devsec_link_tsm
	[ ! -e "$S/class/tsm/tsm0" ]
	[ ! -e "$S/devices/faux/devsec_link_tsm" ]
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
	[ ! -e "$HB0/stream0.0.0" ]
	# with no link TSM the link attributes are gone; the lock (tsm1) stays
	[ ! -e "$D0/tsm/connect" ]
	[ ! -e "$D0/authenticated" ]
	[ ! -e "$S/bus/pci/devices/10000:01:00.1/tsm/bound" ]
	[ "$(cat "$L/tsm/lock")" = tsm1 ]
	[ "$(cat "$L/tsm/accept")" = 1 ]
	# the registers are torn down: Selective block 0 control reads 0
	[ "$(sel_reg "$D0/config" 0 ctl)" = 00000000 ]
	# removing the devsec TSM unlocks: the encrypted MMIO goes with it
	mp -r devsec_tsm
	[ ! -e "$L/tsm" ]
	if grep -q "PCI MMIO Encrypted" "$M/proc/iomem"; then false; fi
	# back again: numbered from 0, a fresh connect takes stream0.0.0 (the sample's Stream ID 0)
	mp devsec_link_tsm
	[ "$(cat "$S/class/tsm/tsm0/pci_mode")" = link ]
	echo tsm0 > "$D0/tsm/connect"
	[ "$(readlink -f "$HB0/stream0.0.0")" = "$(readlink -f "$D0")" ]
	[ "$(sel_reg "$D0/config" 0 ctl)" = 00800001 ]
}

@test "the sample's tsm_bind, tsm_unbind, tsm_request exist from module load, registered TSM or not" {
	teardown_sim
	mount_jq devsec-staging '(.tsms[] | select(.parent == "faux:devsec_link_tsm")) += {"register_manually": true, "uevents": false}'
	S=$M/sys
	LT=$S/devices/faux/devsec_link_tsm
	[ ! -e "$LT" ]
	"$SIM" modprobe "$M" devsec_link_tsm
	# faux_device_create_with_groups(): the triggers come with the device
	for a in tsm_bind tsm_unbind tsm_request; do
		[ "$(stat -c %a "$LT/$a")" = 200 ]
	done
	[ ! -e "$LT/tsm" ]
	"$SIM" modprobe "$M" devsec_bus
	try_write 10000:01:00.0 "$LT/tsm_bind"
	expect_errno "$ENXIO"
	echo "register tsm0" > "$M/tsm-sim-control"
	echo tsm0 > "$S/bus/pci/devices/10000:01:00.0/tsm/connect"
	echo 10000:01:00.0 > "$LT/tsm_bind"
	[ "$(cat "$S/bus/pci/devices/10000:01:00.0/tsm/bound")" = tsm0 ]
	echo "unregister tsm0" > "$M/tsm-sim-control"
	[ -e "$LT/tsm_bind" ]
	[ -e "$LT/tsm_request" ]
	"$SIM" modprobe "$M" -r devsec_link_tsm
	[ ! -e "$LT" ]
}

@test "removing the bus module with a live connection is a surprise removal" {
	mp devsec_tsm
	mp devsec_link_tsm
	mp devsec_bus
	echo tsm1 > "$D0/tsm/connect"
	[ -L "$S/class/tsm/tsm1/pci10000:00" ]
	mp -r devsec_bus
	[ ! -e "$D0" ]
	[ ! -e "$HB0" ]
	[ ! -e "$S/devices/faux/devsec_bus" ]
	[ ! -e "$S/class/tsm/tsm1/pci10000:00" ]
	[ ! -e "$S/module/devsec_bus" ]
	# the TSM is still there; the bus comes back in its power-on state
	mp devsec_bus
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
	[ "$(cat "$D0/tsm/connect")" = "" ]
	[ "$(sel_reg "$D0/config" 0 ctl)" = ff000000 ]
	echo tsm1 > "$D0/tsm/connect"
	[ -e "$HB0/stream0.0.0" ]
}

@test "module load and removal send the bus's uevents (private network namespace)" {
	teardown_sim
	mount_listening "$TOPO/devsec-staging.json"
	"$SIM" modprobe "$M" devsec_link_tsm
	"$SIM" modprobe "$M" devsec_bus
	"$SIM" modprobe "$M" -r devsec_bus
	listen_end	# each modprobe sends its events before it returns
	umount "$NS"; rm -f "$NS"
	# the kernel's own events (other FUSE mounts' bdi devices) may come in between
	grep " /devices/faux/" "$EV" > "$EV.ours" || true
	mv "$EV.ours" "$EV"
	run grep -o "^[a-z]* [^ ]* SUBSYSTEM=[a-z]*" "$EV"
	[ "${lines[0]}" = "add /devices/faux/devsec_link_tsm SUBSYSTEM=faux" ]
	[ "${lines[1]}" = "add /devices/faux/devsec_link_tsm/tsm/tsm0 SUBSYSTEM=tsm" ]
	[ "${lines[2]}" = "change /devices/faux/devsec_link_tsm/tsm/tsm0 SUBSYSTEM=tsm" ]
	[ "${lines[3]}" = "add /devices/faux/devsec_bus SUBSYSTEM=faux" ]
	[ "${lines[4]}" = "add /devices/faux/devsec_bus/pci10000:00/10000:00:00.0 SUBSYSTEM=pci" ]
	[ "${lines[5]}" = "bind /devices/faux/devsec_bus/pci10000:00/10000:00:00.0 SUBSYSTEM=pci" ]
	[ "${lines[6]}" = "add /devices/faux/devsec_bus/pci10000:00/10000:00:00.0/10000:01:00.0 SUBSYSTEM=pci" ]
	grep -q "^remove /devices/faux/devsec_bus/pci10000:00/10000:00:00.0/10000:01:00.0 SUBSYSTEM=pci" "$EV"
	[ "$(grep -o "^[a-z]* [^ ]*" "$EV" | tail -1)" = "remove /devices/faux/devsec_bus" ]
	[ "$(grep -c "^remove /devices/faux/devsec_bus/" "$EV")" = 6 ]
	[ "$(grep -c "^unbind " "$EV")" = 2 ]
	rm -f "$EV" "$EV.err"
}

@test "driver_override, bind rules, autoprobe=0, trust=none|auto, new_id" {
	mp devsec_bus
	mp devsec_link_tsm
	mp devsec_tsm
	[ "$(cat "$D0/driver_override")" = "(null)" ]
	[ "$(stat -c %a "$D0/driver_override")" = 644 ]
	# override_only: without driver_override devsec_pci claims nothing
	mp devsec_pci
	[ -d "$S/bus/pci/drivers/devsec_pci" ]
	[ "$(readlink "$S/bus/pci/drivers/devsec_pci/module")" = ../../../../module/devsec_pci ]
	[ ! -e "$D0/driver" ]
	try_write 10000:01:00.0 "$S/bus/pci/drivers/devsec_pci/bind"
	expect_errno "$ENODEV"
	# an override naming another driver keeps it off too
	echo vfio-pci > "$D0/driver_override"
	try_write 10000:01:00.0 "$S/bus/pci/drivers/devsec_pci/bind"
	expect_errno "$ENODEV"
	echo devsec_pci > "$D0/driver_override"
	[ "$(cat "$D0/driver_override")" = devsec_pci ]
	echo 10000:01:00.0 > "$S/bus/pci/drivers/devsec_pci/bind"
	[ "$(readlink -f "$D0/driver")" = "$(readlink -f "$S/bus/pci/drivers/devsec_pci")" ]
	[[ "$(readlink "$D0/driver")" == ../*/bus/pci/drivers/devsec_pci ]]
	[ -L "$S/bus/pci/drivers/devsec_pci/10000:01:00.0" ]
	try_write 10000:01:00.0 "$S/bus/pci/drivers/devsec_pci/bind"
	expect_errno "$EBUSY"
	try_write 10000:01:00.1 "$S/bus/pci/drivers/devsec_pci/unbind"
	expect_errno "$ENODEV"
	try_write 10000:99:00.0 "$S/bus/pci/drivers/devsec_pci/bind"
	expect_errno "$ENODEV"
	# removing the module unbinds and takes the driver dir along; the override stays
	mp -r devsec_pci
	[ ! -e "$D0/driver" ]
	[ ! -e "$S/bus/pci/drivers/devsec_pci" ]
	[ "$(cat "$D0/driver_override")" = devsec_pci ]
	# autoprobe at load honours the override, unless autoprobe=0 / trust=none
	mp devsec_pci
	[ -L "$D0/driver" ]
	[ ! -e "$S/bus/pci/devices/10000:01:00.1/driver" ]
	mp -r devsec_pci
	mp devsec_pci autoprobe=0
	[ ! -e "$D0/driver" ]
	mp -r devsec_pci
	mp devsec_pci trust=none
	[ ! -e "$D0/driver" ]
	mp -r devsec_pci
	mp devsec_pci trust=auto
	[ -L "$D0/driver" ]
	echo 10000:01:00.0 > "$S/bus/pci/drivers/devsec_pci/unbind"
	# an empty write clears the override
	echo > "$D0/driver_override"
	[ "$(cat "$D0/driver_override")" = "(null)" ]
	# new_id adds a match (and attaches); a second time EEXIST; remove_id
	echo "8086 ffff" > "$S/bus/pci/drivers/devsec_pci/new_id"
	[ -L "$D0/driver" ]
	[ -L "$S/bus/pci/devices/10000:01:00.1/driver" ]
	try_write "8086 ffff" "$S/bus/pci/drivers/devsec_pci/new_id"
	expect_errno "$EEXIST"
	echo "8086 ffff" > "$S/bus/pci/drivers/devsec_pci/remove_id"
	try_write "8086 ffff" "$S/bus/pci/drivers/devsec_pci/remove_id"
	expect_errno "$ENODEV"
	try_write "8086" "$S/bus/pci/drivers/devsec_pci/new_id"
	expect_errno "$EINVAL"
}

@test "devsec_pci refuses an accepted device (EINVAL); lock needs it unbound" {
	mp devsec_bus
	mp devsec_tsm
	echo devsec_pci > "$D0/driver_override"
	mp devsec_pci autoprobe=0
	echo 10000:01:00.0 > "$S/bus/pci/drivers/devsec_pci/bind"
	try_write tsm0 "$D0/tsm/lock"
	expect_errno "$EBUSY"
	echo 10000:01:00.0 > "$S/bus/pci/drivers/devsec_pci/unbind"
	echo tsm0 > "$D0/tsm/lock"
	echo 1 > "$D0/tsm/accept"
	try_write 10000:01:00.0 "$S/bus/pci/drivers/devsec_pci/bind"
	expect_errno "$EINVAL"
	[ ! -e "$D0/driver" ]
	echo tsm0 > "$D0/tsm/unlock"
	echo 10000:01:00.0 > "$S/bus/pci/drivers/devsec_pci/bind"
	[ -L "$D0/driver" ]
}

@test "proc/iomem: BARs under their windows, PCI MMIO Encrypted from accept to unlock" {
	[ -z "$(cat "$M/proc/iomem")" ]
	mp devsec_bus
	mp devsec_tsm
	cat > "$BATS_TEST_TMPDIR/want" <<-EOF
	e0000000-e03fffff : DEVSEC MMIO
	  e0000000-e03fffff : PCI Bus 10000:01
	e0400000-e07fffff : DEVSEC MMIO
	  e0400000-e07fffff : PCI Bus 10001:03
	4000000000-40003fffff : DEVSEC PREFETCH
	  4000000000-40003fffff : PCI Bus 10000:01
	    4000000000-40001fffff : 10000:01:00.0
	    4000200000-40003fffff : 10000:01:00.1
	4000400000-40007fffff : DEVSEC PREFETCH
	  4000400000-40007fffff : PCI Bus 10001:03
	    4000400000-40005fffff : 10001:03:00.0
	    4000600000-40007fffff : 10001:03:00.1
	EOF
	diff -u "$BATS_TEST_TMPDIR/want" "$M/proc/iomem"
	echo tsm0 > "$D0/tsm/lock"
	diff -u "$BATS_TEST_TMPDIR/want" "$M/proc/iomem"
	echo 1 > "$D0/tsm/accept"
	run grep -B1 -A1 "PCI MMIO Encrypted" "$M/proc/iomem"
	[ "${lines[0]}" = "  4000000000-40003fffff : PCI Bus 10000:01" ]
	# insert_resource(): above the BAR of the same range
	[ "${lines[1]}" = "    4000000000-40001fffff : PCI MMIO Encrypted" ]
	[ "${lines[2]}" = "      4000000000-40001fffff : 10000:01:00.0" ]
	echo tsm0 > "$D0/tsm/unlock"
	diff -u "$BATS_TEST_TMPDIR/want" "$M/proc/iomem"
	# gone with the bus
	mp -r devsec_bus
	[ -z "$(cat "$M/proc/iomem")" ]
}

@test "evidence inputs: certs and transcript are read-write binary attributes, at most 16 MiB" {
	mp devsec_link_tsm
	F=$S/bus/faux/devices/devsec_link_tsm
	[ "$(stat -c %a "$F/certs")" = 644 ]
	[ "$(stat -c %a "$F/transcript")" = 644 ]
	[ -z "$(cat "$F/certs")" ]
	dd if=/dev/zero of="$F/certs" bs=16M count=1 status=none
	dd if=/dev/zero of="$F/transcript" bs=4k count=1 status=none
	[ "$(cat "$F/certs" | wc -c)" -eq $((16 << 20)) ]
	[ "$(cat "$F/transcript" | wc -c)" -eq 4096 ]
	run dd if=/dev/zero of="$F/certs" bs=1 count=1 seek=16M conv=notrunc status=none
	[ "$status" -ne 0 ]
	[[ "$output" == *"$EFBIG"* ]]
	mp -r devsec_link_tsm
	[ ! -e "$S/devices/faux/devsec_link_tsm" ]
	[ ! -e "$S/bus/faux/devices/devsec_link_tsm" ]
}

@test "abi proposed-rc1: tsmN/streamH.R.E, deferred probe in debugfs" {
	teardown_sim
	mount_topo devsec-staging-rc1
	paths
	mp devsec_bus
	mp devsec_link_tsm
	mp devsec_tsm
	echo tsm0 > "$D0/tsm/connect"
	[ "$(readlink "$S/class/tsm/tsm0/stream0.0.0")" = ../../../devsec_bus/pci10000:00/10000:00:00.0/10000:01:00.0 ]
	[ ! -e "$S/class/tsm/tsm0/pci10000:00" ]
	# the name collides across host bridges: the second connect fails (EEXIST), as in 6.19-rc1
	try_write tsm0 "$D1/tsm/connect"
	expect_errno "$EEXIST"
	[ "$(cat "$D1/tsm/connect")" = "" ]
	[ "$(cat "$S/devices/faux/devsec_bus/pci10001:02/available_secure_streams")" = 4 ]
	echo tsm0 > "$D0/tsm/disconnect"
	[ ! -e "$S/class/tsm/tsm0/stream0.0.0" ]
	# devsec_pci defers until the device is accepted
	[ "$(cat "$S/kernel/debug/devices_deferred")" = "" ]
	echo devsec_pci > "$D0/driver_override"
	mp devsec_pci
	[ ! -e "$D0/driver" ]
	[ "$(cat "$S/kernel/debug/devices_deferred")" = "$(printf '10000:01:00.0\tdevsec_pci: TEE acceptance pending')" ]
	try_write 10000:01:00.0 "$S/bus/pci/drivers/devsec_pci/bind"
	expect_errno "Resource temporarily unavailable"
	echo tsm1 > "$D0/tsm/lock"
	echo tsm1 > "$D0/tsm/accept"
	try_write 10000:01:00.0 "$S/bus/pci/drivers/devsec_pci/bind"
	expect_errno "$EINVAL"
	mp -r devsec_bus
	[ "$(cat "$S/kernel/debug/devices_deferred")" = "" ]
}

@test "control: unregister tears a connected TSM's contexts down" {
	mp devsec_bus
	mp devsec_link_tsm
	echo tsm0 > "$D0/tsm/connect"
	echo "unregister tsm0" > "$M/tsm-sim-control"
	[ ! -e "$S/class/tsm/tsm0" ]
	[ ! -e "$HB0/stream0.0.0" ]
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
	echo "register tsm0" > "$M/tsm-sim-control"
	[ "$(cat "$D0/tsm/connect")" = "" ]
}
