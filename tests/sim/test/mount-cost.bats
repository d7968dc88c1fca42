#!/usr/bin/env bats
# The live mount as a cost model of config space: DIR/tsm-sim-stats counts the
# reads, bytes and config accesses served per config file and in total, as
# pci_read_config() makes them; a cost per access (--config-cycle-ns, or
# "config-cycle-ns N" on the control file) is slept before a read is answered.

load helper

teardown() {
	teardown_sim
}

NIC=sys/bus/pci/devices/0000:41:00.0
RP=sys/bus/pci/devices/0000:40:01.1

# pread N bytes at OFF of FILE: one read(2) after one lseek, as dd does it
pread() {
	dd if="$M/$1" of=/dev/null bs="$3" count=1 skip="$(($2))" iflag=skip_bytes status=none
}

# pread_ms FILE OFF N: the milliseconds a pread takes
pread_ms() {
	local t0=$EPOCHREALTIME ms
	pread "$@"
	ms=$(echo "($EPOCHREALTIME - $t0) * 1000 / 1" | bc)
	echo "$3 bytes took $ms ms" >&2
	echo "$ms"
}

# stat_of NAME: "reads bytes accesses" of a line of the stats file (total or a BDF)
stat_of() {
	awk -v n="$1" '$1 == n { print $2, $3, $4 }' "$M/tsm-sim-stats"
}

@test "stats: zero at mount; each config read counted with the kernel's accesses" {
	mount_topo sev-tio
	[ "$(head -1 "$M/tsm-sim-stats")" = "config_cycle_ns 0" ]
	[ "$(stat_of total)" = "0 0 0" ]
	[ ! -e "$M/sys/tsm-sim-stats" ]
	pread "$NIC/config" 0x100 4		# one dword
	[ "$(stat_of total)" = "1 4 1" ]
	pread "$NIC/config" 0x2 6		# a word to align, then a dword
	pread "$NIC/config" 0x35 1		# a byte
	pread "$NIC/config" 0x1 3		# a byte, then a word
	pread "$NIC/config" 0x1 8		# byte, word, dword, byte
	[ "$(stat_of total)" = "5 22 10" ]
	[ "$(stat_of 0000:41:00.0)" = "5 22 10" ]
	pread "$RP/config" 0 4096		# the whole space: 1024 dwords
	[ "$(stat_of 0000:40:01.1)" = "1 4096 1024" ]
	[ "$(stat_of total)" = "6 4118 1034" ]
	# other attributes are no config cycles
	cat "$M/$NIC/vendor" "$M/$NIC/tsm/connect" >/dev/null
	[ "$(stat_of total)" = "6 4118 1034" ]
	# one line per file read, sorted, and the total is their sum
	[ "$(awk 'NR > 2 { r += $2; b += $3; a += $4 } END { print r, b, a }' "$M/tsm-sim-stats")" = "6 4118 1034" ]
	[ "$(awk 'NR > 2 { print $1 }' "$M/tsm-sim-stats" | tr '\n' ' ')" = "0000:40:01.1 0000:41:00.0 " ]
}

@test "stats: a read past the end serves nothing and costs nothing; a non-root reader's 64 bytes are what count" {
	mount_topo sev-tio
	pread "$NIC/config" 4096 4
	[ "$(stat_of total)" = "1 0 0" ]
	[ "$(id -u)" -eq 0 ] || skip "needs root to switch to nobody"
	command -v setpriv >/dev/null || skip "setpriv not installed"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		dd if="$M/$NIC/config" of=/dev/null bs=4096 count=1 status=none
	[ "$(stat_of 0000:41:00.0)" = "2 64 16" ]
	# and what it reads past its 64 bytes is a read of nothing
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		dd if="$M/$NIC/config" of=/dev/null bs=4 count=1 skip=256 iflag=skip_bytes status=none
	[ "$(stat_of 0000:41:00.0)" = "3 64 16" ]
}

@test "stats-reset zeroes the counts; the stats file is read-only" {
	mount_topo sev-tio
	pread "$NIC/config" 0 64
	[ "$(stat_of total)" = "1 64 16" ]
	echo stats-reset > "$M/tsm-sim-control"
	[ "$(stat_of total)" = "0 0 0" ]
	[ "$(wc -l < "$M/tsm-sim-stats")" -eq 2 ]
	try_write "total 0 0 0" "$M/tsm-sim-stats"
	expect_errno "$EACCES"
}

@test "config-cycle-ns: each access of a read costs that long, from the mount option or the control file" {
	J=$(mktemp --suffix=.json)
	cp "$TOPO/sev-tio.json" "$J"
	M=$(mktemp -d)
	"$SIM" mount --config-cycle-ns 50000000 "$J" "$M"
	[ "$(head -1 "$M/tsm-sim-stats")" = "config_cycle_ns 50000000" ]
	# four accesses at 50 ms each: at least 200 ms (a lower bound holds on any machine)
	[ "$(pread_ms "$NIC/config" 0 16)" -ge 200 ]
	echo "config-cycle-ns 100000000" > "$M/tsm-sim-control"
	[ "$(head -1 "$M/tsm-sim-stats")" = "config_cycle_ns 100000000" ]
	[ "$(pread_ms "$NIC/config" 0x40 8)" -ge 200 ]
	echo "config-cycle-ns 0" > "$M/tsm-sim-control"
	[ "$(head -1 "$M/tsm-sim-stats")" = "config_cycle_ns 0" ]
	[ "$(stat_of total)" = "2 24 6" ]
}

@test "config-cycle-ns: bad values are refused, on the control file and as a mount option" {
	mount_topo sev-tio
	for v in "" abc -1 1e3 " 5" 1000000001 99999999999999999999; do
		try_write "config-cycle-ns $v" "$M/tsm-sim-control"
		expect_errno "$EINVAL"
	done
	try_write "stats-reset now" "$M/tsm-sim-control"
	expect_errno "$EINVAL"
	[ "$(head -1 "$M/tsm-sim-stats")" = "config_cycle_ns 0" ]
	M2=$(mktemp -d)
	run "$SIM" mount --config-cycle-ns x "$TOPO/sev-tio.json" "$M2"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--config-cycle-ns"* ]]
	run "$SIM" mount --config-cycle-ns "$TOPO/sev-tio.json" "$M2"
	[ "$status" -eq 2 ]
	if mountpoint -q "$M2"; then false; fi
	rmdir "$M2"
}
