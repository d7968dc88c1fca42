#!/usr/bin/env bats
# tsmctl metrics: node_exporter textfile output, checked by the real parsers
# (promtool check metrics and the Prometheus Python client's, through
# tests/lib/promtext-check, which adds what neither checks), and value by
# value against what the simulator shows.

load lib/helpers

CHECK=$TOP/tests/lib/promtext-check

teardown() {
	unmount_live
}

# The value of the series "NAME{LABELS}" (exact text) in $output; fails when absent.
metric() {
	local v
	v=$(printf '%s\n' "$output" | awk -v k="$1" 'substr($0, 1, length(k) + 1) == k " " { print $2; n++ } END { exit n != 1 }') ||
		{ echo "no single series $1"; return 1; }
	echo "$v"
}

# promtool, the Python client and the checks neither does accept $output
# (bats drops the final newline: put it back).
valid() {
	printf '%s\n' "$output" | "$CHECK"
}

@test "the format: every family documented, gauges, valid for promtool and the Python client" {
	ROOT=$(static_tree broken)
	run --separate-stderr t metrics
	expect_status 0
	valid
	t metrics > "$BATS_TEST_TMPDIR/raw.prom"
	"$CHECK" "$BATS_TEST_TMPDIR/raw.prom"	# as written, final newline included
	# every family is in the man page
	for f in $(printf '%s\n' "$output" | awk '/^# TYPE/ { print $3 }'); do
		grep -q "^\*$f\*" "$TOP/man/tsmctl-metrics.8.scd" || { echo "$f undocumented"; return 1; }
	done
	[ "$(metric tsmctl_scrape_success)" = 1 ]
	ts=$(metric tsmctl_scrape_timestamp_seconds)
	awk -v t="$ts" -v now="$(date +%s)" 'BEGIN { exit !(t > now - 60 && t <= now + 1) }'	# a bound: the scrape ran a moment ago
}

@test "values match the tree: TSMs, devices, streams by state, pools (broken host)" {
	ROOT=$(static_tree broken)
	run --separate-stderr t metrics
	expect_status 0
	valid
	[ "$(metric tsmctl_tsms)" = 1 ]
	[ "$(metric 'tsmctl_tsm_info{tsm="tsm0",mode="",provider="0000:02:00.1",driver="ccp"}')" = 1 ]
	[ "$(metric tsmctl_devices_connected)" = "$(grep -l . "$ROOT"/sys/bus/pci/devices/*/tsm/connect | wc -l)" ]
	[ "$(metric tsmctl_devices_connected)" = 2 ]
	[ "$(metric tsmctl_devices)" = "$(ls "$ROOT"/sys/bus/pci/devices/*/tsm/connect | wc -l)" ]
	# stream0.0.0 RP dropped, stream1.1.0 EP with IDE_FAIL (its blocks SECURE), stream3.2.0 dangling
	[ "$(metric 'tsmctl_streams{host_bridge="pci0000:40",state="secure"}')" = 0 ]
	[ "$(metric 'tsmctl_streams{host_bridge="pci0000:40",state="insecure"}')" = 1 ]
	[ "$(metric 'tsmctl_streams{host_bridge="pci0000:40",state="ide-fail"}')" = 1 ]
	[ "$(metric 'tsmctl_streams{host_bridge="pci0000:40",state="dangling"}')" = 1 ]
	[ "$(metric 'tsmctl_streams{host_bridge="pci0000:40",state="unknown"}')" = 0 ]
	[ "$(metric 'tsmctl_streams{host_bridge="pci0000:00",state="secure"}')" = 0 ]
	[ "$(metric 'tsmctl_streams_ide_fail{host_bridge="pci0000:40"}')" = 1 ]
	# each state as streams --state says it: the one word of the model, in both
	for st in secure insecure ide-fail dangling; do
		n=$(t streams -J --state "$st" -b pci0000:40 | jq '.streams | length')
		[ "$(metric "tsmctl_streams{host_bridge=\"pci0000:40\",state=\"$st\"}")" = "$n" ] ||
			{ echo "$st: metrics and streams --state disagree"; return 1; }
	done
	for hb in "$ROOT"/sys/devices/pci*; do
		[ "$(metric "tsmctl_available_secure_streams{host_bridge=\"${hb##*/}\"}")" = "$(cat "$hb/available_secure_streams")" ]
	done
}

@test "audit checks: one-hot worst status and counts, equal to what audit -J reports" {
	ROOT=$(static_tree broken)
	run --separate-stderr t audit -J
	audit=$output
	run --separate-stderr t metrics
	expect_status 0
	valid
	ids=$(printf '%s' "$audit" | jq -r '[.checks[].id] | unique | .[]')
	[ -n "$ids" ]
	for id in $ids; do
		worst=$(printf '%s' "$audit" | jq -r --arg id "$id" '
			[.checks[] | select(.id == $id) | .status] as $s
			| first(("fail", "warn", "needs-root", "pass", "skip") as $w | select($s | index($w)) | $w)')
		for st in pass warn fail skip needs-root; do
			want=0
			[ "$st" = "$worst" ] && want=1
			[ "$(metric "tsmctl_audit_check_status{check=\"$id\",status=\"$st\"}")" = $want ] ||
				{ echo "$id $st: want $want"; return 1; }
			n=$(printf '%s' "$audit" | jq --arg id "$id" --arg st "$st" '[.checks[] | select(.id == $id and .status == $st)] | length')
			[ "$(metric "tsmctl_audit_results{check=\"$id\",status=\"$st\"}")" = "$n" ]
		done
	done
	[ "$(metric 'tsmctl_audit_check_status{check="stream.secure",status="fail"}')" = 1 ]
	# every check of the table has its series, also those that applied to nothing
	n=$("$TSMCTL" audit --list-checks | wc -l)
	[ "$(printf '%s\n' "$output" | grep -c '^tsmctl_audit_check_status{')" -eq $((n * 5)) ]
}

@test "a live host: connect, a stream dropping and IDE_FAIL move the gauges" {
	mount_live sev-tio
	run --separate-stderr t metrics
	valid
	[ "$(metric tsmctl_devices_connected)" = 1 ]
	[ "$(metric 'tsmctl_streams{host_bridge="pci0000:80",state="secure"}')" = 0 ]
	[ "$(metric 'tsmctl_available_secure_streams{host_bridge="pci0000:80"}')" = 256 ]
	echo tsm0 > "$(dev 0000:81:00.0)/tsm/connect"
	run --separate-stderr t metrics
	valid
	[ "$(metric tsmctl_devices_connected)" = 2 ]
	[ "$(metric 'tsmctl_streams{host_bridge="pci0000:80",state="secure"}')" = 1 ]
	[ "$(metric 'tsmctl_available_secure_streams{host_bridge="pci0000:80"}')" = 255 ]
	[ "$(metric 'tsmctl_audit_check_status{check="stream.secure",status="pass"}')" = 1 ]
	echo "drop 0000:81:00.0 ep" > "$ROOT/tsm-sim-control"
	echo "ide-fail 0000:41:00.0 rp" > "$ROOT/tsm-sim-control"
	run --separate-stderr t metrics
	expect_status 0	# metrics report failures as values; the run itself worked
	valid
	[ "$(metric 'tsmctl_streams{host_bridge="pci0000:80",state="secure"}')" = 0 ]
	[ "$(metric 'tsmctl_streams{host_bridge="pci0000:80",state="insecure"}')" = 1 ]
	[ "$(metric 'tsmctl_streams_ide_fail{host_bridge="pci0000:40"}')" = 1 ]
	# a SECURE stream with IDE_FAIL is no secure stream, here as in streams --state secure
	[ "$(metric 'tsmctl_streams{host_bridge="pci0000:40",state="secure"}')" = 0 ]
	[ "$(metric 'tsmctl_streams{host_bridge="pci0000:40",state="ide-fail"}')" = 1 ]
	[ "$(t streams -J --state secure | jq '.streams | length')" = 0 ]
	[ "$(metric 'tsmctl_audit_check_status{check="stream.secure",status="fail"}')" = 1 ]
	[ "$(metric 'tsmctl_audit_results{check="stream.secure",status="fail"}')" = 1 ]
	[ "$(metric 'tsmctl_audit_results{check="stream.secure",status="pass"}')" = 1 ]
}

@test "no TSM: zero gauges, not missing ones; a v6.19-less kernel has no pools" {
	ROOT=$(static_tree no-tsm)
	run --separate-stderr t metrics
	expect_status 0
	valid
	[ "$(metric tsmctl_tsms)" = 0 ]
	[ "$(metric tsmctl_devices_connected)" = 0 ]
	if printf '%s\n' "$output" | grep -q '^tsmctl_tsm_info{'; then false; fi
	if printf '%s\n' "$output" | grep -q '^tsmctl_available_secure_streams{'; then false; fi
	[ "$(metric 'tsmctl_audit_check_status{check="platform.tsm-class",status="fail"}')" = 1 ]
}

@test "-o FILE replaces the file atomically: 0644, no temporary left, same text; --output-file is its older name" {
	ROOT=$(static_tree sev-tio)
	D=$(mktemp -d "$BATS_TEST_TMPDIR/textfile.XXXXXX")
	echo "old" > "$D/tsmctl.prom"
	ino=$(stat -c %i "$D/tsmctl.prom")
	run --separate-stderr t metrics -o "$D/tsmctl.prom"
	expect_status 0
	[ -z "$output" ]
	[ "$(stat -c %a "$D/tsmctl.prom")" = 644 ]
	[ "$(stat -c %i "$D/tsmctl.prom")" != "$ino" ]	# a new file renamed over the old one
	[ "$(ls -A "$D")" = tsmctl.prom ]
	diff <(grep -v timestamp "$D/tsmctl.prom") <(t metrics | grep -v timestamp)
	output=$(cat "$D/tsmctl.prom")
	valid
	# relative names work too (the temporary file goes next to it)
	(cd "$D" && "$TSMCTL" --sysroot "$ROOT" metrics --output-file rel.prom)
	"$CHECK" "$D/rel.prom"
	[ "$(ls -A "$D" | tr '\n' ' ')" = "rel.prom tsmctl.prom " ]
}

@test "-o errors: a missing directory fails with the step named, nothing written; an empty name is refused" {
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t metrics --output-file "$BATS_TEST_TMPDIR/nodir/x.prom"
	expect_status 1
	[ "$stderr" = "tsmctl metrics: $BATS_TEST_TMPDIR/nodir/x.prom: creating a temporary file: No such file or directory" ]
	[ ! -e "$BATS_TEST_TMPDIR/nodir" ]
	for o in -o --output --output-file; do
		run --separate-stderr t metrics "$o" ""
		expect_status 2
		[ "${stderr%%$'\n'*}" = "tsmctl metrics: --output needs a file name ('-': stdout)" ]
	done
	[ -w /dev/full ] || skip "no /dev/full"
	# '-' is stdout, named as such when it fails
	run bash -c '"$0" --sysroot "$1" metrics -o - >/dev/full' "$TSMCTL" "$ROOT"
	[ "$status" -eq 1 ]
	[ "$output" = "tsmctl metrics: - (standard output): writing: No space left on device" ]
	run --separate-stderr t metrics extra
	expect_status 2
	[[ "$stderr" == *"extra operand 'extra': metrics takes no operands"* ]]
}

@test "-o never replaces a device node, FIFO, symbolic link or directory; '-' is stdout" {
	ROOT=$(static_tree sev-tio)
	D=$(mktemp -d "$BATS_TEST_TMPDIR/out.XXXXXX")
	mkfifo "$D/fifo"
	mkdir "$D/dir"
	echo keep > "$D/target"
	ln -s target "$D/link"
	ln -s /proc/self/fd/1 "$D/stdout"
	if [ "$(id -u)" -eq 0 ]; then mknod "$D/full" c 1 7; fi
	for f in fifo dir link stdout $([ -e "$D/full" ] && echo full); do
		run --separate-stderr t metrics --output-file "$D/$f"
		expect_status 1
		[[ "$stderr" == "tsmctl metrics: $D/$f: a "*", not a regular file: refusing to replace it (name a regular file, or '-' for stdout)" ]] ||
			{ echo "$f: $stderr"; return 1; }
	done
	[ -p "$D/fifo" ]
	[ -d "$D/dir" ]
	[ -L "$D/link" ]
	[ -L "$D/stdout" ]
	[ "$(readlink "$D/link")" = target ]
	[ "$(cat "$D/target")" = keep ]
	[ ! -e "$D/full" ] || [ -c "$D/full" ]
	# refused before a temporary file was made
	if ls -A "$D" | grep -q tsmctl-; then false; fi
	for o in "-o -" "--output -" "--output-file -"; do
		# shellcheck disable=SC2086 # the option and its value
		run --separate-stderr t metrics $o
		expect_status 0
		valid
		[ ! -e ./- ]
	done
}

@test "-o FILE on a file system that is full says so and leaves the old file" {
	ROOT=$(static_tree sev-tio)
	D=$(mktemp -d "$BATS_TEST_TMPDIR/full.XXXXXX")
	unshare -m true 2>/dev/null || skip "cannot make a mount namespace"
	# a private mount namespace: a 16 KiB tmpfs, filled up, for this test alone
	run --separate-stderr unshare -m bash -c 'mount -t tmpfs -o size=16k none "$1" &&
		echo old > "$1/tsmctl.prom" && { head -c 65536 /dev/zero > "$1/fill" 2>/dev/null; true; } &&
		"$0" --sysroot "$2" metrics -o "$1/tsmctl.prom"; echo "exit $?"; cat "$1/tsmctl.prom"; ls -A "$1"' \
		"$TSMCTL" "$D" "$ROOT"
	[ "$stderr" = "tsmctl metrics: $D/tsmctl.prom: writing: No space left on device" ]
	[ "${lines[0]}" = "exit 1" ]
	[ "${lines[1]}" = "old" ]
	[ "${lines[*]:2}" = "fill tsmctl.prom" ]
}
