#!/usr/bin/env bats
# What comes and goes on the real kernel: wait for a TSM that a module load
# brings (the kernel's own KOBJ_ADD and KOBJ_CHANGE), watch across connect,
# disconnect and the modules' removal, and tsmctl's reads of a TSM that is
# gone (drivers/virt/coco/tsm-core.c tsm_unregister(), drivers/pci/tsm.c
# pci_tsm_unregister()).

load kernel

setup_file() {
	tt_load || return 1
}

teardown() {
	[ -z "${BG:-}" ] || { kill "$BG" 2>/dev/null; wait "$BG" 2>/dev/null; }
	BG=
}

teardown_file() {
	tt_unload
}

# listening PID: the process has a socket open (wait's uevent listener)
listening() {
	ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'socket:'
}

@test "wait wakes for the TSM that loading the provider module registers" {
	# rmmod: modprobe -r would take the unused tsmtest_bus with it
	rmmod tsmtest_link
	[ ! -e /sys/class/tsm/tsm0 ]
	[ -e "$PCI/$EP0" ]
	"$TSMCTL" wait --timeout 120 >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	BG=$!
	wait_until 60 listening "$BG"
	# still waiting: nothing is registered
	kill -0 "$BG"
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	modprobe tsmtest_link
	wait "$BG"
	rc=$? BG=
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; return 1; }
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = tsm0 ]
	# and what it decided from: the class device and the link groups it brought
	[ -e /sys/class/tsm/tsm0 ]
	[ -e "$PCI/$EP0/tsm/connect" ]
}

@test "watch sees connect, disconnect and the modules' removal" {
	log=$BATS_TEST_TMPDIR/watch
	"$TSMCTL" watch -v -i 1 >"$log" 2>"$log.err" &
	BG=$!
	# -v: the baseline's summary on stderr once the first scan is done
	wait_until 60 test -s "$log.err"
	"$TSMCTL" connect "$EP0" tsm0 >/dev/null
	wait_until 60 grep -q " device-connected $EP0" "$log"
	wait_until 60 grep -q " stream-added $HB0/stream0.0.0" "$log"
	"$TSMCTL" disconnect "$EP0" >/dev/null
	wait_until 60 grep -q " device-disconnected $EP0" "$log"
	wait_until 60 grep -q " stream-removed $HB0/stream0.0.0" "$log"
	"$TSMCTL" connect "$EP2" tsm0 >/dev/null
	wait_until 60 grep -q " device-connected $EP2" "$log"
	# the TSM goes with its module; its connection and stream with it
	rmmod tsmtest_link
	wait_until 60 grep -q " tsm-removed tsm0" "$log"
	wait_until 60 grep -q " stream-removed $HB1/stream0.0.0" "$log"
	rmmod tsmtest_bus
	wait_until 60 grep -q " host-bridge-removed $HB0" "$log"
	wait_until 60 grep -q " host-bridge-removed $HB1" "$log"
	kill -0 "$BG"	# a watch outlives what it watches
	# (its open files would keep the old host bridges, and their domains, alive)
	kill "$BG" && wait "$BG"
	BG=
	tt_load
}

@test "reading a TSM that is gone: the kernel's ENODEV, then an empty class" {
	"$TSMCTL" connect "$EP0" tsm0 >/dev/null
	# a file of tsm0 opened before the removal reads ENODEV after it (kernfs)
	coproc READER { python3 -c '
import errno, os, sys
fd = os.open("/sys/class/tsm/tsm0/uevent", os.O_RDONLY)
print("open", flush=True)
sys.stdin.readline()
try:
    os.pread(fd, 4096, 0)
    print("read")
except OSError as e:
    print(errno.errorcode[e.errno])'; }
	read -r line <&"${READER[0]}"
	[ "$line" = open ]
	rmmod tsmtest_link
	echo >&"${READER[1]}"
	read -r line <&"${READER[0]}"
	[ "$line" = ENODEV ]
	# the kernel tore the connection down with the TSM: no group, no stream, pool back
	[ ! -e "$PCI/$EP0/tsm" ]
	[ ! -e "$(hb_of $EP0)/stream0.0.0" ]
	[ "$(cat "$(hb_of $EP0)/available_secure_streams")" = 4 ]
	run --separate-stderr "$TSMCTL" list -J
	json_is '.tsms' '[]'
	run --separate-stderr "$TSMCTL" devices -J
	json_is '[.devices[] | select(.tsm_dir)] | length' '0'
	run "$TSMCTL" list tsm0
	[ "$status" -ne 0 ]
	[[ "$output" == *tsm0* ]]
	modprobe tsmtest_link
}
