# The live simulator's held steps (tests/sim/README.md, "Held steps"): a
# connect's SPDM phase (faults.spdm_manually), a tsm/ store with the lock
# taken (faults.store_manually) or a new VF's pci_tsm_init()
# (vfs.tsm_init_manually) waits until the control file names it, and
# DIR/tsm-sim-holds lists what is held and whose tsm/ show() or store waits
# for pci_tsm_rwsem behind it. A test waits for the state it acts on, then
# releases the step: no timer to race. DIR is the mount. Sourced by
# tests/lib/helpers.bash and the simulator's tests/sim/test/helper.bash, after
# tests/lib/poll.bash.

# holding DIR VERB BDF: the step VERB (spdm-done, store-done, pci-tsm-init) of BDF is held now.
holding() {
	grep -qx "held $2 $3" "$1/tsm-sim-holds"
}

# wait_holding DIR VERB BDF: until that step is held.
wait_holding() {
	wait_until holding "$@"
}

# rwsem_waiting DIR PID: process PID's read or write of a tsm/ attribute waits for pci_tsm_rwsem.
rwsem_waiting() {
	grep -qx "waiting $2" "$1/tsm-sim-holds"
}

# wait_blocked DIR PID: until process PID (still running) is blocked in a tsm/
# show() or store behind the held step: that access has not been served yet.
wait_blocked() {
	wait_until rwsem_waiting "$1" "$2" || return 1
	kill -0 "$2" || { echo "process $2 is gone"; return 1; }
}

# not_blocked CMD...: CMD, which must not wait behind a held step: its status,
# run in the background and failed if it has not ended within POLL_SECONDS (a
# read the simulator holds cannot be interrupted; release_holds ends it).
not_blocked() {
	local pid
	"$@" &
	pid=$!
	wait_gone "$pid" || return 1
	wait "$pid"
}

# release_step DIR VERB BDF: the control file lets the held step go on.
release_step() {
	echo "$2 $3" > "$1/tsm-sim-control"
}

# release_holds DIR: for a teardown, before it reaps a background writer:
# every step held now goes on and none waits from now on (a failed test would
# leave its writer, and with it the mount, held: a held write cannot be killed).
release_holds() {
	if mountpoint -q "$1" 2>/dev/null; then
		echo holds-off > "$1/tsm-sim-control" 2>/dev/null || true
	fi
}
