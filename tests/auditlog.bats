#!/usr/bin/env bats
# The audit trail: every store to tsm/connect, disconnect, lock, accept or
# unlock is one system-log line (who, device, TSM, operation, result). A
# private syslog socket (TSMCTL_SYSLOG_SOCKET) receives the RFC 3164 lines
# that syslog(3) would send to /dev/log; the simulator shows what was done.

load lib/helpers

setup() {
	SOCK=$BATS_TEST_TMPDIR/syslog.sock
	LOG=$BATS_TEST_TMPDIR/syslog.log
	SEEN=0
	: > "$LOG"
	# one datagram a line, as received: a raw newline inside one would show as two lines
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "ab", buffering=0) as log:
    while True:
        log.write(s.recv(65536) + b"\n")
' "$SOCK" "$LOG" >/dev/null 2>&1 3>&- &
	LISTENER=$!
	wait_until [ -S "$SOCK" ]
	export TSMCTL_SYSLOG_SOCKET=$SOCK
}

teardown() {
	unmount_live
	[ -z "${LISTENER:-}" ] || kill "$LISTENER" 2>/dev/null || true
}

# Mount topology NAME changed by the jq FILTER; sets ROOT.
mount_topo() {
	jq "${2:-.}" "$TOPO/$1.json" > "$BATS_TEST_TMPDIR/topo.json" || return 1
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/live.XXXXXX")
	"$SIM" mount "$BATS_TEST_TMPDIR/topo.json" "$ROOT"
}

# The lines logged since the last call into $NEW, as "<PRI> MESSAGE": a marker
# datagram sent after them comes back last, so every earlier one is written.
logged() {
	local mark="mark-$RANDOM-$SEEN" n
	NEW=$BATS_TEST_TMPDIR/new.log
	python3 -c '
import socket, sys
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(sys.argv[2].encode(), sys.argv[1])
' "$SOCK" "$mark"
	wait_for_line "$LOG" "^$mark\$" || return 1
	n=$(wc -l < "$LOG")
	tail -n "+$((SEEN + 1))" "$LOG" | head -n "$((n - 1 - SEEN))" |
		sed -E 's/^<([0-9]+)>[A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} tsmctl\[[0-9]+\]: /<\1> /' > "$NEW"
	SEEN=$n
}

# Assert that the lines logged since the last check are exactly the arguments.
expect_log() {
	local got want
	logged || return 1
	got=$(cat "$NEW")
	want=$(printf '%s\n' "$@")
	[ "$#" -gt 0 ] || want=
	if [ "$got" != "$want" ]; then
		echo "logged:"
		printf '%s\n' "$got"
		echo "expected:"
		printf '%s\n' "$want"
		return 1
	fi
}

lockf() { cat "$(dev "$1")/tsm/lock"; }
acceptf() { cat "$(dev "$1")/tsm/accept"; }
connf() { cat "$(dev "$1")/tsm/connect"; }

# authpriv (10 << 3) with notice (5) or warning (4)
OK=85
FAIL=84

@test "connect and disconnect: one RFC 3164 line each from tsmctl[PID], authpriv, with who, what and the sysroot" {
	mount_topo sev-tio
	sysroot=$(realpath "$ROOT")
	run --separate-stderr t connect 81:00.0 tsm0
	expect_status 0
	[ "$(connf 0000:81:00.0)" = tsm0 ]
	run cat "$LOG"
	# the raw datagram: PRI, an RFC 3164 timestamp, the ident and the pid
	[[ "${lines[0]}" =~ ^\<85\>[A-Z][a-z]{2}\ [\ 0-9][0-9]\ [0-9]{2}:[0-9]{2}:[0-9]{2}\ tsmctl\[[0-9]+\]:\ op=connect\  ]]
	expect_log "<$OK> op=connect bdf=0000:81:00.0 tsm=tsm0 result=ok uid=0 sysroot=$sysroot"
	SUDO_USER=alice run --separate-stderr t disconnect 81:00.0
	expect_status 0
	[ "$(connf 0000:81:00.0)" = "" ]
	expect_log "<$OK> op=disconnect bdf=0000:81:00.0 tsm=tsm0 result=ok uid=0 sudo_user=alice sysroot=$sysroot"
}

@test "lock, accept, unlock in a guest: one line each, and the device is in that state" {
	mount_topo guest-sev
	sysroot=$(realpath "$ROOT")
	SUDO_USER=bob run --separate-stderr t lock 00:05.0 tsm0
	expect_status 0
	[ "$(lockf 0000:00:05.0)" = tsm0 ]
	expect_log "<$OK> op=lock bdf=0000:00:05.0 tsm=tsm0 result=ok uid=0 sudo_user=bob sysroot=$sysroot"
	run --separate-stderr t accept 00:05.0
	expect_status 0
	[ "$(acceptf 0000:00:05.0)" = 1 ]
	expect_log "<$OK> op=accept bdf=0000:00:05.0 tsm=tsm0 result=ok uid=0 sysroot=$sysroot"
	run --separate-stderr t unlock 00:05.0
	expect_status 0
	[ "$(lockf 0000:00:05.0)" = "" ]
	[ "$(acceptf 0000:00:05.0)" = 0 ]
	expect_log "<$OK> op=unlock bdf=0000:00:05.0 tsm=tsm0 result=ok uid=0 sysroot=$sysroot"
}

@test "a store the kernel refused is a warning with the errno name, and nothing changed" {
	mount_topo sev-tio '.host_bridges[2].devices[0].children[0].faults = {"connect_errno": "EIO"}'
	sysroot=$(realpath "$ROOT")
	run --separate-stderr t connect 81:00.0 tsm0
	expect_status 1
	[ "$(connf 0000:81:00.0)" = "" ]
	expect_log "<$FAIL> op=connect bdf=0000:81:00.0 tsm=tsm0 result=failed errno=EIO uid=0 sysroot=$sysroot"
	unmount_live
	mount_topo guest-sev '.host_bridges[0].devices[1].faults = {"lock_errno": "ENXIO"}
		| .host_bridges[0].devices[2].faults = {"accept_errno": "ETIMEDOUT"}'
	sysroot=$(realpath "$ROOT")
	run --separate-stderr t lock 00:05.0 tsm0
	expect_status 1
	[ "$(lockf 0000:00:05.0)" = "" ]
	expect_log "<$FAIL> op=lock bdf=0000:00:05.0 tsm=tsm0 result=failed errno=ENXIO uid=0 sysroot=$sysroot"
	echo 0000:00:06.0 > "$ROOT/sys/bus/pci/drivers/mlx5_core/unbind"
	run --separate-stderr t lock 00:06.0 tsm0
	expect_status 0
	run --separate-stderr t accept 00:06.0
	expect_status 1
	[ "$(acceptf 0000:00:06.0)" = 0 ]
	expect_log "<$OK> op=lock bdf=0000:00:06.0 tsm=tsm0 result=ok uid=0 sysroot=$sysroot" \
		"<$FAIL> op=accept bdf=0000:00:06.0 tsm=tsm0 result=failed errno=ETIMEDOUT uid=0 sysroot=$sysroot"
}

@test "not root: the refused store is logged with the invoking uid and EACCES" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	mount_topo sev-tio
	sysroot=$(realpath "$ROOT")
	open_path_to_root
	chmod o+w "$SOCK"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TSMCTL" --sysroot "$ROOT" connect 81:00.0 tsm0
	expect_status 1
	[ "$(connf 0000:81:00.0)" = "" ]
	expect_log "<$FAIL> op=connect bdf=0000:81:00.0 tsm=tsm0 result=failed errno=EACCES uid=65534 sysroot=$sysroot"
}

@test "only real stores are logged: not --dry-run, --no-syslog, a no-op or a check that fails first" {
	mount_topo guest-sev
	run --separate-stderr t lock --dry-run 00:05.0 tsm0
	expect_status 0
	run --separate-stderr t lock --no-syslog 00:05.0 tsm0
	expect_status 0
	[ "$(lockf 0000:00:05.0)" = tsm0 ]
	# locked already, then accept --dry-run, then unlock of a device nothing holds
	run --separate-stderr t lock 00:05.0 tsm0
	expect_status 0
	[[ "$output" == *"already locked to tsm0"* ]]
	run --separate-stderr t accept --dry-run --all
	expect_status 0
	run --separate-stderr t unlock 00:01.0
	run --separate-stderr t unlock 00:06.0
	expect_status 0
	# refused by tsmctl's checks in the kernel's order, before any store: EBUSY with a driver
	run --separate-stderr t lock 00:06.0 tsm0
	expect_status 1
	expect_log
	run --separate-stderr t unlock --no-syslog 00:05.0
	expect_status 0
	[ "$(lockf 0000:00:05.0)" = "" ]
	expect_log
}

@test "a batch is one line per device, failures among them" {
	mount_topo sev-tio 'del(.. | .connected?)
		| .host_bridges[1].devices[0].children[0].faults = {"connect_errno": "ETIMEDOUT"}'
	sysroot=$(realpath "$ROOT")
	run --separate-stderr t connect --all --keep-going tsm0
	expect_status 1
	[ "$(connf 0000:41:00.0)" = "" ]
	[ "$(connf 0000:81:00.0)" = tsm0 ]
	expect_log "<$FAIL> op=connect bdf=0000:41:00.0 tsm=tsm0 result=failed errno=ETIMEDOUT uid=0 sysroot=$sysroot" \
		"<$OK> op=connect bdf=0000:81:00.0 tsm=tsm0 result=ok uid=0 sysroot=$sysroot"
	run --separate-stderr t disconnect --all
	expect_status 0
	[ "$(connf 0000:81:00.0)" = "" ]
	expect_log "<$OK> op=disconnect bdf=0000:81:00.0 tsm=tsm0 result=ok uid=0 sysroot=$sysroot"
}

@test "tree and environment text is escaped: no forged line, no forged field" {
	# a captured tree whose tsm/lock names its holder with ESC, a newline and a space
	edit_tree guest-sev
	printf 'tsm0\033[2J\nop=unlock result=ok x\n' > "$(dev 0000:00:05.0)/tsm/lock"
	sysroot=$(realpath "$ROOT")
	# a capture takes no store unless forced (a plain file, not a kernel)
	SUDO_USER=$'eve\nop=connect uid=0' run --separate-stderr t unlock --force 00:05.0
	expect_log "<$OK> op=unlock bdf=0000:00:05.0 tsm=tsm0\\x1b[2J\\x0aop=unlock\\x20result=ok\\x20x result=ok uid=0 sudo_user=eve\\x0aop=connect\\x20uid=0 sysroot=$sysroot"
	# the datagram itself held no control byte
	if grep -q $'\033' "$LOG"; then false; fi
}

@test "a socket that cannot be reached is said on stderr; the store still happens" {
	mount_topo sev-tio
	TSMCTL_SYSLOG_SOCKET=$BATS_TEST_TMPDIR/nowhere.sock run --separate-stderr t connect 81:00.0 tsm0
	expect_status 0
	[ "$(connf 0000:81:00.0)" = tsm0 ]
	[ "$stderr" = "tsmctl: audit log: cannot send to TSMCTL_SYSLOG_SOCKET $BATS_TEST_TMPDIR/nowhere.sock: No such file or directory" ]
	expect_log
}

@test "without TSMCTL_SYSLOG_SOCKET the same line goes through syslog(3) to /dev/log" {
	command -v unshare >/dev/null || skip "unshare not installed"
	unshare -m true 2>/dev/null || skip "no private mount namespace here"
	mount_topo sev-tio
	sysroot=$(realpath "$ROOT")
	# a private mount namespace with its own /dev: /dev/log is this test's socket
	cat > "$BATS_TEST_TMPDIR/devlog.sh" <<'SH'
set -e
old=$(mktemp -d)
mount --bind /dev "$old"
mount -t tmpfs -o mode=755 none /dev
touch /dev/null
mount --bind "$old/null" /dev/null
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
s.settimeout(60)	# a bound for a line that never comes, not a timing
with open(sys.argv[1], "wb") as log:
    log.write(s.recv(65536) + b"\n")
' "$1" &
shift
# until the socket is there (up to 60 s: a bound, not a timing)
for _ in $(seq 1200); do [ -S /dev/log ] && break; sleep 0.05; done
[ -S /dev/log ]
"$@"
wait
SH
	env -u TSMCTL_SYSLOG_SOCKET SUDO_USER=carol unshare -m sh "$BATS_TEST_TMPDIR/devlog.sh" \
		"$BATS_TEST_TMPDIR/devlog.log" "$TSMCTL" --sysroot "$ROOT" connect 81:00.0 tsm0
	[ "$(connf 0000:81:00.0)" = tsm0 ]
	run cat "$BATS_TEST_TMPDIR/devlog.log"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" =~ ^\<85\>[A-Z][a-z]{2}\ [\ 0-9][0-9]\ [0-9]{2}:[0-9]{2}:[0-9]{2}\ tsmctl\[[0-9]+\]:\ (.*)$ ]]
	[ "${BASH_REMATCH[1]}" = "op=connect bdf=0000:81:00.0 tsm=tsm0 result=ok uid=0 sudo_user=carol sysroot=$sysroot" ]
	expect_log
}

@test "extend and verify-mitigation: one line per store naming the register or the mitigation; none for a no-op" {
	mount_topo guest-tdx
	sysroot=$(realpath "$ROOT")
	run --separate-stderr t extend rtmr2 --digest "$(printf '%096d' 1)"
	expect_status 0
	expect_log "<$OK> op=extend register=tdx_guest/rtmr2:sha384 result=ok uid=0 sysroot=$sysroot"
	# refused before the store (the kernel's EINVAL for a short write): nothing logged
	run --separate-stderr t extend rtmr2 --digest 00
	expect_status 2
	expect_log
	unmount_live
	mount_topo sev-tio-posture
	sysroot=$(realpath "$ROOT")
	run --separate-stderr t verify-mitigation 1
	expect_status 0
	[ "$(cat "$ROOT/sys/firmware/sev/vulnerabilities/verified_mitigations")" = 0x3 ]
	expect_log "<$OK> op=verify-mitigation mitigation=0x2 result=ok uid=0 sysroot=$sysroot"
	# verified already: no store, no line; the firmware's failure: a warning with its errno
	run --separate-stderr t verify-mitigation 0 1
	expect_status 0
	run --separate-stderr t verify-mitigation 2
	expect_status 1
	expect_log "<$FAIL> op=verify-mitigation mitigation=0x4 result=failed errno=EINVAL uid=0 sysroot=$sysroot"
}
