#!/usr/bin/env bats
# The shipped units and the udev rule, checked by systemd's own tools: the
# units and timers as make install writes them pass systemd-analyze verify,
# and the udev rule, run by udevadm against the simulator's tree, pulls in
# tsmctl-autoconnect.service for the uevent the simulator sends when a TSM
# becomes usable (and for nothing else). The host's udev is never involved:
# the uevent stays in a private network namespace and udevadm runs in a
# private mount namespace with the simulator's sys/ as /sys.

load lib/helpers
load lib/netns

teardown() {
	stop_bg "${LPID:-}"
	unmount_live
	netns_teardown
}

# A make install whose paths are real (no DESTDIR), so verify finds the binaries.
install_real() {
	D=$(mktemp -d "$BATS_TEST_TMPDIR/inst.XXXXXX")
	make -s -C "$TOP" install PREFIX="$D/usr" SYSCONFDIR="$D/etc" >/dev/null
	UNITS=$D/usr/lib/systemd/system
}

@test "units and timers pass systemd-analyze verify, paths substituted and man pages found" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze not installed"
	install_real
	run env MANPATH="$D/usr/share/man" systemd-analyze verify "$UNITS"/*.service "$UNITS"/*.timer
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]	# warnings (an unknown key) leave the status 0
	[ "$(ls "$UNITS" | wc -l)" -eq 5 ]
	# and verify does catch what is wrong here: a key it does not know, a missing binary
	bad=$BATS_TEST_TMPDIR/bad
	mkdir "$bad"
	sed 's/^Type=/Tpye=/' "$UNITS/tsmctl-audit.service" >"$bad/tsmctl-audit.service"
	run env MANPATH="$D/usr/share/man" systemd-analyze verify "$bad/tsmctl-audit.service"
	[[ "$output" == *"Unknown key 'Tpye'"* ]]
	rm "$D/usr/sbin/tsmctl"
	run env MANPATH="$D/usr/share/man" systemd-analyze verify "$UNITS/tsmctl-audit.service"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$D/usr/sbin/tsmctl is not executable"* ]]
}

# udev_test ACTION DEVPATH: udevadm test with only 90-tsmctl.rules, in a private
# mount namespace where ROOT/sys is /sys and /run is empty; prints the properties.
udev_test() {
	local rules
	rules=$(mktemp -d "$BATS_TEST_TMPDIR/rules.XXXXXX")
	cp "$TOP/contrib/90-tsmctl.rules" "$rules/"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private sh -ec '
		mount --bind "$1/sys" /sys
		mount -t tmpfs tmpfs /run
		for d in /etc/udev/rules.d /usr/lib/udev/rules.d /lib/udev/rules.d; do
			[ ! -d "$d" ] || mount --bind "$2" "$d"
		done
		# the tree is not sysfs: the knob systemd has for testing on such trees
		SYSTEMD_DEVICE_VERIFY_SYSFS=0 udevadm test --action="$3" "/sys$4" 2>&1
	' sh "$ROOT" "$rules" "$1" "$2"
}

@test "udev rule: the simulator's KOBJ_CHANGE of a TSM wants tsmctl-autoconnect.service; add and other devices do not" {
	command -v udevadm >/dev/null || skip "udevadm not installed"
	netns_setup
	mount_late sev-tio 'del(.. | .connected?) | .tsms[0] += { "register_manually": true }'
	ev=$BATS_TEST_TMPDIR/uevents
	# a bound, not a window: it is stopped once the change came
	nsenter --net="$NS" "$TOP/tests/sim/uevent-listen" "$POLL_SECONDS" >"$ev" 2>"$ev.err" &
	LPID=$!
	wait_for_line "$ev.err" listening
	sim_ctl register tsm0
	wait_for_line "$ev" '^change '
	kill "$LPID"
	wait "$LPID" || true
	LPID=
	# what the simulator sent, as the kernel's tsm_register() does: add, then change
	read -r action devpath subsystem _ < <(grep '^change ' "$ev")
	[ "$subsystem" = SUBSYSTEM=tsm ]
	[[ "$devpath" == /devices/*/tsm/tsm0 ]]
	grep -q "^add $devpath SUBSYSTEM=tsm " "$ev"

	run udev_test "$action" "$devpath"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Reading rules file: "*"/rules.d/90-tsmctl.rules"* ]]
	[[ "$output" == *$'\nSUBSYSTEM=tsm\n'* ]]
	[[ "$output" == *$'\nSYSTEMD_WANTS=tsmctl-autoconnect.service\n'* ]]
	[[ "$output" == *$'\nTAGS=:systemd:\n'* ]]
	[[ "$output" != *"Invalid"* ]]

	# the TSM's add (it is not usable yet), and a change of a PCI device: nothing wanted
	run udev_test add "$devpath"
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\nACTION=add\n'* ]]
	[[ "$output" != *SYSTEMD_WANTS* ]]
	run udev_test change "$(cd "$ROOT/sys/bus/pci/devices/0000:81:00.0" && pwd -P | sed "s|^$ROOT/sys||")"
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\nSUBSYSTEM=pci\n'* ]]
	[[ "$output" != *SYSTEMD_WANTS* ]]
}
