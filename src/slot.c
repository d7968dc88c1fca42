// SPDX-License-Identifier: GPL-2.0-or-later
/* A slot named as a verb's target: its DSM (function 0), or each of its functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsmctl/abi-paths.h"
#include "tsmctl/slot.h"
#include "tsmctl/sysfs.h"
#include "tsmctl/util.h"

size_t slot_targets(const char *cmd, const char *arg, const char *slot, bool dsm_only,
		    char out[SLOT_MAX_FUNCS][BDF_MAX])
{
	struct strbuf list = STRBUF_INIT;
	size_t n = 0;
	char *text;

	for (unsigned int fn = 0; fn < (dsm_only ? 1 : SLOT_MAX_FUNCS); fn++) {
		/* "DDDD:BB:DD.*" -> "DDDD:BB:DD.F" */
		snprintf(out[n], BDF_MAX, "%.*s%u", (int)strlen(slot) - 1, slot, fn);
		if (dsm_only || sysfs_attr_exists(PCI_DEVICES, out[n]))
			strbuf_join(&list, " ", "%s", out[n++]);
	}
	if (!n)	/* none there: function 0, which the caller reports missing */
		snprintf(out[n++], BDF_MAX, "%.*s0", (int)strlen(slot) - 1, slot);
	text = strbuf_take(&list);
	if (*text)
		cmd_note(cmd, "%s is a slot: %s %s", arg, dsm_only ?
			 "its DSM is function 0," : n == 1 ? "its function" : "each of its functions,",
			 text);
	free(text);
	return n;
}
