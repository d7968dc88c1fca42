#!/usr/bin/env bats
# Exhaustion, rollback and fault knobs on the live mount.

load helper

teardown() {
	teardown_sim
}

# devsec rig with PF0 10000:01:00.0 given FAULTS (a JSON object)
mount_devsec_faults() {
	J=$(mktemp --suffix=.json)
	jq "(.. | objects | select(.bdf? == \"10000:01:00.0\")).faults = $1" \
		"$TOPO/devsec.json" > "$J"
	mount_sim "$J"
	S=$M/sys
	HB0=$S/devices/faux/devsec_bus/pci10000:00
	RP0=$HB0/10000:00:00.0
	PF0=$RP0/10000:01:00.0
	PF1=$RP0/10000:01:00.1
}

# A generic link TSM; pool of 3; RP 00:01.0 (1 block) -> EP 01:00.0;
# RP 00:02.0 (1 block) -> switch -> EPs 04:00.0 and 05:00.0;
# RP 00:03.0 (4 blocks) -> EP 06:00.0 whose block 0 runs Stream ID 0 since boot.
generic_topology() {
	topo_file <<'JSON'
{
  "tsms": [ { "id": 0, "provider": "generic", "parent": "faux:generic_tsm" } ],
  "host_bridges": [ { "domain": 0, "bus": 0, "streams": 3, "devices": [
    { "bdf": "0000:00:01.0", "type": "root_port", "ide": { "streams": 1 },
      "mem_window": { "base": "0x80000000", "limit": "0x80ffffff" },
      "children": [ { "bdf": "0000:01:00.0", "type": "endpoint", "tee": true,
                      "ide": { "streams": 2 }, "doe": [ "0001:01" ] } ] },
    { "bdf": "0000:00:02.0", "type": "root_port", "ide": { "streams": 1, "addr_assoc": 2 },
      "mem_window": { "base": "0x90000000", "limit": "0x9fffffff" },
      "children": [ { "bdf": "0000:02:00.0", "type": "upstream_port",
        "mem_window": { "base": "0x90000000", "limit": "0x9fffffff" },
        "children": [
          { "bdf": "0000:03:00.0", "type": "downstream_port",
            "mem_window": { "base": "0x90000000", "limit": "0x900fffff" },
            "pref_window": { "base": "0x4000000000", "limit": "0x40001fffff" },
            "children": [ { "bdf": "0000:04:00.0", "type": "endpoint", "tee": true,
                            "ide": { "streams": 1 }, "doe": [ "0001:01" ] } ] },
          { "bdf": "0000:03:01.0", "type": "downstream_port",
            "children": [ { "bdf": "0000:05:00.0", "type": "endpoint", "tee": true,
                            "ide": { "streams": 1 }, "doe": [ "0001:01" ] } ] } ] } ] },
    { "bdf": "0000:00:03.0", "type": "root_port", "ide": { "streams": 4 },
      "children": [ { "bdf": "0000:06:00.0", "type": "endpoint", "tee": true,
                      "ide": { "streams": 2 }, "doe": [ "0001:01" ],
                      "preset_streams": [ { "block": 0, "stream_id": 0 } ] } ] }
  ] } ]
}
JSON
	mount_sim "$J"
	HB=$M/sys/devices/pci0000:00
	EP1=$HB/0000:00:01.0/0000:01:00.0
	SW=$HB/0000:00:02.0/0000:02:00.0
	EP4=$SW/0000:03:00.0/0000:04:00.0
	EP5=$SW/0000:03:01.0/0000:05:00.0
	EP6=$HB/0000:00:03.0/0000:06:00.0
}

@test "generic: Stream ID skips the one claimed at boot; address association from the switch port" {
	generic_topology
	echo tsm0 > "$EP4/tsm/connect"
	[ "$(readlink -f "$HB/stream0.0.0")" = "$(readlink -f "$EP4")" ]
	[ "$(sel_reg "$EP4/config" 0 ctl)" = 01000001 ]
	RP=$HB/0000:00:02.0
	[ "$(sel_reg "$RP/config" 0 ctl)" = 01000001 ]
	# downstream port windows: memory, then prefetchable (2 associations)
	[ "$(sel_reg "$RP/config" 0 assoc1)" = 90090001 ]
	b=$(sel_block "$RP/config" 0)
	[ "$(u32 "$RP/config" $((b + 32)))" = 00100001 ]
	[ "$(u32 "$RP/config" $((b + 36)))" = 00000040 ]
	[ "$(u32 "$RP/config" $((b + 40)))" = 00000040 ]
}

@test "register block exhaustion: ENOMEM, pool untouched" {
	generic_topology
	echo tsm0 > "$EP4/tsm/connect"
	try_write tsm0 "$EP5/tsm/connect"
	expect_errno "$ENOMEM"
	[ "$(cat "$EP5/tsm/connect")" = "" ]
	[ "$(cat "$HB/available_secure_streams")" = 2 ]
	[ "$(ls "$HB" | grep -c '^stream')" -eq 1 ]
	[ "$(sel_reg "$EP5/config" 0 ctl)" = ff000000 ]
}

@test "pool exhaustion: ENOMEM, nothing left behind; a freed slot is reused" {
	generic_topology
	echo tsm0 > "$EP4/tsm/connect"
	echo tsm0 > "$EP1/tsm/connect"
	echo tsm0 > "$EP6/tsm/connect"
	[ "$(cat "$HB/available_secure_streams")" = 0 ]
	[ -L "$HB/stream2.0.1" ]
	echo tsm0 > "$EP4/tsm/disconnect"
	echo tsm0 > "$EP5/tsm/connect"
	[ -L "$HB/stream0.0.0" ]
	[ "$(readlink -f "$HB/stream0.0.0")" = "$(readlink -f "$EP5")" ]
	try_write tsm0 "$EP4/tsm/connect"
	expect_errno "$ENOMEM"
	[ "$(cat "$HB/available_secure_streams")" = 0 ]
	[ "$(ls "$HB" | grep -c '^stream')" -eq 3 ]
	[ "$(cat "$EP4/tsm/connect")" = "" ]
}

@test "devsec sample: the fifth connect finds the 4-entry Stream ID bitmap full (EBUSY)" {
	{
		printf '{ "tsms": [ { "provider": "devsec-sample", "parent": "faux:devsec_link_tsm" } ], "host_bridges": ['
		for i in 0 1 2 3 4; do
			[ $i -gt 0 ] && printf ','
			printf '{ "domain": "0x1000%d", "bus": 0, "streams": 4, "devices": [ { "bdf": "1000%d:00:00.0", "type": "root_port", "ide": { "cap": "0x01006043" }, "children": [ { "bdf": "1000%d:01:00.0", "type": "endpoint", "tee": true, "ide": { "cap": "0x01006043" }, "doe": [ "0001:01" ] } ] } ] }' $i $i $i
		done
		printf '] }\n'
	} > "$BATS_TEST_TMPDIR/five.json"
	topo_file < "$BATS_TEST_TMPDIR/five.json"
	mount_sim "$J"
	for i in 0 1 2 3; do
		echo tsm0 > "$M/sys/bus/pci/devices/1000$i:01:00.0/tsm/connect"
	done
	E4=$M/sys/bus/pci/devices/10004:01:00.0
	try_write tsm0 "$E4/tsm/connect"
	expect_errno "$EBUSY"
	[ "$(cat "$E4/tsm/connect")" = "" ]
	[ "$(cat "$M/sys/devices/pci10004:00/available_secure_streams")" = 4 ]
	[ -z "$(ls "$M/sys/devices/pci10004:00" | grep '^stream')" ]
	[ "$(sel_reg "$E4/config" 0 ctl)" = ff000000 ]
	# the IDs are the sample's, not per host bridge: 10003 got ID 3
	[ "$(sel_reg "$M/sys/bus/pci/devices/10003:01:00.0/config" 0 ctl)" = 03800001 ]
	echo tsm0 > "$M/sys/bus/pci/devices/10001:01:00.0/tsm/disconnect"
	echo tsm0 > "$E4/tsm/connect"
	[ "$(sel_reg "$E4/config" 0 ctl)" = 01800001 ]
}

@test "rollback after an injected error following setup" {
	mount_devsec_faults '{ "connect_errno": "EIO", "connect_after": "setup" }'
	try_write tsm0 "$PF0/tsm/connect"
	expect_errno "$EIO"
	[ "$(cat "$PF0/tsm/connect")" = "" ]
	[ "$(cat "$PF0/authenticated")" = "" ]
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
	[ -z "$(ls "$HB0" | grep '^stream')" ]
	[ ! -e "$PF1/tsm" ]
	[ "$(sel_reg "$PF0/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$PF0/config" 0 rid2)" = 00000000 ]
	[ "$(sel_reg "$RP0/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$RP0/config" 0 assoc1)" = 00000000 ]
	# the Stream ID and blocks were given back: fix nothing, same error again
	try_write tsm0 "$PF0/tsm/connect"
	expect_errno "$EIO"
}

@test "an injected error before register leaves the registers as they were" {
	mount_devsec_faults '{ "connect_errno": "ETIMEDOUT", "connect_after": "alloc" }'
	try_write tsm0 "$PF0/tsm/connect"
	expect_errno "Connection timed out"
	[ "$(sel_reg "$PF0/config" 0 ctl)" = ff000000 ]
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
}

@test "devsec sample: a stream that stays insecure fails connect with ENXIO and is undone" {
	mount_devsec_faults '{ "insecure": "ep" }'
	try_write tsm0 "$PF0/tsm/connect"
	expect_errno "$ENXIO"
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
	[ -z "$(ls "$HB0" | grep '^stream')" ]
	[ "$(sel_reg "$PF0/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$PF0/config" 0 sts)" = 00000000 ]
}

@test "device vanishes after N writes: connect then surprise removal" {
	mount_devsec_faults '{ "vanish_after_writes": 1 }'
	B=$(readlink -f "$S/bus/pci/devices/10000:01:00.0")
	echo tsm0 > "$PF0/tsm/connect"
	[ ! -e "$PF0" ]
	[ ! -e "$S/bus/pci/devices/10000:01:00.0" ]
	[ ! -L "$S/bus/pci/devices/10000:01:00.0" ]
	[ ! -L "$HB0/stream0.0.0" ]
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
	# PF1 stays but lost its context with the DSM
	[ -d "$PF1" ]
	[ ! -e "$PF1/tsm" ]
	[ "$(sel_reg "$RP0/config" 0 ctl)" = 00000000 ]
	[ -n "$B" ]
}

@test "device vanishes after N opens; an open handle then reads ENODEV" {
	mount_devsec_faults '{ "vanish_after_opens": 3 }'
	cat "$PF0/vendor" > /dev/null
	cat "$PF0/device" > /dev/null
	exec 9< "$PF0/class"
	# bash's read does not fstat first (fstat by path would say ENOENT)
	run bash -c 'read -r line <&9'
	exec 9<&-
	[ "$status" -ne 0 ]
	[[ "$output" == *"$ENODEV"* ]]
	[ ! -e "$PF0" ]
	run cat "$PF0/vendor"
	[ "$status" -ne 0 ]
}

@test "a held store holds the lock: readers of tsm/ and a second writer wait, other attributes do not" {
	mount_devsec_faults '{ "store_manually": true }'
	( echo tsm0 > "$PF0/tsm/connect" ) &
	bg=$!
	wait_holding "$M" store-done 10000:01:00.0
	# connect_show takes the rwsem for read: it waits, and sees the result
	cat "$PF0/tsm/connect" > "$BATS_TEST_TMPDIR/show" &
	SPID=$!
	wait_blocked "$M" "$SPID"
	# attributes outside tsm/ are not behind the lock: answered while the store is held
	[ "$(not_blocked cat "$PF0/vendor")" = 0x8086 ]
	holding "$M" store-done 10000:01:00.0
	[ ! -s "$BATS_TEST_TMPDIR/show" ]
	release_step "$M" store-done 10000:01:00.0
	wait "$bg"
	wait "$SPID"
	[ "$(cat "$BATS_TEST_TMPDIR/show")" = tsm0 ]
	# a writer of another tsm/ attribute waits for the store that holds the lock
	# (of another: FUSE itself makes writes to one file wait for each other)
	( echo tsm0 > "$PF0/tsm/disconnect" ) &
	bg=$!
	wait_holding "$M" store-done 10000:01:00.0
	bash -c 'printf tsm0 > "$1"' _ "$PF0/tsm/connect" 2> "$BATS_TEST_TMPDIR/err" &
	W2=$!
	wait_blocked "$M" "$W2"
	release_step "$M" store-done 10000:01:00.0
	wait "$bg"
	# then it runs, held in its turn: after the disconnect, so it connects again
	wait_holding "$M" store-done 10000:01:00.0
	release_step "$M" store-done 10000:01:00.0
	wait "$W2"
	[ "$(cat "$PF0/tsm/connect")" = tsm0 ]
}

@test "switch upstream port / RCiEP DSM candidates get tsm/ but core IDE setup refuses them" {
	topo_file <<'JSON'
{ "tsms": [ { "provider": "generic", "parent": "faux:t" } ],
  "host_bridges": [ { "bus": 0, "devices": [
    { "bdf": "0000:00:01.0", "type": "root_port", "ide": { "streams": 2 },
      "children": [ { "bdf": "0000:01:00.0", "type": "upstream_port", "tee": true,
        "doe": [ "0001:01" ], "ide": { "streams": 2 },
        "children": [ { "bdf": "0000:02:00.0", "type": "downstream_port",
          "children": [ { "bdf": "0000:03:00.0", "type": "endpoint" } ] } ] } ] },
    { "bdf": "0000:00:02.0", "type": "rciep", "tee": true, "doe": [ "0001:01" ] } ] } ] }
JSON
	mount_sim "$J"
	HB=$M/sys/devices/pci0000:00
	USP=$HB/0000:00:01.0/0000:01:00.0
	[ -e "$USP/tsm/connect" ]
	[ -e "$HB/0000:00:02.0/tsm/connect" ]
	try_write tsm0 "$USP/tsm/connect"
	expect_errno "$ENOMEM"
	try_write tsm0 "$HB/0000:00:02.0/tsm/connect"
	expect_errno "$ENOMEM"
	[ "$(cat "$USP/tsm/connect")" = "" ]
	[ "$(cat "$HB/available_secure_streams")" = 256 ]
	[ ! -e "$USP/0000:02:00.0/0000:03:00.0/tsm" ]
}
