// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the capability walks. The input does not spend its
 * bytes on the header: byte 0 picks the header layout (type 0, 1 or 2) and
 * byte 1 is the capability pointer; the rest is config space from 0x40 on.
 * Vendor ID and the status capability-list bit are always set, so every
 * input reaches the standard and extended chains.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfg-check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t body, len;
	uint8_t *cfg;

	if (size < 2)
		return 0;
	body = size - 2;
	if (body > PCI_CFG_EXP_SIZE - PCI_CFG_HDR_SIZE)
		body = PCI_CFG_EXP_SIZE - PCI_CFG_HDR_SIZE;
	len = PCI_CFG_HDR_SIZE + body;
	cfg = calloc(1, len);	/* exact size: ASan flags any read past it */
	if (!cfg)
		return 0;
	cfg[0x00] = 0x34;	/* vendor 0x1234 */
	cfg[0x01] = 0x12;
	cfg[0x06] = 0x10;	/* status: capability list */
	cfg[0x0e] = (uint8_t)(data[0] % 3 | (data[0] & 0x80));	/* layout, multi-function bit */
	cfg[(data[0] % 3) == 2 ? 0x14 : 0x34] = data[1];
	memcpy(cfg + PCI_CFG_HDR_SIZE, data + 2, body);
	decode_and_check(cfg, len);
	free(cfg);
	return 0;
}
