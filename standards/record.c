/* record.c: RECORD rows: urlsafe-base64 sha256 without padding, CSV rendering and parsing. */
#include "standards/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "base/strbuf.h"

char *record_b64url(struct arena *a, const unsigned char *data, size_t n)
{
	/* EVP_EncodeBlock writes standard base64 with '=' padding and a NUL: 4 per 3 bytes. */
	char *out = arena_alloc(a, (n + 2) / 3 * 4 + 1);
	int len = EVP_EncodeBlock((unsigned char *)out, data, (int)n);
	while (len > 0 && out[len - 1] == '=')
		len--;
	out[len] = '\0';
	for (char *p = out; *p; p++)
		*p = *p == '+' ? '-' : *p == '/' ? '_' : *p;
	return out;
}

char *record_hash_str(struct arena *a, const unsigned char digest[32])
{
	return arena_printf(a, "sha256=%s", record_b64url(a, digest, 32));
}

void record_add(struct arena *a, struct record *r, const char *path, const unsigned char digest[32],
                uint64_t size)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		r->v = arena_realloc(a, r->v, r->n, cap, sizeof(*r->v));
		r->cap = cap;
	}
	r->sorted = NULL; /* stale */
	struct record_row *row = &r->v[r->n++];
	row->path = path;
	row->hash = digest ? record_hash_str(a, digest) : NULL;
	row->size = size;
	row->has_size = digest != NULL;
}

/* Writes one CSV field, quoted when it holds a comma, quote or line break (as Python's csv). */
static void record_put_field(struct strbuf *sb, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		sb_puts(sb, s);
		return;
	}
	sb_putc(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			sb_putc(sb, '"');
		sb_putc(sb, *s);
	}
	sb_putc(sb, '"');
}

char *record_render(struct arena *a, const struct record *r, const char *record_path, size_t *len)
{
	struct strbuf sb = {0};
	for (size_t i = 0; i < r->n; i++) {
		const struct record_row *row = &r->v[i];
		record_put_field(&sb, row->path);
		sb_putc(&sb, ',');
		if (row->hash)
			sb_puts(&sb, row->hash);
		sb_putc(&sb, ',');
		if (row->has_size)
			sb_printf(&sb, "%llu", (unsigned long long)row->size);
		sb_putc(&sb, '\n');
	}
	record_put_field(&sb, record_path);
	sb_puts(&sb, ",,\n");
	*len = sb.len;
	return sb_to_arena(&sb, a);
}

/* Splits one CSV record starting at *p into fields; returns the number of fields or -1 on an
 * unterminated quote. */
static int record_split(struct arena *a, const char **p, const char *end, char **fields, int max)
{
	int n = 0;
	const char *s = *p;
	for (;;) {
		struct strbuf f = {0};
		if (s < end && *s == '"') {
			s++;
			for (;;) {
				if (s >= end) {
					sb_release(&f);
					return -1;
				}
				if (*s == '"') {
					if (s + 1 < end && s[1] == '"') {
						sb_putc(&f, '"');
						s += 2;
						continue;
					}
					s++;
					break;
				}
				sb_putc(&f, *s++);
			}
		}
		while (s < end && *s != ',' && *s != '\n' && *s != '\r')
			sb_putc(&f, *s++);
		if (n < max)
			fields[n] = sb_to_arena(&f, a);
		else
			sb_release(&f);
		n++;
		if (s < end && *s == ',') {
			s++;
			continue;
		}
		if (s < end && *s == '\r')
			s++;
		if (s < end && *s == '\n')
			s++;
		break;
	}
	*p = s;
	return n;
}

bool record_parse(struct arena *a, struct diag *d, const char *where, const char *text, size_t len,
                  struct record *out)
{
	const char *p = text, *end = text + len;
	int line = 0;
	while (p < end) {
		line++;
		char *f[3] = {0};
		int n = record_split(a, &p, end, f, 3);
		if (n == 1 && f[0][0] == '\0')
			continue; /* blank line */
		if (n != 3) {
			diag_path(d, DIAG_ERROR, where,
			          "line %d: expected 3 fields (path,hash,size), got %d", line,
			          n < 0 ? 0 : n);
			return false;
		}
		if (out->n == out->cap) {
			size_t cap = out->cap ? out->cap * 2 : 64;
			out->v = arena_realloc(a, out->v, out->n, cap, sizeof(*out->v));
			out->cap = cap;
		}
		struct record_row *row = &out->v[out->n++];
		row->path = f[0];
		row->hash = f[1][0] ? f[1] : NULL;
		row->has_size = f[2][0] != '\0';
		row->size = 0;
		if (row->has_size) {
			char *e;
			unsigned long long v = strtoull(f[2], &e, 10);
			if (*e || f[2][0] == '-') {
				diag_path(d, DIAG_ERROR, where,
				          "line %d: size '%s' of %s is not a number", line, f[2],
				          f[0]);
				return false;
			}
			row->size = v;
		}
		if (row->hash && strncmp(row->hash, "sha256=", 7) != 0 &&
		    strncmp(row->hash, "sha384=", 7) != 0 &&
		    strncmp(row->hash, "sha512=", 7) != 0) {
			diag_path(d, DIAG_ERROR, where,
			          "line %d: %s: hash '%s' is not sha256/384/512", line, f[0],
			          row->hash);
			return false;
		}
		/* A digest is base64 text: a quoted field could smuggle a comma or a line break
		 * into it, which record_render would then write unquoted (found by fuzzing). */
		if (row->hash && row->hash[7 + strspn(row->hash + 7, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                                                     "abcdefghijklmnopqrstuvwxyz"
		                                                     "0123456789-_=+/")] != '\0') {
			diag_path(d, DIAG_ERROR, where,
			          "line %d: %s: the hash holds characters that are not base64",
			          line, f[0]);
			return false;
		}
	}
	record_index(a, out);
	return true;
}

/* Path order, then row order: equal paths (a duplicate row) keep RECORD's order, so the first
 * row wins as it did with a scan (the rows are one array, so their addresses are their order). */
static int record_cmp_rows(const void *x, const void *y)
{
	const struct record_row *a = *(const struct record_row *const *)x;
	const struct record_row *b = *(const struct record_row *const *)y;
	int c = strcmp(a->path, b->path);
	return c ? c : (a > b) - (a < b);
}

void record_index(struct arena *a, struct record *r)
{
	r->sorted = arena_calloc(a, r->n + 1, sizeof(*r->sorted));
	for (size_t i = 0; i < r->n; i++)
		r->sorted[i] = &r->v[i];
	if (r->n)
		qsort(r->sorted, r->n, sizeof(*r->sorted), record_cmp_rows);
	r->n_sorted = r->n;
}

const struct record_row *record_find(const struct record *r, const char *path)
{
	if (!r->sorted || r->n_sorted != r->n) {
		for (size_t i = 0; i < r->n; i++)
			if (strcmp(r->v[i].path, path) == 0)
				return &r->v[i];
		return NULL;
	}
	size_t lo = 0, hi = r->n; /* the first row whose path is >= path */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(r->sorted[mid]->path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n && strcmp(r->sorted[lo]->path, path) == 0 ? r->sorted[lo] : NULL;
}
