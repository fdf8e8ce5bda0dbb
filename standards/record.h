/* record.h: RECORD files (PEP 376/627): urlsafe-base64 sha256 rows, rendering and parsing. */
#ifndef CUWHEEL_STANDARDS_RECORD_H
#define CUWHEEL_STANDARDS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"

struct record_row {
	const char *path;
	const char *hash; /* "sha256=<urlsafe b64, no padding>" or NULL (RECORD's own row) */
	uint64_t size;
	bool has_size;
};

struct record {
	struct record_row *v;
	size_t n, cap;
	const struct record_row **sorted; /* rows by path (record_index); NULL: none or stale */
	size_t n_sorted;
};

/* Returns the urlsafe base64 of n bytes of data without '=' padding (libcrypto's encoder,
 * urlsafe alphabet), in the arena; never fails. */
char *record_b64url(struct arena *a, const unsigned char *data, size_t n);
/* Returns "sha256=" + the urlsafe base64 of digest, without '=' padding. */
char *record_hash_str(struct arena *a, const unsigned char digest[32]);
/* Appends a row (path not copied). */
void record_add(struct arena *a, struct record *r, const char *path, const unsigned char digest[32],
                uint64_t size);
/* Renders the rows in their order, CSV-quoted where needed, then "<record_path>,,"; *len set. */
char *record_render(struct arena *a, const struct record *r, const char *record_path, size_t *len);
/* Parses RECORD text (CSV, quotes honoured). False + diagnostic naming `where` and the line. */
bool record_parse(struct arena *a, struct diag *d, const char *where, const char *text, size_t len,
                  struct record *out);
/* Sorts an index of the rows by path so that record_find is a binary search (O(log n) instead
 * of a scan per lookup: audit, retag and index look up every member). record_parse calls it;
 * record_add makes it stale until it is called again. */
void record_index(struct arena *a, struct record *r);
/* Returns the first row (in RECORD order) for path, or NULL. */
const struct record_row *record_find(const struct record *r, const char *path);

#endif
