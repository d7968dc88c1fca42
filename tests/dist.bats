#!/usr/bin/env bats
# make dist: tsmctl-X.Y.Z.tar.xz holds exactly the tracked files, comes out
# byte for byte the same twice, and builds and works unpacked where there is
# no git: --version and the man pages carry the release. (make distcheck runs
# the whole suite from it.)

load lib/helpers
# run by make check: its flags (-w, variables) must not reach the makes run here
unset MAKEFLAGS MFLAGS MAKELEVEL

setup() {
	[ -e "$TOP/.git" ] || skip "make dist needs the git checkout (this is an unpacked tarball)"
	command -v git >/dev/null || skip "git not installed"
	V=$(make -s -C "$TOP" version)
	D=$(mktemp -d "$BATS_TEST_TMPDIR/dist.XXXXXX")
}

@test "make version: one X.Y.Z, the one in the Makefile" {
	[[ "$V" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]
	grep -qx "VERSION := $V" "$TOP/Makefile"
}

@test "make dist: the tracked files below tsmctl-X.Y.Z/, reproducibly" {
	run make -s -C "$TOP" dist DISTDIR="$D/a"
	[ "$status" -eq 0 ]
	tarball=$D/a/tsmctl-$V.tar.xz
	[ -s "$tarball" ]
	diff <(git -C "$TOP" ls-files | sed "s|^|tsmctl-$V/|" | sort) <(tar -tJf "$tarball" | sort)
	# root-owned, nothing group- or world-writable
	[ -z "$(tar -tvJf "$tarball" | awk '$2 != "0/0" || $1 ~ /^.....w|^........w/')" ]
	make -s -C "$TOP" dist DISTDIR="$D/b" >/dev/null
	cmp "$tarball" "$D/b/tsmctl-$V.tar.xz"
}

@test "the tarball builds without git; --version, man pages and a quick suite from it" {
	make -s -C "$TOP" dist DISTDIR="$D" >/dev/null
	mkdir "$D/src"
	tar -C "$D/src" -xJf "$D/tsmctl-$V.tar.xz"
	S=$D/src/tsmctl-$V
	[ ! -e "$S/.git" ]
	# no git description, even with a repository around it
	git -C "$D/src" init -q
	run make -s -C "$S"
	echo "$output"
	[ "$status" -eq 0 ]
	run "$S/tsmctl" --version
	[ "$output" = "tsmctl $V" ]
	grep -q "^\.TH \"tsmctl\" \"8\" \"[0-9-]*\" \"tsmctl $V\"" "$S/man/tsmctl.8"
	grep -q "^\.TH \"tsmctl-devices\" \"8\" \"[0-9-]*\" \"tsmctl $V\"" "$S/man/tsmctl-devices.8"
	run env TSMCTL="$S/tsmctl" bats --tap "$S/tests/expected.bats" "$S/tests/list.bats"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"not ok"* ]]
}
