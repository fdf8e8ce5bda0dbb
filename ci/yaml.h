/* yaml.h: the few YAML shapes the workflow writer needs, written by hand and deterministically:
 * every scalar that YAML could read as something else is double-quoted, and no string of data
 * can become a GitHub expression: GitHub evaluates "${{ ... }}" in every value it reads (env,
 * names, with:, run: scripts), so each "${{" of data is written as the expression ${{ '${{' }},
 * whose value is that text (yaml_inert). Only yaml_kv_expr writes the emitter's own expressions. */
#ifndef CUWHEEL_CI_YAML_H
#define CUWHEEL_CI_YAML_H

#include "base/strbuf.h"

/* s with each "${{" replaced by ${{ '${{' }}: GitHub's template reader ends an expression at the
 * first "}}" outside a '...' literal and gives the literal's text, so the value GitHub sees is s
 * and nothing of it is evaluated. s itself when it holds no "${{". */
const char *yaml_inert(struct arena *a, const char *s);
/* Appends s as a plain scalar when YAML reads it back as the same string, else double-quoted
 * with escapes. */
void yaml_scalar(struct strbuf *sb, const char *s);
/* Appends "key: value" at indent ind (spaces), value as yaml_scalar writes it. */
void yaml_kv(struct strbuf *sb, int ind, const char *key, const char *val);
/* The same for a value the emitter composed, whose "${{ }}" are its own expressions: any data
 * in it must have gone through yaml_inert. */
void yaml_kv_expr(struct strbuf *sb, int ind, const char *key, const char *expr);
/* Appends "key:" opening a mapping or sequence at indent ind. */
void yaml_key(struct strbuf *sb, int ind, const char *key);
/* Appends "- value" at indent ind. */
void yaml_item(struct strbuf *sb, int ind, const char *val);
/* Appends "# text" at indent ind; a line break in text is written as "\n". */
void yaml_comment(struct strbuf *sb, int ind, const char *text);
/* Appends "run: |" and the script (as yaml_inert gives it), one line per line, indented under
 * the key. */
void yaml_run(struct strbuf *sb, int ind, const char *script);
/* Appends "- name: NAME" opening a step at indent ind; its keys go at ind + 2. */
void yaml_step(struct strbuf *sb, int ind, const char *name);

#endif
