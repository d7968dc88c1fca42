#!/usr/bin/env bats
# The benchmark's shell baseline must produce what tsmctl produces, or the
# comparison in make bench would be against a strawman.

load lib/helpers

same_as_tsmctl() {
	diff <("$TOP/bench/streams.sh" "$ROOT" | jq -S .) <(t streams -J | jq -S .)
}

@test "bench/streams.sh equals tsmctl streams -J on SEV-TIO and broken trees" {
	for topo in sev-tio broken; do
		ROOT=$(static_tree "$topo")
		same_as_tsmctl
	done
}

@test "bench/streams.sh equals tsmctl streams -J on a live devsec host with two streams" {
	mount_live devsec
	echo tsm0 > "$ROOT/sys/bus/pci/devices/10000:01:00.0/tsm/connect"
	echo tsm0 > "$ROOT/sys/bus/pci/devices/10001:03:00.0/tsm/connect"
	run t streams -J
	json_is '.streams | length' 2
	same_as_tsmctl
}

# "id object status" lines; the shell audit's must all be tsmctl's too.
verdicts() { jq -r '.checks[] | "\(.id) \(.object) \(.status)"' | sort; }

audit_agrees() {
	local extra
	extra=$(comm -23 <("$TOP/bench/audit.sh" "$ROOT" | verdicts) <(t audit -J | verdicts))
	[ -z "$extra" ] || { echo "bench/audit.sh differs from tsmctl on: $extra"; return 1; }
	"$TOP/bench/audit.sh" "$ROOT" | jq -r '.checks[].status' | sort | uniq -c
}

@test "bench/audit.sh reaches tsmctl's verdict on every check it makes, on every topology" {
	local t n=0 kinds=""
	for t in "$TOPO"/*.json; do
		# the kernel's Stream ID claims at enumeration (pci_ide_init()'s order across a host
		# bridge) are tsmctl's model, which the shell baseline does not reproduce
		[ "$(basename "$t")" = ide-claim.json ] && continue
		ROOT=$(static_tree "$(basename "$t" .json)")
		audit_agrees || { echo "in $(basename "$t")"; return 1; }
		n=$((n + $("$TOP/bench/audit.sh" "$ROOT" | jq '.checks | length')))
		kinds+=$("$TOP/bench/audit.sh" "$ROOT" | jq -r '.checks[].status')$'\n'
	done
	echo "$n results"
	[ "$n" -ge 120 ]
	# it has to find trouble too, not only agree on passes
	for st in pass warn fail skip; do grep -qx "$st" <<<"$kinds" || { echo "never $st"; return 1; }; done
}

@test "bench/audit.sh agrees on a live host whose root port stays insecure" {
	mount_live audit-live-insecure
	local d
	for d in $(t devices -J | jq -r '.devices[] | select(.connected == null) | .bdf'); do
		echo tsm0 >"$ROOT/sys/bus/pci/devices/$d/tsm/connect" || true
	done
	t audit -J | jq -e '[.checks[] | select(.id == "stream.secure" and .status == "fail")] | length > 0'
	audit_agrees
}

teardown() {
	unmount_live
}

@test "bench/watch-latency.sh times each change to its line and leaves nothing mounted" {
	"$SIM" gen-large --functions 200 --host-bridges 2 --streams 8 "$BATS_TEST_TMPDIR/h.json" >/dev/null
	run env TMPDIR="$BATS_TEST_TMPDIR" "$TOP/bench/watch-latency.sh" "$TSMCTL" "$SIM" "$BATS_TEST_TMPDIR/h.json" 2
	[ "$status" -eq 0 ]
	# a figure in each row, and the target line judged
	[[ "$output" =~ \|\ \`drop\ DSM\ ep\`\ →\ stream-insecure\ \|\ [0-9]*\.[0-9]+\ \|\ [0-9]*\.[0-9]+\ \| ]]
	[[ "$output" =~ \|\ \`ide-fail\ DSM\ ep\`\ →\ stream-ide-fail\ \|\ [0-9]*\.[0-9]+\ \| ]]
	[[ "$output" =~ \|\ tsm/disconnect\ →\ device-disconnected\ \|\ [0-9]*\.[0-9]+\ \| ]]
	[[ "$output" =~ target\ within\ one\ interval.*:\ (met|NOT\ MET)\) ]]
	run grep -c bench-watch /proc/self/mountinfo
	[ "$output" = 0 ]
	run find "$BATS_TEST_TMPDIR" -maxdepth 1 -name 'bench-watch.*'
	[ -z "$output" ]
}

@test "bench/watch-latency.sh refuses a topology with too few streams, and unmounts" {
	"$SIM" gen-large --functions 200 --host-bridges 2 --streams 2 "$BATS_TEST_TMPDIR/h.json" >/dev/null
	run env TMPDIR="$BATS_TEST_TMPDIR" "$TOP/bench/watch-latency.sh" "$TSMCTL" "$SIM" "$BATS_TEST_TMPDIR/h.json" 1
	[ "$status" -eq 1 ]
	[[ "$output" == *"needs 3 DSMs with a stream, the topology has 2"* ]]
	run grep -c bench-watch /proc/self/mountinfo
	[ "$output" = 0 ]
}

@test "both baselines find the host bridges of VMD domains, below a root-bus function" {
	"$SIM" gen-large --functions 400 --host-bridges 4 --streams 16 --vmd "$BATS_TEST_TMPDIR/v.json" >/dev/null
	"$SIM" build "$BATS_TEST_TMPDIR/v.json" "$BATS_TEST_TMPDIR/v" >/dev/null
	ROOT=$BATS_TEST_TMPDIR/v
	run t streams -J
	json_is '.streams | length' 16
	same_as_tsmctl
	audit_agrees
	# every stream's checks, not only the functions'
	local q='[.checks[] | select(.object | test("/stream"))] | length'
	[ "$("$TOP/bench/audit.sh" "$ROOT" | jq "$q")" -eq 112 ]
	[ "$(t audit -J | jq "$q")" -eq 112 ]
}
