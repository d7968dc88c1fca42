#!/usr/bin/env bats
# Live mount of the SEV-TIO host (and variants made with jq).

load helper

paths() {
	S=$M/sys
	HB40=$S/devices/pci0000:40
	RP40=$HB40/0000:40:01.1
	NIC=$RP40/0000:41:00.0
	NIC1=$RP40/0000:41:00.1
	HB80=$S/devices/pci0000:80
	RP80=$HB80/0000:80:01.1
	GPU=$RP80/0000:81:00.0
	NVME=$HB80/0000:80:03.1/0000:82:00.0
}

# mount_variant JQ-FILTER: sev-tio.json changed by a jq filter
mount_variant() {
	mount_jq sev-tio "$1"
	paths
}

gpu() {
	echo '(.. | objects | select(.bdf? == "0000:81:00.0"))'
}

teardown() {
	teardown_sim	# a connect a failed test left held, too
}

@test "GPU connect: stream0.0.0 on pci0000:80, SEV-TIO register values, no PF1 context" {
	mount_topo sev-tio
	paths
	echo tsm0 > "$GPU/tsm/connect"
	[ "$(readlink -f "$HB80/stream0.0.0")" = "$(readlink -f "$GPU")" ]
	[ "$(cat "$HB80/available_secure_streams")" = 255 ]
	[ "$(cat "$HB40/available_secure_streams")" = 255 ]
	[ "$(sel_reg "$RP80/config" 0 ctl)" = 00000201 ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00c00001 ]
	[ "$(sel_reg "$GPU/config" 0 sts)" = 00000002 ]
	[ "$(sel_reg "$RP80/config" 0 rid1)" = 00ffff00 ]
	[ "$(sel_reg "$RP80/config" 0 assoc1)" = c1fc0001 ]
	[ "$(cat "$GPU/authenticated")" = tsm0 ]
	[ ! -e "$NIC1/tsm" ]
	[ ! -e "$NVME/tsm" ]
}

@test "NIC disconnect and reconnect; PF1 never gets tsm/" {
	mount_topo sev-tio
	paths
	try_write tsm0 "$NIC/tsm/connect"
	expect_errno "$EBUSY"
	echo tsm0 > "$NIC/tsm/disconnect"
	[ ! -L "$HB40/stream0.0.0" ]
	[ "$(cat "$HB40/available_secure_streams")" = 256 ]
	[ "$(sel_reg "$RP40/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$NIC/config" 0 ctl)" = 00000000 ]
	[ ! -e "$NIC1/tsm" ]
	echo tsm0 > "$NIC/tsm/connect"
	[ -L "$HB40/stream0.0.0" ]
	[ "$(sel_reg "$NIC/config" 0 ctl)" = 00c00001 ]
	[ ! -e "$NIC1/tsm" ]
	[ ! -e "$NIC1/authenticated" ]
}

@test "EFAULT without SSESSION (0001:02); state untouched" {
	mount_variant "$(gpu).doe = [\"0001:00\", \"0001:01\"]"
	try_write tsm0 "$GPU/tsm/connect"
	expect_errno "$EFAULT"
	[ "$(cat "$GPU/tsm/connect")" = "" ]
	[ "$(cat "$HB80/available_secure_streams")" = 256 ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = ff000000 ]
}

@test "DOE mailboxes: dsm_connect() wants secure SPDM on the first CMA mailbox, else EFAULT" {
	# CMA on one mailbox, SSESSION on another: the kernel's EFAULT, nothing left behind
	mount_variant "$(gpu).doe = [[\"0001:01\"], [\"0001:02\"]]"
	[ "$(ext_cap_count "$GPU/config" 0x2e)" = 2 ]
	# doe_features/ is the union: both features, once each
	[ "$(cat "$GPU/doe_features/0001:01")" = 0001:01 ]
	[ "$(cat "$GPU/doe_features/0001:02")" = 0001:02 ]
	[ "$(cat "$GPU/doe_features/doe_discovery")" = 0001:00 ]
	try_write tsm0 "$GPU/tsm/connect"
	expect_errno "$EFAULT"
	[ "$(cat "$GPU/tsm/connect")" = "" ]
	[ "$(cat "$HB80/available_secure_streams")" = 256 ]
	[ ! -e "$HB80/stream0.0.0" ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = ff000000 ]
	# the first mailbox with SSESSION is not the first with CMA: EFAULT too
	teardown_sim
	mount_variant "$(gpu).doe = [[\"0001:02\"], [\"0001:01\", \"0001:02\"]]"
	try_write tsm0 "$GPU/tsm/connect"
	expect_errno "$EFAULT"
	# the CMA mailbox also does SSESSION (another one too): connected
	teardown_sim
	mount_variant "$(gpu).doe = [[\"0001:01\", \"0001:02\"], [\"0001:02\"]]"
	[ "$(ext_cap_count "$GPU/config" 0x2e)" = 2 ]
	echo tsm0 > "$GPU/tsm/connect"
	[ "$(cat "$GPU/tsm/connect")" = tsm0 ]
	[ -L "$HB80/stream0.0.0" ]
}

@test "SEV-TIO never links tsmN/pciDDDD:BB (no tsm_ide_stream_register()), on any ABI" {
	mount_variant '.abi = "proposed"'
	[ "$(cat "$S/class/tsm/tsm0/pci_mode")" = link ]
	echo tsm0 > "$GPU/tsm/connect"
	[ -L "$HB80/stream0.0.0" ]
	[ -L "$HB40/stream0.0.0" ]
	[ -z "$(ls "$S/class/tsm/tsm0/" | grep '^pci[0-9a-f]*:' || true)" ]
	echo tsm0 > "$GPU/tsm/disconnect"
	[ -z "$(ls "$S/class/tsm/tsm0/" | grep '^pci[0-9a-f]*:' || true)" ]
	# the 6.19-rc1 form: no tsmN/streamH.R.E either, so the two stream0.0.0 do not collide
	teardown_sim
	mount_variant '.abi = "proposed-rc1"'
	echo tsm0 > "$GPU/tsm/connect"
	[ "$(cat "$GPU/tsm/connect")" = tsm0 ]
	[ -z "$(ls "$S/class/tsm/tsm0/" | grep -E '^(pci[0-9a-f]*:|stream)' || true)" ]
}

@test "ENXIO without a CMA mailbox (0001:01)" {
	mount_variant "$(gpu).doe = [\"0001:00\", \"0001:02\"]"
	try_write tsm0 "$GPU/tsm/connect"
	expect_errno "$ENXIO"
	[ "$(cat "$GPU/tsm/connect")" = "" ]
}

@test "Stream ID = H already claimed at boot: EBUSY, nothing left behind" {
	mount_variant "$(gpu).preset_streams = [ { \"block\": 1, \"stream_id\": 0 } ]"
	[ "$(sel_reg "$GPU/config" 1 ctl)" = 00000001 ]
	try_write tsm0 "$GPU/tsm/connect"
	expect_errno "$EBUSY"
	[ "$(cat "$GPU/tsm/connect")" = "" ]
	[ "$(cat "$HB80/available_secure_streams")" = 256 ]
	[ -z "$(ls "$HB80" | grep '^stream')" ]
	# setup had run: teardown leaves the blocks zeroed
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$RP80/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$GPU/config" 1 ctl)" = 00000001 ]
}

@test "empty pool (streams 0): no available_secure_streams, connect EFAULT" {
	mount_variant '(.host_bridges[] | select(.bus == "0x80")).streams = 0'
	[ ! -e "$HB80/available_secure_streams" ]
	try_write tsm0 "$GPU/tsm/connect"
	expect_errno "$EFAULT"
	[ "$(sel_reg "$RP80/config" 0 ctl)" = ff000000 ]
}

@test "7.x insecure endpoint: enabled first, the root port enabled after it all the same" {
	mount_variant "$(gpu).faults = { \"insecure\": \"ep\" }"
	echo tsm0 > "$GPU/tsm/connect"
	[ "$(cat "$GPU/tsm/connect")" = tsm0 ]
	[ -L "$HB80/stream0.0.0" ]
	[ "$(cat "$HB80/available_secure_streams")" = 255 ]
	# both enable bits written (-ENXIO tolerated on each), the endpoint INSECURE
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00c00001 ]
	[ "$(sel_reg "$GPU/config" 0 sts)" = 00000000 ]
	[ "$(sel_reg "$RP80/config" 0 ctl)" = 00000201 ]
	[ "$(sel_reg "$RP80/config" 0 sts)" = 00000002 ]
	echo tsm0 > "$GPU/tsm/disconnect"
	[ ! -L "$HB80/stream0.0.0" ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$RP80/config" 0 ctl)" = 00000000 ]
}

@test "7.x insecure root port: the endpoint is enabled before it, both bits stay" {
	mount_variant "$(gpu).faults = { \"insecure\": \"rp\" }"
	echo tsm0 > "$GPU/tsm/connect"
	[ -L "$HB80/stream0.0.0" ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00c00001 ]
	[ "$(sel_reg "$GPU/config" 0 sts)" = 00000002 ]
	[ "$(sel_reg "$RP80/config" 0 ctl)" = 00000201 ]
	[ "$(sel_reg "$RP80/config" 0 sts)" = 00000000 ]
}

@test "v6.19 insecure endpoint: SEV-TIO keeps the stream registered, RP disabled again" {
	mount_variant ".abi = \"v6.19\" | $(gpu).faults = { \"insecure\": \"ep\" }"
	echo tsm0 > "$GPU/tsm/connect"
	[ "$(cat "$GPU/tsm/connect")" = tsm0 ]
	[ -L "$HB80/stream0.0.0" ]
	[ "$(cat "$HB80/available_secure_streams")" = 255 ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00c00001 ]
	[ "$(sel_reg "$GPU/config" 0 sts)" = 00000000 ]
	[ "$(sel_reg "$RP80/config" 0 ctl)" = 00000000 ]
	echo tsm0 > "$GPU/tsm/disconnect"
	[ ! -L "$HB80/stream0.0.0" ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00000000 ]
}

@test "v6.19 insecure root port at enable: SEV-TIO never enables the endpoint, keeps the stream" {
	mount_variant ".abi = \"v6.19\" | $(gpu).faults = { \"insecure\": \"rp\" }"
	echo tsm0 > "$GPU/tsm/connect"
	[ -L "$HB80/stream0.0.0" ]
	[ "$(sel_reg "$RP80/config" 0 ctl)" = 00000201 ]
	[ "$(sel_reg "$RP80/config" 0 sts)" = 00000000 ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00c00000 ]
	[ "$(sel_reg "$GPU/config" 0 sts)" = 00000000 ]
}

# connect_in_flight: write tsm0 to the GPU's connect in the background ($CPID, its
# status in $BATS_TEST_TMPDIR/rc), held in its SPDM phase (spdm_manually) until
# spdm_done; returns once the simulator holds it there
connect_in_flight() {
	( printf tsm0 > "$GPU/tsm/connect"; echo $? > "$BATS_TEST_TMPDIR/rc" ) 2>/dev/null &
	CPID=$!
	wait_holding "$M" spdm-done 0000:81:00.0
}

# spdm_done: the control file ends the GPU's SPDM phase; the connect's store returns
spdm_done() {
	release_step "$M" spdm-done 0000:81:00.0
	wait_gone "$CPID"
}

@test "in flight: the pool drops at alloc, both blocks are set up, the link comes last" {
	mount_variant "$(gpu).faults = { \"spdm_manually\": true }"
	connect_in_flight
	# the SPDM phase: the slot taken, no link, Stream ID 0 programmed on both partners, neither enabled
	[ "$(cat "$HB80/available_secure_streams")" = 255 ]
	[ -z "$(ls "$HB80" | grep '^stream')" ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00c00000 ]
	[ "$(sel_reg "$RP80/config" 0 ctl)" = 00000200 ]
	[ "$(sel_reg "$RP80/config" 0 rid1)" = 00ffff00 ]
	# the store holds pci_tsm_rwsem: a tsm/ show waits for it, and answers once the connect is done
	cat "$GPU/tsm/connect" > "$BATS_TEST_TMPDIR/show" &
	SPID=$!
	wait_blocked "$M" "$SPID"
	[ ! -s "$BATS_TEST_TMPDIR/show" ]
	spdm_done
	wait "$SPID"
	[ "$(cat "$BATS_TEST_TMPDIR/show")" = tsm0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/rc")" = 0 ]
	[ "$(readlink -f "$HB80/stream0.0.0")" = "$(readlink -f "$GPU")" ]
	[ "$(cat "$HB80/available_secure_streams")" = 255 ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00c00001 ]
	[ "$(sel_reg "$RP80/config" 0 ctl)" = 00000201 ]
	[ "$(cat "$GPU/tsm/connect")" = tsm0 ]
	[ "$(cat "$M/tsm-sim-holds")" = "" ]
}

@test "in flight: a taken Stream ID is EBUSY only after the PSP connect, then unwound" {
	mount_variant "$(gpu).faults = { \"spdm_manually\": true } | $(gpu).preset_streams = [ { \"block\": 1, \"stream_id\": 0 } ]"
	connect_in_flight
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00c00000 ]
	[ "$(cat "$HB80/available_secure_streams")" = 255 ]
	[ -z "$(ls "$HB80" | grep '^stream')" ]
	spdm_done
	[ "$(cat "$BATS_TEST_TMPDIR/rc")" != 0 ]
	[ "$(cat "$GPU/tsm/connect")" = "" ]
	[ "$(cat "$HB80/available_secure_streams")" = 256 ]
	[ -z "$(ls "$HB80" | grep '^stream')" ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$RP80/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$GPU/config" 1 ctl)" = 00000001 ]
}

@test "spdm-done: ENXIO with no connect held at that function, EINVAL for other words; holds-off lets every hold go" {
	mount_variant "$(gpu).faults = { \"spdm_manually\": true }"
	try_write "spdm-done 0000:81:00.0" "$M/tsm-sim-control"
	expect_errno "$ENXIO"
	try_write "spdm-done" "$M/tsm-sim-control"
	expect_errno "$EINVAL"
	try_write "spdm-done 0000:81:00.0 x" "$M/tsm-sim-control"
	expect_errno "$EINVAL"
	try_write "holds-off now" "$M/tsm-sim-control"
	expect_errno "$EINVAL"
	[ "$(cat "$M/tsm-sim-holds")" = "" ]
	connect_in_flight
	[ "$(cat "$M/tsm-sim-holds")" = "held spdm-done 0000:81:00.0" ]
	# another function, another step: not held
	try_write "spdm-done 0000:41:00.0" "$M/tsm-sim-control"
	expect_errno "$ENXIO"
	try_write "pci-tsm-init 0000:81:00.0" "$M/tsm-sim-control"
	expect_errno "$ENXIO"
	[ -z "$(ls "$HB80" | grep '^stream')" ]
	# a teardown's holds-off: the held connect ends, and the next one is never held
	echo holds-off > "$M/tsm-sim-control"
	wait_gone "$CPID"
	[ "$(cat "$BATS_TEST_TMPDIR/rc")" = 0 ]
	[ -L "$HB80/stream0.0.0" ]
	echo tsm0 > "$GPU/tsm/disconnect"
	echo tsm0 > "$GPU/tsm/connect"
	[ -L "$HB80/stream0.0.0" ]
	[ "$(cat "$M/tsm-sim-holds")" = "" ]
}

@test "spdm_manually holds a connect's store only: a function connected at boot is there at mount" {
	mount_variant "$(gpu) |= (.faults = { \"spdm_manually\": true } | .connected = \"tsm0\")"
	[ "$(readlink -f "$HB80/stream0.0.0")" = "$(readlink -f "$GPU")" ]
	[ "$(cat "$GPU/tsm/connect")" = tsm0 ]
	[ "$(cat "$M/tsm-sim-holds")" = "" ]
}

@test "a partner that drops to INSECURE after connect" {
	mount_variant "$(gpu).faults = { \"dropped\": \"ep\" }"
	echo tsm0 > "$GPU/tsm/connect"
	[ "$(sel_reg "$RP80/config" 0 sts)" = 00000002 ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00c00001 ]
	[ "$(sel_reg "$GPU/config" 0 sts)" = 00000000 ]
}

@test "IDE_FAIL on the root port partner" {
	mount_variant "$(gpu).faults = { \"ide_fail\": \"rp\" }"
	echo tsm0 > "$GPU/tsm/connect"
	[ "$(sel_reg "$RP80/config" 0 sts)" = 80000002 ]
	[ "$(sel_reg "$GPU/config" 0 sts)" = 00000002 ]
}

@test "injected EIO after enable: rolled back as the kernel does" {
	mount_variant "$(gpu).faults = { \"connect_errno\": \"EIO\", \"connect_after\": \"enable\" }"
	try_write tsm0 "$GPU/tsm/connect"
	expect_errno "$EIO"
	[ "$(cat "$GPU/tsm/connect")" = "" ]
	[ "$(cat "$GPU/authenticated")" = "" ]
	[ "$(cat "$HB80/available_secure_streams")" = 256 ]
	[ -z "$(ls "$HB80" | grep '^stream')" ]
	[ "$(sel_reg "$GPU/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$GPU/config" 0 sts)" = 00000000 ]
	[ "$(sel_reg "$RP80/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$RP80/config" 0 rid1)" = 00000000 ]
}

@test "broken.json live: a further connect takes H=2, the free RP block and EP block 1" {
	mount_topo broken
	S=$M/sys
	HB=$S/devices/pci0000:40
	EPC=$HB/0000:40:05.1/0000:43:00.0
	echo tsm0 > "$EPC/tsm/connect"
	[ "$(readlink -f "$HB/stream2.0.1")" = "$(readlink -f "$EPC")" ]
	[ "$(cat "$HB/available_secure_streams")" = 253 ]
	[ "$(sel_reg "$EPC/config" 1 ctl)" = 02c00001 ]
	[ "$(sel_reg "$EPC/config" 0 ctl)" = 07000001 ]
	[ -L "$HB/stream3.2.0" ]
	echo tsm0 > "$EPC/tsm/disconnect"
	[ "$(cat "$HB/available_secure_streams")" = 254 ]
	[ "$(ls "$HB" | grep '^stream' | tr '\n' ' ')" = "stream0.0.0 stream1.1.0 stream3.2.0 " ]
}

@test "the server keeps no descriptor it inherited (a harness waiting on its pipe would hang)" {
	local held=() fd n target h
	exec 7>"$BATS_TEST_TMPDIR/held"
	# what the harness holds: its output pipe (fd 3) and every file it has open
	for fd in /proc/$BASHPID/fd/*; do held+=("$(readlink "$fd")"); done
	mount_topo sev-tio
	exec 7>&-
	pid=$(pgrep -f -- "mount .* $M\$")
	[ -n "$pid" ]
	# beyond stdio the server holds only what it opened itself (/dev/fuse, its sockets)
	for fd in /proc/$pid/fd/*; do
		n=${fd##*/}
		[ "$n" -gt 2 ] || continue
		target=$(readlink "$fd")
		for h in "${held[@]}"; do
			[ "$target" != "$h" ] || { echo "fd $n -> $target, the harness's"; return 1; }
		done
	done
}
