/* spdx.c: the syntax of SPDX license expressions (PEP 639's License-Expression). */
#include "standards/spdx.h"

#include <ctype.h>
#include <string.h>

/* SPDX expression: ids ([A-Za-z0-9.-]+ with optional '+'), LicenseRef-*, AND/OR/WITH, (). */
static const char *spdx_skip(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

static const char *spdx_expr(const char *p, int depth);

static const char *spdx_term(const char *p, int depth)
{
	p = spdx_skip(p);
	if (*p == '(') {
		if (depth > 32)
			return NULL;
		p = spdx_expr(p + 1, depth + 1);
		if (!p)
			return NULL;
		p = spdx_skip(p);
		return *p == ')' ? p + 1 : NULL;
	}
	const char *s = p;
	while (isalnum((unsigned char)*p) || *p == '.' || *p == '-')
		p++;
	if (p == s)
		return NULL;
	size_t n = (size_t)(p - s);
	if ((n == 3 && (!strncmp(s, "AND", 3))) || (n == 2 && !strncmp(s, "OR", 2)) ||
	    (n == 4 && !strncmp(s, "WITH", 4)))
		return NULL;
	if (*p == '+')
		p++;
	p = spdx_skip(p);
	if (!strncmp(p, "WITH ", 5)) {
		p = spdx_skip(p + 5);
		const char *e = p;
		while (isalnum((unsigned char)*p) || *p == '.' || *p == '-')
			p++;
		if (p == e)
			return NULL;
	}
	return p;
}

static const char *spdx_expr(const char *p, int depth)
{
	p = spdx_term(p, depth);
	while (p) {
		p = spdx_skip(p);
		if (!strncmp(p, "AND ", 4))
			p = spdx_term(p + 4, depth);
		else if (!strncmp(p, "OR ", 3))
			p = spdx_term(p + 3, depth);
		else
			break;
	}
	return p;
}

bool spdx_valid(const char *s)
{
	const char *p = spdx_expr(s, 0);
	return p && *spdx_skip(p) == '\0';
}
