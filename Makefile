# tsmctl — build, test, install.
#
#   make            build ./tsmctl and the simulator (never installs anything)
#   make deps       install the build and test packages (Debian 12, as root)
#   make demo       tsmctl against a simulated SEV-TIO host
#   make check      the whole test suite, then again under ASan+UBSan
#   make soak       tsmctl under load and faults against the live simulator
#
# demo, check, bench, soak and deps install missing packages with apt-get when
# run as root (Debian 12), otherwise they print the exact command to run. A
# plain build only checks for them and says what is missing.

# The release number, the one place it is written: make dist, the packages and
# the man pages carry it. Built from a git checkout (this directory's own .git,
# not one around an unpacked tarball), --version adds the git description.
VERSION := 0.2.0
GIT_DESCRIBE := $(shell test -e .git && git describe --always --dirty 2>/dev/null)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/site-functions
LIBEXECDIR ?= $(PREFIX)/libexec/tsmctl
UNITDIR ?= $(PREFIX)/lib/systemd/system
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
SCHEMADIR ?= $(DATADIR)/tsmctl/schema
# Ansible's default collections path holds /usr/share/ansible/collections.
ANSIBLECOLLDIR ?= $(DATADIR)/ansible/collections
PROMRULESDIR ?= $(DATADIR)/tsmctl/prometheus
SYSCONFDIR ?= /etc
DESTDIR ?=

CC ?= cc
BUILDDIR ?= .
PKGS := libpci libkmod json-c smartcols libcrypto libmnl
CFLAGS ?= -O2 -g
TSM_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-D_GNU_SOURCE -Iinclude -DTSMCTL_VERSION='"$(VERSION)"' \
	-DTSMCTL_GIT='"$(GIT_DESCRIBE)"' $(SAN)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# src/evidence/ holds the evidence code by layer: fetch, decode, verify, gate (HACKING.md)
SRCS := $(wildcard src/*.c src/evidence/*/*.c)
OBJS := $(patsubst src/%.c,$(BUILDDIR)/obj/%.o,$(SRCS))
HDRS := $(wildcard include/tsmctl/*.h src/*.h src/evidence/*/*.h)

BUILD_DEBS := gcc make pkg-config libpci-dev libkmod-dev libjson-c-dev libsmartcols-dev \
	libssl-dev libmnl-dev libfuse3-dev pciutils openssl scdoc
TEST_DEBS := bats jq fuse3 xz-utils util-linux perl valgrind strace man-db groff-base \
	python3 python3-prometheus-client python3-jsonschema python3-yaml systemd udev clang libclang-rt-14-dev
# The engines of tests/ansible.bats and tests/prometheus.bats, without their
# Recommends (ansible-core's is the 250 MB "ansible" collection set).
FLEET_DEBS := ansible-core prometheus prometheus-node-exporter
DEPS_STAMP := $(BUILDDIR)/.deps-build
# Package builds have their build dependencies already: NEED_PACKAGES=true skips the apt-get.
NEED_PACKAGES ?= tests/lib/need-packages

SCHEMAS := $(wildcard schema/*.schema.json)
MAN_SRCS := $(wildcard man/*.scd)
MAN_PAGES := $(patsubst man/%.scd,$(BUILDDIR)/man/%,$(MAN_SRCS))

all: $(BUILDDIR)/tsmctl sim man

deps: $(BUILDDIR)/.deps-test

$(DEPS_STAMP):
	@$(NEED_PACKAGES) $(BUILD_DEBS)
	@mkdir -p $(BUILDDIR) && touch $@

# (again when the Makefile changes: it may name a new package)
$(BUILDDIR)/.deps-test: $(DEPS_STAMP) Makefile
	@$(NEED_PACKAGES) $(TEST_DEBS)
	@$(NEED_PACKAGES) --no-install-recommends $(FLEET_DEBS)
	@touch $@

# The goals that may install packages put that first; any other build only
# checks that the libraries, scdoc and FUSE are there and names what is not.
INSTALL_GOALS := deps demo check check-% bench soak soak-asan distcheck
ifneq ($(filter $(INSTALL_GOALS),$(MAKECMDGOALS)),)
NEED_LIBS := $(DEPS_STAMP)
NEED_SCDOC := $(DEPS_STAMP)
NEED_FUSE := $(DEPS_STAMP)
else
NEED_LIBS := need-libs
NEED_SCDOC := need-scdoc
NEED_FUSE := need-fuse
endif
missing = { echo "make: $(1) not found: 'make deps' installs the build packages (as root), or: apt-get install $(BUILD_DEBS)" >&2; exit 1; }
need-libs:
	@pkg-config --exists $(PKGS) 2>/dev/null || $(call missing,development files of $(PKGS))
need-scdoc:
	@command -v scdoc >/dev/null || $(call missing,scdoc)
need-fuse:
	@pkg-config --exists json-c fuse3 2>/dev/null || $(call missing,development files of json-c fuse3)

# Each object depends on the headers it includes, as the compiler lists them
# (-MMD); -MP keeps a deleted header from breaking the build.
$(BUILDDIR)/obj/%.o: src/%.c | $(NEED_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TSM_CFLAGS) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<
-include $(OBJS:.o=.d)
# An object without its .d (built before -MMD, or interrupted) depends on every header.
$(foreach o,$(OBJS),$(if $(wildcard $(o:.o=.d)),,$(eval $(o): $(HDRS))))

# --version is compiled into cli.o: rebuild it whenever the version or git description changes.
VERSION_STAMP := $(BUILDDIR)/.version
$(VERSION_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION) $(GIT_DESCRIBE)' | cmp -s - $@ || echo '$(VERSION) $(GIT_DESCRIBE)' > $@
$(BUILDDIR)/obj/cli.o: $(VERSION_STAMP)

$(BUILDDIR)/tsmctl: $(OBJS)
	$(CC) $(CFLAGS) $(TSM_CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(PKG_LIBS) $(LDLIBS)

# Unit tests: tests/unit/test-NAME.c with the sources UNIT_SRCS_NAME (and
# libraries UNIT_LIBS_NAME) becomes test-NAME; make unit runs them all, make
# unit-NAME one.
UNIT_TESTS := ide names sha256 audit explain util spdm-cert spdm-vca spdm-meas spdm-transcript \
	tdisp-report evreply evidence-verify evidence-chain evidence-decision snapshot action uevent sysfs
UNIT_SRCS_ide := src/ide.c tests/fuzz/cfg-ranged.h
UNIT_SRCS_names := src/names.c
UNIT_SRCS_sha256 := src/sha256.c src/util.c
UNIT_SRCS_util := src/util.c src/log.c
UNIT_SRCS_uevent := src/uevent-parse.c
# sysfs: the typed attribute readers on a tree built in a temporary directory.
UNIT_SRCS_sysfs := src/sysfs.c src/names.c src/util.c src/log.c
# explain: the program's objects without main and the command layer (cli, view, cmd-*).
UNIT_SRCS_explain = $(filter-out $(BUILDDIR)/obj/tsmctl.o $(BUILDDIR)/obj/cli.o $(BUILDDIR)/obj/view.o \
	$(BUILDDIR)/obj/cmd-%.o,$(OBJS))
UNIT_LIBS_explain = $(PKG_LIBS)
# action: action_classify() is pure, but action.c links with what the store path uses.
UNIT_SRCS_action = $(UNIT_SRCS_explain)
UNIT_LIBS_action = $(PKG_LIBS)
UNIT_SRCS_audit := src/audit.c src/audit-checks.c src/audit-checks-platform.c src/snapshot.c src/sysfs.c src/log.c src/names.c \
	src/ide.c src/util.c
UNIT_SRCS_snapshot := src/snapshot.c src/sysfs.c src/log.c src/names.c src/ide.c src/util.c
UNIT_LIBS_sha256 = $(shell pkg-config --libs libcrypto)
# The evidence decoders (ABI.md §1.7), each with the shared cursor and algorithm
# tables; their tests build the objects they decode (bytes.h, vca-build.h).
EV_DECODE_SRCS := src/evidence/decode/ev-decode.c src/evidence/decode/spdm-alg.c tests/unit/bytes.h
UNIT_SRCS_spdm-cert := src/evidence/decode/spdm-cert.c $(EV_DECODE_SRCS)
UNIT_LIBS_spdm-cert = $(shell pkg-config --libs libcrypto)
UNIT_SRCS_spdm-vca := src/evidence/decode/spdm-vca.c $(EV_DECODE_SRCS) tests/unit/vca-build.h
UNIT_SRCS_spdm-meas := src/evidence/decode/spdm-meas.c src/evidence/decode/spdm-vca.c $(EV_DECODE_SRCS) tests/unit/vca-build.h
# the measurement signature: the framing, L1 and the verifier, on the openssl-made vectors
UNIT_SRCS_spdm-transcript := src/evidence/decode/spdm-transcript.c src/evidence/decode/spdm-sig.c src/evidence/decode/spdm-meas.c src/evidence/decode/spdm-vca.c \
	$(EV_DECODE_SRCS) tests/unit/vca-build.h tests/unit/sig-vectors.h
UNIT_LIBS_spdm-transcript = $(shell pkg-config --libs libcrypto)
UNIT_SRCS_tdisp-report := src/evidence/decode/tdisp-report.c $(EV_DECODE_SRCS)
UNIT_SRCS_evreply := src/evidence/fetch/evidence-reply.c src/util.c
UNIT_LIBS_evreply = $(shell pkg-config --libs libmnl)
# The evidence checks (evidence-verify*.c) on objects built in memory, with what they read.
UNIT_SRCS_evidence-verify := $(wildcard src/evidence/verify/evidence-verify*.c) src/evidence/decode/evidence-decoded.c \
	src/evidence/fetch/evidence-device.c src/evidence/verify/evidence-reference.c src/evidence/fetch/evidence-set.c src/evidence/fetch/evidence-netlink.c \
	src/evidence/fetch/evidence-reply.c src/evidence/verify/evidence-trust.c src/outfile.c src/userfile.c src/sysfs.c src/log.c src/names.c \
	src/util.c src/pci-serial.c src/evidence/decode/spdm-cert.c src/evidence/decode/spdm-vca.c \
	src/evidence/decode/spdm-meas.c src/evidence/decode/spdm-transcript.c src/evidence/decode/spdm-sig.c src/evidence/decode/tdisp-report.c $(EV_DECODE_SRCS) \
	tests/unit/sig-vectors.h
UNIT_LIBS_evidence-verify = $(PKG_LIBS)
# The chain checks on certificates the openssl command line made (tests/vectors/gen-chains).
UNIT_SRCS_evidence-chain = $(UNIT_SRCS_evidence-verify) tests/unit/vca-build.h
UNIT_LIBS_evidence-chain = $(PKG_LIBS)
# The decision over results lists built by hand (evidence-decision.c is pure).
UNIT_SRCS_evidence-decision := src/evidence/gate/evidence-decision.c src/util.c src/log.c

.SECONDEXPANSION:
$(BUILDDIR)/test-%: tests/unit/test-%.c $$(UNIT_SRCS_$$*) $(HDRS) tests/unit/unit.h | $(NEED_LIBS)
	$(CC) $(CFLAGS) $(TSM_CFLAGS) $(PKG_CFLAGS) -o $@ $(filter %.c %.o,$^) $(UNIT_LIBS_$*)

UNIT_RUNS := $(addprefix unit-,$(UNIT_TESTS))
$(UNIT_RUNS): unit-%: $(BUILDDIR)/test-%
	$(BUILDDIR)/test-$*

unit: $(UNIT_RUNS)

# The release goes into each page's footer (scdoc's preamble: name(8) "footer" "header").
$(BUILDDIR)/man/%: man/%.scd Makefile | $(NEED_SCDOC)
	@mkdir -p $(dir $@)
	sed '1s/$$/ "tsmctl $(VERSION)" "System Administration"/' $< | scdoc > $@

man: $(MAN_PAGES)

# Lint every page: groff/man warnings are failures.
check-man: man
	@for p in $(MAN_PAGES); do \
		out=$$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$$p" 2>&1 >/dev/null); \
		if [ -n "$$out" ]; then echo "$$p: $$out"; exit 1; fi; \
	done; echo "man: $(words $(MAN_PAGES)) pages lint clean"

# Every "ABI.md §N" the code, tests and docs cite is a section of doc/ABI.md.
check-abi-refs:
	@tests/lib/check-abi-refs

# make check-calls: no two source files call each other, directly or round a
# longer circle (tests/lib/check-call-cycles reads the objects' symbols).
check-calls: $(BUILDDIR)/tsmctl
	@tests/lib/check-call-cycles $(BUILDDIR)/obj

sim: | $(NEED_FUSE)
	$(MAKE) -C tests/sim


# make check: every part of the suite (the builds, unit tests, the fuzz
# corpora replayed, the simulator's tests, tsmctl's bats files, soak, valgrind,
# the packages, and the bats files again against an ASan+UBSan build) run at
# once, CHECK_JOBS at a time: most of a bats file's time is spent waiting on
# the simulator's FUSE round trips, not on the CPU. Each bats file is a part of
# its own (bats/FILE, sim/FILE, asan/FILE), so its output shows in one piece
# when it ends; a table of every part's duration closes the run, failed or not
# (tests/lib/check-part, tests/lib/check-summary; the logs stay in CHECK_LOG).
# make check-quick: the edit loop's part of it: unit tests, the fuzz corpora
# replayed and tsmctl's bats files against the normal build.
CHECK_JOBS ?= 6
CHECK_BUILD_JOBS ?= 2
CHECK_LOG := $(BUILDDIR)/build-check
# $(call CHECK_RUN,PARTS): run the PARTS, then the table, whatever happened.
define CHECK_RUN
	@rm -rf $(CHECK_LOG) && mkdir -p $(CHECK_LOG)
	@CHECK_PARTS="$(strip $(1))" $(MAKE) --no-print-directory -k -j$(CHECK_JOBS) check-run; rc=$$?; \
		tests/lib/check-summary $(CHECK_LOG) "make $@" "$(strip $(1))" || rc=1; exit $$rc
endef
check: $(BUILDDIR)/.deps-test
	$(call CHECK_RUN,$(CHECK_ALL))

check-quick: $(BUILDDIR)/.deps-test
	$(call CHECK_RUN,$(CHECK_QUICK))

# The second build of make check: sanitizers in a directory of its own.
# The runtimes are linked in: as shared libraries they cost each of the pass's
# ~12,000 runs a third more CPU (symbol binding, and LeakSanitizer scanning
# libubsan's 6 MB of globals at every exit).
ASAN_DIR := build-asan
ASAN_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	-static-libasan -static-libubsan

# A part's recipe runs a make of its own (not $(MAKE): under make -n, as
# tests/install.bats runs it, a part is shown, never run), with its own -j.
PART_MAKE = env MAKEFLAGS="$(filter-out -j% --jobserver%,$(MAKEFLAGS))" $(MAKE) --no-print-directory
PART = @tests/lib/check-part $(CHECK_LOG)
PART_DONE = $(CHECK_LOG)/$(1).time
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
UNIT_BINS = $(addprefix $(BUILDDIR)/test-,$(UNIT_TESTS))
# Documents that validated, shared by the two passes (tests/lib/check-json):
# both builds print the same documents, so the second pass need not validate them again.
JSON_MEMO = TSMCTL_JSON_VERDICTS=$(abspath $(CHECK_LOG))/json-verdicts
ASAN_UNIT_BINS := $(addprefix $(ASAN_DIR)/test-,$(UNIT_TESTS))

# The bats files that take longest, started first so that none of them
# starts last (only a schedule: the other files follow in any order).
CHECK_FIRST := ansible hostile schema connect dist gen-large disconnect devices evidence audit gen-shapes
MAIN_BATS := $(basename $(notdir $(wildcard tests/*.bats)))
SIM_BATS := $(basename $(notdir $(wildcard tests/sim/test/*.bats)))
# The ASan pass leaves out the files that never run TSMCTL (they build,
# install and package from the tree): they would check the same thing twice.
# So too the collection's and the rules' (Ansible, promtool and the servers
# would run twice): the tsmctl commands they run are the connect, tdisp,
# audit, evidence and metrics files', which the pass covers.
# collect's round trips run the read views over every topology, as schema.bats
# does in the pass; under ASan they alone would take half an hour.
ASAN_SKIP := dist install contrib ansible prometheus collect
ASAN_BATS := $(filter-out $(ASAN_SKIP),$(MAIN_BATS))

# The order is the schedule: the long files and the CPU-heavy parts first.
first_of = $(addprefix $(1)/,$(filter $(2),$(CHECK_FIRST)))
rest_of = $(addprefix $(1)/,$(filter-out $(CHECK_FIRST),$(2)))
CHECK_QUICK = build $(call first_of,bats,$(MAIN_BATS)) fuzz-replay $(call rest_of,bats,$(MAIN_BATS)) unit calls
CHECK_ALL = build kernel asan-build $(call first_of,asan,$(ASAN_BATS)) $(call first_of,bats,$(MAIN_BATS)) \
	package valgrind $(call first_of,sim,$(SIM_BATS)) fuzz-replay $(call rest_of,bats,$(MAIN_BATS)) \
	$(call rest_of,sim,$(SIM_BATS)) $(call rest_of,asan,$(ASAN_BATS)) unit asan-unit man abi-refs calls soak

check-run: $(foreach p,$(CHECK_PARTS),$(call PART_DONE,$(p)))

$(call PART_DONE,build):
	$(PART) build $(PART_MAKE) -j$(CHECK_BUILD_JOBS) all $(UNIT_BINS)
$(call PART_DONE,asan-build):
	$(PART) asan-build $(PART_MAKE) -j$(CHECK_BUILD_JOBS) BUILDDIR=$(ASAN_DIR) SAN="$(ASAN_SAN)" \
		CFLAGS="-O1 -g" $(ASAN_DIR)/tsmctl $(ASAN_UNIT_BINS)
$(call PART_DONE,kernel): $(call PART_DONE,build)
	$(PART) kernel $(PART_MAKE) check-kernel
$(call PART_DONE,unit): $(call PART_DONE,build)
	$(PART) unit $(PART_MAKE) unit
$(call PART_DONE,asan-unit): $(call PART_DONE,asan-build)
	$(PART) asan-unit sh -c 'for t in $(ASAN_UNIT_BINS); do echo "$$t"; $$t || exit 1; done'
$(call PART_DONE,fuzz-replay):
	$(PART) fuzz-replay $(PART_MAKE) -j$(CHECK_BUILD_JOBS) fuzz-replay
$(call PART_DONE,man): $(call PART_DONE,build)
	$(PART) man $(PART_MAKE) check-man
$(call PART_DONE,abi-refs):
	$(PART) abi-refs tests/lib/check-abi-refs
$(call PART_DONE,calls): $(call PART_DONE,build)
	$(PART) calls tests/lib/check-call-cycles $(BUILDDIR)/obj
$(call PART_DONE,soak): $(call PART_DONE,build)
	$(PART) soak $(PART_MAKE) soak SOAK_SECONDS=10 SOAK_DIGEST=state
$(call PART_DONE,valgrind): $(call PART_DONE,build)
	$(PART) valgrind tests/lib/valgrind-views $(abspath $(BUILDDIR)/tsmctl)
$(call PART_DONE,package): $(call PART_DONE,build)
	$(PART) package $(PART_MAKE) check-package
$(CHECK_LOG)/bats/%.time: $(call PART_DONE,build)
	$(PART) bats/$* env $(JSON_MEMO) TSMCTL=$(abspath $(BUILDDIR)/tsmctl) bats --tap --timing tests/$*.bats
$(CHECK_LOG)/sim/%.time: $(call PART_DONE,build)
	$(PART) sim/$* bats --tap --timing tests/sim/test/$*.bats
$(CHECK_LOG)/asan/%.time: $(call PART_DONE,build) $(call PART_DONE,asan-build)
	$(PART) asan/$* env $(ASAN_ENV) $(JSON_MEMO) TSMCTL=$(abspath $(ASAN_DIR)/tsmctl) bats --tap --timing tests/$*.bats

# make check-kernel: tsmctl's tests in QEMU on Debian's newest packaged Linux
# 7.x with the test TSM provider of tests/kernel/module, against the kernel's
# own sysfs (tests/kernel/run, README "Against the real kernel"). Downloads,
# the build chroot and the module are cached in KERNEL_CACHE. Where no kernel
# can boot (not root, no QEMU) it says so loudly and skips.
KERNEL_DEBS := qemu-system-x86 debootstrap busybox-static cpio kmod xz-utils
KERNEL_CACHE ?= $(BUILDDIR)/build-kernel/cache
$(BUILDDIR)/.deps-kernel: $(BUILDDIR)/.deps-test
	@if [ "$$(id -u)" -eq 0 ]; then $(NEED_PACKAGES) $(KERNEL_DEBS) && touch $@ || \
		echo "check-kernel: apt-get could not install $(KERNEL_DEBS)" >&2; fi
check-kernel: $(BUILDDIR)/.deps-kernel all
	@BUILDDIR=$(abspath $(BUILDDIR)) KERNEL_CACHE=$(abspath $(KERNEL_CACHE)) \
		TSMCTL=$(abspath $(BUILDDIR)/tsmctl) tests/kernel/run

# The read views once under valgrind: any error or definite leak fails.
check-valgrind: $(BUILDDIR)/tsmctl $(BUILDDIR)/.deps-test
	@tests/lib/valgrind-views $(abspath $(BUILDDIR)/tsmctl)

# make check-asan: make check's second build, with sanitizers in its own
# directory, its unit tests and tsmctl's bats files against it; any report fails.
check-asan: $(BUILDDIR)/.deps-test
	$(call CHECK_RUN,build asan-build asan-unit $(addprefix asan/,$(ASAN_BATS)))

# make check-stress [CHECK_STRESS_ROUNDS=N] [CHECK_STRESS_JOBS=N] [CHECK_STRESS_FILES="wait
# sim/mount-late soak"]: every bats file with a live mount or a background process, and
# the soak, each run N times (10), N at once (3), beside a load like make check's own: a
# CPU hog on every core and FUSE mounts coming and going (their uevents reach every
# namespace); how many runs of each failed (tests/lib/check-stress; logs in build-stress).
CHECK_STRESS_ROUNDS ?= 10
CHECK_STRESS_JOBS ?= 3
CHECK_STRESS_FILES ?=
check-stress: $(BUILDDIR)/.deps-test all
	@CHECK_STRESS_ROUNDS=$(CHECK_STRESS_ROUNDS) CHECK_STRESS_JOBS=$(CHECK_STRESS_JOBS) \
		CHECK_STRESS_FILES="$(CHECK_STRESS_FILES)" TSMCTL=$(abspath $(BUILDDIR)/tsmctl) \
		tests/lib/check-stress $(BUILDDIR)/build-stress

# make soak [SOAK_SECONDS=N] [SOAK_SEED=N] [TSMCTL=path]: concurrent connect,
# disconnect, lock, accept, unlock, readers, watch, module removal and injected
# faults on live mounts, invariants read from the tree (tests/soak/soak.py).
# The report names the seed; SOAK_SEED=N replays the same operation sequences.
# make soak-asan: the same against the ASan+UBSan build of check-asan.
SOAK_SECONDS ?= 60
SOAK_SEED ?=
SOAK_DIGEST ?= full
soak: $(BUILDDIR)/.deps-test all
	tests/soak/soak.py --tsmctl $(or $(TSMCTL),$(abspath $(BUILDDIR)/tsmctl)) \
		--seconds $(SOAK_SECONDS) --digest $(SOAK_DIGEST) $(if $(SOAK_SEED),--seed $(SOAK_SEED))

soak-asan: $(BUILDDIR)/.deps-test
	$(MAKE) BUILDDIR=$(ASAN_DIR) SAN="$(ASAN_SAN)" CFLAGS="-O1 -g" $(ASAN_DIR)/tsmctl
	$(ASAN_ENV) $(MAKE) soak TSMCTL=$(abspath $(ASAN_DIR)/tsmctl)

# Figures, not pass/fail: see bench/RESULTS.md for the last run.
bench: $(BUILDDIR)/.deps-test all
	@tests/lib/need-packages time bc strace
	@TSMCTL=$(abspath $(BUILDDIR)/tsmctl) bench/run

demo: $(BUILDDIR)/.deps-test all
	@tests/lib/demo $(abspath $(BUILDDIR)/tsmctl)

# The collection tsmctl.tsm (contrib/ansible) and the Prometheus rules.
ANSIBLE_TSM_DIR = $(ANSIBLECOLLDIR)/ansible_collections/tsmctl/tsm
CONTRIB_UNITS := tsmctl-autoconnect.service tsmctl-audit.service tsmctl-audit.timer \
	tsmctl-metrics.service tsmctl-metrics.timer
define INSTALL_CONTRIB
	install -D -m 0755 contrib/tsmctl-autoconnect $(DESTDIR)$(LIBEXECDIR)/tsmctl-autoconnect
	install -D -m 0755 contrib/tsmctl-collect $(DESTDIR)$(BINDIR)/tsmctl-collect
	for u in $(CONTRIB_UNITS); do \
		mkdir -p $(DESTDIR)$(UNITDIR); \
		sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' contrib/$$u \
			> $(DESTDIR)$(UNITDIR)/$$u; chmod 0644 $(DESTDIR)$(UNITDIR)/$$u; \
	done
	install -D -m 0644 contrib/90-tsmctl.rules $(DESTDIR)$(UDEVRULESDIR)/90-tsmctl.rules
	cd contrib/ansible && find . -type f ! -path '*/__pycache__/*' ! -name '*.pyc' | sort | \
		while read -r f; do install -D -m 0644 "$$f" "$(DESTDIR)$(ANSIBLE_TSM_DIR)/$$f" || exit 1; done
	install -D -m 0644 contrib/prometheus/tsmctl.rules.yml $(DESTDIR)$(PROMRULESDIR)/tsmctl.rules.yml
	test -e $(DESTDIR)$(SYSCONFDIR)/tsmctl/connect.conf || \
		install -D -m 0644 contrib/connect.conf $(DESTDIR)$(SYSCONFDIR)/tsmctl/connect.conf
endef
# connect.conf goes only while it is the sample as shipped: an edited one is the admin's.
define UNINSTALL_CONTRIB
	rm -f $(DESTDIR)$(LIBEXECDIR)/tsmctl-autoconnect $(DESTDIR)$(UDEVRULESDIR)/90-tsmctl.rules
	rm -rf $(DESTDIR)$(ANSIBLE_TSM_DIR)
	rmdir $(DESTDIR)$(ANSIBLECOLLDIR)/ansible_collections/tsmctl 2>/dev/null || true
	rm -f $(DESTDIR)$(PROMRULESDIR)/tsmctl.rules.yml
	rmdir $(DESTDIR)$(PROMRULESDIR) $(DESTDIR)$(DATADIR)/tsmctl 2>/dev/null || true
	rm -f $(DESTDIR)$(BINDIR)/tsmctl-collect
	for u in $(CONTRIB_UNITS); do rm -f $(DESTDIR)$(UNITDIR)/$$u; done
	if cmp -s contrib/connect.conf $(DESTDIR)$(SYSCONFDIR)/tsmctl/connect.conf; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/tsmctl/connect.conf; \
		rmdir $(DESTDIR)$(SYSCONFDIR)/tsmctl 2>/dev/null || true; \
	fi
endef

install: $(BUILDDIR)/tsmctl man
	install -D -m 0755 $(BUILDDIR)/tsmctl $(DESTDIR)$(BINDIR)/tsmctl
	for p in $(MAN_PAGES); do install -D -m 0644 $$p $(DESTDIR)$(MANDIR)/man8/$$(basename $$p); done
	install -D -m 0644 completions/tsmctl.bash $(DESTDIR)$(BASHCOMPDIR)/tsmctl
	install -D -m 0644 completions/_tsmctl $(DESTDIR)$(ZSHCOMPDIR)/_tsmctl
	for s in $(SCHEMAS); do install -D -m 0644 $$s $(DESTDIR)$(SCHEMADIR)/$$(basename $$s); done
	$(INSTALL_CONTRIB)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tsmctl $(DESTDIR)$(BASHCOMPDIR)/tsmctl $(DESTDIR)$(ZSHCOMPDIR)/_tsmctl
	for p in $(MAN_PAGES); do rm -f $(DESTDIR)$(MANDIR)/man8/$$(basename $$p); done
	for s in $(SCHEMAS); do rm -f $(DESTDIR)$(SCHEMADIR)/$$(basename $$s); done
	rmdir $(DESTDIR)$(SCHEMADIR) $(DESTDIR)$(DATADIR)/tsmctl 2>/dev/null || true
	$(UNINSTALL_CONTRIB)

clean:
	rm -rf obj man/*.8 tsmctl $(addprefix test-,$(UNIT_TESTS)) build-fuzz .deps-build .deps-test .version \
		$(ASAN_DIR) build-bench $(DIST_NAME).tar.xz build-deb
	$(MAKE) -C tests/sim clean

# make dist: tsmctl-X.Y.Z.tar.xz of the files git tracks, as the work tree has
# them; sorted, owned by root, dated by the last commit, so the same tree
# gives the same bytes. It builds and passes make check without git.
# make distcheck: that tarball unpacked outside the checkout, then make check there.
DIST_NAME := tsmctl-$(VERSION)
DISTDIR ?= .
dist:
	@test -e .git || { echo "make dist: needs a git checkout (this tree has no .git)" >&2; exit 1; }
	@mkdir -p $(DISTDIR)
	git ls-files -z | tar --null -T - --transform='flags=r;s|^|$(DIST_NAME)/|' \
		--owner=0 --group=0 --numeric-owner --mode=u+w,go-w \
		--mtime=@$$(git log -1 --format=%ct) -cf - | xz -T1 -6 > $(DISTDIR)/$(DIST_NAME).tar.xz
	@echo "make dist: $(DISTDIR)/$(DIST_NAME).tar.xz"

version:
	@echo $(VERSION)

# make check-package: make deb and rpmbuild of contrib/tsmctl.spec, each checked
# against make install (tests/package); as root their tools are installed first,
# otherwise what is missing is skipped. make check runs it.
PACKAGE_DEBS := dpkg-dev debhelper lintian rpm
check-package: $(BUILDDIR)/.deps-test
	@if [ "$$(id -u)" -eq 0 ]; then $(NEED_PACKAGES) $(PACKAGE_DEBS); fi
	TSMCTL=$(abspath $(BUILDDIR)/tsmctl) bats --tap tests/package

# make deb: the Debian package, built the way Debian builds one: contrib/debian
# as debian/ in an unpacked make-dist tarball (from an unpacked tarball: a copy
# of this tree), dpkg-buildpackage -b -us -uc there; the .deb lands in DEBDIR.
DEBDIR ?= build-deb
deb:
	rm -rf $(DEBDIR) && mkdir -p $(DEBDIR)
	if [ -e .git ]; then \
		$(MAKE) -s dist DISTDIR=$(DEBDIR) && tar -C $(DEBDIR) -xJf $(DEBDIR)/$(DIST_NAME).tar.xz; \
	else \
		mkdir $(DEBDIR)/$(DIST_NAME) && tar --exclude=./$(DEBDIR) -cf - . | tar -C $(DEBDIR)/$(DIST_NAME) -xf -; \
	fi
	cp -a contrib/debian $(DEBDIR)/$(DIST_NAME)/debian
	# a clean environment: our command-line variables must not reach debian/rules' make
	cd $(DEBDIR)/$(DIST_NAME) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dpkg-buildpackage -b -us -uc

distcheck: dist
	d=$$(mktemp -d) && tar -C $$d -xJf $(DISTDIR)/$(DIST_NAME).tar.xz && \
		$(MAKE) -C $$d/$(DIST_NAME) check && rm -rf $$d


# fuzzing
# make fuzz [FUZZ_SECONDS=N]: build the libFuzzer targets of tests/fuzz/ into
# build-fuzz/ (clang, ASan+UBSan) and run each N seconds on a copy of its corpus.
# A target NAME is tests/fuzz/fuzz-NAME.c with the sources FUZZ_SRCS_NAME
# (headers listed there are dependencies only) and the libraries FUZZ_LIBS_NAME;
# FUZZ_CPPFLAGS_NAME, when set, replaces FUZZ_CPPFLAGS (tsmctl's own).
FUZZ_SECONDS ?= 30
FUZZ_CC ?= clang
FUZZ_DIR := build-fuzz
FUZZ_TARGETS := ide capwalk names jsstr topology spdm-cert spdm-vca spdm-meas spdm-transcript \
	tdisp-report evreply uevent evdevice
FUZZ_SAN := -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -std=gnu11
FUZZ_CPPFLAGS := -D_GNU_SOURCE -Iinclude
FUZZ_SRCS_ide := src/ide.c tests/fuzz/cfg-check.h tests/fuzz/cfg-ranged.h
FUZZ_SRCS_capwalk := $(FUZZ_SRCS_ide)
FUZZ_SRCS_names := src/names.c
FUZZ_SRCS_jsstr := src/output.c src/util.c
FUZZ_CPPFLAGS_jsstr = $(FUZZ_CPPFLAGS) $(shell pkg-config --cflags json-c smartcols)
FUZZ_LIBS_jsstr = $(shell pkg-config --libs json-c smartcols)
FUZZ_SRCS_evreply := src/evidence/fetch/evidence-reply.c src/util.c
FUZZ_LIBS_evreply = $(shell pkg-config --libs libmnl)
FUZZ_SRCS_uevent := src/uevent-parse.c
FUZZ_SRCS_evdevice := src/evidence/fetch/evidence-device.c
# The simulator's topology loader: every simulator object but sim-main.c, with
# the simulator's flags (its sources define _GNU_SOURCE themselves).
FUZZ_SRCS_topology := $(filter-out tests/sim/src/sim-main.c,$(wildcard tests/sim/src/*.c)) \
	$(wildcard tests/sim/src/*.h)
FUZZ_CPPFLAGS_topology = -D_FILE_OFFSET_BITS=64 -Itests/sim/src $(shell pkg-config --cflags json-c fuse3 libcrypto)
FUZZ_LIBS_topology = $(shell pkg-config --libs json-c fuse3 libcrypto) -lpthread
# The evidence decoders (ABI.md §1.7): src/evidence/decode/NAME.c and what they share.
EV_FUZZ := spdm-cert spdm-vca spdm-meas tdisp-report
$(foreach t,$(EV_FUZZ),$(eval FUZZ_SRCS_$(t) := src/evidence/decode/$(t).c src/evidence/decode/ev-decode.c src/evidence/decode/spdm-alg.c))
$(foreach t,$(EV_FUZZ),$(eval FUZZ_LIBS_$(t) = $$(shell pkg-config --libs libcrypto)))
# The measurements' framing, L1 and its signature: the decoders they stand on too.
FUZZ_SRCS_spdm-transcript := src/evidence/decode/spdm-transcript.c src/evidence/decode/spdm-sig.c src/evidence/decode/spdm-meas.c src/evidence/decode/spdm-vca.c \
	src/evidence/decode/ev-decode.c src/evidence/decode/spdm-alg.c
FUZZ_LIBS_spdm-transcript = $(shell pkg-config --libs libcrypto)

$(FUZZ_DIR)/fuzz-%: tests/fuzz/fuzz-%.c $$(FUZZ_SRCS_$$*) tests/fuzz/fuzz-assert.h $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_SAN) $(or $(FUZZ_CPPFLAGS_$*),$(FUZZ_CPPFLAGS)) -o $@ $(filter %.c,$^) $(FUZZ_LIBS_$*)

fuzz: $(addprefix $(FUZZ_DIR)/fuzz-,$(FUZZ_TARGETS))
	tests/fuzz/run $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# make fuzz-replay: each target once over every seed of its corpus, without
# fuzzing (libFuzzer runs the files named and stops): a seed that crashes or
# fails a target's checks fails. make check and check-quick run it.
fuzz-replay: $(addprefix $(FUZZ_DIR)/fuzz-,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
		$(FUZZ_DIR)/fuzz-$$t tests/fuzz/corpus/$$t/* >$(FUZZ_DIR)/replay-$$t.log 2>&1 || \
			{ cat $(FUZZ_DIR)/replay-$$t.log; echo "fuzz-replay: $$t failed"; exit 1; }; \
		echo "fuzz-replay: $$t: $$(ls tests/fuzz/corpus/$$t | wc -l) seeds"; \
	done

# Every goal that names no file: the one list (after UNIT_RUNS is defined).
.PHONY: all deps need-libs need-scdoc need-fuse sim man unit $(UNIT_RUNS) \
	check check-quick check-run check-kernel check-stress check-man check-abi-refs check-calls check-valgrind check-asan check-package \
	soak soak-asan bench demo install uninstall clean dist distcheck version deb \
	fuzz fuzz-replay FORCE
