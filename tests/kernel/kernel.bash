# What tests/kernel's bats files share. They run inside check-kernel's guest
# (tests/kernel/guest-run), as root, against the real /sys of Debian's
# kernel with the tsmtest modules (tests/kernel/module): never on a host.
bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
: "${TSMCTL:=$TOP/tsmctl}"
SIM=$TOP/tests/sim/tsm-sim
source "$TOP/tests/lib/cfg-space.bash"

PCI=/sys/bus/pci/devices
LINK=/sys/devices/faux/tsmtest_link
BUS=/sys/devices/faux/tsmtest_bus
# the rig's names (tsmtest_bus's defaults: two host bridges in the first
# emulated domains, two root ports each, a two-function endpoint below each)
HB0=pci10000:00 HB1=pci10001:00
EP0=10000:01:00.0 EP1=10000:02:00.0 EP2=10001:01:00.0 EP3=10001:02:00.0
RP0=10000:00:00.0 RP1=10000:00:01.0 RP2=10001:00:00.0

[ -e /sys/module/tsmtest_bus ] || [ -n "${TSMTEST_RUN:-}" ] ||
	{ echo "tests/kernel runs in make check-kernel's guest only" >&2; exit 1; }

# tt_load [BUS-PARAMS...] [-- LINK-PARAMS...]: both modules afresh, the TSM ready
tt_load() {
	local busp=() linkp=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do busp+=("$1"); shift; done
	[ "${1:-}" != -- ] || shift
	linkp=("$@")
	tt_unload
	modprobe tsmtest_bus "${busp[@]}" && modprobe tsmtest_link "${linkp[@]}"
}

tt_unload() {
	modprobe -r tsmtest_link tsmtest_bus 2>/dev/null
	! [ -e /sys/module/tsmtest_bus ]
}

# store FILE TEXT: one write(2); prints OK or the errno's name (EBUSY, ...)
store() {
	python3 -c '
import errno, os, sys
try:
    fd = os.open(sys.argv[1], os.O_WRONLY)
    os.write(fd, sys.argv[2].encode())
    os.close(fd)
    print("OK")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))' "$1" "$2"
}

# hb_of BDF: the host bridge directory above a function
hb_of() {
	local d
	d=$(readlink -f "$PCI/$1")
	while [ "$d" != / ] && [[ $(basename "$d") != pci* ]]; do d=$(dirname "$d"); done
	echo "$d"
}

# sel_ctl BDF K / sel_sts BDF K / sel_reg BDF K OFF: Selective block K's registers
sel_reg() {
	local cfg=$PCI/$1/config b
	b=$(sel_block "$cfg" "$2") || return 1
	cfg_word "$cfg" $((b + $3))
}
sel_ctl() { sel_reg "$1" "$2" 4; }
sel_sts() { sel_reg "$1" "$2" 8; }

json_is() {
	local got
	got=$(printf '%s' "$output" | jq -c "$1") || { echo "jq failed on: $output"; return 1; }
	[ "$got" = "$2" ] || { echo "jq '$1': expected $2, got $got"; return 1; }
}

expect_status() {
	[ "$status" -eq "$1" ] && return 0
	printf 'exit %s, expected %s\n--- output\n%s\n' "$status" "$1" "$output"
	return 1
}

# wait_until SECONDS CMD...: poll CMD until it succeeds, at most SECONDS
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}
