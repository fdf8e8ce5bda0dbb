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

void yaml_scalar(struct strbuf *sb, const char *s)
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

void yaml_kv(struct strbuf *sb, int ind, const char *key, const char *val)
{
	sb_printf(sb, "%*s%s: ", ind, "", key);
	yaml_scalar(sb, val);
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
	sb_printf(sb, "%*s# %s\n", ind, "", text);
}

void yaml_run(struct strbuf *sb, int ind, const char *script)
{
	sb_printf(sb, "%*srun: |\n", ind, "");
	const char *p = script;
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
}

void yaml_step(struct strbuf *sb, int ind, const char *name)
{
	sb_printf(sb, "%*s- name: ", ind, "");
	yaml_scalar(sb, name);
	sb_putc(sb, '\n');
}
