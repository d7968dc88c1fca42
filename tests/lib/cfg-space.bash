# Reading a function's config space file in bats: the helpers tsmctl's suites
# (tests/lib/helpers.bash) and the simulator's (tests/sim/test/helper.bash)
# share. Offsets are decimal or 0x; the IDE capability as ABI.md §3 lays it out.

# u32 FILE OFFSET: little-endian dword as 8 hex digits
u32() {
	od -A n -t x4 -j "$(($2))" -N 4 "$1" | tr -d ' \n'
}

# u16 FILE OFFSET: little-endian word as 4 hex digits
u16() {
	od -A n -t x2 -j "$(($2))" -N 2 "$1" | tr -d ' \n'
}

# cfg_word FILE OFFSET: the dword as 0x%08x
cfg_word() {
	echo "0x$(u32 "$1" "$2")"
}

# ext_cap FILE ID: offset of the extended capability ID (decimal), walking
# next pointers as PCI_EXT_CAP_NEXT() does (at most 64 of them)
ext_cap() {
	local off=256 hdr n=0
	while [ "$off" -ne 0 ] && [ $n -lt 64 ]; do
		hdr=$((16#$(u32 "$1" $off)))
		if [ $((hdr & 0xffff)) -eq "$(($2))" ]; then
			echo "$off"
			return 0
		fi
		off=$(((hdr >> 20) & 0xffc))
		n=$((n + 1))
	done
	return 1
}

# ext_cap_count FILE ID: how many extended capabilities ID the chain holds
ext_cap_count() {
	local off=256 hdr n=0 i=0
	while [ "$off" -ne 0 ] && [ $i -lt 64 ]; do
		hdr=$((16#$(u32 "$1" $off)))
		[ $((hdr & 0xffff)) -ne "$(($2))" ] || n=$((n + 1))
		off=$(((hdr >> 20) & 0xffc))
		i=$((i + 1))
	done
	echo "$n"
}

# sel_block FILE K: offset of Selective IDE block K (each block its own size:
# 20 bytes and 12 per address association)
sel_block() {
	local ide cap nr_link p i assoc
	ide=$(ext_cap "$1" 0x30) || return 1
	cap=$((16#$(u32 "$1" $((ide + 4)))))
	nr_link=0
	if [ $((cap & 1)) -eq 1 ]; then
		nr_link=$((((cap >> 13) & 7) + 1))
	fi
	p=$((ide + 12 + 8 * nr_link))
	for ((i = 0; i < $2; i++)); do
		assoc=$((16#$(u32 "$1" $p) & 0xf))
		p=$((p + 20 + 12 * assoc))
	done
	echo "$p"
}
