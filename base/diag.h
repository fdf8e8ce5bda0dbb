/* diag.h: the diagnostic sink. Library code reports here; only cli/ prints. */
#ifndef CUWHEEL_BASE_DIAG_H
#define CUWHEEL_BASE_DIAG_H

#include <stddef.h>

#include "base/arena.h"

/* A text that diagnostics can point into (a pyproject.toml, a TOML document on stdin). */
struct source {
	const char *path; /* as shown to the user */
	const char *text;
	size_t len;
};

enum diag_level {
	DIAG_ERROR,
	DIAG_WARNING,
	DIAG_NOTE,
	DIAG_HINT,
};

struct diag_msg {
	enum diag_level level;
	const char *path;         /* file or command the message is about; may be NULL */
	const struct source *src; /* when set, the caret line is taken from it */
	int line, col;            /* 1-based; 0 when unknown */
	const char *text;
};

typedef void diag_emit_fn(void *user, const struct diag_msg *m);

struct diag {
	diag_emit_fn *emit; /* NULL: messages are only counted */
	void *user;
	int errors, warnings;
};

/* A sink that keeps the messages reported to it, copied into an arena, to hand on later (or
 * never): diag_keep makes d one, diag_pass reports its messages, in order, to another. */
struct diag_kept_msg;
struct diag_kept {
	struct arena *a;
	struct diag_kept_msg *first, **last;
};
void diag_keep(struct diag *d, struct diag_kept *k, struct arena *a);
void diag_pass(const struct diag_kept *k, struct diag *to);

/* Reports a message at line:col of src (line 0: the whole file). */
void diag_at(struct diag *d, enum diag_level lvl, const struct source *src, int line, int col,
             const char *fmt, ...) CW_PRINTF(6, 7);
/* Reports a message about a path or command, without a source line. */
void diag_path(struct diag *d, enum diag_level lvl, const char *path, const char *fmt, ...)
    CW_PRINTF(4, 5);
/* Reports a message with no location. */
void diag_msg(struct diag *d, enum diag_level lvl, const char *fmt, ...) CW_PRINTF(3, 4);
/* Reports an error about path, naming errno's message after the text. */
void diag_errno(struct diag *d, const char *path, const char *what);

/* Returns the 1-based line and column of byte offset off in src. */
void source_linecol(const struct source *src, size_t off, int *line, int *col);
/* Returns the start of line `line` (1-based) in src and its length without the newline. */
const char *source_line(const struct source *src, int line, size_t *len);

/* Returns the candidate closest to word (edit distance <= max(2, len/3)), or NULL. */
const char *diag_did_you_mean(const char *word, const char *const *candidates, size_t n);

#endif
