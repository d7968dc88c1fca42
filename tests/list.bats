#!/usr/bin/env bats
# tsmctl list: the TSMs, table and JSON, on every shipped topology.

load lib/helpers

setup() {
	ROOT=$(static_tree sev-tio)
}

@test "list -J on SEV-TIO: every key of the contract" {
	run t list -J
	[ "$status" -eq 0 ]
	json_is '.schema_version' 1
	json_is '.tsms | length' 1
	json_is '.tsms[0] | keys' '["accepted_devices","connected_devices","driver","host_bridges","id","locked_devices","mode","module","name","provider","provider_version","psp","read_errors","streams"]'
	json_is '.tsms[0].read_errors' '{}'
	json_is '.tsms[0].name' '"tsm0"'
	json_is '.tsms[0].id' 0
	json_is '.tsms[0].mode' null
	json_is '.tsms[0].provider' '"0000:02:00.1"'
	json_is '.tsms[0].driver' '"ccp"'
	json_is '.tsms[0].module' '"ccp"'
	json_is '.tsms[0].connected_devices' 1
	json_is '.tsms[0].streams' 1
	json_is '.tsms[0].host_bridges' '["pci0000:40"]'
	# the PSP's security attributes (sysfs-driver-ccp, ABI.md §7.2), as the tree holds them
	json_is '.tsms[0].psp | [.function, .reports_security, .security.fused_part, .security.tsme_status, .bootloader_version, .tee_version]' \
		'["0000:02:00.1",true,true,false,"00.2d.00.78","00.27.00.1a"]'
}

@test "list on the proposed ABI: pci_mode link and devsec, faux providers" {
	ROOT=$(static_tree devsec-proposed)
	run t list -J
	[ "$status" -eq 0 ]
	json_is '[.tsms[] | [.name, .mode, .provider, .driver, .module]]' \
		'[["tsm0","link","devsec_link_tsm","faux_driver",null],["tsm1","devsec","devsec_tsm","faux_driver",null]]'
	json_is '[.tsms[].connected_devices]' '[0,0]'
	json_is '[.tsms[].host_bridges]' '[[],[]]'
}

@test "list on v6.19 devsec: mode is null, not guessed" {
	ROOT=$(static_tree devsec)
	run t list -J
	json_is '.tsms[0].mode' null
	json_is '.tsms[0].provider' '"devsec_link_tsm"'
}

@test "list counts both connected devices and streams on broken" {
	ROOT=$(static_tree broken)
	run t list -J
	json_is '.tsms[0].connected_devices' 2
	json_is '.tsms[0].streams' 2
}

@test "list with no TSM support: empty array, exit 0, reason on stderr" {
	ROOT=$(static_tree no-tsm)
	run --separate-stderr t list -J
	[ "$status" -eq 0 ]
	json_is '.tsms' '[]'
	[[ "$stderr" == *"sys/class/tsm"*"CONFIG_PCI_TSM"* ]]
	[[ "$stderr" == *"ccp (AMD SEV-TIO): not loaded"* ]]
}

@test "list explains an empty class directory differently" {
	ROOT=$(mktemp -d "$BATS_TEST_TMPDIR/r.XXXXXX")
	cp -a "$(static_tree no-tsm)/." "$ROOT"
	mkdir -p "$ROOT/sys/class/tsm"
	run --separate-stderr t list
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"no TSM registered"* ]]
}

@test "list -t filters and rejects unknown or malformed names" {
	ROOT=$(static_tree devsec-proposed)
	run t list -J -t tsm1
	json_is '[.tsms[].name]' '["tsm1"]'
	run t list -t tsm7
	[ "$status" -eq 1 ]
	[[ "$output" == *"tsm7: no such TSM"* ]]
	run t list -t TSM0
	[ "$status" -eq 2 ]
	run t list -t tsm-1
	[ "$status" -eq 2 ]
}

@test "list -o, +cols, --output-all, -n, -r, -P" {
	run t list -n -r -o NAME,DRIVER
	[ "$status" -eq 0 ]
	[ "$output" = "tsm0 ccp" ]
	run t list -o +MODULE
	[[ "${lines[0]}" == *"HOST-BRIDGES"*"MODULE"* ]]
	run t list -P -o NAME,ID
	[ "$output" = 'NAME="tsm0" ID="0"' ]
	run t list --output-all -n -r
	# the last column, VERSION, is empty: the PSP has no version attribute
	[ "$output" = "tsm0 0  0000:02:00.1 ccp ccp 1 1 pci0000:40 0 0 " ]
}

@test "list -H names every column" {
	run t list -H
	[ "$status" -eq 0 ]
	for c in NAME ID MODE PROVIDER DRIVER MODULE DEVICES STREAMS HOST-BRIDGES VERSION; do
		[[ "$output" == *"$c"* ]]
	done
}

@test "list: unknown column is a usage error" {
	run t list -o NAME,BOGUS
	[ "$status" -eq 2 ]
	[[ "$output" == *"tsmctl list: --output: unknown column 'BOGUS'"* ]]
}

@test "in a guest, list, devices and wait name the guest's TSM providers, not the host's ccp and tdx_host" {
	ROOT=$(static_tree guest-tdx)
	want="sev_guest (AMD SEV-SNP guest): not loaded; tdx_guest (Intel TDX guest): loaded; arm_cca_guest (Arm CCA realm): not loaded"
	for c in list devices; do
		run --separate-stderr t "$c"
		[[ "$stderr" == *"[$want]" ]] || { echo "$c: $stderr"; return 1; }
		[[ "$stderr" != *ccp* && "$stderr" != *tdx_host* ]]
	done
	run --separate-stderr t wait --timeout 0
	expect_status 1
	[ "${stderr_lines[1]}" = "tsmctl wait: TSM provider modules: $want" ]
	run --separate-stderr t audit -J
	[[ "$(jq -r '.checks[] | select(.id == "platform.tsm-class") | .hint' <<< "$output")" == *"$want"* ]]
	# a host names its own
	ROOT=$(static_tree sev-tio)
	run --separate-stderr t wait --timeout 0 tsm3
	[[ "${stderr_lines[1]}" == "tsmctl wait: TSM provider modules: ccp (AMD SEV-TIO): loaded; tdx_host"* ]]
}
