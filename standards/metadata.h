/* metadata.h: the .dist-info text files: METADATA 2.4, WHEEL and entry_points.txt. */
#ifndef CUWHEEL_STANDARDS_METADATA_H
#define CUWHEEL_STANDARDS_METADATA_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "standards/project.h"
#include "standards/tags.h"

/* Renders METADATA (Metadata-Version 2.4) for m with the full version `version` (local label
 * included): every PEP 621 field, the readme as the body. Returns NULL + diagnostic naming
 * `where` when a value cannot be written (a newline in a one-line field, License and
 * License-Expression both set). *len gets the length. */
char *metadata_render(struct arena *a, struct diag *d, const char *where,
                      const struct project_meta *m, const char *version, size_t *len);
/* Renders WHEEL: Wheel-Version 1.0, Generator, Root-Is-Purelib, Tag per tag, Build if any. */
char *metadata_wheel_render(struct arena *a, const char *generator, bool purelib, const char *build,
                            const struct wheel_tag *tags, size_t n_tags);
/* Rewrites WHEEL text: replaces every Tag line by tags, sets or removes Build (build NULL:
 * remove), keeps every other line. Returns NULL + diagnostic when it is not a WHEEL file. */
char *metadata_wheel_retag(struct arena *a, struct diag *d, const char *where, const char *wheel,
                           size_t len, const char *build, const struct wheel_tag *tags,
                           size_t n_tags, size_t *out_len);
/* Renders entry_points.txt ([console_scripts], [gui_scripts], then the groups), or NULL when
 * the project declares none. */
char *metadata_entry_points_render(struct arena *a, const struct project_meta *m);
/* Replaces the Version header of METADATA text (headers only, body untouched). Returns NULL +
 * diagnostic naming `where` when there is no Version header. */
char *metadata_set_version(struct arena *a, struct diag *d, const char *where, const char *text,
                           size_t len, const char *version, size_t *out_len);
/* Replaces the Requires-Dist header of distribution name (the first) with requirement; returns
 * the new METADATA (length in *out_len), or NULL + diagnostic at where when there is none. */
char *metadata_set_requirement(struct arena *a, struct diag *d, const char *where, const char *text,
                               size_t len, const char *name, const char *requirement,
                               size_t *out_len);
/* Returns the value of the first header called name (case-insensitive) in METADATA/WHEEL text,
 * or NULL. */
char *metadata_header(struct arena *a, const char *text, size_t len, const char *name);

#endif
