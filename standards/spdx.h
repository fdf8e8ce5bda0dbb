/* spdx.h: SPDX license expression syntax (PEP 639). */
#ifndef CUWHEEL_STANDARDS_SPDX_H
#define CUWHEEL_STANDARDS_SPDX_H

#include <stdbool.h>

/* True when s is a syntactically valid SPDX license expression: ids ([A-Za-z0-9.-]+, '+'
 * allowed), LicenseRef-*, AND / OR / WITH and parentheses (32 levels at most). */
bool spdx_valid(const char *s);

#endif
