/* toml_json.c: writes a TOML tree as toml-test's tagged JSON (shared/toml-test/FORMAT.md). */
#include "standards/toml.h"

#include <inttypes.h>
#include <math.h>

#include "base/strbuf.h"

static void json_string(struct strbuf *sb, const char *s, size_t n)
{
	sb_putc(sb, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *e = c == '"'    ? "\\\""
		                : c == '\\' ? "\\\\"
		                : c == '\n' ? "\\n"
		                : c == '\t' ? "\\t"
		                : c == '\r' ? "\\r"
		                : c == '\b' ? "\\b"
		                : c == '\f' ? "\\f"
		                            : NULL;
		if (e)
			sb_puts(sb, e);
		else if (c < 0x20 || c == 0x7F)
			sb_printf(sb, "\\u%04x", c);
		else
			sb_putc(sb, (char)c);
	}
	sb_putc(sb, '"');
}

void toml_to_tagged_json(const struct toml_value *v, struct strbuf *sb)
{
	switch (v->type) {
	case TOML_TABLE:
		sb_putc(sb, '{');
		for (size_t i = 0; i < v->u.table.len; i++) {
			const struct toml_kv *kv = &v->u.table.items[i];
			if (i)
				sb_putc(sb, ',');
			json_string(sb, kv->key, kv->keylen);
			sb_putc(sb, ':');
			toml_to_tagged_json(kv->value, sb);
		}
		sb_putc(sb, '}');
		return;
	case TOML_ARRAY:
		sb_putc(sb, '[');
		for (size_t i = 0; i < v->u.array.len; i++) {
			if (i)
				sb_putc(sb, ',');
			toml_to_tagged_json(v->u.array.items[i], sb);
		}
		sb_putc(sb, ']');
		return;
	default:
		break;
	}
	sb_printf(sb, "{\"type\":\"%s\",\"value\":", toml_type_name(v->type));
	switch (v->type) {
	case TOML_INTEGER:
		sb_printf(sb, "\"%" PRId64 "\"", v->u.i);
		break;
	case TOML_FLOAT:
		if (isnan(v->u.f))
			sb_puts(sb, "\"nan\"");
		else if (isinf(v->u.f))
			sb_puts(sb, v->u.f < 0 ? "\"-inf\"" : "\"inf\"");
		else
			sb_printf(sb, "\"%.17g\"", v->u.f);
		break;
	case TOML_BOOL:
		sb_puts(sb, v->u.b ? "\"true\"" : "\"false\"");
		break;
	default:
		json_string(sb, v->u.str.s, v->u.str.len);
		break;
	}
	sb_putc(sb, '}');
}
