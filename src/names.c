// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tsmctl/names.h"

/* Parse exactly LEN..MAXLEN hex digits from *s into *v, advancing *s. */
static int hex_field(const char **s, size_t minlen, size_t maxlen, unsigned int *v)
{
	size_t n = 0;
	unsigned long long acc = 0;

	while (isxdigit((unsigned char)(*s)[n]) && n < maxlen + 1) {
		char c = (char)tolower((unsigned char)(*s)[n]);

		acc = acc * 16 + (unsigned int)(isdigit((unsigned char)c) ? c - '0' : c - 'a' + 10);
		n++;
	}
	if (n < minlen || n > maxlen)
		return -EINVAL;
	*v = (unsigned int)acc;
	*s += n;
	return 0;
}

int bdf_parse(const char *s, struct bdf *out)
{
	const char *colon1 = strchr(s, ':');
	const char *colon2 = colon1 ? strchr(colon1 + 1, ':') : NULL;
	struct bdf b = { 0 };
	const char *p = s;

	if (!colon1)
		return -EINVAL;
	if (colon2) {
		if (hex_field(&p, 1, 8, &b.domain) || *p++ != ':')
			return -EINVAL;
	}
	if (hex_field(&p, 1, 2, &b.bus) || *p++ != ':')
		return -EINVAL;
	if (hex_field(&p, 1, 2, &b.dev) || *p++ != '.')
		return -EINVAL;
	if (!isdigit((unsigned char)*p) || p[1] != '\0')
		return -EINVAL;
	b.fn = (unsigned int)(*p - '0');
	if (b.dev > 0x1f || b.fn > 7)
		return -EINVAL;
	*out = b;
	return 0;
}

void bdf_format(const struct bdf *b, char buf[BDF_MAX])
{
	snprintf(buf, BDF_MAX, "%04x:%02x:%02x.%x", b->domain, b->bus, b->dev, b->fn);
}

int bdf_canonical(const char *s, char buf[BDF_MAX])
{
	struct bdf b;

	if (bdf_parse(s, &b))
		return -EINVAL;
	bdf_format(&b, buf);
	return 0;
}

int slot_canonical(const char *s, char buf[BDF_MAX])
{
	char with_fn[BDF_MAX + 2];

	if (strchr(s, '.') || strlen(s) >= BDF_MAX)
		return -EINVAL;
	snprintf(with_fn, sizeof(with_fn), "%s.0", s);
	if (bdf_canonical(with_fn, buf))
		return -EINVAL;
	buf[strlen(buf) - 1] = '*';
	return 0;
}

bool bdf_is_slot(const char *name)
{
	size_t n = strlen(name);

	return n > 2 && name[n - 1] == '*' && name[n - 2] == '.';
}

bool bdf_in_slot(const char *bdf, const char *slot)
{
	return bdf_is_slot(slot) && strlen(bdf) == strlen(slot) &&
	       !strncmp(bdf, slot, strlen(slot) - 1);
}

/* Decimal without sign or leading zeros, at most MAX. */
static int dec_field(const char **s, unsigned long max, unsigned long *v)
{
	const char *p = *s;
	unsigned long acc = 0;

	if (!isdigit((unsigned char)*p) || (p[0] == '0' && isdigit((unsigned char)p[1])))
		return -EINVAL;
	while (isdigit((unsigned char)*p)) {
		unsigned long digit = (unsigned long)(*p - '0');

		if (digit > max || acc > (max - digit) / 10)
			return -ERANGE;
		acc = acc * 10 + digit;
		p++;
	}
	*v = acc;
	*s = p;
	return 0;
}

int tsm_name_parse(const char *s, int *id)
{
	unsigned long v;
	const char *p;

	if (strncmp(s, "tsm", 3))
		return -EINVAL;
	p = s + 3;	/* only now known to be inside the string */
	if (dec_field(&p, 0x7fffffff, &v) || *p)
		return -EINVAL;
	*id = (int)v;
	return 0;
}

int hb_name_parse(const char *s, unsigned int *domain, unsigned int *bus)
{
	const char *p;
	unsigned int d, b;

	if (strncmp(s, "pci", 3))
		return -EINVAL;
	p = s + 3;
	for (const char *q = p; *q; q++)
		if (isupper((unsigned char)*q))
			return -EINVAL;
	if (hex_field(&p, 4, 8, &d) || *p++ != ':' || hex_field(&p, 2, 2, &b) || *p)
		return -EINVAL;
	/* "%04x" pads to 4 digits only: "pci00000:00" is not a kernel name. */
	if (p - s > 10 && s[3] == '0')
		return -EINVAL;
	*domain = d;
	*bus = b;
	return 0;
}

int stream_name_parse(const char *s, unsigned int *h, unsigned int *r, unsigned int *e)
{
	const char *p;
	unsigned long vh, vr, ve;

	if (strncmp(s, "stream", 6))
		return -EINVAL;
	p = s + 6;
	if (dec_field(&p, 255, &vh) || *p++ != '.' ||
	    dec_field(&p, 255, &vr) || *p++ != '.' ||
	    dec_field(&p, 255, &ve) || *p)
		return -EINVAL;
	*h = (unsigned int)vh;
	*r = (unsigned int)vr;
	*e = (unsigned int)ve;
	return 0;
}

/* "0x" and hex digits (leading zeros kept: the kernel pads "0x%04x"), at most MAX. */
static int hex_number(const char **s, unsigned long max, unsigned long *v)
{
	const char *p = *s;
	unsigned long acc = 0;

	if (strncmp(p, "0x", 2) || !isxdigit((unsigned char)p[2]))
		return -EINVAL;
	for (p += 2; isxdigit((unsigned char)*p); p++) {
		unsigned long digit = (unsigned long)(isdigit((unsigned char)*p) ? *p - '0' :
						      tolower((unsigned char)*p) - 'a' + 10);

		if (digit > max || acc > (max - digit) / 16)
			return -ERANGE;
		acc = acc * 16 + digit;
	}
	*v = acc;
	*s = p;
	return 0;
}

int parse_number(const char *s, int base, unsigned long max, unsigned long *out)
{
	const char *p = s;
	unsigned long v;
	int rc;

	if (!s || (base != 10 && base != 16))
		return -EINVAL;
	rc = base == 16 ? hex_number(&p, max, &v) : dec_field(&p, max, &v);
	if (rc)
		return rc;
	if (*p)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_ulong(const char *s, unsigned long *out)
{
	return parse_number(s, 10, (unsigned long)-1, out) ? -EINVAL : 0;
}
