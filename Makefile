# tsmctl — build, test, install.
#
#   make            build ./tsmctl and the simulator
#   make demo       tsmctl against a simulated SEV-TIO host
#   make check      the whole test suite, then again under ASan+UBSan
#
# Missing build or test packages are installed with apt-get when run as root
# (Debian 12), otherwise the exact command to run is printed.

VERSION_BASE := 0.1
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo $(VERSION_BASE))

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

CC ?= cc
BUILDDIR ?= .
PKGS := libpci libkmod json-c smartcols
CFLAGS ?= -O2 -g
TSM_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-D_GNU_SOURCE -Iinclude -DTSMCTL_VERSION='"$(VERSION)"' $(SAN)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

SRCS := $(wildcard src/*.c)
OBJS := $(patsubst src/%.c,$(BUILDDIR)/obj/%.o,$(SRCS))
HDRS := $(wildcard include/tsmctl/*.h)

BUILD_DEBS := gcc make pkg-config libpci-dev libkmod-dev libjson-c-dev libsmartcols-dev \
	libfuse3-dev pciutils
TEST_DEBS := bats jq fuse3 xz-utils util-linux valgrind strace
DEPS_STAMP := $(BUILDDIR)/.deps-build

all: $(BUILDDIR)/tsmctl sim

$(DEPS_STAMP):
	@tests/lib/need-packages $(BUILD_DEBS)
	@mkdir -p $(BUILDDIR) && touch $@

$(BUILDDIR)/.deps-test: $(DEPS_STAMP)
	@tests/lib/need-packages $(TEST_DEBS)
	@touch $@

$(BUILDDIR)/obj/%.o: src/%.c $(HDRS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TSM_CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(BUILDDIR)/tsmctl: $(OBJS)
	$(CC) $(CFLAGS) $(TSM_CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(PKG_LIBS) $(LDLIBS)

$(BUILDDIR)/test-ide: src/ide.c tests/unit/test-ide.c include/tsmctl/ide.h | $(DEPS_STAMP)
	$(CC) $(CFLAGS) $(TSM_CFLAGS) -o $@ src/ide.c tests/unit/test-ide.c

sim: | $(DEPS_STAMP)
	$(MAKE) -C tests/sim

unit: $(BUILDDIR)/test-ide
	$(BUILDDIR)/test-ide

# The suite: decoder unit tests, the simulator's own tests, then tsmctl's.
check: all $(BUILDDIR)/.deps-test unit
	$(MAKE) -C tests/sim check
	TSMCTL=$(abspath $(BUILDDIR)/tsmctl) bats --tap tests
	$(MAKE) check-valgrind
	$(MAKE) check-asan

# The read views once under valgrind: any error or definite leak fails.
check-valgrind: $(BUILDDIR)/tsmctl $(BUILDDIR)/.deps-test
	@tests/lib/valgrind-views $(abspath $(BUILDDIR)/tsmctl)

# A second build with sanitizers in its own directory; any report fails the run.
ASAN_DIR := build-asan
check-asan: $(BUILDDIR)/.deps-test
	$(MAKE) BUILDDIR=$(ASAN_DIR) SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		CFLAGS="-O1 -g" $(ASAN_DIR)/tsmctl $(ASAN_DIR)/test-ide
	$(ASAN_DIR)/test-ide
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		TSMCTL=$(abspath $(ASAN_DIR)/tsmctl) bats --tap tests

demo: all $(BUILDDIR)/.deps-test
	@tests/lib/demo $(abspath $(BUILDDIR)/tsmctl)

clean:
	rm -rf obj tsmctl test-ide .deps-build .deps-test $(ASAN_DIR)
	$(MAKE) -C tests/sim clean

.PHONY: all sim unit check check-valgrind check-asan demo clean
