#!/usr/bin/env bats
# Tree text carrying terminal controls, through every text writer: the table
# views, audit, wait, watch, metrics, and the messages of actions. The tree's
# tsm/connect, pci_mode and provider driver name hold the 8-bit CSI as a code
# point (C2 9B), a raw ESC sequence, DEL and bytes that are not UTF-8. Every
# output must stay free of raw controls (tests/hostile/check-bytes
# --no-controls) and show the one escaped form (text_escape in src/util.c).

load lib/helpers

PAYLOAD=$'\xc2\x9b31m\e[2J\x7fevil\xff\xc3'
# As every text writer shows it: each of those bytes as \xNN, the rest kept.
SHOWN='\xc2\x9b31m\x1b[2J\x7fevil\xff\xc3'
EP=sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0
GPU=sys/devices/pci0000:80/0000:80:01.1/0000:81:00.0
PSP=sys/devices/pci0000:00/0000:00:07.1/0000:02:00.1

teardown() {
	stop_bg "${WPID:-}"
}

# A SEV-TIO tree with the payload in the NIC's tsm/connect, tsm0's pci_mode and the
# name of the PSP's driver; sets ROOT.
hostile_tree() {
	ROOT=$BATS_TEST_TMPDIR/hostile
	"$SIM" build "$TOPO/sev-tio.json" "$ROOT" >/dev/null
	printf '%s\n' "$PAYLOAD" >"$ROOT/$EP/tsm/connect"
	printf '%s\n' "$PAYLOAD" >"$ROOT/$PSP/tsm/tsm0/pci_mode"
	mkdir "$ROOT/sys/bus/pci/drivers/$PAYLOAD"
	ln -sfn "../../../../bus/pci/drivers/$PAYLOAD" "$ROOT/$PSP/driver"
}

# clean FILE...: no raw control byte and nothing that is not UTF-8 in any of them.
clean() {
	"$TOP/tests/hostile/check-bytes" --no-controls "$@"
}

# view NAME ARGS...: tsmctl ARGS on $ROOT as on a UTF-8 terminal, stdout and stderr kept
# in $BATS_TEST_TMPDIR/NAME.{out,err}; exit status in $status.
view() {
	local name=$1
	shift
	status=0
	LC_ALL=C.UTF-8 "$TSMCTL" --sysroot "$ROOT" "$@" >"$BATS_TEST_TMPDIR/$name.out" \
		2>"$BATS_TEST_TMPDIR/$name.err" </dev/null || status=$?
}

@test "tables and audit: the tree's C1, ESC, DEL and invalid UTF-8 come out as \\xNN, never raw" {
	hostile_tree
	local v files=()
	# each view with the column that shows the tree's text (host-bridges and wait
	# print only strictly parsed names: their output must just stay clean)
	for v in "list" "list -o NAME,MODE,DRIVER -r" "list -P" "devices" "devices -P" \
		"devices -r -o BDF,CONNECTED" "streams" "streams -v -P" "host-bridges" \
		"host-bridges --output-all" "audit" "audit --verbose" "wait --timeout 0"; do
		# shellcheck disable=SC2086 # the command words split on purpose
		view "${v// /_}" $v
		[ "$status" -le 1 ] || { echo "tsmctl $v: exit $status"; cat "$BATS_TEST_TMPDIR/${v// /_}.err"; return 1; }
		files+=("$BATS_TEST_TMPDIR/${v// /_}.out" "$BATS_TEST_TMPDIR/${v// /_}.err")
	done
	clean "${files[@]}"
	for v in list list_-o_NAME,MODE,DRIVER_-r list_-P devices devices_-P \
		devices_-r_-o_BDF,CONNECTED streams streams_-v_-P audit audit_--verbose; do
		grep -qF "$SHOWN" "$BATS_TEST_TMPDIR/$v.out" || { echo "$v: no $SHOWN"; cat "$BATS_TEST_TMPDIR/$v.out"; return 1; }
	done
	# MODE and DRIVER of list, CONNECTED of devices, TSM of streams, audit's messages
	[ "$(grep -cF "$SHOWN" "$BATS_TEST_TMPDIR/list.out")" -eq 1 ]
	[[ "$(cat "$BATS_TEST_TMPDIR/list_-o_NAME,MODE,DRIVER_-r.out")" == *"tsm0 $SHOWN $SHOWN"* ]]
	# no kernel prints such a tsm/connect: the cell is marked malformed, the text shown escaped
	grep -qF "CONNECTED=\"(malformed) $SHOWN\"" "$BATS_TEST_TMPDIR/devices_-P.out"
	grep -qF "0000:41:00.0 (malformed)\\x20$SHOWN" "$BATS_TEST_TMPDIR/devices_-r_-o_BDF,CONNECTED.out"
	grep -qF "tsm/connect reads '$SHOWN': no TSM name" "$BATS_TEST_TMPDIR/audit.out"
	grep -qF "pci_mode '$SHOWN'" "$BATS_TEST_TMPDIR/audit.out"
	grep -qx 'tsm0' "$BATS_TEST_TMPDIR/wait_--timeout_0.out"
	# escaped once: a backslash of an escape is never escaped again
	if grep -qF 'x5cx' "${files[@]}"; then false; fi
}

@test "watch: a connect and a disconnect naming the tree's text are events with it escaped" {
	hostile_tree
	local out=$BATS_TEST_TMPDIR/watch.out err=$BATS_TEST_TMPDIR/watch.err
	LC_ALL=C.UTF-8 "$TSMCTL" --sysroot "$ROOT" -v watch -i 0.1 >"$out" 2>"$err" &
	WPID=$!
	wait_for_line "$err" "checking every"
	printf '%s\n' "$PAYLOAD" >"$ROOT/$GPU/tsm/connect"
	wait_for_line "$out" "device-connected"
	: >"$ROOT/$GPU/tsm/connect"
	wait_for_line "$out" "device-disconnected"
	kill -TERM "$WPID"
	wait "$WPID"
	WPID=
	cat -v "$out"
	clean "$out" "$err"
	grep -qF " device-connected 0000:81:00.0 to $SHOWN" "$out"
	grep -qF " device-disconnected 0000:81:00.0 from $SHOWN" "$out"
}

@test "metrics: label values carry the escaped text in the format's own escapes; both parsers agree" {
	hostile_tree
	view metrics metrics
	[ "$status" -eq 0 ]
	clean "$BATS_TEST_TMPDIR/metrics.out" "$BATS_TEST_TMPDIR/metrics.err"
	# in the file each \ of an escape is \\ (the only escapes the format has besides \" and \n)
	local label=${SHOWN//\\/\\\\}
	grep -qF "tsmctl_tsm_info{tsm=\"tsm0\",mode=\"$label\",provider=\"0000:02:00.1\",driver=\"$label\"} 1" \
		"$BATS_TEST_TMPDIR/metrics.out"
	"$TOP/tests/lib/promtext-check" "$BATS_TEST_TMPDIR/metrics.out"
	if /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null; then
		# a parser reads back the text a table shows
		run -0 /usr/bin/python3 -c '
import sys
from prometheus_client.parser import text_string_to_metric_families as parse
for f in parse(open(sys.argv[1]).read()):
    for s in f.samples:
        if s.name == "tsmctl_tsm_info":
            print(s.labels["mode"]); print(s.labels["driver"])
' "$BATS_TEST_TMPDIR/metrics.out"
		[ "${lines[0]}" = "$SHOWN" ]
		[ "${lines[1]}" = "$SHOWN" ]
	fi
}

@test "actions: messages quoting the tree's TSM name escape it (dry run, refusals)" {
	hostile_tree
	view disconnect disconnect --dry-run 0000:41:00.0
	[ "$status" -eq 0 ]
	view connect connect --dry-run 0000:81:00.0 tsm0
	view connect-busy connect 0000:41:00.0 tsm0
	[ "$status" -eq 1 ]
	clean "$BATS_TEST_TMPDIR"/{disconnect,connect,connect-busy}.{out,err}
	grep -qF "would write '$SHOWN' to" "$BATS_TEST_TMPDIR/disconnect.out"
	grep -qF "$SHOWN" "$BATS_TEST_TMPDIR/connect.err"
	grep -qF "$SHOWN" "$BATS_TEST_TMPDIR/connect-busy.err"
	# nothing was written by a dry run
	[ "$(cat "$ROOT/$EP/tsm/connect")" = "$PAYLOAD" ]
}
