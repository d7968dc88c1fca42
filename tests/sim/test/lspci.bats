#!/usr/bin/env bats
# lspci -vvv on the static tree of every shipped topology: no error, every
# function listed, and each one's capabilities and memory BARs decoded as the
# topology declares them.

load helper

# lspci -k (implied by -vvv) asks libkmod about the running kernel's modules;
# without /lib/modules/RELEASE it says so once. That is the host, not the tree.
lspci_stderr_ok() {
	[ ! -s "$1" ] && return 0
	[ ! -d "/lib/modules/$(uname -r)" ] &&
		[ "$(cat "$1")" = "lspci: Unable to load libkmod resources: error -2" ]
}

express_type() {
	case $1 in
	endpoint) echo "Endpoint" ;;
	legacy_endpoint) echo "Legacy Endpoint" ;;
	root_port) echo "Root Port (Slot+)" ;;
	upstream_port) echo "Upstream Port" ;;
	downstream_port) echo "Downstream Port (Slot+)" ;;
	pcie_pci_bridge) echo "PCI-Express to PCI/PCI-X Bridge" ;;
	rciep) echo "Root Complex Integrated Endpoint" ;;
	rcec) echo "Root Complex Event Collector" ;;
	esac
}

# caps OUT BDF: the capability names lspci decoded for BDF, one per line
caps() {
	awk -v RS= -v b="$2 " 'index($0, b) == 1' "$1" |
		sed -n 's/^\tCapabilities: \[[0-9a-f]*\( v[0-9]*\)\?\] //p'
}

check_topology() {
	local topo=$1 bdf type doe vfs ide count msix dsn want got n
	T=$(mktemp -d)
	"$SIM" build "$topo" "$T"
	lspci -D -vvv -A linux-sysfs -O "sysfs.path=$T/sys/bus/pci" > "$T/out" 2> "$T/err" ||
		{ echo "$topo: lspci failed: $(cat "$T/err")"; return 1; }
	lspci_stderr_ok "$T/err" || { echo "$topo: lspci said: $(cat "$T/err")"; return 1; }
	n=$(ls "$T/sys/bus/pci/devices" | wc -l)
	[ "$(grep -c '^[0-9a-f]\{4,\}:' "$T/out")" -eq "$n" ] ||
		{ echo "$topo: lspci lists $(grep -c '^[0-9a-f]' "$T/out") of $n functions"; return 1; }
	while IFS=$'\t' read -r bdf type doe vfs ide count msix dsn; do
		[ -e "$T/sys/bus/pci/devices/$bdf" ] || continue	# its bus module is not loaded
		want=""
		if [ "$type" != pci ]; then
			want="Express (v2) $(express_type "$type")"
		fi
		[ "$msix" -gt 0 ] && want+=$'\n'"MSI-X: Enable- Count=$msix Masked-"
		[ "$doe" = true ] && want+=$'\n'"Data Object Exchange"
		[ "$vfs" = true ] && want+=$'\n'"Single Root I/O Virtualization (SR-IOV)"
		[ "$ide" = true ] && want+=$'\n'"Extended Capability ID 0x30"
		# the Device Serial Number, the last capability, as lspci prints it
		[ "$dsn" != - ] && want+=$'\n'"Device Serial Number $dsn"
		got=$(caps "$T/out" "$bdf" | sed 's/, MSI 00$//')
		[ "$got" = "${want#$'\n'}" ] ||
			{ echo "$topo $bdf: want [$want] got [$got]"; return 1; }
		# the VFs the topology declares, each an Express Endpoint
		[ "$(ls -d "$T/sys/bus/pci/devices/$bdf"/virtfn* 2>/dev/null | wc -l)" -eq "$count" ] ||
			{ echo "$topo $bdf: not $count VFs"; return 1; }
		for vf in "$T/sys/bus/pci/devices/$bdf"/virtfn*; do
			[ -e "$vf" ] || continue
			[ "$(caps "$T/out" "$(basename "$(readlink "$vf")")")" = "Express (v2) Endpoint, MSI 00" ] ||
				{ echo "$topo: VF $vf not decoded"; return 1; }
		done
	done < <(jq -r '.. | objects | select(has("bdf") and has("type")) |
		[.bdf, .type, ((.doe // []) | length > 0), (.vfs != null), (.ide != null), (.vfs.count // (if .vfs then 1 else 0 end)), (.msix.vectors // 0),
		 (if .dsn then ((.dsn | if type == "object" then .value else . end) | ltrimstr("0x") | ascii_downcase |
			("0000000000000000" + .)[-16:] | [scan("..")] | join("-")) else "-" end)] | @tsv' "$topo")
	# every memory BAR as lspci decodes it from the resource file and config
	while IFS=$'\t' read -r bdf idx base kind; do
		[ -e "$T/sys/bus/pci/devices/$bdf" ] || continue
		# a BAR the topology gives no base is one the kernel left unassigned
		[ "$base" = null ] && base='<[a-z]*>'
		awk -v RS= -v b="$bdf " 'index($0, b) == 1' "$T/out" |
			grep -q "Region $idx: Memory at $base ($kind" ||
			{ echo "$topo $bdf: BAR $idx at $base ($kind) not decoded"; return 1; }
	done < <(jq -r '.. | objects | select(has("bdf") and has("bars")) | .bdf as $b | .bars[] |
		[$b, (.index // 0), (if .base == null then "null" else (.base | if type == "string" then ltrimstr("0x") else tostring end) | ascii_downcase | ltrimstr("0") end),
		 (if .["64bit"] then "64-bit" else "32-bit" end) + ", " + (if .prefetchable then "prefetchable" else "non-prefetchable" end)] | @tsv' "$topo")
	rm -rf "$T"
	T=
}

@test "lspci -vvv decodes every function of every topology" {
	command -v lspci >/dev/null || skip "lspci (pciutils) is not installed"
	for topo in "$TOPO"/*.json; do
		check_topology "$topo"
	done
}

@test "lspci -vvv on a live mount after modprobe: the devsec bus's functions" {
	command -v lspci >/dev/null || skip "lspci (pciutils) is not installed"
	mount_topo devsec-staging
	"$SIM" modprobe "$M" devsec_bus
	lspci -D -vvv -A linux-sysfs -O "sysfs.path=$M/sys/bus/pci" > "$BATS_TEST_TMPDIR/out" 2> "$BATS_TEST_TMPDIR/err"
	lspci_stderr_ok "$BATS_TEST_TMPDIR/err"
	[ "$(grep -c '^1000[01]:' "$BATS_TEST_TMPDIR/out")" -eq 6 ]
	[ "$(caps "$BATS_TEST_TMPDIR/out" 10000:01:00.0 | tr '\n' '|')" = "Express (v2) Endpoint, MSI 00|Data Object Exchange|Extended Capability ID 0x30|" ]
	grep -q "Region 0: Memory at 4000200000 (64-bit, prefetchable) \[disabled\] \[size=2M\]" "$BATS_TEST_TMPDIR/out"
	# binary attributes keep their size in the mount (text ones say 4096)
	[ "$(stat -c %s "$M/sys/bus/pci/devices/10000:01:00.1/resource0")" = 2097152 ]
	[ "$(stat -c %s "$M/sys/bus/pci/devices/10000:01:00.1/resource")" = 4096 ]
	# no read() on a memory BAR's file (mmap only): EIO, as sysfs says
	run cat "$M/sys/bus/pci/devices/10000:01:00.1/resource0"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$EIO"* ]]
	teardown_sim
}

@test "the standard attribute set of a v6.19 PCI function" {
	build_tree sev-tio
	D=$T/sys/bus/pci/devices/0000:41:00.0
	for f in irq resource local_cpus local_cpulist numa_node enable msi_bus modalias \
		power_state dma_mask_bits consistent_dma_mask_bits broken_parity_status \
		ari_enabled d3cold_allowed remove rescan reset reset_method driver_override \
		current_link_speed current_link_width max_link_speed max_link_width uevent \
		power/control power/runtime_status resource0 resource0_wc; do
		[ -e "$D/$f" ] || { echo "missing $f"; return 1; }
	done
	[ "$(readlink "$D/subsystem")" = ../../../../bus/pci ]
	[ "$(cat "$D/modalias")" = "pci:v000015B3d0000101Dsv000015B3sd00000021bc02sc00i00" ]
	[ "$(cat "$D/current_link_speed")" = "32.0 GT/s PCIe" ]
	[ "$(cat "$D/max_link_width")" = 16 ]
	[ "$(stat -c '%a %s' "$D/resource0")" = "600 33554432" ]
	[ "$(stat -c %s "$D/config")" = 4096 ]
	[ "$(sed -n 1p "$D/resource")" = "0x0000020000000000 0x0000020001ffffff 0x000000000014220c" ]
	[ "$(wc -l < "$D/resource")" = 13 ]
	[ "$(cat "$D/enable")" = 1 ]	# mlx5_core bound
	RP=$T/sys/bus/pci/devices/0000:40:01.1
	[ "$(wc -l < "$RP/resource")" = 17 ]
	[ "$(cat "$RP/secondary_bus_number")" = 65 ]
	[ "$(cat "$RP/subordinate_bus_number")" = 65 ]
	[ ! -e "$D/secondary_bus_number" ]
	# a conventional PCI function: 256 bytes of config, no link attributes
	build_tree no-tsm
}
