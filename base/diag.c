/* diag.c: formatting and dispatch of diagnostics, and did-you-mean. */
#include "base/diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void diag_emitv(struct diag *d, enum diag_level lvl, const char *path,
                       const struct source *src, int line, int col, const char *fmt, va_list ap)
    CW_PRINTF(7, 0);
static void diag_emitv(struct diag *d, enum diag_level lvl, const char *path,
                       const struct source *src, int line, int col, const char *fmt, va_list ap)
{
	if (lvl == DIAG_ERROR)
		d->errors++;
	else if (lvl == DIAG_WARNING)
		d->warnings++;
	if (!d->emit)
		return;
	char buf[4096];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	struct diag_msg m = {lvl, path, src, line, col, buf};
	d->emit(d->user, &m);
}

struct diag_kept_msg {
	struct diag_msg m;
	struct diag_kept_msg *next;
};

/* diag_emit_fn of a keeping sink: the message and its source, copied (a source may live on
 * its reporter's stack). */
static void keep_msg(void *user, const struct diag_msg *m)
{
	struct diag_kept *k = user;
	struct diag_kept_msg *e = arena_alloc(k->a, sizeof(*e));
	e->m = *m;
	e->m.text = arena_strdup(k->a, m->text);
	e->m.path = m->path ? arena_strdup(k->a, m->path) : NULL;
	if (m->src) {
		struct source *s = arena_alloc(k->a, sizeof(*s));
		s->path = m->src->path ? arena_strdup(k->a, m->src->path) : NULL;
		s->text = m->src->text ? arena_strndup(k->a, m->src->text, m->src->len) : NULL;
		s->len = m->src->len;
		e->m.src = s;
	}
	e->next = NULL;
	*k->last = e;
	k->last = &e->next;
}

void diag_keep(struct diag *d, struct diag_kept *k, struct arena *a)
{
	*k = (struct diag_kept){.a = a, .first = NULL};
	k->last = &k->first;
	*d = (struct diag){.emit = keep_msg, .user = k};
}

void diag_pass(const struct diag_kept *k, struct diag *to)
{
	for (const struct diag_kept_msg *e = k->first; e; e = e->next) {
		if (e->m.level == DIAG_ERROR)
			to->errors++;
		else if (e->m.level == DIAG_WARNING)
			to->warnings++;
		if (to->emit)
			to->emit(to->user, &e->m);
	}
}

void diag_at(struct diag *d, enum diag_level lvl, const struct source *src, int line, int col,
             const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_emitv(d, lvl, src ? src->path : NULL, src, line, col, fmt, ap);
	va_end(ap);
}

void diag_path(struct diag *d, enum diag_level lvl, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_emitv(d, lvl, path, NULL, 0, 0, fmt, ap);
	va_end(ap);
}

void diag_msg(struct diag *d, enum diag_level lvl, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_emitv(d, lvl, NULL, NULL, 0, 0, fmt, ap);
	va_end(ap);
}

void diag_errno(struct diag *d, const char *path, const char *what)
{
	diag_path(d, DIAG_ERROR, path, "%s: %s", what, strerror(errno));
}

void source_linecol(const struct source *src, size_t off, int *line, int *col)
{
	int l = 1, c = 1;
	if (off > src->len)
		off = src->len;
	for (size_t i = 0; i < off; i++) {
		if (src->text[i] == '\n') {
			l++;
			c = 1;
		} else if (((unsigned char)src->text[i] & 0xC0) != 0x80) {
			c++; /* columns count characters, not UTF-8 continuation bytes */
		}
	}
	*line = l;
	*col = c;
}

const char *source_line(const struct source *src, int line, size_t *len)
{
	const char *p = src->text, *end = src->text + src->len;
	for (int l = 1; l < line && p < end; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			p = end;
			break;
		}
		p = nl + 1;
	}
	const char *e = memchr(p, '\n', (size_t)(end - p));
	if (!e)
		e = end;
	if (e > p && e[-1] == '\r')
		e--;
	*len = (size_t)(e - p);
	return p;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return (size_t)-1;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t best = prev + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

const char *diag_did_you_mean(const char *word, const char *const *candidates, size_t n)
{
	size_t limit = strlen(word) / 3;
	if (limit < 2)
		limit = 2;
	const char *best = NULL;
	size_t best_d = limit + 1;
	for (size_t i = 0; i < n; i++) {
		size_t dist = edit_distance(word, candidates[i]);
		if (dist < best_d) {
			best_d = dist;
			best = candidates[i];
		}
	}
	return best;
}
