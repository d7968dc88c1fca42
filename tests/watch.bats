#!/usr/bin/env bats
# tsmctl watch against the live simulator: changes made through tsm/connect
# and the simulator's control file come out as events, and only changes do.

load lib/helpers
load lib/netns

teardown() {
	stop_bg "${WPID:-}"
	unmount_live
	netns_teardown
}

TS='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z'

# watch_bg ARGS: tsmctl -v watch -i 0.1 ARGS in the background, once its baseline is taken.
watch_bg() {
	OUT=$BATS_TEST_TMPDIR/watch.out
	ERR=$BATS_TEST_TMPDIR/watch.err
	"$TSMCTL" --sysroot "$ROOT" -v watch -i 0.1 "$@" > "$OUT" 2> "$ERR" &
	WPID=$!
	wait_for_line "$ERR" "checking every"
}

watch_rc() {
	WRC=0
	wait "$WPID" || WRC=$?
	WPID=
}

@test "nothing changes, nothing is printed; usage errors" {
	mount_live sev-tio
	run --separate-stderr t watch -i 0.1 --count 3
	expect_status 0
	[ -z "$output" ]
	for bad in "-i 0" "-i 0.01" "-i abc" "--count 0" "--count -1" "--count x" "extra"; do
		# shellcheck disable=SC2086
		run --separate-stderr t watch $bad
		expect_status 2
	done
	run --separate-stderr t watch -i abc
	[[ "$stderr" == *"invalid --interval value 'abc'"* ]]
}

@test "connect and disconnect: device, stream and pool events, one line each" {
	mount_live sev-tio
	watch_bg
	echo tsm0 > "$(dev 0000:81:00.0)/tsm/connect"
	wait_for_line "$OUT" "stream-added"
	echo tsm0 > "$(dev 0000:81:00.0)/tsm/disconnect"
	wait_for_line "$OUT" "stream-removed"
	kill -TERM "$WPID"
	watch_rc
	[ "$WRC" -eq 0 ]	# SIGTERM is the normal end of a watch
	run cat "$OUT"
	[ "${#lines[@]}" -eq 4 ]
	[[ "${lines[0]}" =~ ^$TS\ device-connected\ 0000:81:00.0\ to\ tsm0$ ]]
	[[ "${lines[1]}" =~ ^$TS\ stream-added\ pci0000:80/stream0.0.0\ endpoint\ 0000:81:00.0:\ endpoint\ secure,\ root\ port\ secure$ ]]
	[[ "${lines[2]}" =~ ^$TS\ device-disconnected\ 0000:81:00.0\ from\ tsm0$ ]]
	[[ "${lines[3]}" =~ ^$TS\ stream-removed\ pci0000:80/stream0.0.0\ endpoint\ 0000:81:00.0$ ]]
}

@test "-J: JSON Lines with stable fields; INSECURE and IDE_FAIL are failures" {
	mount_live sev-tio
	watch_bg -J
	echo "drop 0000:41:00.0 rp" > "$ROOT/tsm-sim-control"
	wait_for_line "$OUT" "stream-insecure"
	echo "ide-fail 0000:41:00.0 ep" > "$ROOT/tsm-sim-control"
	wait_for_line "$OUT" "stream-ide-fail"
	kill -INT "$WPID"
	watch_rc
	[ "$WRC" -eq 0 ]
	run jq -c 'del(.time)' "$OUT"
	[ "${lines[0]}" = '{"schema_version":1,"event":"stream-insecure","severity":"fail","kind":"stream","object":"pci0000:40/stream0.0.0","detail":"endpoint 0000:41:00.0: endpoint secure, root port insecure"}' ]
	[ "${lines[1]}" = '{"schema_version":1,"event":"stream-ide-fail","severity":"fail","kind":"stream","object":"pci0000:40/stream0.0.0","detail":"endpoint 0000:41:00.0: IDE_FAIL set (an IDE Fail message was received)"}' ]
	[ "${#lines[@]}" -eq 2 ]
	jq -e '.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$")' "$OUT"
	# the time is now, in UTC
	t=$(jq -r '.time' "$OUT" | head -1)
	[ $(( $(date -u +%s) - $(date -u -d "$t" +%s) )) -lt 30 ]
}

@test "--exit-on-fail: exit 1 right after the first failure; --count ends a quiet watch with 0" {
	mount_live sev-tio
	watch_bg --exit-on-fail
	echo tsm0 > "$(dev 0000:81:00.0)/tsm/connect"	# info events only: it goes on
	wait_for_line "$OUT" "stream-added"
	kill -0 "$WPID"
	echo "drop 0000:81:00.0 both" > "$ROOT/tsm-sim-control"
	watch_rc
	[ "$WRC" -eq 1 ]
	[[ "$(tail -1 "$OUT")" =~ ^$TS\ stream-insecure\ pci0000:80/stream0.0.0\ endpoint\ 0000:81:00.0:\ endpoint\ insecure,\ root\ port\ insecure$ ]]
	# a quiet, healthy host: --count ends the watch with 0
	echo tsm0 > "$(dev 0000:81:00.0)/tsm/disconnect"
	run --separate-stderr t watch -i 0.1 --count 2 --exit-on-fail
	expect_status 0
	[ -z "$output" ]
}

@test "pool exhausted and available again" {
	J=$BATS_TEST_TMPDIR/pool1.json
	jq '(.host_bridges[] | select(.bus == "0x80")).streams = 1' "$TOPO/sev-tio.json" > "$J"
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	"$SIM" mount "$J" "$ROOT"
	watch_bg
	echo tsm0 > "$(dev 0000:81:00.0)/tsm/connect"
	wait_for_line "$OUT" "pool-exhausted"
	[ "$(avail pci0000:80)" = 0 ]
	echo tsm0 > "$(dev 0000:81:00.0)/tsm/disconnect"
	wait_for_line "$OUT" "pool-available"
	kill -TERM "$WPID"
	watch_rc
	grep -Eq "^$TS pool-exhausted pci0000:80 available_secure_streams 0: no new IDE stream can be set up$" "$OUT"
	grep -Eq "^$TS pool-available pci0000:80 available_secure_streams 1$" "$OUT"
}

@test "TSM added and removed (late registration, control file)" {
	netns_setup
	mount_late sev-tio 'del(.. | .connected?) | .tsms[0] += { "register_manually": true }'
	watch_bg
	sim_ctl register tsm0
	wait_for_line "$OUT" "tsm-added"
	echo tsm0 > "$(dev 0000:81:00.0)/tsm/connect"
	wait_for_line "$OUT" "device-connected"
	echo tsm0 > "$(dev 0000:81:00.0)/tsm/disconnect"
	wait_for_line "$OUT" "device-disconnected"
	sim_ctl unregister tsm0
	wait_for_line "$OUT" "tsm-removed"
	kill -TERM "$WPID"
	watch_rc
	run grep -Eo "(tsm|device)-[a-z]+ [^ ]+" "$OUT"
	[ "${lines[*]}" = "tsm-added tsm0 device-connected 0000:81:00.0 device-disconnected 0000:81:00.0 tsm-removed tsm0" ]
}

@test "a connected device vanishing is a failure" {
	J=$BATS_TEST_TMPDIR/vanish.json
	jq '(.. | objects | select(.bdf? == "0000:41:00.0")).faults = { "vanish_after_opens": 400 }' \
		"$TOPO/sev-tio.json" > "$J"
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	"$SIM" mount "$J" "$ROOT"
	watch_bg -J --exit-on-fail
	watch_rc
	[ "$WRC" -eq 1 ]
	run jq -c '[.event, .severity, .object]' "$OUT"
	[ "${lines[*]}" = '["device-disconnected","fail","0000:41:00.0"] ["stream-removed","info","pci0000:40/stream0.0.0"]' ]
	grep -qF '"detail":"from tsm0: tsm/connect is gone (device removed or TSM unregistered)"' "$OUT"
	[ ! -e "$ROOT/sys/bus/pci/devices/0000:41:00.0" ]
}

@test "a host failing when the watch starts: the failures are events, --exit-on-fail fires at once" {
	ROOT=$(static_tree broken)
	run --separate-stderr timeout 10 "$TSMCTL" --sysroot "$ROOT" -v watch -i 0.1 --exit-on-fail --count 3
	expect_status 1
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" =~ ^$TS\ stream-insecure\ pci0000:40/stream0.0.0\ endpoint\ 0000:41:00.0:\ endpoint\ secure,\ root\ port\ insecure\ \(found\ at\ start\)$ ]]
	[[ "${lines[1]}" =~ ^$TS\ stream-ide-fail\ pci0000:40/stream1.1.0\ .*\(found\ at\ start\)$ ]]
	[[ "${lines[2]}" =~ ^$TS\ stream-dangling\ pci0000:40/stream3.2.0\ the\ link\'s\ target\ does\ not\ exist\ \(found\ at\ start\)$ ]]
	[ "$stderr" = "tsmctl watch: 1 TSM, 3 streams, 2 host bridges; 3 failures found at start; checking every 0.1 s" ]
	# JSON Lines say the same; without --exit-on-fail the watch goes on and ends with 0
	run --separate-stderr t watch -J -i 0.1 --count 1
	expect_status 0
	[ "$(printf '%s\n' "$output" | jq -sc '[.[] | [.event, .severity, .object]]')" = \
		'[["stream-insecure","fail","pci0000:40/stream0.0.0"],["stream-ide-fail","fail","pci0000:40/stream1.1.0"],["stream-dangling","fail","pci0000:40/stream3.2.0"]]' ]
	# a used-up pool at the start is one too
	jq '.host_bridges[1].streams = 1' "$TOPO/sev-tio.json" > "$BATS_TEST_TMPDIR/full.json"
	ROOT=$BATS_TEST_TMPDIR/full
	"$SIM" build "$BATS_TEST_TMPDIR/full.json" "$ROOT" >/dev/null
	[ "$(cat "$ROOT/sys/devices/pci0000:40/available_secure_streams")" = 0 ]
	run --separate-stderr t watch -i 0.1 --count 1 --exit-on-fail
	expect_status 1
	[[ "$output" =~ ^$TS\ pool-exhausted\ pci0000:40\ available_secure_streams\ 0:.*\(found\ at\ start\)$ ]]
}

@test "a stray second link to a stream's blocks does not raise its IDE_FAIL a second time" {
	edit_tree broken
	ln -s 0000:40:03.1/0000:42:00.0 "$ROOT/sys/devices/pci0000:40/stream9.1.0"
	run --separate-stderr t watch --count 1 -i 0.1 -J
	expect_status 0
	[ "$(jq -s '[.[] | select(.event == "stream-ide-fail")] | length' <<<"$output")" -eq 1 ]
	[ "$(jq -rs '.[] | select(.event == "stream-ide-fail") | .object' <<<"$output")" = "pci0000:40/stream1.1.0" ]
}
