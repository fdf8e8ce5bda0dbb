/* yaml.h: the few YAML shapes the workflow writer needs, written by hand and deterministically:
 * every scalar that YAML could read as something else is double-quoted. */
#ifndef CUWHEEL_CI_YAML_H
#define CUWHEEL_CI_YAML_H

#include "base/strbuf.h"

/* Appends s as a plain scalar when YAML reads it back as the same string, else double-quoted
 * with escapes. */
void yaml_scalar(struct strbuf *sb, const char *s);
/* Appends "key: value" at indent ind (spaces), value as yaml_scalar writes it. */
void yaml_kv(struct strbuf *sb, int ind, const char *key, const char *val);
/* Appends "key:" opening a mapping or sequence at indent ind. */
void yaml_key(struct strbuf *sb, int ind, const char *key);
/* Appends "- value" at indent ind. */
void yaml_item(struct strbuf *sb, int ind, const char *val);
/* Appends "# text" at indent ind. */
void yaml_comment(struct strbuf *sb, int ind, const char *text);
/* Appends "run: |" and the script, one line per line, indented under the key. */
void yaml_run(struct strbuf *sb, int ind, const char *script);
/* Appends "- name: NAME" opening a step at indent ind; its keys go at ind + 2. */
void yaml_step(struct strbuf *sb, int ind, const char *name);

#endif
