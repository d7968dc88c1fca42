#!/usr/bin/env bats
# tests/sim/run-upstream on a small script of our own, written the way
# devsec.sh is (plain paths under /sys and /proc, plain modprobe).

load helper

RUN="$BATS_TEST_DIRNAME/../run-upstream"

setup() {
	unshare -m -n true 2>/dev/null || skip "cannot create mount and network namespaces"
	W=$(mktemp -d)
}

teardown() {
	rm -rf "$W"
}

@test "run-upstream: the script sees the mount as /sys and /proc/iomem, modprobe is tsm-sim's" {
	cat > "$W/t.sh" <<-'EOF'
	set -e
	[ "$(command -v modprobe)" != /usr/sbin/modprobe ]
	cat "$(command -v modprobe)"
	[ -z "$(ls /sys/bus/pci/devices)" ]
	modprobe devsec_bus
	modprobe devsec_link_tsm
	ls /sys/bus/pci/devices
	readlink -f /sys/bus/pci/devices/10000:01:00.0
	cat /sys/class/tsm/tsm0/pci_mode
	echo tsm0 > /sys/bus/pci/devices/10000:01:00.0/tsm/connect
	cat /sys/devices/faux/devsec_bus/pci10000:00/available_secure_streams
	grep -m1 10000:01:00.0 /proc/iomem
	modprobe -r devsec_nope || echo "rc=$?"
	echo "args: $*"
	exit 7
	EOF
	run "$RUN" "$W/t.sh" one two
	[ "$status" -eq 7 ]
	[[ "$output" == *"10000:01:00.0"*"10001:03:00.1"* ]]
	[[ "$output" == *"/sys/devices/faux/devsec_bus/pci10000:00/10000:00:00.0/10000:01:00.0"* ]]
	[[ "$output" == *$'\nlink\n3\n'* ]]
	[[ "$output" == *"    4000000000-40001fffff : 10000:01:00.0"* ]]
	[[ "$output" == *"modprobe: FATAL: Module devsec_nope not found."*"rc=1"* ]]
	[[ "$output" == *"args: one two"* ]]
	# the wrapper only execs tsm-sim modprobe on the mount
	[[ "$output" == *'exec "'*'/tsm-sim" modprobe "'*'/mnt" "$@"'* ]]
	mnt=$(echo "$output" | sed -n 's/^exec ".*" modprobe "\(.*\)" "\$@"$/\1/p')
	[ -n "$mnt" ]
	# nothing of it outside the namespace; the simulator is gone, so is its dir
	[ ! -e /sys/bus/pci/devices/10000:01:00.0 ]
	if pgrep -af -- "mount .* $mnt"; then false; fi
	[ ! -e "$mnt" ]
}

@test "run-upstream: -t picks the topology; a failing script's status comes back" {
	cat > "$W/t.sh" <<-'EOF'
	modprobe devsec_bus && modprobe devsec_pci
	cat /sys/kernel/debug/devices_deferred && false
	EOF
	run "$RUN" -t "$TOPO/devsec-staging-rc1.json" "$W/t.sh"
	[ "$status" -eq 1 ]
	run "$RUN" "$W/t.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"No such file or directory"* ]]
}

@test "run-upstream: usage errors" {
	run "$RUN"
	[ "$status" -eq 2 ]
	[[ "$output" == Usage:* ]]
	run "$RUN" "$W/missing.sh"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no such script"* ]]
	echo true > "$W/t.sh"
	run "$RUN" -t "$W/none.json" "$W/t.sh"
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot read topology"* ]]
	run "$RUN" -x "$W/t.sh"
	[ "$status" -eq 2 ]
}

@test "run-upstream: the script's own directory has device-evidence, reading through tsmctl" {
	[ -x "$BATS_TEST_DIRNAME/../../../tsmctl" ] || skip "tsmctl is not built"
	cat > "$W/t.sh" <<-'EOF2'
	set -e
	modprobe devsec_bus && modprobe devsec_link_tsm
	printf 'chain' > /sys/bus/faux/devices/devsec_link_tsm/certs
	echo tsm0 > /sys/bus/pci/devices/10000:01:00.0/tsm/connect
	d=$(dirname "$0")
	[ "$d" != "$(dirname "$REAL")" ]
	"$d/device-evidence" dump -d 10000:01:00.0 -t cert0 -o "$d/out" 2>&1
	cat "$d/out"; echo
	"$d/device-evidence" dump -d 10000:01:00.0 -t 9 -o - 2>&1
	"$d/device-evidence" dump -s acpi -d x -t cert0 -o - || echo "rc=$?"
	"$d/device-evidence" dump -d 10000:01:00.1 -t report -o - -n /dev/null || echo "rc=$?"
	EOF2
	export REAL=$W/t.sh
	run "$RUN" "$W/t.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'{ "type" : 0, "generation" : 1, "length" : 5, "received" : 5 }'$'\nchain\n'* ]]
	[[ "$output" == *'{ "type" : 9, "generation" : 1, "length" : 0, "received" : 0 }'* ]]
	[[ "$output" == *"read failed: tsmctl reads the pci subsystem's evidence only"*"rc=1"* ]]
	[[ "$output" == *"read failed: "*"--nonce-file /dev/null is empty"*"rc=1"* ]]
}
