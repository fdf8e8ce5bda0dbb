/* audit_codes.c: the finding-code table (see audit_codes.h). */
#include "packager/audit_codes.h"

#include <string.h>

#include "packager/audit.h"

static const struct audit_code table[] = {
#define X(code, severity, meaning) {code, severity, meaning},
    AUDIT_CODES(X)
#undef X
};

const struct audit_code *audit_codes(size_t *n)
{
	*n = sizeof(table) / sizeof(*table);
	return table;
}
