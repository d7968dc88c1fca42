// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the input is the bytes of a config file, handed to
 * pci_cfg_decode() as-is (the decoder caps it at 4096 bytes), then cut to
 * the lengths a reader really gets (64 bytes non-root, 256 conventional).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfg-check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A prefix in its own exact-size allocation, so ASan sees any read past it. */
static void decode_prefix(const uint8_t *data, size_t size, size_t cut)
{
	uint8_t *copy;

	if (size <= cut)
		return;
	copy = malloc(cut);
	if (!copy)
		return;
	memcpy(copy, data, cut);
	decode_and_check(copy, cut);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	decode_and_check(data, size);
	decode_prefix(data, size, PCI_CFG_HDR_SIZE);
	decode_prefix(data, size, PCI_CFG_SIZE);
	return 0;
}
