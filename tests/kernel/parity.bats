#!/usr/bin/env bats
# The simulator held to the kernel: tsmctl's -J output on the real kernel
# with the tsmtest rig, and on tsm-sim's static tree of the topology that
# describes the rig (tests/topologies/kernel-tsmtest.json), compared field
# by field. Every difference is either gone (the simulator fixed) or one of
# EXPLAINED below, each with the kernel source that makes it, as
# doc/sim-sources.md lists them ("The kernel's own differences"). An
# explanation that no longer matches anything fails too.

load kernel

# VIEW<TAB>PATH (a Python regex over the difference's path)<TAB>why
EXPLAINED=$(cat <<'EOF'
audit	^/device\.evidence [0-9a-f:.]+/message$	both skip, for their own reasons: tsm-sim's side is a static tree, which tsmctl judges as a capture (from the evidence saved in it, here none); the kernel has no device-evidence generic netlink family (CONFIG_DEVICE_EVIDENCE is the staging tree's, ABI.md §1.6)
EOF
)

# REGEX (over "< kernel-only" and "> sim-only" lines)<TAB>why
TREE_EXPLAINED=$(cat <<'EOF2'
^< .*/power(/[a-z_]+)? [df]$	every device's power/ (drivers/base/power/sysfs.c dpm_sysfs_add()): tsm-sim gives PCI functions theirs without runtime PM's autosuspend_delay_ms, host bridges and buses none; tsmctl reads none of it
^< .*/aer d$	a PCIe function's AER statistics (drivers/pci/pcie/aer.c, the "aer" attribute group): not simulated, not read
^< .*/link d$	ASPM control (drivers/pci/pcie/aspm.c, the "link" attribute group): not simulated, not read
^< devices/faux/tsmtest_link/tsm_(un)?bind f$	the rig's own bind trigger (tests/kernel/module/tsmtest_link.c): tsm-sim gives such triggers to devsec-sample TSMs only
^< .*/reset_subordinate f$	a bridge's secondary bus reset (drivers/pci/pci-sysfs.c reset_subordinate_store(), since v6.14): not simulated, not read
EOF2
)

setup_file() {
	tt_load || return 1
	"$TSMCTL" connect "$EP0" "$EP2" tsm0 >/dev/null
}

teardown_file() {
	tt_unload
}

# sim_tree: the topology, the kernel's bridge windows written in (they are
# the platform's address map, not the provider's), built by tsm-sim
sim_tree() {
	local topo=$BATS_FILE_TMPDIR/topo.json f=$TOP/tests/topologies/kernel-tsmtest.json rp w
	cp "$f" "$topo"
	for rp in $RP0 $RP1 10001:00:00.0 10001:00:01.0; do
		for w in 14:mem_window 15:pref_window; do
			read -r s e _ < <(sed -n "$((${w%%:*} + 1))p" "$PCI/$rp/resource")
			jq --arg bdf "$rp" --arg k "${w#*:}" --arg b "$s" --arg l "$e" \
				'(.. | objects | select(.bdf? == $bdf))[$k] = { base: $b, limit: $l }' \
				"$topo" >"$topo.new" && mv "$topo.new" "$topo" || return 1
		done
	done
	"$SIM" build "$topo" "$BATS_FILE_TMPDIR/sim" >/dev/null || return 1
	echo "$BATS_FILE_TMPDIR/sim"
}

@test "tsmctl -J on the kernel equals tsmctl -J on tsm-sim's rig, but for the explained differences" {
	sim=$(sim_tree)
	out=$BATS_TEST_TMPDIR
	for v in list host-bridges "devices --all" streams audit; do
		# shellcheck disable=SC2086 # a view's words split on purpose
		"$TSMCTL" $v -J >"$out/kernel-${v%% *}.json" || [ $? -eq 1 ]
		# shellcheck disable=SC2086
		"$TSMCTL" --sysroot "$sim" $v -J >"$out/sim-${v%% *}.json" || [ $? -eq 1 ]
	done
	printf '%s\n' "$EXPLAINED" >"$out/explained"
	run python3 "$BATS_TEST_DIRNAME/parity-diff" "$out" "$out/explained"
	echo "$output"
	expect_status 0
}

# files ROOT DIR: every file, directory and link below ROOT/sys/DIR, the
# rig's objects only; a link as NAME -> its target's path below ROOT/sys
files() {
	(cd "$1/sys/$2" && find . -mindepth 1 \( -name 'pci0000:00' -prune \) -o -printf '%p %y\n' | sort |
		while read -r p y; do
			if [ "$y" = l ]; then
				echo "$p -> $(realpath -m --relative-to="$1/sys" "$(dirname "$p")/$(readlink "$p")")"
			else
				echo "$p $y"
			fi
		done)
}

@test "the sysfs objects tsmctl reads exist alike, but for the explained differences" {
	sim=$(sim_tree)
	for d in devices/faux/tsmtest_bus devices/faux/tsmtest_link class/tsm; do
		diff <(files / "$d") <(files "$sim" "$d") | sed -n "s|^\([<>]\) \./|\1 $d/|p"
	done >"$BATS_TEST_TMPDIR/diff"
	# what only one side has, less what doc/sim-sources.md explains
	grep -vE -f <(printf '%s\n' "$TREE_EXPLAINED" | cut -f1 | grep .) "$BATS_TEST_TMPDIR/diff" \
		>"$BATS_TEST_TMPDIR/left" || true
	cat "$BATS_TEST_TMPDIR/left"
	[ ! -s "$BATS_TEST_TMPDIR/left" ]
	# and each explanation still explains something
	while IFS=$'\t' read -r rx why; do
		[ -n "$rx" ] || continue
		grep -qE "$rx" "$BATS_TEST_TMPDIR/diff" || { echo "STALE: $rx ($why)"; return 1; }
	done <<<"$TREE_EXPLAINED"
}
