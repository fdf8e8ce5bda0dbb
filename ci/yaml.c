/* yaml.c: the YAML writer of the workflow emitter (see yaml.h). */
#include "ci/yaml.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* YAML 1.1 and 1.2 read these plain words as booleans or null. */
static bool reserved(const char *s)
{
	static const char *const words[] = {"y",   "n",    "yes",   "no",   "on",
	                                    "off", "true", "false", "null", "~"};
	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (!strcasecmp(s, words[i]))
			return true;
	return false;
}

/* Plain only for words that start with a letter and hold [A-Za-z0-9_./@-]: never a number,
 * a boolean, an alias, a comment or a mapping. */
static bool plain_ok(const char *s)
{
	if (!s[0] || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || strchr("_./@-", *c)))
			return false;
	return !reserved(s);
}

/* The expression whose value is "${{". */
#define INERT_OPEN "${{ '${{' }}"

const char *yaml_inert(struct arena *a, const char *s)
{
	if (!strstr(s, "${{"))
		return s;
	struct strbuf sb = {0};
	for (const char *p = s, *hit; *p; p = hit + 3) {
		hit = strstr(p, "${{");
		if (!hit) {
			sb_puts(&sb, p);
			break;
		}
		sb_add(&sb, p, (size_t)(hit - p));
		sb_puts(&sb, INERT_OPEN);
	}
	return sb_to_arena(&sb, a);
}

/* Appends s double-quoted unless plain_ok. */
static void put_scalar(struct strbuf *sb, const char *s)
{
	if (plain_ok(s)) {
		sb_puts(sb, s);
		return;
	}
	sb_putc(sb, '"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			sb_printf(sb, "\\%c", *c);
		else if (*c == '\n')
			sb_puts(sb, "\\n");
		else if (*c == '\t')
			sb_puts(sb, "\\t");
		else if (*c < 0x20 || *c == 0x7f)
			sb_printf(sb, "\\x%02x", *c);
		else
			sb_putc(sb, (char)*c);
	}
	sb_putc(sb, '"');
}

void yaml_scalar(struct strbuf *sb, const char *s)
{
	struct arena a = {0};
	put_scalar(sb, yaml_inert(&a, s));
	arena_free(&a);
}

void yaml_kv(struct strbuf *sb, int ind, const char *key, const char *val)
{
	sb_printf(sb, "%*s%s: ", ind, "", key);
	yaml_scalar(sb, val);
	sb_putc(sb, '\n');
}

void yaml_kv_expr(struct strbuf *sb, int ind, const char *key, const char *expr)
{
	sb_printf(sb, "%*s%s: ", ind, "", key);
	put_scalar(sb, expr);
	sb_putc(sb, '\n');
}

void yaml_key(struct strbuf *sb, int ind, const char *key)
{
	sb_printf(sb, "%*s%s:\n", ind, "", key);
}

void yaml_item(struct strbuf *sb, int ind, const char *val)
{
	sb_printf(sb, "%*s- ", ind, "");
	yaml_scalar(sb, val);
	sb_putc(sb, '\n');
}

void yaml_comment(struct strbuf *sb, int ind, const char *text)
{
	sb_printf(sb, "%*s# ", ind, "");
	for (const char *c = text; *c; c++) {
		if (*c == '\n' || *c == '\r')
			sb_puts(sb, *c == '\n' ? "\\n" : "\\r");
		else
			sb_putc(sb, *c);
	}
	sb_putc(sb, '\n');
}

void yaml_run(struct strbuf *sb, int ind, const char *script)
{
	sb_printf(sb, "%*srun: |\n", ind, "");
	struct arena a = {0};
	const char *p = yaml_inert(&a, script);
	while (*p) {
		size_t n = strcspn(p, "\n");
		if (n)
			sb_printf(sb, "%*s%.*s\n", ind + 2, "", (int)n, p);
		else
			sb_putc(sb, '\n');
		p += n;
		if (*p == '\n')
			p++;
	}
	arena_free(&a);
}

void yaml_step(struct strbuf *sb, int ind, const char *name)
{
	sb_printf(sb, "%*s- name: ", ind, "");
	yaml_scalar(sb, name);
	sb_putc(sb, '\n');
}
