#!/usr/bin/env bats
# connect, disconnect and connect --all on the real kernel, judged from what
# the kernel shows afterwards: tsm/connect, tsm/dsm, the stream links, the
# pool, and both partners' Selective IDE registers read from config space
# (drivers/pci/tsm.c, drivers/pci/ide.c, driving tests/kernel/module). Then
# the errno of each store the kernel refuses, and tsm/bound.

load kernel

setup_file() {
	load_modules
}

teardown_file() {
	tt_unload
}

load_modules() {
	tt_load || { echo "cannot load the tsmtest modules"; return 1; }
}

# window BDF N: a bridge window of the root port, "start end" in hex (its
# sysfs resource file, line N: 14 memory, 15 prefetchable)
window() {
	sed -n "$(($2 + 1))p" "$PCI/$1/resource" | awk '{ print $1, $2 }'
}

# assoc1 START END: the IDE Address Association 1 value of a window (pci_regs.h)
assoc1() {
	printf '0x%08x' $(((($2 >> 20) & 0xfff) << 20 | (($1 >> 20) & 0xfff) << 8 | 1))
}

@test "the provider's TSM and host bridges come up as the kernel registers them" {
	[ "$(readlink -f /sys/class/tsm/tsm0)" = "$LINK/tsm/tsm0" ]
	run --separate-stderr "$TSMCTL" list -J
	expect_status 0
	json_is '[.tsms[] | .name]' '["tsm0"]'
	json_is '.tsms[0].provider' '"tsmtest_link"'
	run --separate-stderr "$TSMCTL" host-bridges -J
	expect_status 0
	# tsmtest_link sized both pools to 4; QEMU's own host bridge keeps the kernel's 256
	json_is '[.host_bridges[] | {name, available_secure_streams}]' \
		'[{"name":"pci0000:00","available_secure_streams":256},{"name":"pci10000:00","available_secure_streams":4},{"name":"pci10001:00","available_secure_streams":4}]'
	[ "$(cat "$(hb_of $EP0)/available_secure_streams")" = 4 ]
	# a DSM candidate has the link group; its second function does not before a connect
	[ -e "$PCI/$EP0/tsm/connect" ]
	[ -e "$PCI/$EP0/tsm/bound" ]
	[ ! -e "$PCI/10000:01:00.1/tsm" ]
	[ "$(ls "$PCI/$EP0/doe_features" | tr '\n' ' ')" = "0001:01 0001:02 doe_discovery " ]
}

@test "connect: the stream, the pool, the dependents and both partners' registers" {
	run "$TSMCTL" connect "$EP0" tsm0
	expect_status 0
	[ "$(cat "$PCI/$EP0/tsm/connect")" = tsm0 ]
	[ "$(cat "$PCI/$EP0/authenticated")" = tsm0 ]
	[ "$(cat "$PCI/$EP0/tsm/dsm")" = "$EP0" ]
	# the dependent function got a context (the DSM has DEVCAP.TEE)
	[ "$(cat "$PCI/10000:01:00.1/tsm/dsm")" = "$EP0" ]
	[ "$(cat "$PCI/10000:01:00.1/authenticated")" = tsm0 ]
	hb=$(hb_of $EP0)
	[ "$(readlink -f "$hb/stream0.0.0")" = "$(readlink -f "$PCI/$EP0")" ]
	[ "$(cat "$hb/available_secure_streams")" = 3 ]
	# endpoint block 0: Stream ID 0, TEE-limited, enabled; SECURE
	[ "$(sel_ctl $EP0 0)" = 0x00800001 ]
	[ "$(sel_sts $EP0 0)" = 0x00000002 ]
	# its RID association names the root port (00:00.0), no address association
	[ "$(sel_reg $EP0 0 0x0c)" = 0x00000000 ]
	[ "$(sel_reg $EP0 0 0x10)" = 0x00000001 ]
	[ "$(sel_reg $EP0 0 0x14)" = 0x00000000 ]
	# root port block 0: Stream ID 0, configuration requests, enabled; SECURE
	[ "$(sel_ctl $RP0 0)" = 0x00000201 ]
	[ "$(sel_sts $RP0 0)" = 0x00000002 ]
	# RID association 01:00.0 and its functions' range, address associations the windows
	[ "$(sel_reg $RP0 0 0x0c)" = 0x00010000 ]
	[ "$(sel_reg $RP0 0 0x10)" = 0x00010001 ]
	read -r ms me < <(window $RP0 14)
	read -r ps pe < <(window $RP0 15)
	[ "$(sel_reg $RP0 0 0x14)" = "$(assoc1 $((ms)) $((me)))" ]
	[ "$(sel_reg $RP0 0 0x18)" = "$(printf 0x%08x $((me >> 32)))" ]
	[ "$(sel_reg $RP0 0 0x20)" = "$(assoc1 $((ps)) $((pe)))" ]
	[ "$(sel_reg $RP0 0 0x24)" = "$(printf 0x%08x $((pe >> 32)))" ]
	[ "$(sel_reg $RP0 0 0x28)" = "$(printf 0x%08x $((ps >> 32)))" ]
	# what tsmctl reads back is what the registers say
	run --separate-stderr "$TSMCTL" streams -J
	expect_status 0
	json_is '[.streams[] | {host_bridge, name, stream_id, ep: .endpoint.state, rp: .root_port.state}]' \
		'[{"host_bridge":"pci10000:00","name":"stream0.0.0","stream_id":0,"ep":"secure","rp":"secure"}]'
}

@test "a second stream on the host bridge takes pool index 1 and the next Stream ID" {
	run "$TSMCTL" connect "$EP1" tsm0
	expect_status 0
	hb=$(hb_of $EP1)
	[ "$(readlink -f "$hb/stream1.0.0")" = "$(readlink -f "$PCI/$EP1")" ]
	[ "$(cat "$hb/available_secure_streams")" = 2 ]
	[ "$(sel_ctl $EP1 0)" = 0x01800001 ]
	[ "$(sel_ctl $RP1 0)" = 0x01000201 ]
}

@test "connect --all connects the other host bridge's devices, its Stream IDs from 0" {
	run "$TSMCTL" connect --all tsm0
	expect_status 0
	hb=$(hb_of $EP2)
	[ "$(cat "$PCI/$EP2/tsm/connect")" = tsm0 ]
	[ "$(cat "$PCI/$EP3/tsm/connect")" = tsm0 ]
	[ "$(cat "$hb/available_secure_streams")" = 2 ]
	[ "$(ls -d "$hb"/stream* | xargs -n1 basename | tr '\n' ' ')" = "stream0.0.0 stream1.0.0 " ]
	[ "$(sel_ctl $EP2 0)" = 0x00800001 ]
	[ "$(sel_ctl $EP3 0)" = 0x01800001 ]
}

@test "tsm/bound follows the provider's bind and unbind" {
	[ "$(cat "$PCI/$EP0/tsm/bound")" = "" ]
	[ "$(store "$LINK/tsm_bind" "$EP0")" = OK ]
	[ "$(cat "$PCI/$EP0/tsm/bound")" = tsm0 ]
	run --separate-stderr "$TSMCTL" devices -J
	json_is "[.devices[] | select(.bdf == \"$EP0\") | .bound]" '["tsm0"]'
	[ "$(store "$LINK/tsm_unbind" "$EP0")" = OK ]
	[ "$(cat "$PCI/$EP0/tsm/bound")" = "" ]
	# no context: pci_tsm_bind() is EINVAL; no such device ENODEV
	[ "$(store "$LINK/tsm_bind" 10000:01:00.3)" = ENODEV ]
	[ "$(store "$LINK/tsm_bind" "$RP0")" = EINVAL ]
}

@test "disconnect: links gone, pool back, the registers torn down to zero" {
	run "$TSMCTL" disconnect "$EP1"
	expect_status 0
	hb=$(hb_of $EP1)
	[ "$(cat "$PCI/$EP1/tsm/connect")" = "" ]
	[ ! -e "$hb/stream1.0.0" ]
	[ -e "$hb/stream0.0.0" ]
	[ "$(cat "$hb/available_secure_streams")" = 3 ]
	# pci_ide_stream_teardown(): control, RID and address registers zero, status INSECURE
	for off in 0x04 0x08 0x0c 0x10 0x14 0x18 0x1c; do
		[ "$(sel_reg $EP1 0 $off)" = 0x00000000 ]
	done
	for off in 0x04 0x08 0x0c 0x10 0x14 0x20; do
		[ "$(sel_reg $RP1 0 $off)" = 0x00000000 ]
	done
	run "$TSMCTL" disconnect --all
	expect_status 0
	for d in $EP0 $EP2 $EP3; do [ "$(cat "$PCI/$d/tsm/connect")" = "" ]; done
	[ ! -e "$PCI/10000:01:00.1/tsm" ]
	[ -z "$(ls /sys/devices/faux/tsmtest_bus/pci*/ | grep '^stream')" ]
	[ "$(cat "$(hb_of $EP0)/available_secure_streams")" = 4 ]
}

@test "the errno of each store the kernel refuses" {
	c=$PCI/$EP0/tsm
	[ "$(store "$c/connect" tsmX)" = EINVAL ]	# sscanf("tsm%d") finds no number
	[ "$(store "$c/connect" tsm7)" = ENXIO ]	# no such TSM
	[ "$(store "$c/disconnect" tsm0)" = ENXIO ]	# not connected
	[ "$(store "$c/connect" tsm0)" = OK ]
	[ "$(store "$c/connect" tsm0)" = EBUSY ]	# a context already
	[ "$(store "$c/disconnect" tsm1)" = EINVAL ]	# another name than its TSM's
	[ "$(store "$c/disconnect" "tsm0
")" = OK ]						# sysfs_streq: one newline allowed
	[ "$(cat "$c/connect")" = "" ]
	# the provider's connect failing: its errno, nothing left behind
	echo 5 >/sys/module/tsmtest_link/parameters/connect_errno
	[ "$(store "$c/connect" tsm0)" = EIO ]
	echo 0 >/sys/module/tsmtest_link/parameters/connect_errno
	[ "$(cat "$c/connect")" = "" ]
	[ "$(cat "$(hb_of $EP0)/available_secure_streams")" = 4 ]
}

@test "an endpoint that never reads SECURE: ENXIO, and the stream released" {
	echo "$EP1" >/sys/module/tsmtest_bus/parameters/insecure
	[ "$(store "$PCI/$EP1/tsm/connect" tsm0)" = ENXIO ]	# pci_ide_stream_enable()
	echo >/sys/module/tsmtest_bus/parameters/insecure
	[ "$(cat "$PCI/$EP1/tsm/connect")" = "" ]
	if ls "$(hb_of $EP1)"/stream* 2>/dev/null; then false; fi
	[ "$(cat "$(hb_of $EP1)/available_secure_streams")" = 4 ]
	[ "$(sel_ctl $EP1 0)" = 0x00000000 ]
	[ "$(sel_ctl $RP1 0)" = 0x00000000 ]
	# and tsmctl says why, from what it reads
	run "$TSMCTL" connect "$EP1" tsm0
	expect_status 0
	run "$TSMCTL" disconnect "$EP1"
	expect_status 0
}

@test "a device whose mailbox offers no CMA/SPDM: connect is ENXIO (pci_tsm_pf0_constructor)" {
	tt_load refuse="$EP0"
	[ "$(ls "$PCI/$EP0/doe_features" | tr '\n' ' ')" = "doe_discovery " ]
	[ -e "$PCI/$EP0/tsm/connect" ]		# DEVCAP.TEE makes it a candidate all the same
	[ "$(store "$PCI/$EP0/tsm/connect" tsm0)" = ENXIO ]
	[ "$(cat "$PCI/$EP0/tsm/connect")" = "" ]
	run "$TSMCTL" connect "$EP0" tsm0
	[ "$status" -ne 0 ]
	load_modules
}

@test "a pool the provider leaves alone is the kernel's 256" {
	tt_load -- pool=-1
	[ "$(cat "$(hb_of $EP0)/available_secure_streams")" = 256 ]
	tt_load -- pool=0
	# a pool of 0 hides the attribute (pci_ide_attr_visible())
	[ ! -e "$(hb_of $EP0)/available_secure_streams" ]
	load_modules
}
