/* strbuf.h: a growable, NUL-terminated byte buffer on the heap. */
#ifndef CUWHEEL_BASE_STRBUF_H
#define CUWHEEL_BASE_STRBUF_H

#include <stddef.h>

#include "base/arena.h"

struct strbuf {
	char *buf; /* always NUL-terminated once anything was added; NULL when empty */
	size_t len, cap;
};

/* Appends n bytes. Aborts on out-of-memory like the arena. */
void sb_add(struct strbuf *sb, const void *p, size_t n);
/* Appends a NUL-terminated string. */
void sb_puts(struct strbuf *sb, const char *s);
/* Appends one byte. */
void sb_putc(struct strbuf *sb, char c);
/* Appends formatted text. */
void sb_printf(struct strbuf *sb, const char *fmt, ...) CW_PRINTF(2, 3);
/* Returns the contents as a string ("" when empty); the buffer keeps ownership. */
const char *sb_str(const struct strbuf *sb);
/* Empties the buffer, keeping its memory. */
void sb_reset(struct strbuf *sb);
/* Frees the memory. */
void sb_release(struct strbuf *sb);
/* Copies the contents into the arena and releases the buffer. */
char *sb_to_arena(struct strbuf *sb, struct arena *a);

#endif
