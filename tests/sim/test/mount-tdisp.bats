#!/usr/bin/env bats
# Live mount of guest-sev.json: the proposed devsec TSM's lock/accept/unlock
# (ABI.md §1.2) and driver bind/unbind through sys/bus/pci/drivers.

load helper

setup() {
	mount_topo guest-sev
	S=$M/sys
	D5=$S/devices/pci0000:00/0000:00:05.0
	D6=$S/devices/pci0000:00/0000:00:06.0
	VIRTIO=$S/devices/pci0000:00/0000:00:01.0
	DRV=$S/bus/pci/drivers
}

teardown() {
	teardown_sim
}

@test "guest tree: devsec tsm0 on sev-guest; lock/accept/unlock only on TEE functions" {
	[ "$(cat "$S/class/tsm/tsm0/pci_mode")" = devsec ]
	[ "$(readlink -f "$S/class/tsm/tsm0/device")" = "$(readlink -f "$S/devices/platform/sev-guest")" ]
	[ "$(readlink -f "$S/devices/platform/sev-guest/driver")" = "$(readlink -f "$S/bus/platform/drivers/sev-guest")" ]
	[ "$(ls "$D5/tsm" | tr '\n' ' ')" = "accept lock unlock " ]
	[ "$(ls "$D6/tsm" | tr '\n' ' ')" = "accept lock unlock " ]
	[ ! -e "$VIRTIO/tsm" ]
	[ ! -e "$D5/authenticated" ]
	[ "$(cat "$D5/tsm/lock")" = "" ]
	[ "$(cat "$D5/tsm/accept")" = 0 ]
	[ "$(stat -c %a "$D5/tsm/unlock")" = 200 ]
	[ ! -e "$D5/driver" ]
	[ "$(readlink -f "$D6/driver")" = "$(readlink -f "$DRV/mlx5_core")" ]
}

@test "lock -> LOCKED, accept -> RUN, repeated accept, unlock -> UNLOCKED" {
	try_write tsm0 "$D5/tsm/lock"
	[ "$status" -eq 0 ]
	[ "$(cat "$D5/tsm/lock")" = tsm0 ]
	[ "$(cat "$D5/tsm/accept")" = 0 ]
	try_write 1 "$D5/tsm/accept"
	[ "$status" -eq 0 ]
	[ "$(cat "$D5/tsm/accept")" = 1 ]
	try_write y "$D5/tsm/accept"
	[ "$status" -eq 0 ]
	[ "$(cat "$D5/tsm/accept")" = 1 ]
	try_write $'tsm0\n' "$D5/tsm/unlock"
	[ "$status" -eq 0 ]
	[ "$(cat "$D5/tsm/lock")" = "" ]
	[ "$(cat "$D5/tsm/accept")" = 0 ]
	# and again from UNLOCKED
	try_write tsm0 "$D5/tsm/lock"
	[ "$status" -eq 0 ]
	[ "$(cat "$D5/tsm/lock")" = tsm0 ]
}

@test "lock: EINVAL when no integer follows tsm; sscanf tolerates the rest" {
	for bad in tsmX " tsm0" tsm TSM0 lock; do
		try_write "$bad" "$D5/tsm/lock"
		expect_errno "$EINVAL"
		[ "$(cat "$D5/tsm/lock")" = "" ]
	done
	try_write "tsm 0junk" "$D5/tsm/lock"
	[ "$status" -eq 0 ]
	[ "$(cat "$D5/tsm/lock")" = tsm0 ]
}

@test "lock: ENXIO for a TSM that does not exist; EBUSY once locked" {
	for bad in tsm1 tsm-1 tsm99999999999; do
		try_write "$bad" "$D5/tsm/lock"
		expect_errno "$ENXIO"
	done
	[ "$(cat "$D5/tsm/lock")" = "" ]
	echo tsm0 > "$D5/tsm/lock"
	try_write tsm0 "$D5/tsm/lock"
	expect_errno "$EBUSY"
	# the context check comes before the TSM lookup
	try_write tsm7 "$D5/tsm/lock"
	expect_errno "$EBUSY"
	[ "$(cat "$D5/tsm/lock")" = tsm0 ]
}

@test "lock: EBUSY while a driver is bound; ENXIO is checked first" {
	try_write tsm0 "$D6/tsm/lock"
	expect_errno "$EBUSY"
	try_write tsm3 "$D6/tsm/lock"
	expect_errno "$ENXIO"
	[ "$(cat "$D6/tsm/lock")" = "" ]
	echo 0000:00:06.0 > "$DRV/mlx5_core/unbind"
	[ ! -e "$D6/driver" ]
	try_write tsm0 "$D6/tsm/lock"
	[ "$status" -eq 0 ]
	[ "$(cat "$D6/tsm/lock")" = tsm0 ]
}

@test "accept: EINVAL for false and non-boolean values, and before lock" {
	try_write 1 "$D5/tsm/accept"
	expect_errno "$EINVAL"
	echo tsm0 > "$D5/tsm/lock"
	for bad in 0 n N off OFF f false x 2 " 1" o; do
		try_write "$bad" "$D5/tsm/accept"
		expect_errno "$EINVAL"
		[ "$(cat "$D5/tsm/accept")" = 0 ]
	done
}

@test "accept: every kstrtobool true value accepts" {
	echo tsm0 > "$D5/tsm/lock"
	for good in 1 y Y yes t T on ON On $'1\n'; do
		try_write "$good" "$D5/tsm/accept"
		[ "$status" -eq 0 ] || { echo "$good: $output"; return 1; }
		[ "$(cat "$D5/tsm/accept")" = 1 ]
	done
}

@test "unlock: EINVAL when not locked or for another name (sysfs_streq)" {
	try_write tsm0 "$D5/tsm/unlock"
	expect_errno "$EINVAL"
	echo tsm0 > "$D5/tsm/lock"
	for bad in tsm1 tsm00 "tsm0 " $'tsm0\n\n' tsm " tsm0"; do
		try_write "$bad" "$D5/tsm/unlock"
		expect_errno "$EINVAL"
		[ "$(cat "$D5/tsm/lock")" = tsm0 ]
	done
	try_write tsm0 "$D5/tsm/unlock"
	[ "$status" -eq 0 ]
	[ "$(cat "$D5/tsm/lock")" = "" ]
}

@test "the guest flow: lock, accept, bind; accept and unlock EBUSY while bound" {
	echo tsm0 > "$D5/tsm/lock"
	echo 1 > "$D5/tsm/accept"
	try_write 0000:00:05.0 "$DRV/vfio-pci/bind"
	[ "$status" -eq 0 ]
	[ "$(readlink -f "$D5/driver")" = "$(readlink -f "$DRV/vfio-pci")" ]
	[ "$(readlink -f "$DRV/vfio-pci/0000:00:05.0")" = "$(readlink -f "$D5")" ]
	grep -qx DRIVER=vfio-pci "$D5/uevent"
	try_write 1 "$D5/tsm/accept"
	expect_errno "$EBUSY"
	try_write tsm0 "$D5/tsm/unlock"
	expect_errno "$EBUSY"
	[ "$(cat "$D5/tsm/lock")" = tsm0 ]
	[ "$(cat "$D5/tsm/accept")" = 1 ]
	try_write 0000:00:05.0 "$DRV/vfio-pci/unbind"
	[ "$status" -eq 0 ]
	[ ! -e "$D5/driver" ]
	[ ! -e "$DRV/vfio-pci/0000:00:05.0" ]
	if grep -q DRIVER= "$D5/uevent"; then false; fi
	try_write tsm0 "$D5/tsm/unlock"
	[ "$status" -eq 0 ]
	[ "$(cat "$D5/tsm/accept")" = 0 ]
}

@test "accept on a locked function is EBUSY once a driver binds before it" {
	echo tsm0 > "$D5/tsm/lock"
	echo 0000:00:05.0 > "$DRV/vfio-pci/bind"
	try_write 1 "$D5/tsm/accept"
	expect_errno "$EBUSY"
	[ "$(cat "$D5/tsm/accept")" = 0 ]
	echo 0000:00:05.0 > "$DRV/vfio-pci/unbind"
	try_write 1 "$D5/tsm/accept"
	[ "$status" -eq 0 ]
}

@test "bind/unbind errnos: ENODEV for unknown or unbound devices, EBUSY when bound" {
	try_write 0000:00:09.0 "$DRV/vfio-pci/bind"
	expect_errno "$ENODEV"
	try_write "0000:00:05.0 " "$DRV/vfio-pci/bind"
	expect_errno "$ENODEV"
	try_write 0000:00:06.0 "$DRV/vfio-pci/bind"
	expect_errno "$EBUSY"
	try_write 0000:00:06.0 "$DRV/vfio-pci/unbind"
	expect_errno "$ENODEV"
	try_write 0000:00:05.0 "$DRV/vfio-pci/unbind"
	expect_errno "$ENODEV"
	[ "$(readlink -f "$D6/driver")" = "$(readlink -f "$DRV/mlx5_core")" ]
	# rebinding to another driver after an unbind
	echo 0000:00:06.0 > "$DRV/mlx5_core/unbind"
	[ ! -e "$DRV/mlx5_core/0000:00:06.0" ]
	echo 0000:00:06.0 > "$DRV/vfio-pci/bind"
	[ "$(readlink -f "$D6/driver")" = "$(readlink -f "$DRV/vfio-pci")" ]
	[ ! -e "$DRV/mlx5_core/0000:00:06.0" ]
}

@test "lock_errno / accept_errno: the TSM's op fails and nothing changes" {
	teardown_sim
	topo_file <<-'EOF'
	{ "abi": "proposed",
	  "tsms": [ { "kind": "devsec", "parent": "platform:sev-guest" } ],
	  "host_bridges": [ { "devices": [
	    { "bdf": "0000:00:05.0", "type": "rciep", "tee": true,
	      "faults": { "lock_errno": "EIO" } },
	    { "bdf": "0000:00:06.0", "type": "rciep", "tee": true,
	      "faults": { "accept_errno": "ENOMEM" } } ] } ] }
	EOF
	mount_sim "$J"
	S=$M/sys
	try_write tsm0 "$S/devices/pci0000:00/0000:00:05.0/tsm/lock"
	expect_errno "$EIO"
	[ "$(cat "$S/devices/pci0000:00/0000:00:05.0/tsm/lock")" = "" ]
	echo tsm0 > "$S/devices/pci0000:00/0000:00:06.0/tsm/lock"
	try_write 1 "$S/devices/pci0000:00/0000:00:06.0/tsm/accept"
	expect_errno "$ENOMEM"
	[ "$(cat "$S/devices/pci0000:00/0000:00:06.0/tsm/accept")" = 0 ]
	[ "$(cat "$S/devices/pci0000:00/0000:00:06.0/tsm/lock")" = tsm0 ]
}

@test "devsec TSM unregistered: a locked TDI with a driver bound keeps its context (pci_tsm_unlock() WARNs)" {
	teardown_sim
	mount_jq devsec-proposed '(.. | objects | select(.bdf? == "10001:03:00.0")) += {"locked": "tsm1", "driver": "devsec_pci"} | (.. | objects | select(.bdf? == "10000:01:00.1")) += {"locked": "tsm1"}'
	S=$M/sys
	HB0=$S/devices/faux/devsec_bus/pci10000:00
	PF1=$HB0/10000:00:00.0/10000:01:00.1
	PF0B=$S/devices/faux/devsec_bus/pci10001:02/10001:02:00.0/10001:03:00.0
	[ "$(cat "$PF0B/tsm/lock")" = tsm1 ]
	echo "unregister tsm1" > "$M/tsm-sim-control"
	[ ! -e "$S/class/tsm/tsm1" ]
	# no devsec TSM left: lock, accept and unlock are hidden everywhere
	[ ! -e "$PF0B/tsm/lock" ]
	[ ! -e "$PF1/tsm/lock" ]
	# the bound one still has pdev->tsm: connect names it and is EBUSY
	[ "$(cat "$PF0B/tsm/connect")" = tsm1 ]
	try_write tsm0 "$PF0B/tsm/connect"
	expect_errno "$EBUSY"
	# the unbound one was unlocked
	[ ! -e "$PF1/tsm" ]
	[ ! -e "$PF1/authenticated" ]
}

@test "devsec-proposed rig: a connected function cannot be locked, a locked one not connected" {
	teardown_sim
	mount_topo devsec-proposed
	S=$M/sys
	HB0=$S/devices/faux/devsec_bus/pci10000:00
	PF0=$HB0/10000:00:00.0/10000:01:00.0
	PF1=$HB0/10000:00:00.0/10000:01:00.1
	PF0B=$S/devices/faux/devsec_bus/pci10001:02/10001:02:00.0/10001:03:00.0
	# the link TSM is not a devsec TSM
	try_write tsm0 "$PF0/tsm/lock"
	expect_errno "$ENXIO"
	echo tsm0 > "$PF0/tsm/connect"
	# PF0 connected, PF1 a dependent with a context: both EBUSY
	try_write tsm1 "$PF0/tsm/lock"
	expect_errno "$EBUSY"
	try_write tsm1 "$PF1/tsm/lock"
	expect_errno "$EBUSY"
	[ "$(cat "$PF1/tsm/lock")" = tsm0 ]
	# a link context is not a lock, but accept and unlock with its TSM's name reach the
	# link TSM's missing devsec op (a NULL call: the kernel oopses; EFAULT here), and
	# another name is unlock's EINVAL; nothing changes
	try_write 1 "$PF0/tsm/accept"
	expect_errno "$EFAULT"
	try_write tsm0 "$PF0/tsm/unlock"
	expect_errno "$EFAULT"
	try_write tsm1 "$PF0/tsm/unlock"
	expect_errno "$EINVAL"
	[ "$(cat "$PF0/tsm/connect")" = tsm0 ]
	[ "$(cat "$PF0/tsm/accept")" = 0 ]
	# the other host bridge's PF0, locked: connect_show() names the holder, any kind
	echo tsm1 > "$PF0B/tsm/lock"
	[ "$(cat "$PF0B/tsm/lock")" = tsm1 ]
	[ "$(cat "$PF0B/tsm/connect")" = tsm1 ]
	[ "$(cat "$PF0B/authenticated")" = tsm1 ]
	try_write tsm0 "$PF0B/tsm/connect"
	expect_errno "$EBUSY"
	# disconnect compares with the holder's name: another is EINVAL; the devsec TSM's
	# own reaches pci_tsm_disconnect() without a DSM (an oops; EFAULT here)
	try_write tsm0 "$PF0B/tsm/disconnect"
	expect_errno "$EINVAL"
	try_write tsm1 "$PF0B/tsm/disconnect"
	expect_errno "$EFAULT"
	[ "$(cat "$PF0B/tsm/lock")" = tsm1 ]
	[ "$(cat "$S/devices/faux/devsec_bus/pci10001:02/available_secure_streams")" = 4 ]
	echo tsm1 > "$PF0B/tsm/unlock"
	echo tsm0 > "$PF0B/tsm/connect"
	[ "$(cat "$PF0B/tsm/connect")" = tsm0 ]
}

@test "accept holds pci_tsm_rwsem for read (staging pci_tsm_accept()): tsm/ reads answer meanwhile, a lock waits" {
	teardown_sim
	mount_jq guest-sev '(.. | objects | select(.bdf? == "0000:00:05.0")).faults = { "store_manually": true }'
	D5=$M/sys/devices/pci0000:00/0000:00:05.0
	D6=$M/sys/devices/pci0000:00/0000:00:06.0
	( printf tsm0 > "$D5/tsm/lock" ) &
	wait_holding "$M" store-done 0000:00:05.0
	release_step "$M" store-done 0000:00:05.0
	wait $!
	[ "$(cat "$D5/tsm/lock")" = tsm0 ]
	( printf 1 > "$D5/tsm/accept" ) &
	APID=$!
	wait_holding "$M" store-done 0000:00:05.0
	# while the accept is held, shows answer, again and again: it holds the rwsem for read
	for _ in 1 2 3; do
		[ "$(not_blocked cat "$D6/tsm/lock")" = "" ]
	done
	[ "$(not_blocked cat "$D5/tsm/accept")" = 0 ]
	# a store that takes the rwsem for write waits for the accept (and then finds
	# the device's driver bound: EBUSY, nothing locked)
	bash -c 'printf tsm0 > "$1"' _ "$D6/tsm/lock" 2> "$BATS_TEST_TMPDIR/err" &
	LPID=$!
	wait_blocked "$M" "$LPID"
	release_step "$M" store-done 0000:00:05.0
	wait "$APID"
	status=0
	wait "$LPID" || status=$?
	[ "$status" -ne 0 ]
	[[ "$(cat "$BATS_TEST_TMPDIR/err")" == *"$EBUSY"* ]]
	[ "$(cat "$D5/tsm/accept")" = 1 ]
	[ "$(cat "$D6/tsm/lock")" = "" ]
}
