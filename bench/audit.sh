#!/bin/bash
# Baseline for `tsmctl audit -J`: the checks an administrator scripts today,
# in bash and coreutils over the same tree, using streams.sh's decoder. It
# covers the platform, device, stream and pool checks whose outcome needs
# no more than sysfs and the Selective blocks, and prints each result as
# {"id", "object", "status"}; tests/bench-baseline.bats holds it to
# tsmctl's verdicts on the same trees.
# Usage: audit.sh [ROOT]
# shellcheck disable=SC2015 # result() always succeeds, so A && result || result is if-else
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/streams.sh
. "$here/streams.sh"
root=${1:-/}

declare -A seen	# Stream IDs met so far, per host bridge
first=1
result() {	# id object status
	[ $first -eq 1 ] || printf ','
	first=0
	printf '{"id":"%s","object":"%s","status":"%s"}' "$1" "$2" "$3"
}

# Selective block $2 of config $1 into CTL STS RID1 RID2; returns 1 if there is none.
block_regs() {
	load_config "$1" && [ "${#W[@]}" -gt 16 ] || return 1
	ide_offset
	[ "$REPLY" -ne 0 ] || return 1
	sel_block "$REPLY" "$2"
	[ "$REPLY" -ne 0 ] || return 1
	local off=$REPLY
	word $((off + 4)); CTL=$REPLY
	word $((off + 8)); STS=$REPLY
	word $((off + 12)); RID1=$REPLY
	word $((off + 16)); RID2=$REPLY
}

# both_sides EP-OK RP-OK RIG (0/1 each): pass, fail, or skip for the sample's emulated root port alone.
both_sides() {	# → REPLY
	if [ "$1" = 1 ] && [ "$2" = 1 ]; then REPLY=pass
	elif [ "$1" = 1 ] && [ "$3" = 1 ]; then REPLY=skip
	else REPLY=fail; fi
}

# RID (bus << 8 | devfn) of a canonical BDF.
rid() {
	local b=${1#*:}
	REPLY=$(((16#${b%%:*} << 8) | (16#${b:3:2} << 3) | 16#${b##*.}))
}

covers() {	# rid1 rid2 rid → 0 if the block's valid RID range holds rid
	[ $(($2 & 1)) -eq 1 ] && [ "$3" -ge $((($2 >> 8) & 0xffff)) ] && [ "$3" -le $((($1 >> 8) & 0xffff)) ]
}

printf '{"schema_version":1,"checks":['
# As in tsmctl, a check whose parent did not pass is skipped: here all hang below tsm-present.
tsms=("$root"/sys/class/tsm/tsm*)
present=skip
if [ -d "$root/sys/class/tsm" ]; then
	result platform.tsm-class platform pass
	present=fail
	[ ${#tsms[@]} -gt 0 ] && present=pass
else
	result platform.tsm-class platform fail
fi
result platform.tsm-present platform $present
# SEV-TIO (the ccp driver's TSM) also needs secure SPDM; it matters when every TSM is one
sev_only=0
for t in "${tsms[@]}"; do
	drv=$(readlink "$t/device/driver")
	[ "${drv##*/}" = ccp ] || { sev_only=0; break; }
	sev_only=1
done
# skip_unless_present ID OBJECT: record a skip and return 1 unless a TSM is present
skip_unless_present() {
	[ $present = pass ] && return 0
	result "$1" "$2" skip
	return 1
}

# A devsec TSM's lock is the device's one TSM context: no link connect to expect.
locked() {
	local lock=
	[ -r "$1/tsm/lock" ] && read -r lock <"$1/tsm/lock" 2>/dev/null
	[ -n "$lock" ]
}

# As tsmctl: no TSM connects a device without a CMA/SPDM DOE mailbox, or below
# a host bridge without a stream pool. W holds the device's config.
connectable() {
	local off=256 n=0 dir
	if [ -d "$1/doe_features" ]; then
		[ -e "$1/doe_features/0001:01" ] || return 1
		[ $sev_only = 1 ] && [ ! -e "$1/doe_features/0001:02" ] && return 1
	elif [ "${#W[@]}" -ge 1024 ]; then
		while [ "$off" -ge 256 ] && [ $n -lt 100 ]; do	# a DOE capability (0x2e) at all?
			word $off
			[ $((REPLY & 0xffff)) -eq $((0x2e)) ] && break
			off=$(((REPLY >> 20) & 0xffc)) n=$((n + 1))
		done
		[ "$off" -ge 256 ] || return 1
	fi
	dir=$(cd "$1" && pwd -P) || return 0
	while [ "$dir" != / ] && [[ ${dir##*/} != pci* ]]; do dir=${dir%/*}; done
	[ "$dir" = / ] || [ -e "$dir/available_secure_streams" ]
}

for c in "$root"/sys/bus/pci/devices/*/tsm/connect; do
	d=${c%/tsm/connect}
	bdf=${d##*/}
	skip_unless_present device.connected "$bdf" || continue
	tsm=
	read -r tsm <"$c" 2>/dev/null
	if [ -n "$tsm" ]; then
		result device.connected "$bdf" pass
	else
		load_config "$d/config"
		# DEVCAP (PCIe capability + 4): TEE-IO capable but idle is worth a warning
		off=$(((${W[13]:-0}) & 0xfc)) tee=0 n=0 type=0
		while [ "$off" -ge 64 ] && [ $n -lt 48 ]; do
			word "$off"
			if [ $((REPLY & 0xff)) -eq $((0x10)) ]; then
				type=$(((REPLY >> 20) & 15))	# device/port type: 0 is an endpoint
				word $((off + 4)); tee=$(((REPLY >> 30) & 1)); break
			fi
			off=$(((REPLY >> 8) & 0xfc)) n=$((n + 1))
		done
		ide_offset
		if [ $tee -eq 0 ]; then
			result device.connected "$bdf" pass
		elif [ $type -ne 0 ] || [ "$REPLY" -eq 0 ] || locked "$d" || ! connectable "$d"; then
			result device.connected "$bdf" skip
		else
			result device.connected "$bdf" warn
		fi
	fi
done

# host bridges below sys/devices, a faux or platform device, or a root-bus function (VMD)
for hb in "$root"/sys/devices/pci* "$root"/sys/devices/{faux,platform}/*/pci* "$root"/sys/devices/pci*/*/pci[0-9a-f]*; do
	hbname=${hb##*/}
	for link in "$hb"/stream*; do
		[ -L "$link" ] || continue
		name=${link##*/}
		[[ $name =~ ^stream(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})$ ]] || continue
		r=${BASH_REMATCH[2]} e=${BASH_REMATCH[3]}
		obj=$hbname/$name
		if [ $present != pass ]; then
			for id in stream.link stream.connected stream.enabled stream.secure stream.ide-fail \
				stream.id stream.rid; do result $id "$obj" skip; done
			continue
		fi
		target=$(readlink "$link")
		ep=${target##*/} rp=${target%%/*}
		checks="stream.connected stream.enabled stream.secure stream.ide-fail stream.id stream.rid"
		if [ ! -d "$hb/$target" ] || [[ $target == /* || $target == ../* ]] ||
			! block_regs "$hb/$rp/config" "$r"; then
			result stream.link "$obj" fail
			for id in $checks; do result "$id" "$obj" skip; done
			continue
		fi
		rctl=$CTL rsts=$STS rr1=$RID1 rr2=$RID2
		# the devsec sample's emulated root port (8086:ffff below devsec_bus) is never enabled: its side skips
		rig=0
		[[ $hb == "$root"/sys/devices/faux/devsec_bus/* ]] && [ "${W[0]}" -eq $((0xffff8086)) ] && rig=1
		if ! block_regs "$hb/$target/config" "$e"; then
			result stream.link "$obj" fail
			for id in $checks; do result "$id" "$obj" skip; done
			continue
		fi
		result stream.link "$obj" pass
		tsm=
		read -r tsm <"$hb/$target/tsm/connect" 2>/dev/null
		[ -n "$tsm" ] && result stream.connected "$obj" pass || result stream.connected "$obj" fail
		both_sides $((CTL & 1)) $((rctl & 1)) $rig; result stream.enabled "$obj" "$REPLY"
		both_sides $(((STS & 15) == 2)) $(((rsts & 15) == 2)) $rig; result stream.secure "$obj" "$REPLY"
		[ $(((STS | rsts) >> 31 & 1)) -eq 0 ] && result stream.ide-fail "$obj" pass ||
			result stream.ide-fail "$obj" fail
		# equal on both partners, not the idle stamp 255, not used twice on the host bridge
		sid=$((CTL >> 24 & 255))
		if [ $sid -eq $((rctl >> 24 & 255)) ] && [ $sid -ne 255 ] && [[ " ${seen[$hbname]:-} " != *" $sid "* ]]; then
			result stream.id "$obj" pass
		else
			result stream.id "$obj" fail
		fi
		seen[$hbname]+=" $sid"
		rid "$ep"; eprid=$REPLY
		rid "$rp"; rprid=$REPLY
		covers "$rr1" "$rr2" "$eprid" && covers "$RID1" "$RID2" "$rprid" &&
			result stream.rid "$obj" pass || result stream.rid "$obj" fail
	done
	if [ -e "$hb/available_secure_streams" ] && skip_unless_present hostbridge.pool "$hbname"; then
		read -r avail <"$hb/available_secure_streams"
		[ "${avail:-0}" -gt 0 ] && result hostbridge.pool "$hbname" pass || result hostbridge.pool "$hbname" warn
	fi
done
printf ']}\n'
