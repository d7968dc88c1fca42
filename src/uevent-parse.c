// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kobject uevent message parser (ABI.md §1.1): untrusted netlink bytes
 * in, pointers into a terminated copy out; pure, so the unit test and the
 * fuzz target take it alone.
 */
#include <errno.h>
#include <string.h>

#include "tsmctl/uevent.h"
#include "tsmctl/util.h"

int uevent_parse(const char *buf, size_t len, char msg[UEVENT_MSG_MAX + 1], struct uevent *ev)
{
	const char *p, *end, *at;

	memset(ev, 0, sizeof(*ev));
	if (!len || len > UEVENT_MSG_MAX)
		return -EINVAL;
	memcpy(msg, buf, len);
	msg[len] = '\0';
	end = msg + len;
	/* header "ACTION@DEVPATH": libudev's "libudev\0..." and anything else fail here */
	at = strchr(msg, '@');
	if (!at || at == msg || at[1] != '/' || strlen(msg) >= len)
		return -EINVAL;
	msg[at - msg] = '\0';
	ev->action = msg;
	ev->devpath = at + 1;
	for (p = ev->devpath + strlen(ev->devpath) + 1; p < end; p += strlen(p) + 1) {
		const char *eq = strchr(p, '=');

		if (!*p)
			continue;
		if (!eq)
			return -EINVAL;
		if (startswith(p, "SUBSYSTEM="))
			ev->subsystem = eq + 1;
		else if (startswith(p, "SYNTH_UUID="))
			ev->synthetic = true;	/* lib/kobject_uevent.c kobject_synth_uevent() */
		else if ((startswith(p, "ACTION=") && !streq(eq + 1, ev->action)) ||
			 (startswith(p, "DEVPATH=") && !streq(eq + 1, ev->devpath)))
			return -EINVAL;
	}
	return 0;
}
