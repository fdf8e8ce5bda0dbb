/* ninja.h: writing build.ninja text with correct escaping: paths in build lines ($ , $:, $$)
 * and shell-quoted arguments in commands. */
#ifndef CUWHEEL_STANDARDS_NINJA_H
#define CUWHEEL_STANDARDS_NINJA_H

#include <stdbool.h>

#include "base/strbuf.h"

/* Appends a path as it must appear in a build line (spaces, ':' and '$' escaped). */
void ninja_path(struct strbuf *sb, const char *path);
/* Appends one command argument: shell-quoted when needed, then '$' escaped for ninja. */
/* True when s is non-empty and every byte is one sh reads as itself ([A-Za-z0-9-_./=:,+@%^]). */
bool ninja_shell_plain(const char *s);
void ninja_arg(struct strbuf *sb, const char *arg);
/* Appends a space and each path of a list via ninja_path (the inputs of a build line). */
struct strv;
void ninja_paths(struct strbuf *sb, const struct strv *paths);
/* Where a config value goes on its way to a compiler: each route has characters that cannot
 * pass through it verbatim. */
enum arg_route {
	ARG_CC,           /* an argument of the host compiler or linker (ninja runs it via sh) */
	ARG_PATH,         /* a file or directory named in a build line */
	ARG_NVCC_DEFINE,  /* a kernel define: nvcc passes -D "value" to the host compiler */
	ARG_NVCC_INCLUDE, /* a kernel include dir: nvcc passes -I"value" */
	ARG_NVCC_HOST,    /* a kernel host flag: -Xcompiler="value" */
	ARG_NVCC_FLAG,    /* an nvcc flag: nvcc may paste it into a shell command unquoted */
};
/* NULL when s reaches the compiler as exactly itself along route; else why not (a phrase
 * naming the character, for "... holds %s"). */
const char *ninja_arg_refusal(const char *s, enum arg_route route);
/* True when a source (project-relative) must be compiled through a stub that #includes it:
 * its name cannot reach nvcc (nvcc) or a build line (cc) verbatim. */
bool ninja_source_needs_stub(const char *path, bool nvcc);
/* The stub's build-dir-relative name for a source: "src/" and the path with every byte outside
 * [A-Za-z0-9./-] written as _XX (so distinct paths get distinct stubs). */
struct arena;
char *ninja_stub_name(struct arena *a, const char *path);
/* True when a path can be written to build.ninja at all (no newline or NUL). */
bool ninja_path_ok(const char *path);
/* Appends a path as a depfile (make syntax, as ninja reads it) names it: a space, '#' and '\\'
 * escaped by a backslash, '$' doubled. */
void ninja_depfile_path(struct strbuf *sb, const char *path);
/* Appends to deps, each once and in order, the prerequisites of the depfile text (gcc -MD's
 * make syntax: "target: dep dep \\\n dep", '\\ ' and '\\#' escapes, "$$"). */
void ninja_depfile_prereqs(struct arena *a, const char *text, size_t len, struct strv *deps);

#endif
