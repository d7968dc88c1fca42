#!/bin/bash
# Baseline: what an administrator writes today to get `tsmctl streams -J`.
# Walk the host bridges' stream links, readlink, read tsm/connect, decode both
# partners' Selective IDE block from config with od and shell arithmetic.
# Usage: streams.sh [ROOT]   (prints compact JSON; compare with jq -S)
# It does not look for stray links: duplicate_of is always null (the trees it
# is compared on have none).
root=${1:-/}
shopt -s nullglob

declare -a W	# config space of the current partner, as 32-bit words

load_config() {	# file → W; returns 1 if unreadable
	W=()
	[ -r "$1" ] || return 1
	read -r -a W <<< "$(od -An -v -tu4 "$1" | tr -s ' \n' '  ')"
}

# Word at byte offset $1 into REPLY (no subshell: this runs thousands of times).
word() { REPLY=${W[$(($1 / 4))]:-0}; }

# Offset of the IDE extended capability (ID 0x30), 0 if none.
ide_offset() {	# → REPLY
	local off=256 n=0
	while [ "$off" -ge 256 ] && [ $n -lt 100 ]; do
		word $off
		[ $((REPLY & 0xffff)) -eq $((0x30)) ] && { REPLY=$off; return; }
		off=$(((REPLY >> 20) & 0xffc))
		n=$((n + 1))
	done
	REPLY=0
}

# Offset of Selective block IDX (blocks sized by their own address count).
sel_block() {	# → REPLY
	local ide=$1 idx=$2 cap nlink=0 off k
	word $((ide + 4)); cap=$REPLY
	[ $((cap & 1)) -eq 1 ] && nlink=$((((cap >> 13) & 7) + 1))
	off=$((ide + 12 + 8 * nlink))
	REPLY=0
	[ $((cap & 2)) -eq 2 ] || return
	[ "$idx" -gt $(((cap >> 16) & 0xff)) ] && return
	for ((k = 0; k < idx; k++)); do
		word $off
		off=$((off + 20 + 12 * (REPLY & 15)))
	done
	REPLY=$off
}

bool() { B=false; [ "$1" -ne 0 ] && B=true; }

partner() {	# bdf block config → JSON object
	local bdf=$1 blk=$2 cfg=$3 ide off ctl sts r1 r2 naddr a1 a2 a3 i addr=""
	local nulls='"enabled":null,"state":null,"ide_fail":null,"stream_id":null,"tc":null,"algorithm":null,"default_stream":null,"tee_limited":null,"cfg_requests":null,"pcrc":null,"rid":null,"address":[]'
	if ! load_config "$cfg" || [ "${#W[@]}" -le 16 ]; then
		local nr=false sum=unreadable
		[ "${#W[@]}" -eq 16 ] && { nr=true; sum=needs-root; }
		printf '{"bdf":"%s","block":%d,"summary":"%s",%s,"needs_root":%s}' "$bdf" "$blk" "$sum" "$nulls" $nr
		return
	fi
	ide_offset; ide=$REPLY
	off=0
	[ "$ide" -ne 0 ] && { sel_block "$ide" "$blk"; off=$REPLY; }
	if [ "$off" -eq 0 ]; then
		printf '{"bdf":"%s","block":%d,"summary":"no-block",%s,"needs_root":false}' "$bdf" "$blk" "$nulls"
		return
	fi
	word $((off + 4)); ctl=$REPLY
	word $((off + 8)); sts=$REPLY
	word $((off + 12)); r1=$REPLY
	word $((off + 16)); r2=$REPLY
	word "$off"; naddr=$((REPLY & 15))
	for ((i = 0; i < naddr; i++)); do
		word $((off + 20 + 12 * i)); a1=$REPLY
		word $((off + 24 + 12 * i)); a2=$REPLY
		word $((off + 28 + 12 * i)); a3=$REPLY
		bool $((a1 & 1))
		addr+="${addr:+,}{\"valid\":$B,\"base\":$(((a3 << 32) | (((a1 >> 8) & 0xfff) << 20))),\"limit\":$(((a2 << 32) | (((a1 >> 20) & 0xfff) << 20) | 0xfffff))}"
	done
	local st=$((sts & 15)) state
	case $st in 0) state=insecure ;; 2) state=secure ;; *) state="reserved($st)" ;; esac
	local alg=null
	[ $(((ctl >> 14) & 31)) -eq 0 ] && alg='"aes-gcm-256-96b"'
	local en fail dflt teel cfgr pcrc rv sum=$state
	bool $((ctl & 1)); en=$B
	bool $(((sts >> 31) & 1)); fail=$B
	[ "$en" = true ] || sum=disabled
	[ "$fail" = true ] && sum+=+ide-fail
	bool $(((ctl >> 22) & 1)); dflt=$B
	bool $(((ctl >> 23) & 1)); teel=$B
	bool $(((ctl >> 9) & 1)); cfgr=$B
	bool $(((ctl >> 8) & 1)); pcrc=$B
	bool $((r2 & 1)); rv=$B
	printf '{"bdf":"%s","block":%d,"enabled":%s,"state":"%s","summary":"%s","ide_fail":%s,"stream_id":%d,"tc":%d,"algorithm":%s,"default_stream":%s,"tee_limited":%s,"cfg_requests":%s,"pcrc":%s,"rid":{"valid":%s,"base":%d,"limit":%d,"segment":%d},"address":[%s],"needs_root":false}' \
		"$bdf" "$blk" "$en" "$state" "$sum" "$fail" $(((ctl >> 24) & 255)) $(((ctl >> 19) & 7)) "$alg" \
		"$dflt" "$teel" "$cfgr" "$pcrc" "$rv" $(((r2 >> 8) & 0xffff)) $(((r1 >> 8) & 0xffff)) \
		$(((r2 >> 24) & 255)) "$addr"
}

partner_null() {
	printf '{"bdf":null,"block":%d,"summary":"dangling","enabled":null,"state":null,"ide_fail":null,"stream_id":null,"tc":null,"algorithm":null,"default_stream":null,"tee_limited":null,"cfg_requests":null,"pcrc":null,"rid":null,"address":[],"needs_root":false}' "$1"
}

# The main loop; bench/audit.sh sources this file for the decoder above.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

first=1
printf '{"schema_version":1,"streams":['
# host bridges below sys/devices, a faux or platform device, or a root-bus function (VMD)
for hb in "$root"/sys/devices/pci* "$root"/sys/devices/{faux,platform}/*/pci* "$root"/sys/devices/pci*/*/pci[0-9a-f]*; do
	hbname=${hb##*/}
	for link in "$hb"/stream*; do
		[ -L "$link" ] || continue
		name=${link##*/}
		[[ $name =~ ^stream(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})$ ]] || continue
		h=${BASH_REMATCH[1]} r=${BASH_REMATCH[2]} e=${BASH_REMATCH[3]}
		target=$(readlink "$link")
		ep=${target##*/}
		rp=${target%%/*}
		[ $first -eq 1 ] || printf ','
		first=0
		if [ ! -d "$hb/$target" ]; then
			printf '{"name":"%s","host_bridge":"%s","h":%d,"r":%d,"e":%d,"stream_id":null,"tsm":null,"dangling":true,"link_error":"missing","duplicate_of":null,"target":"%s",' "$name" "$hbname" "$h" "$r" "$e" "$ep"
			printf '"endpoint":%s,"root_port":%s}' \
				"$(partner_null "$e")" "$(partner_null "$r")"
			continue
		fi
		tsm=
		read -r tsm < "$hb/$target/tsm/connect" 2>/dev/null
		epj=$(partner "$ep" "$e" "$hb/$target/config")
		sid=null
		[[ $epj =~ \"stream_id\":([0-9]+) ]] && sid=${BASH_REMATCH[1]}
		tj=null
		[ -n "$tsm" ] && tj="\"$tsm\""
		printf '{"name":"%s","host_bridge":"%s","h":%d,"r":%d,"e":%d,"stream_id":%s,"tsm":%s,"dangling":false,"link_error":null,"duplicate_of":null,"target":"%s","endpoint":%s,"root_port":' \
			"$name" "$hbname" "$h" "$r" "$e" "$sid" "$tj" "$ep" "$epj"
		partner "$rp" "$r" "$hb/$rp/config"
		printf '}'
	done
done
printf ']}\n'
