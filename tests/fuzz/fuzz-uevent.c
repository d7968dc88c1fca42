// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the kobject uevent parser (src/uevent-parse.c). The
 * input is one netlink datagram as the socket hands it over. Beyond
 * crashes: the result is 0 or -EINVAL, nothing over UEVENT_MSG_MAX is
 * taken, a success's header is the input's "ACTION@/DEVPATH" up to its
 * first NUL, every pointer lies in the copy, SUBSYSTEM= and SYNTH_UUID=
 * come from the input, and parsing twice gives the same result.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/uevent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#include "fuzz-assert.h"

static char msg[UEVENT_MSG_MAX + 1], again[UEVENT_MSG_MAX + 1];

static int in_msg(const char *p, size_t size)
{
	return p >= msg && p <= msg + size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct uevent ev, ev2;
	size_t alen;
	int rc = uevent_parse(buf, size, msg, &ev);

	FUZZ_ASSERT(rc == 0 || rc == -EINVAL);
	FUZZ_ASSERT(uevent_parse(buf, size, again, &ev2) == rc);
	if (!size || size > UEVENT_MSG_MAX)
		FUZZ_ASSERT(rc == -EINVAL);
	if (rc)
		return 0;
	/* the header: a non-empty action, '@', an absolute devpath, a NUL inside the input */
	alen = strlen(ev.action);
	FUZZ_ASSERT(ev.action == msg && alen > 0 && !memchr(ev.action, '@', alen));
	FUZZ_ASSERT(ev.devpath == msg + alen + 1 && ev.devpath[0] == '/');
	FUZZ_ASSERT(memcmp(buf, ev.action, alen) == 0 && buf[alen] == '@');
	FUZZ_ASSERT(alen + 1 + strlen(ev.devpath) < size && buf[alen + 1 + strlen(ev.devpath)] == '\0');
	FUZZ_ASSERT(memcmp(buf + alen + 1, ev.devpath, strlen(ev.devpath)) == 0);
	FUZZ_ASSERT(msg[size] == '\0');
	if (ev.subsystem) {
		size_t off = (size_t)(ev.subsystem - msg);

		FUZZ_ASSERT(in_msg(ev.subsystem, size) && off >= strlen("SUBSYSTEM="));
		FUZZ_ASSERT(memcmp(buf + off - strlen("SUBSYSTEM="), "SUBSYSTEM=", strlen("SUBSYSTEM=")) == 0);
		FUZZ_ASSERT(off - strlen("SUBSYSTEM=") > alen + strlen(ev.devpath));
	}
	if (ev.synthetic)
		FUZZ_ASSERT(memmem(buf, size, "SYNTH_UUID=", strlen("SYNTH_UUID=")) != NULL);
	/* the same twice */
	FUZZ_ASSERT(!ev.subsystem == !ev2.subsystem && ev.synthetic == ev2.synthetic);
	FUZZ_ASSERT(!ev.subsystem || !strcmp(ev.subsystem, ev2.subsystem));
	FUZZ_ASSERT(!strcmp(ev.action, ev2.action) && !strcmp(ev.devpath, ev2.devpath));
	return 0;
}
