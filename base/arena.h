/* arena.h: bump allocation for one phase of work; everything is freed at once. */
#ifndef CUWHEEL_BASE_ARENA_H
#define CUWHEEL_BASE_ARENA_H

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#define CW_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CW_PRINTF(fmt, args)
#endif

struct arena_block;
struct arena {
	struct arena_block *head;
};

/* Out-of-memory is the one failure base/ does not return: it prints and aborts. */

/* Allocates n zeroed bytes aligned for any type; never returns NULL. */
void *arena_alloc(struct arena *a, size_t n);
/* Allocates an array of n elements of size sz, zeroed, checking for overflow. */
void *arena_calloc(struct arena *a, size_t n, size_t sz);
/* Grows an array allocated from the arena to new_n elements (copying); old memory stays. */
void *arena_realloc(struct arena *a, void *old, size_t old_n, size_t new_n, size_t sz);
/* Copies the NUL-terminated string s. */
char *arena_strdup(struct arena *a, const char *s);
/* Copies n bytes of s and terminates them. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* Formats into a new string. */
char *arena_printf(struct arena *a, const char *fmt, ...) CW_PRINTF(2, 3);
char *arena_vprintf(struct arena *a, const char *fmt, va_list ap) CW_PRINTF(2, 0);
/* Frees every block; the arena can be reused afterwards. */
void arena_free(struct arena *a);

/* A growable vector of strings allocated from an arena. */
struct strv {
	const char **v;
	size_t n, cap;
};
/* Appends s (not copied). */
void strv_push(struct arena *a, struct strv *sv, const char *s);
/* Returns true when s is in sv. */
int strv_contains(const struct strv *sv, const char *s);

#endif
