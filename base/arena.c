/* arena.c: chunked bump allocator. */
#include "base/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	alignas(max_align_t) unsigned char data[];
};

enum { ARENA_BLOCK = 64 * 1024 };

static void arena_oom(size_t n)
{
	fprintf(stderr, "cuwheel: fatal: out of memory allocating %zu bytes\n", n);
	abort();
}

void *arena_alloc(struct arena *a, size_t n)
{
	size_t align = alignof(max_align_t);
	size_t need = (n + align - 1) & ~(align - 1);
	if (need < n)
		arena_oom(n);
	struct arena_block *b = a->head;
	if (!b || b->cap - b->used < need) {
		size_t cap = need > ARENA_BLOCK ? need : ARENA_BLOCK;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			arena_oom(n);
		b->used = 0;
		b->cap = cap;
		/* A big allocation gets its own block behind the current one so the head keeps
		 * room. */
		if (a->head && need > ARENA_BLOCK) {
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	void *p = b->data + b->used;
	b->used += need;
	memset(p, 0, n);
	return p;
}

void *arena_calloc(struct arena *a, size_t n, size_t sz)
{
	if (sz && n > SIZE_MAX / sz)
		arena_oom(SIZE_MAX);
	return arena_alloc(a, n * sz);
}

void *arena_realloc(struct arena *a, void *old, size_t old_n, size_t new_n, size_t sz)
{
	void *p = arena_calloc(a, new_n, sz);
	if (old && old_n)
		memcpy(p, old, (old_n < new_n ? old_n : new_n) * sz);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_vprintf(struct arena *a, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		n = 0;
	char *p = arena_alloc(a, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return p;
}

void arena_free(struct arena *a)
{
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	a->head = NULL;
}

void strv_push(struct arena *a, struct strv *sv, const char *s)
{
	if (sv->n + 1 >= sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = arena_realloc(a, sv->v, sv->cap, cap, sizeof(*sv->v));
		sv->cap = cap;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

int strv_contains(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return 1;
	return 0;
}
