#!/usr/bin/env bats
# Global behaviour: help, version, usage errors, --sysroot and TSMCTL_SYSROOT.

load lib/helpers

setup() {
	ROOT=$(static_tree sev-tio)
}

@test "tsmctl --help lists every command; no arguments is a usage error" {
	run "$TSMCTL" --help
	[ "$status" -eq 0 ]
	for c in list devices streams host-bridges; do
		[[ "$output" == *" $c "* ]]
	done
	run "$TSMCTL"
	[ "$status" -eq 2 ]
}

@test "command --help follows the util-linux layout" {
	for c in list devices streams host-bridges; do
		run "$TSMCTL" "$c" --help
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "Usage:" ]
		[[ "$output" == *"Options:"* ]]
		[[ "$output" == *"-h, --help"*"-V, --version"* ]]
		[ "${lines[-1]}" = "For more details see tsmctl-$c(8)." ]
	done
}

@test "--version prints the version" {
	run "$TSMCTL" --version
	[ "$status" -eq 0 ]
	[[ "$output" == "tsmctl "?* ]]
	run "$TSMCTL" list -V
	[[ "$output" == "tsmctl "?* ]]
}

@test "unknown command suggests the nearest; unknown option says how to get help" {
	run "$TSMCTL" stream
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown command 'stream'; did you mean 'streams'?"* ]]
	run "$TSMCTL" list --bogus
	[ "$status" -eq 2 ]
	[[ "$output" == *"unrecognized option '--bogus'"* ]]
	[[ "$output" == *"Try 'tsmctl list --help'."* ]]
	run "$TSMCTL" list -o
	[ "$status" -eq 2 ]
	[[ "$output" == *"requires an argument"* ]]
	run "$TSMCTL" list extra
	[ "$status" -eq 2 ]
	# an option one command has and another has not
	run t list -d 41:00.0
	[ "$status" -eq 2 ]
	run t list -J -r
	[ "$status" -eq 2 ]
}

@test "--sysroot before or after the command, and TSMCTL_SYSROOT" {
	run "$TSMCTL" --sysroot "$ROOT" list -n -o NAME
	[ "$output" = "tsm0" ]
	run "$TSMCTL" list -n -o NAME --sysroot "$ROOT"
	[ "$output" = "tsm0" ]
	run env TSMCTL_SYSROOT="$ROOT" "$TSMCTL" list -n -o NAME
	[ "$output" = "tsm0" ]
	run env TSMCTL_SYSROOT=/nonexistent "$TSMCTL" --sysroot "$ROOT" list -n -o NAME
	[ "$output" = "tsm0" ]
}

@test "--sysroot that does not exist or is not a directory is a usage error" {
	run "$TSMCTL" --sysroot /nonexistent/root list
	[ "$status" -eq 2 ]
	[[ "$output" == *"/nonexistent/root"*"No such file or directory"* ]]
	run "$TSMCTL" --sysroot "$TOP/Makefile" list
	[ "$status" -eq 2 ]
}

@test "a sysroot link pointing out of the tree is not followed" {
	R=$(mktemp -d "$BATS_TEST_TMPDIR/r.XXXXXX")
	cp -a "$ROOT/." "$R"
	rm "$R/sys/class/tsm/tsm0"
	ln -s /etc "$R/sys/class/tsm/tsm0"
	ln -s ../../../../../../../../../../etc "$R/sys/devices/pci0000:40/stream1.0.0"
	run --separate-stderr "$TSMCTL" --sysroot "$R" streams -J
	[ "$status" -eq 0 ]
	json_is '.streams[1] | [.name, .dangling, .endpoint.bdf]' '["stream1.0.0",true,null]'
	run --separate-stderr "$TSMCTL" --sysroot "$R" list -J
	json_is '.tsms[0] | [.name, .provider, .driver]' '["tsm0",null,null]'
}

@test "the fallback walk (no openat2) refuses the same escapes and reads the same tree" {
	R=$(mktemp -d "$BATS_TEST_TMPDIR/r.XXXXXX")
	cp -a "$ROOT/." "$R"
	ln -s ../../../../../../../../../../etc "$R/sys/devices/pci0000:40/stream1.0.0"
	ln -s /etc/passwd "$R/sys/devices/pci0000:40/available_secure_streams.x"
	run --separate-stderr env TSMCTL_NO_OPENAT2=1 "$TSMCTL" --sysroot "$R" streams -J -v
	[ "$status" -eq 0 ]
	json_is '[.streams[] | [.name, .dangling, .endpoint.state]]' '[["stream0.0.0",false,"secure"],["stream1.0.0",true,null]]'
	[[ "$stderr" == *"leaves the root"* ]]
	for c in list devices streams host-bridges; do
		diff <("$TSMCTL" --sysroot "$ROOT" $c -J) <(TSMCTL_NO_OPENAT2=1 "$TSMCTL" --sysroot "$ROOT" $c -J)
	done
}

@test "JSON output is valid and keeps its shape when empty" {
	ROOT=$(static_tree no-tsm)
	for c in list devices streams host-bridges; do
		run --separate-stderr t "$c" -J
		[ "$status" -eq 0 ]
		printf '%s' "$output" | jq -e '.schema_version == 1' >/dev/null
	done
}

@test "write errors on stdout are reported" {
	[ -w /dev/full ] || skip "no /dev/full"
	run bash -c '"$0" --sysroot "$1" list > /dev/full' "$TSMCTL" "$ROOT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"write error"* ]]
}
