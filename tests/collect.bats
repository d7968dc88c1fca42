#!/usr/bin/env bats
# contrib/tsmctl-collect: a captured tree reads back identically.

load lib/helpers

roundtrip() {
	local src=$1 out=$BATS_TEST_TMPDIR/c.tar.xz un
	un=$(mktemp -d "$BATS_TEST_TMPDIR/un.XXXXXX")
	TSMCTL=$TSMCTL "$TOP/contrib/tsmctl-collect" --sysroot "$src" -o "$out" >/dev/null
	tar -C "$un" -xJf "$out"
	# nothing the bug report does not need
	if find "$un" -name uevent | grep -q .; then false; fi
	if find "$un" -name subsystem | grep -q .; then false; fi
	[ -s "$un/tsmctl-uname-r" ]
	for c in list devices "devices --all" "streams -v" host-bridges; do
		# shellcheck disable=SC2086
		diff -u <("$TSMCTL" --sysroot "$src" $c -J 2>/dev/null) <("$TSMCTL" --sysroot "$un" $c -J 2>/dev/null) ||
			{ echo "differs: $c"; return 1; }
	done
}

# same_views SRC UNPACKED: every view and audit, as JSON and with its exit status, and the
# text audit, are the same on the capture as on the tree it came from, each root named ROOT.
same_views() {
	local c a b bad=0
	for c in list devices "devices --all" "streams -v" host-bridges audit; do
		# shellcheck disable=SC2086
		a=$("$TSMCTL" --sysroot "$1" $c -J 2>/dev/null | sed "s|$1|ROOT|g"; echo "exit ${PIPESTATUS[0]}")
		# shellcheck disable=SC2086
		b=$("$TSMCTL" --sysroot "$2" $c -J 2>/dev/null | sed "s|$2|ROOT|g"; echo "exit ${PIPESTATUS[0]}")
		[ "$a" = "$b" ] || { echo "differs: $c"; diff <(echo "$a") <(echo "$b") | head -20; bad=1; }
	done
	# the paths below each root are named as given (the root itself differs)
	diff <("$TSMCTL" --sysroot "$1" audit 2>&1 | sed "s|$1|ROOT|g") <("$TSMCTL" --sysroot "$2" audit 2>&1 | sed "s|$2|ROOT|g") ||
		{ echo "differs: audit (text)"; bad=1; }
	return "$bad"
}

# capture SRC: unpack a capture of SRC and print where
capture() {
	local un
	un=$(mktemp -d "$BATS_TEST_TMPDIR/un.XXXXXX")
	TSMCTL=$TSMCTL "$TOP/contrib/tsmctl-collect" --sysroot "$1" -o "$un.tar.xz" >/dev/null &&
		tar -C "$un" -xJf "$un.tar.xz" && echo "$un"
}

@test "collect round trip of every shipped topology, static: every view and audit the same" {
	local f topo un out bad=0
	for f in "$TOPO"/*.json; do
		topo=$(basename "$f" .json)
		un=$(capture "$(static_tree "$topo")") || { echo "$topo: no capture"; bad=1; continue; }
		out=$(same_views "$(static_tree "$topo")" "$un") || { echo "$topo: $out"; bad=1; }
	done
	[ "$bad" -eq 0 ]
}

@test "collect round trip of every shipped topology, live after connecting what connects" {
	local f topo un t out bad=0 streams=0
	for f in "$TOPO"/*.json; do
		topo=$(basename "$f" .json)
		mount_live "$topo"
		for t in $("$TSMCTL" --sysroot "$ROOT" list -n -r -o NAME,MODE | awk '$2 != "devsec" { print $1 }'); do
			"$TSMCTL" --sysroot "$ROOT" connect --all --keep-going --no-syslog "$t" >/dev/null 2>&1 || true
		done
		streams=$((streams + $("$TSMCTL" --sysroot "$ROOT" streams -n | wc -l)))
		un=$(capture "$ROOT") || { echo "$topo: no capture"; bad=1; }
		[ -z "$un" ] || out=$(same_views "$ROOT" "$un") || { echo "$topo (live): $out"; bad=1; }
		unmount_live
	done
	[ "$bad" -eq 0 ]
	# the connects did happen: the captures held streams the connects made
	echo "$streams streams"
	[ "$streams" -ge 20 ]
}

@test "collect round trip: SEV-TIO, broken, proposed-ABI and no-TSM trees" {
	for topo in sev-tio broken devsec-proposed no-tsm; do
		roundtrip "$(static_tree "$topo")"
	done
}

@test "collect round trip of a live host after a connect" {
	mount_live devsec-proposed
	echo tsm0 > "$ROOT/sys/bus/pci/devices/10000:01:00.0/tsm/connect"
	roundtrip "$ROOT"
	un=$(mktemp -d "$BATS_TEST_TMPDIR/un.XXXXXX")
	tar -C "$un" -xJf "$BATS_TEST_TMPDIR/c.tar.xz"
	[ -L "$un/sys/devices/faux/devsec_bus/pci10000:00/stream0.0.0" ]
	[ -L "$un/sys/class/tsm/tsm0/pci10000:00" ]
	[ "$(cat "$un/sys/devices/faux/devsec_bus/pci10000:00/available_secure_streams")" = 3 ]
}

@test "collect refuses a root without sys/ and unknown arguments" {
	run "$TOP/contrib/tsmctl-collect" --sysroot "$BATS_TEST_TMPDIR"
	[ "$status" -eq 1 ]
	run "$TOP/contrib/tsmctl-collect" --bogus
	[ "$status" -eq 2 ]
}

@test "collect -o: '-' is stdout; a link, FIFO or directory is refused, never replaced" {
	src=$(static_tree sev-tio)
	D=$(mktemp -d "$BATS_TEST_TMPDIR/o.XXXXXX")
	echo keep > "$D/target"
	ln -s target "$D/link"
	mkfifo "$D/fifo"
	mkdir "$D/dir"
	for f in link fifo dir; do
		run --separate-stderr env TSMCTL="$TSMCTL" "$TOP/contrib/tsmctl-collect" --sysroot "$src" -o "$D/$f"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"$D/$f: not a regular file: refusing to replace it"* ]]
	done
	[ -L "$D/link" ]
	[ "$(cat "$D/target")" = keep ]
	[ -p "$D/fifo" ]
	[ -d "$D/dir" ]
	env TSMCTL="$TSMCTL" "$TOP/contrib/tsmctl-collect" --sysroot "$src" -o - 2>/dev/null > "$D/c.tar.xz"
	tar -tJf "$D/c.tar.xz" | grep -q 'sys/class/tsm'
	# a regular file is replaced whole, nothing temporary left beside it
	echo old > "$D/r.tar.xz"
	env TSMCTL="$TSMCTL" "$TOP/contrib/tsmctl-collect" --sysroot "$src" -o "$D/r.tar.xz" >/dev/null
	tar -tJf "$D/r.tar.xz" | grep -q 'sys/class/tsm'
	if ls -A "$D" | grep -q tsmctl-; then false; fi
}

@test "collect fails when tsmctl cannot run or a view fails, and writes nothing" {
	src=$(static_tree sev-tio)
	out=$BATS_TEST_TMPDIR/x.tar.xz
	run --separate-stderr env TSMCTL=/nonexistent "$TOP/contrib/tsmctl-collect" --sysroot "$src" -o "$out"
	[ "$status" -eq 1 ]
	[ "$stderr" = "tsmctl-collect: cannot run '/nonexistent' (set TSMCTL to the tsmctl to run): nothing written" ]
	[ -z "$output" ]
	[ ! -e "$out" ]
	# no TSMCTL and no tsmctl in PATH: the same, not "wrote" with no PCI function in it
	bin=$(mktemp -d "$BATS_TEST_TMPDIR/bin.XXXXXX")
	for t in sh tar xz mktemp dirname basename cat cp mkdir rm rmdir sort tr grep uname date mv chmod \
		 readlink sed stat wc find uniq paste head; do
		ln -s "$(command -v "$t")" "$bin/$t"
	done
	run --separate-stderr env -i PATH="$bin" "$TOP/contrib/tsmctl-collect" --sysroot "$src" -o "$out"
	[ "$status" -eq 1 ]
	[ "$stderr" = "tsmctl-collect: cannot run 'tsmctl' (set TSMCTL to the tsmctl to run): nothing written" ]
	[ ! -e "$out" ]
	# a view that fails fails the capture, with its words
	printf '#!/bin/sh\ncase " $* " in *" devices "*) echo "tsmctl devices: broken" >&2; exit 1 ;; esac\nexec "%s" "$@"\n' \
		"$TSMCTL" > "$bin/tsmctl"
	chmod +x "$bin/tsmctl"
	run --separate-stderr env TSMCTL="$bin/tsmctl" "$TOP/contrib/tsmctl-collect" --sysroot "$src" -o "$out"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "tsmctl-collect: 'tsmctl devices --all -n -r -o BDF,ROOT-PORT' failed: tsmctl devices: broken"* ]]
	[[ "$stderr" == *"nothing written" ]]
	[ ! -e "$out" ]
	# nor anything temporary beside it
	if ls -A "$BATS_TEST_TMPDIR" | grep -q '\.tsmctl-'; then false; fi
}

@test "collect -o into a directory that takes no file fails before capturing, in its own words" {
	src=$(static_tree sev-tio)
	run --separate-stderr env TSMCTL="$TSMCTL" "$TOP/contrib/tsmctl-collect" --sysroot "$src" \
		-o "$BATS_TEST_TMPDIR/none/x.tar.xz"
	[ "$status" -eq 1 ]
	[ "$stderr" = "tsmctl-collect: $BATS_TEST_TMPDIR/none/x.tar.xz: cannot create a file in $BATS_TEST_TMPDIR/none (it does not exist, or this user may not write there): nothing written" ]
	[ ! -e "$BATS_TEST_TMPDIR/none" ]
}

@test "collect: argument errors read like tsmctl's; -o - refuses a terminal" {
	run --separate-stderr "$TOP/contrib/tsmctl-collect" -o
	[ "$status" -eq 2 ]
	[ "$stderr" = "tsmctl-collect: option '-o' requires an argument"$'\n'"Try 'tsmctl-collect --help'." ]
	run --separate-stderr "$TOP/contrib/tsmctl-collect" --sysroot
	[ "$status" -eq 2 ]
	[ "$stderr" = "tsmctl-collect: option '--sysroot' requires an argument"$'\n'"Try 'tsmctl-collect --help'." ]
	run --separate-stderr "$TOP/contrib/tsmctl-collect" --bogus
	[ "$status" -eq 2 ]
	[ "$stderr" = "tsmctl-collect: unrecognized option '--bogus'"$'\n'"Try 'tsmctl-collect --help'." ]
	src=$(static_tree sev-tio)
	run script -qec "env TSMCTL='$TSMCTL' '$TOP/contrib/tsmctl-collect' --sysroot '$src' -o -; echo rc=\$?" /dev/null
	[[ "$output" == *"tsmctl-collect: refusing to write the tarball to a terminal (redirect stdout, or name a file with -o)"* ]]
	[[ "$output" == *"rc=1"* ]]
}

@test "collect as nobody: the short configs are a partial capture, said on stderr" {
	mount_live sev-tio
	open_path_to_root
	D=$(mktemp -d "$BATS_TEST_TMPDIR/o.XXXXXX")
	chmod 777 "$D"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		env TSMCTL="$TSMCTL" "$TOP/contrib/tsmctl-collect" --sysroot "$ROOT" -o "$D/c.tar.xz"
	[ "$status" -eq 0 ]
	[[ "$stderr" == "tsmctl-collect: partial capture: "*" config read short (only 64 bytes without root; run as root)"* ]]
	[ "$output" = "tsmctl-collect: wrote $D/c.tar.xz (partial)" ]
	[ -s "$D/c.tar.xz" ]
}

teardown() {
	unmount_live
}
