// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kobject uevent parser (src/uevent-parse.c) on messages written here
 * as the kernel sends them (lib/kobject_uevent.c: "ACTION@DEVPATH\0" then
 * "KEY=VALUE\0" fields) and as it never does: empty, truncated, without a
 * terminating NUL, over UEVENT_MSG_MAX, without keys, with libudev's header,
 * a forged header or ACTION=/DEVPATH= that contradict it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tsmctl/uevent.h"
#include "tsmctl/util.h"
#include "unit.h"

static char msg[UEVENT_MSG_MAX + 1];
static struct uevent ev;

/* A literal's bytes without the compiler's own final NUL: the embedded ones are the message's. */
#define PARSE(lit) uevent_parse(lit, sizeof(lit) - 1, msg, &ev)

#define TSM_ADD "add@/devices/virtual/tsm/tsm0\0ACTION=add\0DEVPATH=/devices/virtual/tsm/tsm0\0" \
	"SUBSYSTEM=tsm\0SEQNUM=1234\0"

/* The pointers lie in MSG, inside the LEN bytes copied (and its terminator). */
static int inside(const char *p, size_t len)
{
	return p >= msg && p <= msg + len;
}

static void test_well_formed(void)
{
	CHECK(PARSE(TSM_ADD) == 0);
	CHECK(streq(ev.action, "add"));
	CHECK(streq(ev.devpath, "/devices/virtual/tsm/tsm0"));
	CHECK(streq(ev.subsystem, "tsm"));
	CHECK(!ev.synthetic);
	CHECK(inside(ev.action, sizeof(TSM_ADD) - 1) && inside(ev.devpath, sizeof(TSM_ADD) - 1) &&
	      inside(ev.subsystem, sizeof(TSM_ADD) - 1));

	/* a write to the object's uevent file: kobject_synth_uevent() adds SYNTH_UUID= */
	CHECK(PARSE("add@/devices/virtual/tsm/tsm0\0SUBSYSTEM=tsm\0SYNTH_UUID=0\0") == 0);
	CHECK(ev.synthetic);
	CHECK(streq(ev.subsystem, "tsm"));

	/* the header alone is a message; an empty field (two NULs) is skipped */
	CHECK(PARSE("change@/devices/x\0") == 0);
	CHECK(streq(ev.action, "change") && streq(ev.devpath, "/devices/x"));
	CHECK(PARSE("remove@/d\0\0\0SUBSYSTEM=pci\0") == 0);
	CHECK(streq(ev.action, "remove") && streq(ev.subsystem, "pci"));

	/* a value may hold '=' and '@'; the first '=' ends the key */
	CHECK(PARSE("add@/d\0SUBSYSTEM=a=b@c\0") == 0);
	CHECK(streq(ev.subsystem, "a=b@c"));
	/* the last SUBSYSTEM= counts */
	CHECK(PARSE("add@/d\0SUBSYSTEM=pci\0SUBSYSTEM=tsm\0") == 0);
	CHECK(streq(ev.subsystem, "tsm"));
}

static void test_missing_keys(void)
{
	CHECK(PARSE("add@/devices/x\0SEQNUM=1\0") == 0);
	CHECK(ev.subsystem == NULL);
	CHECK(!ev.synthetic);
	/* a field without '=' is not a uevent field */
	CHECK(PARSE("add@/devices/x\0SUBSYSTEM\0") == -EINVAL);
	CHECK(PARSE("add@/devices/x\0SUBSYSTEM=tsm\0garbage\0") == -EINVAL);
	/* an empty value is a value */
	CHECK(PARSE("add@/devices/x\0SUBSYSTEM=\0") == 0);
	CHECK(streq(ev.subsystem, ""));
}

static void test_truncated(void)
{
	static const char full[] = TSM_ADD;

	CHECK(uevent_parse(full, 0, msg, &ev) == -EINVAL);
	/* cut inside the header: no NUL ends it within the bytes received */
	CHECK(uevent_parse(full, 3, msg, &ev) == -EINVAL);
	CHECK(uevent_parse(full, 4, msg, &ev) == -EINVAL);	/* "add@" */
	CHECK(uevent_parse(full, strlen(full), msg, &ev) == -EINVAL);
	/* cut inside a field: what arrived is parsed, nothing past LEN is read */
	CHECK(uevent_parse(full, strlen(full) + 1 + strlen("ACTION=ad"), msg, &ev) == -EINVAL);
	CHECK(uevent_parse(full, strlen(full) + 1 + strlen("ACT"), msg, &ev) == -EINVAL);
	CHECK(uevent_parse(full, sizeof(full) - 1 - strlen("34") - 1, msg, &ev) == 0);	/* SEQNUM=12 */
	CHECK(streq(ev.subsystem, "tsm"));
}

static void test_not_terminated(void)
{
	/* the buffer's bytes past LEN are not NUL: the copy ends the last field at LEN */
	static const char tail[] = "add@/d\0SUBSYSTEM=tsmXXXXXXXX";
	size_t len = sizeof("add@/d\0SUBSYSTEM=tsm") - 1;

	CHECK(uevent_parse(tail, len, msg, &ev) == 0);
	CHECK(streq(ev.subsystem, "tsm"));
	CHECK(msg[len] == '\0');
	/* a header with no NUL at all */
	CHECK(PARSE("add@/devices/virtual/tsm/tsm0") == -EINVAL);
}

static void test_oversize(void)
{
	static char big[UEVENT_MSG_MAX + 2];
	size_t head = sizeof("add@/d\0SUBSYSTEM=tsm\0") - 1;

	/* the largest message taken: header, SUBSYSTEM=, one field filling the rest */
	memcpy(big, "add@/d\0SUBSYSTEM=tsm\0", head);
	memset(big + head, 'A', sizeof(big) - head);
	memcpy(big + head, "PAD=", 4);
	CHECK(uevent_parse(big, UEVENT_MSG_MAX, msg, &ev) == 0);
	CHECK(streq(ev.subsystem, "tsm"));
	CHECK(msg[UEVENT_MSG_MAX] == '\0');
	/* one byte more is refused before anything is copied */
	memset(msg, 'Z', sizeof(msg));
	CHECK(uevent_parse(big, UEVENT_MSG_MAX + 1, msg, &ev) == -EINVAL);
	CHECK(msg[0] == 'Z');
	CHECK(!ev.action && !ev.devpath && !ev.subsystem && !ev.synthetic);
}

static void test_odd_headers(void)
{
	/* libudev's re-sent events on group 2 begin "libudev\0" with a binary header */
	CHECK(PARSE("libudev\0\xfe\xed\xca\xfe" "ACTION=add\0SUBSYSTEM=tsm\0") == -EINVAL);
	CHECK(PARSE("@/devices/x\0SUBSYSTEM=tsm\0") == -EINVAL);	/* no action */
	CHECK(PARSE("add@\0SUBSYSTEM=tsm\0") == -EINVAL);		/* no devpath */
	CHECK(PARSE("add@devices/x\0SUBSYSTEM=tsm\0") == -EINVAL);	/* not absolute */
	CHECK(PARSE("add/devices/x\0SUBSYSTEM=tsm\0") == -EINVAL);	/* no '@' */
	/* the '@' must be in the header, not in a later field */
	CHECK(PARSE("add\0@/devices/x\0SUBSYSTEM=tsm\0") == -EINVAL);
	/* a second '@' belongs to the devpath */
	CHECK(PARSE("add@/a@b\0") == 0);
	CHECK(streq(ev.action, "add") && streq(ev.devpath, "/a@b"));
}

static void test_forged_keys(void)
{
	/* ACTION= and DEVPATH= that contradict the header: not the kernel's */
	CHECK(PARSE("add@/devices/virtual/tsm/tsm0\0ACTION=remove\0SUBSYSTEM=tsm\0") == -EINVAL);
	CHECK(PARSE("add@/devices/virtual/tsm/tsm0\0DEVPATH=/devices/virtual/tsm/tsm1\0") == -EINVAL);
	CHECK(PARSE("add@/devices/virtual/tsm/tsm0\0ACTION=\0") == -EINVAL);
	CHECK(PARSE("add@/devices/virtual/tsm/tsm0\0DEVPATH=/devices/virtual/tsm/tsm0/\0") == -EINVAL);
	/* keys that only begin like them are other keys */
	CHECK(PARSE("add@/d\0ACTIONS=x\0DEVPATHS=y\0SUBSYSTEMS=z\0") == 0);
	CHECK(ev.subsystem == NULL);
}

int main(void)
{
	test_well_formed();
	test_missing_keys();
	test_truncated();
	test_not_terminated();
	test_oversize();
	test_odd_headers();
	test_forged_keys();
	return unit_report();
}
