#!/usr/bin/env bats
# make check-package: the Debian package (make deb: dpkg-buildpackage -b -us
# -uc with contrib/debian) and the RPM (rpmbuild with contrib/tsmctl.spec on
# the make-dist tarball) build, and install exactly the files make install
# installs with the same paths; the .deb with Debian 12's paths, its conffile
# and Depends from shlibs, lintian without errors. Each is skipped where its
# tools are missing (as root, make check-package installs them first).

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
# run by make check: its flags (-w, variables) must not reach the makes run here
unset MAKEFLAGS MFLAGS MAKELEVEL

setup_file() {
	export V PKG=$BATS_FILE_TMPDIR
	V=$(make -s -C "$TOP" version)
	if command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null; then
		make -C "$TOP" deb DEBDIR="$PKG/deb" >"$PKG/deb.log" 2>&1 && echo "$?" >"$PKG/deb.rc" ||
			echo "$?" >"$PKG/deb.rc"
	fi
}

# What make install puts below a DESTDIR with these make arguments: one path a line.
installed() {
	local d
	d=$(mktemp -d "$BATS_TEST_TMPDIR/inst.XXXXXX")
	make -s -C "$TOP" install DESTDIR="$d" "$@" >/dev/null
	(cd "$d" && find . ! -type d | sed 's|^\.||' | sort)
}

need_deb() {
	[ -e "$PKG/deb.rc" ] || skip "dpkg-buildpackage or debhelper not installed"
	DEB=$PKG/deb/tsmctl_$V-1_$(dpkg --print-architecture).deb
}

@test "make deb: dpkg-buildpackage -b -us -uc builds tsmctl_X.Y.Z-1, without a warning" {
	need_deb
	cat "$PKG/deb.log"
	[ "$(cat "$PKG/deb.rc")" -eq 0 ]
	[ -s "$DEB" ]
	! grep -i 'warning:' "$PKG/deb.log"
	grep -q "dpkg-deb: building package 'tsmctl' in '../tsmctl_$V-1_" "$PKG/deb.log"
}

@test ".deb: the files make install installs with Debian 12's paths, the conffile, Depends from shlibs" {
	need_deb
	want=$(installed PREFIX=/usr UNITDIR=/lib/systemd/system UDEVRULESDIR=/lib/udev/rules.d)
	# dpkg-deb -c: the files (no directories); man pages come gzipped, and Debian adds its docs
	got=$(dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\.||; s|\(/man/man8/.*\.8\)\.gz$|\1|' |
		grep -v -e '^/usr/share/doc/tsmctl/' -e '^/usr/share/lintian/overrides/tsmctl$' | sort)
	diff -u <(echo "$want") <(echo "$got")
	[[ "$got" == *$'\n/lib/systemd/system/tsmctl-audit.timer\n'* ]]
	[[ "$got" == *$'\n/lib/udev/rules.d/90-tsmctl.rules\n'* ]]
	[[ "$got" == *$'\n/usr/sbin/tsmctl\n'* ]]
	# Debian's own: copyright, changelog; units point at the installed paths
	dpkg-deb -c "$DEB" | grep -q ' ./usr/share/doc/tsmctl/copyright$'
	x=$(mktemp -d "$BATS_TEST_TMPDIR/x.XXXXXX")
	dpkg-deb -x "$DEB" "$x"
	grep -qx 'ExecStart=/usr/sbin/tsmctl audit --short' "$x/lib/systemd/system/tsmctl-audit.service"
	grep -qx 'ExecStart=/usr/libexec/tsmctl/tsmctl-autoconnect /etc/tsmctl/connect.conf' \
		"$x/lib/systemd/system/tsmctl-autoconnect.service"
	run "$x/usr/sbin/tsmctl" --version
	[ "$output" = "tsmctl $V" ]
	# /etc/tsmctl/connect.conf is a conffile; Depends are the libraries the binary links
	[ "$(dpkg-deb -f "$DEB" Version)" = "$V-1" ]
	ctl=$(mktemp -d "$BATS_TEST_TMPDIR/ctl.XXXXXX")
	dpkg-deb -e "$DEB" "$ctl"
	[ "$(cat "$ctl/conffiles")" = /etc/tsmctl/connect.conf ]
	dep=$(dpkg-deb -f "$DEB" Depends)
	for lib in libc6 libjson-c5 libkmod2 libpci3 libsmartcols1 libssl3; do
		[[ "$dep" == *"$lib ("* ]] || { echo "no $lib in Depends: $dep"; return 1; }
	done
}

@test ".deb: lintian reports no error" {
	need_deb
	command -v lintian >/dev/null || skip "lintian not installed"
	run lintian --fail-on error "$PKG/deb/tsmctl_${V}-1_$(dpkg --print-architecture).changes"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *$'\nE: '* && "$output" != "E: "* ]]
}

@test "contrib/tsmctl.spec: rpmbuild builds it; the RPM holds the files make install installs with Fedora's paths" {
	command -v rpmbuild >/dev/null || skip "rpmbuild not installed"
	top=$PKG/rpm
	make -s -C "$TOP" dist DISTDIR="$top/SOURCES" >/dev/null
	# Debian's rpm lacks Fedora's systemd-rpm-macros: their paths, and no scriptlets
	run rpmbuild -bb --nodeps --define "_topdir $top" \
		--define "_unitdir /usr/lib/systemd/system" --define "_udevrulesdir /usr/lib/udev/rules.d" \
		--define "systemd_post() %{nil}" --define "systemd_preun() %{nil}" \
		--define "systemd_postun() %{nil}" --define "debug_package %{nil}" "$TOP/contrib/tsmctl.spec"
	echo "$output" | tail -20
	[ "$status" -eq 0 ]
	rpm=$top/RPMS/$(uname -m)/tsmctl-$V-1.$(uname -m).rpm
	[ -s "$rpm" ]
	want=$(installed PREFIX=/usr LIBEXECDIR=/usr/libexec/tsmctl UNITDIR=/usr/lib/systemd/system \
		UDEVRULESDIR=/usr/lib/udev/rules.d)
	got=$(rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpm" | awk '$1 !~ /^d/ { print $2 }' |
		sed 's|\(/man/man8/.*\.8\)\.gz$|\1|' | grep -v -e '^/usr/lib/\.build-id/' -e "^/usr/share/doc/tsmctl" | sort)
	diff -u <(echo "$want") <(echo "$got")
	[ "$(rpm -qpc "$rpm")" = /etc/tsmctl/connect.conf ]
	[ "$(rpm -qp --qf '%{VERSION}' "$rpm")" = "$V" ]
}

@test "one version: the Makefile's, in debian/changelog and the spec" {
	[[ "$(head -1 "$TOP/contrib/debian/changelog")" == "tsmctl ($V-"*") "* ]]
	grep -Eqx "Version: +$V" "$TOP/contrib/tsmctl.spec"
	grep -Eq "^\* .* - $V-[0-9]+$" "$TOP/contrib/tsmctl.spec"
}
