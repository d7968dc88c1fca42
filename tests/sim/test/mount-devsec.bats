#!/usr/bin/env bats
# Live mount of the devsec sample rig: what devsec.sh checks, plus errnos.

load helper

setup() {
	mount_topo "${TOPOLOGY:-devsec}"
	S=$M/sys
	HB0=$S/devices/faux/devsec_bus/pci10000:00
	HB1=$S/devices/faux/devsec_bus/pci10001:02
	RP0=$HB0/10000:00:00.0
	PF0=$RP0/10000:01:00.0
	PF1=$RP0/10000:01:00.1
	RP1=$HB1/10001:02:00.0
	PF0B=$RP1/10001:03:00.0
}

teardown() {
	teardown_sim
}

@test "mount returns with the tree ready" {
	mountpoint -q "$M"
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
}

@test "connect: 4 -> 3 -> 4, stream link appears and goes" {
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
	echo tsm0 > "$PF0/tsm/connect"
	[ "$(cat "$HB0/available_secure_streams")" = 3 ]
	[ "$(cat "$HB1/available_secure_streams")" = 4 ]
	[ "$(readlink -f "$HB0/stream0.0.0")" = "$(readlink -f "$PF0")" ]
	[ "$(cat "$PF0/tsm/connect")" = tsm0 ]
	[ "$(cat "$PF0/authenticated")" = tsm0 ]
	[ "$(cat "$PF0/tsm/dsm")" = 10000:01:00.0 ]
	echo tsm0 > "$PF0/tsm/disconnect"
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
	[ ! -e "$HB0/stream0.0.0" ]
	[ ! -L "$HB0/stream0.0.0" ]
	[ "$(cat "$PF0/tsm/connect")" = "" ]
	[ "$(cat "$PF0/tsm/dsm")" = "" ]
	[ "$(cat "$PF0/authenticated")" = "" ]
}

@test "dependent function gets dsm/bound/authenticated naming the DSM, loses them on disconnect" {
	[ ! -e "$PF1/tsm" ]
	[ ! -e "$PF1/authenticated" ]
	echo tsm0 > "$PF0/tsm/connect"
	[ "$(ls "$PF1/tsm" | tr '\n' ' ')" = "bound dsm " ]
	[ "$(cat "$PF1/tsm/dsm")" = 10000:01:00.0 ]
	[ "$(cat "$PF1/tsm/bound")" = "" ]
	[ "$(cat "$PF1/authenticated")" = tsm0 ]
	[ ! -e "$PF1/tsm/connect" ]
	echo tsm0 > "$PF0/tsm/disconnect"
	[ ! -e "$PF1/tsm" ]
	[ ! -e "$PF1/authenticated" ]
}

@test "both partners' Selective registers before, during and after" {
	[ "$(sel_reg "$PF0/config" 0 ctl)" = ff000000 ]
	[ "$(sel_reg "$RP0/config" 0 ctl)" = ff000000 ]
	echo tsm0 > "$PF0/tsm/connect"
	# Stream ID 0, TEE-limited (cap bit 24); the endpoint enabled and SECURE
	[ "$(sel_reg "$PF0/config" 0 ctl)" = 00800001 ]
	[ "$(sel_reg "$PF0/config" 0 sts)" = 00000002 ]
	# the root port is set up, never enabled: devsec_link_tsm_connect() enables the
	# endpoint alone and bus.c's emulated port only stores writes, so it stays INSECURE
	[ "$(sel_reg "$RP0/config" 0 ctl)" = 00800000 ]
	[ "$(sel_reg "$RP0/config" 0 sts)" = 00000000 ]
	# RP covers the endpoint (RID 0100), EP covers the RP (RID 0000)
	[ "$(sel_reg "$RP0/config" 0 rid1)" = 00010000 ]
	[ "$(sel_reg "$RP0/config" 0 rid2)" = 00010001 ]
	[ "$(sel_reg "$PF0/config" 0 rid1)" = 00000000 ]
	[ "$(sel_reg "$PF0/config" 0 rid2)" = 00000001 ]
	# RP address association = its memory window e0000000-e01fffff
	[ "$(sel_reg "$RP0/config" 0 assoc1)" = e01e0001 ]
	[ "$(sel_reg "$PF0/config" 0 assoc1)" = 00000000 ]
	echo tsm0 > "$PF0/tsm/disconnect"
	# teardown zeroes the block (the 255 stamp is only done at enumeration)
	[ "$(sel_reg "$PF0/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$PF0/config" 0 sts)" = 00000000 ]
	[ "$(sel_reg "$PF0/config" 0 rid2)" = 00000000 ]
	[ "$(sel_reg "$RP0/config" 0 ctl)" = 00000000 ]
	[ "$(sel_reg "$RP0/config" 0 rid1)" = 00000000 ]
	[ "$(sel_reg "$RP0/config" 0 assoc1)" = 00000000 ]
}

@test "two host bridges connected at once; the sample's Stream IDs are global" {
	echo tsm0 > "$PF0/tsm/connect"
	echo tsm0 > "$PF0B/tsm/connect"
	[ -L "$HB0/stream0.0.0" ]
	[ -L "$HB1/stream0.0.0" ]
	[ "$(readlink -f "$HB1/stream0.0.0")" = "$(readlink -f "$PF0B")" ]
	[ "$(cat "$HB0/available_secure_streams")" = 3 ]
	[ "$(cat "$HB1/available_secure_streams")" = 3 ]
	[ "$(sel_reg "$PF0/config" 0 ctl)" = 00800001 ]
	[ "$(sel_reg "$PF0B/config" 0 ctl)" = 01800001 ]
	echo tsm0 > "$PF0/tsm/disconnect"
	echo tsm0 > "$PF0B/tsm/disconnect"
	[ "$(cat "$HB1/available_secure_streams")" = 4 ]
}

@test "connect errnos: EINVAL, ENXIO, EBUSY" {
	try_write "tsmX" "$PF0/tsm/connect"
	expect_errno "$EINVAL"
	try_write "0" "$PF0/tsm/connect"
	expect_errno "$EINVAL"
	try_write " tsm0" "$PF0/tsm/connect"
	expect_errno "$EINVAL"
	try_write "tsm7" "$PF0/tsm/connect"
	expect_errno "$ENXIO"
	try_write "tsm-1" "$PF0/tsm/connect"
	expect_errno "$ENXIO"
	# trailing junk and whitespace before the digits are tolerated
	try_write "tsm 0junk" "$PF0/tsm/connect"
	[ "$status" -eq 0 ]
	[ "$(cat "$PF0/tsm/connect")" = tsm0 ]
	try_write "tsm0" "$PF0/tsm/connect"
	expect_errno "$EBUSY"
	[ "$(cat "$HB0/available_secure_streams")" = 3 ]
}

@test "disconnect errnos: ENXIO when not connected, EINVAL on a name mismatch" {
	try_write "tsm0" "$PF0/tsm/disconnect"
	expect_errno "$ENXIO"
	echo tsm0 > "$PF0/tsm/connect"
	try_write "tsm1" "$PF0/tsm/disconnect"
	expect_errno "$EINVAL"
	try_write "tsm0 " "$PF0/tsm/disconnect"
	expect_errno "$EINVAL"
	try_write "tsm0"$'\n\n' "$PF0/tsm/disconnect"
	expect_errno "$EINVAL"
	[ "$(cat "$PF0/tsm/connect")" = tsm0 ]
	try_write "tsm0"$'\n' "$PF0/tsm/disconnect"
	[ "$status" -eq 0 ]
	[ "$(cat "$PF0/tsm/connect")" = "" ]
}

@test "read-only and write-only attributes fail like sysfs" {
	try_write "x" "$PF0/tsm/dsm"
	expect_errno "$EACCES"
	try_write "x" "$PF0/authenticated"
	expect_errno "$EACCES"
	try_write "5" "$HB0/available_secure_streams"
	expect_errno "$EACCES"
	run cat "$PF0/tsm/disconnect"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$EACCES"* ]]
	try_write "tsm0" "$PF0/config"
	expect_errno "$EPERM"
	try_write "bogus" "$PF0/uevent"
	expect_errno "$EINVAL"
	try_write "change" "$PF0/uevent"
	[ "$status" -eq 0 ]
}

@test "the tree cannot be changed by file operations" {
	run mkdir "$PF0/x"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$EPERM"* ]]
	run touch "$PF0/newfile"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$EACCES"* ]]
	run rm -f "$PF0/vendor"
	[ "$status" -ne 0 ]
	run mv "$PF0/vendor" "$PF0/vendor2"
	[ "$status" -ne 0 ]
	run ln -s x "$HB0/stream9.9.9"
	[ "$status" -ne 0 ]
	run chmod 666 "$PF0/tsm/connect"
	[ "$status" -ne 0 ]
	[ -e "$PF0/vendor" ]
	[ ! -e "$HB0/stream9.9.9" ]
	[ "$(stat -c %a "$PF0/tsm/connect")" = 644 ]
	# touch on an existing attribute is harmless
	touch "$PF0/vendor"
}

@test "non-root: config reads stop at 64 bytes, size still 4096, tsm writes EACCES" {
	[ "$(stat -c %s "$PF0/config")" = 4096 ]
	n=$(setpriv --reuid=65534 --regid=65534 --clear-groups cat "$PF0/config" | wc -c)
	[ "$n" -eq 64 ]
	n=$(cat "$PF0/config" | wc -c)
	[ "$n" -eq 4096 ]
	[ "$(setpriv --reuid=65534 --regid=65534 --clear-groups cat "$PF0/vendor")" = 0x8086 ]
	[ "$(setpriv --reuid=65534 --regid=65534 --clear-groups cat "$PF0/tsm/connect")" = "" ]
	run setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "echo tsm0 > '$PF0/tsm/connect'"
	[ "$status" -ne 0 ]
	[[ "$output" == *"ermission denied"* ]]
	[ "$(cat "$PF0/tsm/connect")" = "" ]
	[ "$(cat "$HB0/available_secure_streams")" = 4 ]
}

@test "unmount ends the simulator and removes its backing dir" {
	pid=$(pgrep -f "tsm-sim mount .* $M\$" | head -1)
	[ -n "$pid" ]
	fusermount3 -u "$M"
	wait_gone "$pid"
	run mountpoint -q "$M"
	[ "$status" -ne 0 ]
}

@test "a text attribute reads as seq_file serves it: one show() per read from offset 0, the rest from that show" {
	echo tsm0 > "$PF0/tsm/connect"
	# two bytes of "tsm0\n", then a disconnect; the same open file goes on with the show it began
	# (kernfs' seq_file buffer), and a read from offset 0 shows afresh (seq_read_iter() resets)
	run python3 -c '
import os, sys
path, disconnect = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_RDONLY)
head = os.read(fd, 2)
with open(disconnect, "w") as f:
    f.write("tsm0")
tail = os.read(fd, 4096)
eof = os.read(fd, 4096)
again = os.pread(fd, 4096, 0)
print(repr((head + tail).decode()), repr(eof.decode()), repr(again.decode()))
' "$PF0/tsm/connect" "$PF0/tsm/disconnect"
	[ "$status" -eq 0 ]
	[ "$output" = "'tsm0\\n' '' '\\n'" ]
	[ "$(cat "$PF0/tsm/connect")" = "" ]
}

@test "a value read while connect and disconnect alternate is always whole, never new head on old tail" {
	# a sample, not a wait: every read at any moment must be "" or tsm0 (the old sim tore 1 in 60)
	( for _ in $(seq 200); do
		echo tsm0 > "$PF0/tsm/connect"
		echo tsm0 > "$PF0/tsm/disconnect"
	done ) &
	local writer=$! reads=0 c
	while kill -0 "$writer" 2>/dev/null; do
		c=$(cat "$PF0/tsm/connect")
		reads=$((reads + 1))
		[ "$c" = "" ] || [ "$c" = tsm0 ] || { printf 'read %d saw %q\n' "$reads" "$c"; kill "$writer"; wait "$writer"; false; }
	done
	wait "$writer"
	[ "$reads" -gt 0 ]
	[ "$(cat "$PF0/tsm/connect")" = "" ]
}

@test "concurrent writers: one connect wins, the racing one gets EBUSY; readers never see half a state" {
	for _ in 1 2 3 4; do
		( try_write tsm0 "$PF0/tsm/connect"; echo "$status" > "$BATS_TEST_TMPDIR/r.$BASHPID" ) &
	done
	# 20 reads while the writers run: a sample, not a wait (any read at any time must be whole)
	for _ in $(seq 20); do
		c=$(cat "$PF0/tsm/connect")
		[ "$c" = "" ] || [ "$c" = tsm0 ] || { printf 'a reader saw %q\n' "$c"; false; }
	done
	wait
	[ "$(cat "$BATS_TEST_TMPDIR"/r.* | grep -c '^0$')" -eq 1 ]
	[ "$(cat "$BATS_TEST_TMPDIR"/r.* | grep -vc '^0$')" -eq 3 ]
	[ "$(cat "$HB0/available_secure_streams")" = 3 ]
	[ "$(ls "$HB0" | grep -c '^stream')" -eq 1 ]
}

@test "sample tsm_bind/tsm_unbind drive tsm/bound; disconnect unbinds (devsec.sh step 4)" {
	LT=$S/devices/faux/devsec_link_tsm
	[ "$(stat -c %a "$LT/tsm_bind")" = 200 ]
	try_write 10000:01:00.0 "$LT/tsm_bind"
	expect_errno "$ENXIO"
	try_write 10000:09:00.0 "$LT/tsm_bind"
	expect_errno "$ENODEV"
	echo tsm0 > "$PF0/tsm/connect"
	echo 10000:01:00.0 > "$LT/tsm_bind"
	echo 10000:01:00.1 > "$LT/tsm_bind"
	[ "$(cat "$PF0/tsm/bound")" = tsm0 ]
	[ "$(cat "$PF1/tsm/bound")" = tsm0 ]
	echo 10000:01:00.1 > "$LT/tsm_unbind"
	[ "$(cat "$PF1/tsm/bound")" = "" ]
	echo 10000:01:00.1 > "$LT/tsm_bind"
	echo tsm0 > "$PF0/tsm/disconnect"
	[ "$(cat "$PF0/tsm/bound")" = "" ]
	[ ! -e "$PF1/tsm" ]
	echo tsm0 > "$PF0/tsm/connect"
	[ "$(cat "$PF0/tsm/bound")" = "" ]
	[ "$(cat "$PF1/tsm/bound")" = "" ]
}

@test "sample tsm_request: pci_tsm_guest_req() is ENXIO unless the function is bound, then the sample answers" {
	LT=$S/devices/faux/devsec_link_tsm
	[ "$(stat -c %a "$LT/tsm_request")" = 200 ]
	try_write 10000:09:00.0 "$LT/tsm_request"
	expect_errno "$ENODEV"
	try_write 10000:01:00.0 "$LT/tsm_request"
	expect_errno "$ENXIO"
	echo tsm0 > "$PF0/tsm/connect"
	try_write 10000:01:00.1 "$LT/tsm_request"
	expect_errno "$ENXIO"
	echo 10000:01:00.1 > "$LT/tsm_bind"
	echo 10000:01:00.1 > "$LT/tsm_request"
	# a request changes nothing
	[ "$(cat "$PF1/tsm/bound")" = tsm0 ]
	[ "$(cat "$PF0/tsm/bound")" = "" ]
}
