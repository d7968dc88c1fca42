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

teardown() {
	unmount_live
}
