#!/usr/bin/env bats
# Live configfs-tsm reports (ABI.md §1.4): guest-sev.json's sev_guest below
# an SVSM, guest-tdx.json's tdx_guest, and report fault knobs.

load helper

setup() {
	N=$(mktemp)
	# 64 bytes of user data, with a NUL and a newline inside
	{ printf 'nonce\0with\nbytes:'; printf '%047d' 42; } > "$N"
	[ "$(stat -c %s "$N")" = 64 ]
}

teardown() {
	teardown_sim
	rm -f "$N" "${N}.exp" "${N}.2"
}

# guest_sev_with REPORT_JSON: mount guest-sev.json with .report replaced
guest_sev_with() {
	J=$(mktemp --suffix=.json)
	jq --argjson r "$1" '.report = $r' "$TOPO/guest-sev.json" > "$J"
	mount_sim "$J"
	R=$M/sys/kernel/config/tsm/report
}

sev() {
	mount_topo guest-sev
	R=$M/sys/kernel/config/tsm/report
}

# expected_outblob PROVIDER PRIVLEVEL INBLOB: the README's formula, to stdout
expected_outblob() {
	local n=$(( ${#1} + 1 + ${#2} + 1 + $(stat -c %s "$3") ))
	printf '%s\0%s\0' "$1" "$2"
	cat "$3"
	head -c $((1184 - n)) /dev/zero
}

@test "mkdir makes an item with sev_guest's attributes (SVSM: service_* and manifestblob)" {
	sev
	[ -z "$(ls -A "$R")" ]
	mkdir "$R/r1"
	[ "$(ls "$R/r1" | tr '\n' ' ')" = "auxblob generation inblob manifestblob outblob privlevel privlevel_floor provider service_guid service_manifest_version service_provider " ]
	[ "$(stat -c %a "$R/r1")" = 755 ]
	for f in inblob privlevel service_provider service_guid service_manifest_version; do
		[ "$(stat -c %a "$R/r1/$f")" = 200 ] || { echo "$f"; return 1; }
	done
	for f in outblob auxblob manifestblob provider generation privlevel_floor; do
		[ "$(stat -c %a "$R/r1/$f")" = 444 ] || { echo "$f"; return 1; }
	done
	# configfs sizes: text attributes a page, binary ones 0
	[ "$(stat -c %s "$R/r1/generation")" = 4096 ]
	[ "$(stat -c %s "$R/r1/outblob")" = 0 ]
	[ "$(stat -c %s "$R/r1/inblob")" = 0 ]
	[ "$(cat "$R/r1/provider")" = sev_guest ]
	[ "$(cat "$R/r1/generation")" = 0 ]
	[ "$(cat "$R/r1/privlevel_floor")" = 0 ]
}

@test "tdx_guest shows only inblob, outblob, provider, generation" {
	mount_topo guest-tdx
	R=$M/sys/kernel/config/tsm/report
	mkdir "$R/q"
	[ "$(ls "$R/q" | tr '\n' ' ')" = "generation inblob outblob provider " ]
	[ "$(cat "$R/q/provider")" = tdx_guest ]
	put_blob "$N" "$R/q/inblob"
	[ "$status" -eq 0 ]
	[ "$(cat "$R/q/generation")" = 1 ]
	expected_outblob tdx_guest 0 "$N" > "${N}.exp"
	cmp "${N}.exp" "$R/q/outblob"
}

@test "sev_guest without SVSM hides service_* and manifestblob" {
	guest_sev_with '{"provider": "sev_guest"}'
	mkdir "$R/a"
	[ "$(ls "$R/a" | tr '\n' ' ')" = "auxblob generation inblob outblob privlevel privlevel_floor provider " ]
}

@test "no provider registered: the group exists, mkdir is ENXIO" {
	guest_sev_with '{}'
	[ -d "$R" ]
	run mkdir "$R/r1"
	expect_errno "$ENXIO"
	[ ! -e "$R/r1" ]
	[ -z "$(ls -A "$R")" ]
}

@test "mkdir/rmdir: EEXIST, rmdir of a full item, the group and nested dirs EPERM" {
	sev
	mkdir "$R/r1"
	run mkdir "$R/r1"
	expect_errno "$EEXIST"
	run mkdir "$R/r1/sub"
	expect_errno "$EPERM"
	run touch "$R/r1/newfile"
	expect_errno "$EACCES"
	mkdir "$R/r2"
	put_blob "$N" "$R/r1/inblob"
	rmdir "$R/r1"
	[ ! -e "$R/r1" ]
	[ "$(ls "$R")" = r2 ]
	run rmdir "$R/r1"
	expect_errno "$ENOENT"
	run rmdir "$R"
	expect_errno "$EPERM"
	# a new item of the same name starts from scratch
	mkdir "$R/r1"
	[ "$(cat "$R/r1/generation")" = 0 ]
	run cat "$R/r1/outblob"
	expect_errno "$EINVAL"
}

@test "generation counts successful input writes, not failed ones" {
	sev
	mkdir "$R/g"
	put_blob "$N" "$R/g/inblob"
	[ "$(cat "$R/g/generation")" = 1 ]
	try_write 2 "$R/g/privlevel"
	[ "$(cat "$R/g/generation")" = 2 ]
	try_write 9 "$R/g/privlevel"
	expect_errno "$EINVAL"
	[ "$(cat "$R/g/generation")" = 2 ]
	try_write svsm "$R/g/service_provider"
	try_write 3 "$R/g/service_manifest_version"
	try_write 00000000-0000-0000-0000-000000000000 "$R/g/service_guid"
	[ "$(cat "$R/g/generation")" = 5 ]
	try_write x "$R/g/service_manifest_version"
	expect_errno "$EINVAL"
	[ "$(cat "$R/g/generation")" = 5 ]
	# reads do not count
	cat "$R/g/outblob" > /dev/null
	[ "$(cat "$R/g/generation")" = 5 ]
	# one open with two writes commits once, at close
	dd if="$N" of="$R/g/inblob" bs=32 count=2 status=none
	[ "$(cat "$R/g/generation")" = 6 ]
}

@test "inblob: one write of 65 bytes is EFBIG, and the close still commits an empty inblob" {
	sev
	mkdir "$R/e"
	put_blob "$N" "$R/e/inblob"
	[ "$(cat "$R/e/generation")" = 1 ]
	{ cat "$N"; printf x; } > "${N}.2"
	put_blob "${N}.2" "$R/e/inblob"
	expect_errno "$EFBIG"
	# configfs ran the attribute's write() with nothing at release
	[ "$(cat "$R/e/generation")" = 2 ]
	run cat "$R/e/outblob"
	expect_errno "$EINVAL"
}

@test "inblob: 64 bytes then more at offset 64 is EFBIG; the first 64 are committed" {
	sev
	mkdir "$R/o"
	{ cat "$N"; head -c 32 /dev/zero; } > "${N}.2"
	run dd if="${N}.2" of="$R/o/inblob" bs=64 status=none
	expect_errno "$EFBIG"
	[ "$(cat "$R/o/generation")" = 1 ]
	expected_outblob sev_guest 0 "$N" > "${N}.exp"
	cmp "${N}.exp" "$R/o/outblob"
	# inblob is write-only, outblob read-only
	run cat "$R/o/inblob"
	expect_errno "$EACCES"
	try_write x "$R/o/outblob"
	expect_errno "$EACCES"
}

@test "privlevel: 0..3 (kstrtouint forms), EINVAL beyond or for non-numbers, ERANGE on overflow" {
	sev
	mkdir "$R/p"
	for good in 0 1 2 3 $'3\n' 0x2 +1 03; do
		try_write "$good" "$R/p/privlevel"
		[ "$status" -eq 0 ] || { echo "$good: $output"; return 1; }
	done
	for bad in 4 -1 x "" " 1" 1x 0x 08 $'1\n\n'; do
		[ -z "$bad" ] && bad=$'\n'
		try_write "$bad" "$R/p/privlevel"
		expect_errno "$EINVAL"
	done
	try_write 4294967296 "$R/p/privlevel"
	expect_errno "$ERANGE"
	[ "$(cat "$R/p/generation")" = 8 ]
}

@test "privlevel below privlevel_floor is EINVAL" {
	guest_sev_with '{"provider": "sev_guest", "privlevel_floor": 2}'
	mkdir "$R/f"
	[ "$(cat "$R/f/privlevel_floor")" = 2 ]
	try_write 1 "$R/f/privlevel"
	expect_errno "$EINVAL"
	try_write 2 "$R/f/privlevel"
	[ "$status" -eq 0 ]
	try_write 3 "$R/f/privlevel"
	[ "$status" -eq 0 ]
}

@test "outblob is the documented function of provider, privlevel and inblob" {
	sev
	mkdir "$R/a" "$R/b"
	put_blob "$N" "$R/a/inblob"
	try_write 2 "$R/a/privlevel"
	expected_outblob sev_guest 2 "$N" > "${N}.exp"
	cmp "${N}.exp" "$R/a/outblob"
	# stable across reads and items
	cmp "${N}.exp" "$R/a/outblob"
	put_blob "$N" "$R/b/inblob"
	echo 2 > "$R/b/privlevel"
	cmp "$R/a/outblob" "$R/b/outblob"
	echo 1 > "$R/b/privlevel"
	if cmp -s "$R/a/outblob" "$R/b/outblob"; then false; fi
	expected_outblob sev_guest 1 "$N" | cmp - "$R/b/outblob"
	[ "$(stat -c %s "${N}.exp")" = 1184 ]
}

@test "outblob: EINVAL before any inblob, and for an inblob that is not 64 bytes" {
	sev
	mkdir "$R/s"
	run cat "$R/s/outblob"
	expect_errno "$EINVAL"
	run cat "$R/s/auxblob"
	expect_errno "$EINVAL"
	head -c 32 "$N" > "${N}.2"
	put_blob "${N}.2" "$R/s/inblob"
	[ "$(cat "$R/s/generation")" = 1 ]
	run cat "$R/s/outblob"
	expect_errno "$EINVAL"
}

@test "auxblob and the SVSM manifest; a service provider other than svsm fails the report" {
	sev
	mkdir "$R/m"
	put_blob "$N" "$R/m/inblob"
	{ printf 'sev_guest\0certs\0'; head -c $((512 - 16)) /dev/zero; } | cmp - "$R/m/auxblob"
	# no service provider: no manifest
	[ "$(cat "$R/m/manifestblob" | wc -c)" = 0 ]
	echo svsm > "$R/m/service_provider"
	echo 63F9C4E5-8C2B-4D7E-9A10-2F3B5C6D7E8F > "$R/m/service_guid"
	echo 7 > "$R/m/service_manifest_version"
	{ printf 'svsm\0%s\0%s\0' 63f9c4e5-8c2b-4d7e-9a10-2f3b5c6d7e8f 7; head -c $((256 - 44)) /dev/zero; } | cmp - "$R/m/manifestblob"
	expected_outblob sev_guest 0 "$N" | cmp - "$R/m/outblob"
	try_write vtpm "$R/m/service_provider"
	[ "$status" -eq 0 ]
	run cat "$R/m/outblob"
	expect_errno "$EINVAL"
}

@test "service_guid: EINVAL when unparsable, the generation has moved and the GUID is null" {
	sev
	mkdir "$R/u"
	put_blob "$N" "$R/u/inblob"
	echo svsm > "$R/u/service_provider"
	echo 63f9c4e5-8c2b-4d7e-9a10-2f3b5c6d7e8f > "$R/u/service_guid"
	[ "$(cat "$R/u/generation")" = 3 ]
	for bad in 63f9c4e5-8c2b-4d7e-9a10-2f3b5c6d7e8 63f9c4e58c2b-4d7e-9a10-2f3b5c6d7e8f0 zzzzzzzz-8c2b-4d7e-9a10-2f3b5c6d7e8f; do
		try_write "$bad" "$R/u/service_guid"
		expect_errno "$EINVAL"
	done
	[ "$(cat "$R/u/generation")" = 6 ]
	{ printf 'svsm\0%s\0%s\0' 00000000-0000-0000-0000-000000000000 0; head -c $((256 - 44)) /dev/zero; } | cmp - "$R/u/manifestblob"
}

@test "an item removed under an open handle reads ENOENT" {
	sev
	mkdir "$R/h"
	exec 8< "$R/h/generation"
	rmdir "$R/h"
	# bash's read does no fstat (that is ESTALE here, see README)
	run bash -c 'IFS= read -r x <&8'
	exec 8<&-
	expect_errno "$ENOENT"
	# a handle that read before the rmdir keeps its buffer (configfs reads once per open)
	mkdir "$R/k"
	exec 8< "$R/k/generation"
	IFS= read -r x <&8
	[ "$x" = 0 ]
	rmdir "$R/k"
	run bash -c 'IFS= read -r x <&8; echo "[$x]"'
	exec 8<&-
	[ "$status" -eq 0 ]
	[ "$output" = "[]" ]
}

@test "concurrent_writer: a phantom store after the Nth input write bumps generation once more" {
	guest_sev_with '{"provider": "sev_guest", "faults": {"concurrent_writer": 2}}'
	mkdir "$R/c"
	put_blob "$N" "$R/c/inblob"
	[ "$(cat "$R/c/generation")" = 1 ]
	echo 1 > "$R/c/privlevel"
	[ "$(cat "$R/c/generation")" = 3 ]
	echo 2 > "$R/c/privlevel"
	[ "$(cat "$R/c/generation")" = 4 ]
	# the phantom wrote the same inputs again: the report is unchanged
	expected_outblob sev_guest 2 "$N" | cmp - "$R/c/outblob"
	# each item counts its own writes
	mkdir "$R/d"
	put_blob "$N" "$R/d/inblob"
	put_blob "$N" "$R/d/inblob"
	[ "$(cat "$R/d/generation")" = 3 ]
}

@test "outblob_errno: every report generation fails (EBUSY), or only the first N reads" {
	guest_sev_with '{"provider": "sev_guest", "faults": {"outblob_errno": "EBUSY"}}'
	mkdir "$R/b"
	put_blob "$N" "$R/b/inblob"
	for i in 1 2 3; do
		run cat "$R/b/outblob"
		expect_errno "$EBUSY"
	done
	teardown_sim
	guest_sev_with '{"provider": "sev_guest", "faults": {"outblob_errno": "EFBIG", "outblob_errno_reads": 2}}'
	mkdir "$R/b"
	put_blob "$N" "$R/b/inblob"
	run cat "$R/b/outblob"
	expect_errno "$EFBIG"
	run cat "$R/b/outblob"
	expect_errno "$EFBIG"
	expected_outblob sev_guest 0 "$N" | cmp - "$R/b/outblob"
}

@test "commit_errno: the inblob store at close fails, close succeeds, the write is lost" {
	guest_sev_with '{"provider": "sev_guest", "faults": {"commit_errno": "EBUSY"}}'
	mkdir "$R/l"
	put_blob "$N" "$R/l/inblob"
	[ "$status" -eq 0 ]
	[ "$(cat "$R/l/generation")" = 0 ]
	run cat "$R/l/outblob"
	expect_errno "$EINVAL"
	# text stores are not commits
	echo 1 > "$R/l/privlevel"
	[ "$(cat "$R/l/generation")" = 1 ]
}
