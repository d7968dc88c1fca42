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
	# a TSM entry that leads out of the tree is no TSM: not listed, said so
	run --separate-stderr "$TSMCTL" --sysroot "$R" list -J
	json_is '.tsms' '[]'
	[[ "$stderr" == *"tsm0 is a link out of the tree"* ]]
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
		# host_bridges is at 2 (tsm became tsms), the others at 1
		printf '%s' "$output" | jq -e --argjson v "$([ "$c" = host-bridges ] && echo 2 || echo 1)" \
			'.schema_version == $v' >/dev/null
	done
}

@test "write errors on stdout are reported with their cause" {
	[ -w /dev/full ] || skip "no /dev/full"
	run bash -c '"$0" --sysroot "$1" list > /dev/full' "$TSMCTL" "$ROOT"
	[ "$status" -eq 1 ]
	[ "$output" = "tsmctl: writing standard output: No space left on device" ]
}

@test "--version: the Makefile's version number, and the git description when built from git" {
	local v
	v=$(sed -n 's/^VERSION := //p' "$TOP/Makefile")
	[ -n "$v" ]
	run "$TSMCTL" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^tsmctl\ ${v//./\\.}(\ \(git\ [0-9A-Za-z._-]+\))?$ ]]
	if [ -e "$TOP/.git" ] && command -v git >/dev/null; then
		[[ "$output" == *"(git "*"$(git -C "$TOP" rev-parse --short=7 HEAD)"*")" ]]
	fi
	[ "$("$TSMCTL" devices -V)" = "$output" ]
	[ "$("$TSMCTL" --sysroot "$ROOT" -V)" = "$output" ]
}

@test "every write is checked: --help, --version, -H, views, actions, watch and metrics to a full disk exit 1, saying why" {
	[ -w /dev/full ] || skip "no /dev/full"
	local broken
	broken=$(static_tree broken)
	for args in "--help" "--version" "list --help" "--sysroot $ROOT devices -H" "list -H -J" \
		    "--sysroot $ROOT list" "--list-cmds" "help" "--sysroot $ROOT tree" \
		    "--sysroot $ROOT audit" "--sysroot $ROOT streams -J" "--sysroot $ROOT host-bridges" \
		    "--sysroot $ROOT devices -v" "--sysroot $ROOT wait --timeout 0" \
		    "--sysroot $ROOT connect --all tsm0" "--sysroot $ROOT metrics" \
		    "--sysroot $ROOT metrics -o -" "--sysroot $broken watch --count 1 -i 0.1"; do
		# shellcheck disable=SC2086
		run bash -c '"$0" $1 > /dev/full' "$TSMCTL" "$args"
		[ "$status" -eq 1 ] || { echo "$args: exit $status"; return 1; }
		# the cause, whichever write met it: a flushed line (watch) or the last one
		[[ "$output" == *"standard output"*": No space left on device"* ]] || { echo "$args: $output"; return 1; }
	done
	# watch stops at the first event stdout does not take, instead of watching on
	run timeout 20 bash -c '"$0" --sysroot "$1" watch -i 0.1 > /dev/full' "$TSMCTL" "$broken"
	[ "$status" -eq 1 ]
	[ "$output" = "tsmctl: writing standard output: No space left on device" ]
}

@test "option errors say what getopt found: a missing argument, an ambiguous or an invalid option" {
	run --separate-stderr "$TSMCTL" --sysroot
	[ "$status" -eq 2 ]
	[ "$stderr" = "tsmctl: option '--sysroot' requires an argument"$'\n'"Try 'tsmctl --help'." ]
	run --separate-stderr "$TSMCTL" list --out NAME
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "tsmctl list: option '--out' is ambiguous; possibilities: '--output' '--output-all'" ]
	run --separate-stderr "$TSMCTL" devices --h
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "tsmctl devices: option '--h' is ambiguous; possibilities: '--host-bridge' '--help'" ]
	run --separate-stderr "$TSMCTL" list -Jx
	[ "${stderr%%$'\n'*}" = "tsmctl list: invalid option '-x'" ]
	run --separate-stderr "$TSMCTL" list --json=yes
	[ "${stderr%%$'\n'*}" = "tsmctl list: option '--json' doesn't allow an argument" ]
	run --separate-stderr "$TSMCTL" list --output
	[ "${stderr%%$'\n'*}" = "tsmctl list: option '--output' requires an argument" ]
	run --separate-stderr "$TSMCTL" --bogus
	[ "$status" -eq 2 ]
	[ "${stderr%%$'\n'*}" = "tsmctl: unrecognized option '--bogus'" ]
	# an abbreviated --sysroot before the command takes its value, as getopt does
	run --separate-stderr "$TSMCTL" --sysr "$ROOT" list -n -o NAME
	[ "$status" -eq 0 ]
	[ "$output" = tsm0 ]
}

@test "an empty filter value is a usage error for every filter of every command" {
	local cmd opt
	for cmd in devices streams host-bridges list audit; do
		for opt in -d --device -t --tsm -b --host-bridge; do
			"$TSMCTL" --list-opts "$cmd" | grep -q -- "^$opt " || continue
			for v in "" " "; do
				run --separate-stderr t "$cmd" "$opt" "$v"
				[ "$status" -eq 2 ] || { echo "$cmd $opt '$v': exit $status"; return 1; }
				[[ "$stderr" == *"needs a value"* ]]
				[ -z "$output" ]
			done
			# a comma with nothing on one side is an empty value too, as the man page says
			for v in "," "41:00.0," ",tsm0" "pci0000:40,,pci0000:80" "all, "; do
				run --separate-stderr t "$cmd" "$opt" "$v"
				[ "$status" -eq 2 ] || { echo "$cmd $opt '$v': exit $status"; return 1; }
				[[ "$stderr" == *"'$v': an empty value in the list (a comma with nothing before or after it)"* ]] ||
					{ echo "$cmd $opt '$v': $stderr"; return 1; }
			done
		done
	done
}

@test "-J takes no table options (never silently ignored); -H -J lists the columns as JSON" {
	for o in "-o NAME" "-o +MODULE" --output-all -n --noheadings -y --shell; do
		# shellcheck disable=SC2086
		run --separate-stderr t list -J $o
		[ "$status" -eq 2 ] || { echo "-J $o: exit $status"; return 1; }
		[[ "$stderr" == *"--json takes no"* ]]
		# -J asked for a document: the empty one, as on every exit (tsmctl(8), JSON)
		json_is . '{"schema_version":1,"tsms":[]}'

	done
	run --separate-stderr t devices -H -J
	[ "$status" -eq 0 ]
	json_is '.schema_version' 1
	json_is '.columns[0]' '{"name":"BDF","description":"PCI address"}'
	json_is '[.columns[].name] | length' "$(t devices -H | wc -l)"
}

@test "a --sysroot or TSMCTL_SYSROOT without sys/ is a usage error that names where it came from" {
	E=$(mktemp -d "$BATS_TEST_TMPDIR/empty.XXXXXX")
	for c in list devices streams host-bridges audit "wait --timeout 30" metrics; do
		# shellcheck disable=SC2086
		run --separate-stderr timeout 60 "$TSMCTL" --sysroot "$E" $c	# a bound for a hang
		[ "$status" -eq 2 ] || { echo "$c: exit $status"; return 1; }
		[ "$stderr" = "tsmctl ${c%% *}: --sysroot $E: no sys/ directory in it: not a root directory tree (tsmctl reads DIR/sys/class/tsm, DIR/sys/bus/pci, ...)" ]
	done
	run --separate-stderr env TSMCTL_SYSROOT="$E" "$TSMCTL" list
	[ "$status" -eq 2 ]
	[[ "$stderr" == "tsmctl list: TSMCTL_SYSROOT=$E: no sys/ directory"* ]]
	run --separate-stderr env TSMCTL_SYSROOT=/nonexistent "$TSMCTL" list
	[ "$status" -eq 2 ]
	[ "$stderr" = "tsmctl list: TSMCTL_SYSROOT=/nonexistent: No such file or directory" ]
	run --separate-stderr "$TSMCTL" --sysroot "" list
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--sysroot needs a directory"* ]]
	# an empty variable is an unset one
	run --separate-stderr env TSMCTL_SYSROOT= "$TSMCTL" list --help
	[ "$status" -eq 0 ]
}

@test "arguments are escaped in error messages: ESC and BEL never reach the terminal" {
	local esc=$'\e[2J\a'
	for args in "bogus$esc" "list --bogus$esc" "devices -d 41:00.0$esc" "list -o NAME$esc" \
		    "connect 41:00.0 tsm$esc" "wait tsm$esc" "--sysroot /nonexistent$esc list"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$TSMCTL" $args
		[ "$status" -eq 2 ] || { echo "$args: exit $status"; return 1; }
		[[ "$stderr" != *$'\e'* && "$stderr" != *$'\a'* ]] || { echo "raw: $stderr"; return 1; }
		[[ "$stderr" == *'\x1b[2J\x07'* ]] || { echo "not escaped: $stderr"; return 1; }
	done
}

@test "-o errors are one message with the command's prefix" {
	run --separate-stderr t list -o NAME,BOGUS
	[ "$status" -eq 2 ]
	[ "$stderr" = "tsmctl list: --output: unknown column 'BOGUS'"$'\n'"Try 'tsmctl list --help'." ]
	run --separate-stderr t devices -o ,
	[ "$stderr" = "tsmctl devices: --output: an empty value in the list ',' (a comma with nothing before or after it)"$'\n'"Try 'tsmctl devices --help'." ]
	for o in "+" " " ""; do
		run --separate-stderr t devices -o "$o"
		[ "$stderr" = "tsmctl devices: --output: no column given"$'\n'"Try 'tsmctl devices --help'." ]
	done
	for o in "BDF," "+BDF," ",BDF" "BDF,,TYPE" "+,BDF"; do
		run --separate-stderr t devices -o "$o"
		[ "$status" -eq 2 ]
		[[ "$stderr" == *"--output: an empty value in the list '$o'"* ]] || { echo "-o '$o': $stderr"; return 1; }
	done
}

@test "-y/--shell: -P keys are shell variable names" {
	run t devices -P -y -o BDF,ROOT-PORT,HOST-BRIDGE -d 41:00.0
	[ "$status" -eq 0 ]
	[ "$output" = 'BDF="0000:41:00.0" ROOT_PORT="0000:40:01.1" HOST_BRIDGE="pci0000:40"' ]
	eval "$output"
	# shellcheck disable=SC2154
	[ "$HOST_BRIDGE" = pci0000:40 ]
	run t host-bridges --pairs --shell -o NAME -b pci0000:40
	[ "$output" = 'NAME="pci0000:40"' ]
	# without -y the keys stay the column names
	run t devices -P -o HOST-BRIDGE -d 41:00.0
	[ "$output" = 'HOST-BRIDGE="pci0000:40"' ]
}

@test "durations and counts are decimal only, as documented" {
	for bad in 0x10 1e1 inf nan " 5" -1 +5 "" 1..2 . 5s; do
		run --separate-stderr t wait --timeout "$bad" tsm0
		[ "$status" -eq 2 ] || { echo "--timeout '$bad': exit $status"; return 1; }
		run --separate-stderr t watch --interval "$bad" --count 1
		[ "$status" -eq 2 ] || { echo "--interval '$bad': exit $status"; return 1; }
		run --separate-stderr t connect --dry-run --wait "$bad" 41:00.0 tsm0
		[ "$status" -eq 2 ] || { echo "--wait '$bad': exit $status"; return 1; }
		run --separate-stderr t watch --interval 0.1 --count "$bad"
		[ "$status" -eq 2 ] || { echo "--count '$bad': exit $status"; return 1; }
	done
	run --separate-stderr t wait --timeout 0.5 tsm0
	[ "$status" -eq 0 ]
	run --separate-stderr t wait --timeout .5 tsm0
	[ "$status" -eq 0 ]
	run --separate-stderr t watch --interval 0.1 --count 01
	[ "$status" -eq 0 ]
	# the words are true of each value refused: 1.5 and 2^64 are positive decimal numbers
	for bad in 1.5 18446744073709551616 0; do
		run --separate-stderr t watch --interval 0.1 --count "$bad"
		[ "$status" -eq 2 ]
		[ "${stderr%%$'\n'*}" = "tsmctl watch: invalid --count value '$bad' (a whole number, 1-9223372036854775807)" ]
	done
}

@test "the debug switches' own variables take 1 and 0: 0 turns them off, another value is said and ignored" {
	run --separate-stderr env TSMCTL_CONFIG_STATS=1 "$TSMCTL" --sysroot "$ROOT" list
	[ "$status" -eq 0 ]
	[[ "$stderr" == "tsmctl: config space: "*" config cycles" ]]
	for v in 0 ""; do
		run --separate-stderr env TSMCTL_CONFIG_STATS="$v" TSMCTL_NO_OPENAT2="$v" "$TSMCTL" --sysroot "$ROOT" list
		[ "$status" -eq 0 ]
		[ -z "$stderr" ] || { echo "TSMCTL_CONFIG_STATS='$v': $stderr"; return 1; }
	done
	run --separate-stderr env TSMCTL_CONFIG_STATS=yes "$TSMCTL" --sysroot "$ROOT" list
	[ "$status" -eq 0 ]
	[ "$stderr" = "tsmctl: TSMCTL_CONFIG_STATS='yes' is ignored: it takes 1 (on) or 0 (off)" ]
	# TSMCTL_DEBUG names switches: a name it does not know is said, once a run
	run --separate-stderr env TSMCTL_DEBUG=config_stats "$TSMCTL" --sysroot "$ROOT" list
	[ "$status" -eq 0 ]
	[ "$stderr" = "tsmctl: TSMCTL_DEBUG: unknown switch 'config_stats' is ignored (config-stats, no-openat2, evidence-stats)" ]
	run --separate-stderr env TSMCTL_DEBUG=config-stats "$TSMCTL" --sysroot "$ROOT" list
	[[ "$stderr" == "tsmctl: config space: "* ]]
}

@test "-d takes lspci's slot form: BB:DD and DDDD:BB:DD select every function of the slot" {
	run t devices --all -d 41:00 -n -o BDF
	[ "$status" -eq 0 ]
	[ "${lines[*]}" = "0000:41:00.0 0000:41:00.1" ]
	run t streams -J -d 41:00
	[ "$status" -eq 0 ]
	json_is '[.streams[].name]' '["stream0.0.0"]'
	run t audit -J -d 41:00
	json_is '[.checks[] | select(.id == "device.connected") | .object]' '["0000:41:00.0"]'
	ROOT=$(static_tree devsec)
	run t devices --all -d 10000:01:00 -n -o BDF
	[ "${lines[*]}" = "10000:01:00.0 10000:01:00.1" ]
	run --separate-stderr t devices -d 99:00
	[ "$status" -eq 1 ]
	[ "$stderr" = "tsmctl devices: 0000:99:00: no such PCI slot" ]
	# a function's address still means that function only; garbage is a usage error
	run t devices --all -d 10000:01:00.1 -n -o BDF
	[ "$output" = "10000:01:00.1" ]
	for bad in 41 41:0g 41:00. :00 41:20; do
		run t devices -d "$bad"
		[ "$status" -eq 2 ] || { echo "'$bad': exit $status"; return 1; }
	done
}

@test "-v is described as what it does in each command" {
	[[ "$("$TSMCTL" connect --help)" == *"-v, --verbose"*"print each sysfs path written"* ]]
	for c in list devices host-bridges streams audit wait watch report metrics; do
		run "$TSMCTL" "$c" --help
		[[ "$output" != *"paths written"* ]] || { echo "$c: $output"; return 1; }
	done
	[[ "$("$TSMCTL" streams --help)" == *"-v, --verbose"*"RID and address association"* ]]
	[[ "$("$TSMCTL" audit --help)" == *"-v, --verbose"*"description"*"hint"* ]]
}

@test "--no-syslog belongs to the commands that store, in --help and --list-opts, and to no view" {
	for c in connect disconnect lock accept unlock; do
		[[ "$("$TSMCTL" "$c" --help)" == *"--no-syslog"*"system log"* ]] || { echo "$c --help"; return 1; }
		"$TSMCTL" --list-opts "$c" | grep -qx -- --no-syslog || { echo "$c --list-opts"; return 1; }
	done
	for c in list devices host-bridges streams audit wait watch report metrics; do
		run "$TSMCTL" "$c" --help
		[[ "$output" != *"--no-syslog"* ]] || { echo "$c: $output"; return 1; }
		run --separate-stderr "$TSMCTL" "$c" --no-syslog
		[ "$status" -eq 2 ] || { echo "$c accepted --no-syslog"; return 1; }
	done
}

@test "under a sysroot, messages speak of this tree's kernel, not the running one" {
	ROOT=$(static_tree no-tsm)
	for c in list devices streams; do
		run --separate-stderr t "$c"
		[ "$status" -eq 0 ]
		[[ "$stderr" == "tsmctl $c: no $ROOT/sys/class/tsm in this tree: its kernel lacked PCI TSM support (CONFIG_PCI_TSM) or no TSM provider module was loaded ["* ]] ||
			{ echo "$c: $stderr"; return 1; }
		[[ "$stderr" != *"running kernel"* ]]
	done
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t lock --dry-run 81:00.0 tsm0
	[ "$status" -eq 1 ]
	[[ "$stderr" == "tsmctl lock: this tree's kernel lacks the TDISP guest ABI"* ]]
}

@test "paths under a sysroot are named as the user gave the sysroot, in audit's results too" {
	local rel
	rel=./$(basename "$(static_tree no-tsm)")
	cd "$(dirname "$(static_tree no-tsm)")"
	run --separate-stderr "$TSMCTL" --sysroot "$rel/" audit
	[ "$status" -eq 1 ]
	[[ "$output" == *" platform  $rel/sys/bus/pci/devices lists the PCI functions"* ]]
	[[ "$output" == *" platform  $rel/sys/class/tsm does not exist"* ]]
	run --separate-stderr env TSMCTL_SYSROOT="$rel" "$TSMCTL" list
	[[ "$stderr" == "tsmctl list: no $rel/sys/class/tsm in this tree"* ]]
	cd "$(dirname "$(static_tree sev-tio)")"
	run --separate-stderr "$TSMCTL" --sysroot "./$(basename "$(static_tree sev-tio)")" connect --dry-run 81:00.0 tsm0
	[ "${lines[0]}" = "0000:81:00.0: would write 'tsm0' to ./$(basename "$(static_tree sev-tio)")/sys/bus/pci/devices/0000:81:00.0/tsm/connect" ]
	# and the host itself is /sys
	run --separate-stderr "$TSMCTL" audit -J
	[[ "$(printf '%s' "$output" | jq -r '.checks[] | select(.id == "platform.pci-devices") | .message')" == "/sys/bus/pci/devices"* ]]
}

@test "operands after -- are operands: never dropped (getopt's contract)" {
	run --separate-stderr t wait --timeout 0 -- tsm9
	expect_status 1
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "tsmctl wait: tsm9 not ready (--timeout 0: checked once)" ]
	run --separate-stderr t connect --dry-run -- 81:00.0 tsm0
	expect_status 0
	[ "${lines[0]}" = "0000:81:00.0: would write 'tsm0' to $ROOT/sys/bus/pci/devices/0000:81:00.0/tsm/connect" ]
	# devices takes BDFs as operands (issue 32): after -- one is still checked as one
	run --separate-stderr t devices -- extra
	expect_status 2
	[[ "$stderr" == *"invalid PCI address 'extra'"* ]]
	run --separate-stderr t devices -J -- 41:00.0
	expect_status 0
	json_is '[.devices[].bdf]' '["0000:41:00.0"]'
	# an option's spelling after -- is an operand too
	run --separate-stderr t connect --dry-run -- --all tsm0
	expect_status 2
	[[ "$stderr" == *"invalid PCI address '--all'"* ]]
	for c in list streams host-bridges audit metrics report watch; do
		run --separate-stderr t "$c" -- extra
		expect_status 2
	done
}

@test "help text says what each option does for its command, aligned" {
	local c line bad=0
	for c in $("$TSMCTL" --list-cmds); do
		# every option's text starts in one column, or on its own line below a long option
		while IFS= read -r line; do
			[[ "$line" =~ ^\ [\ -][-\ a-zA-Z,]*--[a-z-]+(\ [A-Z|]+)?$ ]] && continue # its text below
			if [[ "$line" =~ ^\ -.\ |^\ \ \ \ \ --[a-z] ]] && [ "${#line}" -gt 30 ] &&
			   [ "${line:29:1}" != " " -o "${line:30:1}" = " " ]; then
				echo "$c: misaligned: '$line'"
				bad=$((bad + 1))
			fi
		done < <("$TSMCTL" "$c" --help)
		# --sysroot DIR stands for /, not for /sys
		"$TSMCTL" "$c" --help | grep -q -- '--sysroot DIR .*DIR stands for /' ||
			{ echo "$c: --sysroot help"; bad=$((bad + 1)); }
	done
	"$TSMCTL" --help | grep -q -- '--sysroot DIR .*DIR stands for /' || bad=$((bad + 1))
	! "$TSMCTL" --help | grep -q 'root of /sys' || bad=$((bad + 1))
	! grep -l 'root of _/sys_' "$TOP"/man/*.scd || bad=$((bad + 1))
	# devices -a shows, it does not act
	"$TSMCTL" devices --help | grep -- '-a, --all' | grep -q 'every PCIe function with IDE or TEE-IO' ||
		{ echo "devices -a"; bad=$((bad + 1)); }
	! "$TSMCTL" devices --help | grep -q 'act on' || bad=$((bad + 1))
	# audit --strict: warnings fail; nothing is "done already" in an audit
	"$TSMCTL" audit --help | grep -q -- '--strict  *count warnings as failures' ||
		{ echo "audit --strict"; bad=$((bad + 1)); }
	[ "$bad" -eq 0 ]
}

@test "tsmctl help lists the commands, help COMMAND is its --help, on stdout, exit 0" {
	run --separate-stderr "$TSMCTL" help
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$("$TSMCTL" --help)" ]
	[[ "$output" == *" tree "*" help "* ]]
	for c in $("$TSMCTL" --list-cmds); do
		run --separate-stderr "$TSMCTL" help "$c"
		[ "$status" -eq 0 ] || { echo "help $c: exit $status"; return 1; }
		[ "$output" = "$("$TSMCTL" "$c" --help)" ] || { echo "help $c differs from $c --help"; return 1; }
		[ "${lines[-1]}" = "For more details see tsmctl-$c(8)." ]
		[ -e "$TOP/man/tsmctl-$c.8.scd" ] || { echo "no page for $c"; return 1; }
	done
}

@test "tsmctl help: an unknown command is a usage error with a suggestion; no tree is read" {
	run --separate-stderr "$TSMCTL" help stream
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *"unknown command 'stream'; did you mean 'streams'?"* ]]
	run --separate-stderr "$TSMCTL" help tree devices
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"extra operand 'devices' (tsmctl help [COMMAND])"* ]]
	# a root that does not exist does not hide the help
	run --separate-stderr env TSMCTL_SYSROOT=/nonexistent "$TSMCTL" help tree
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "Usage:" ]	# bats drops the blank first line
	[ "$output" = "$("$TSMCTL" tree --help)" ]
	run --separate-stderr "$TSMCTL" --sysroot /nonexistent help
	[ "$status" -eq 0 ]
}
