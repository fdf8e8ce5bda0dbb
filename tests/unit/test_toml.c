/* test_toml.c: the TOML parser's locations, error positions and messages, depth limit and lookups
 * (conformance itself is proven by tests/integration/toml_corpus.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/strbuf.h"
#include "standards/toml.h"

#define N_OF(arr) (sizeof(arr) / sizeof((arr)[0]))

/* The last diagnostic, captured instead of printed. */
struct captured {
	int count, line, col;
	char text[512];
};

static void capture(void *user, const struct diag_msg *m)
{
	struct captured *c = user;
	c->count++;
	c->line = m->line;
	c->col = m->col;
	snprintf(c->text, sizeof(c->text), "%s", m->text);
}

struct fixture {
	struct arena arena;
	struct captured cap;
	struct diag diag;
	struct source src;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	f->diag.emit = capture;
	f->diag.user = &f->cap;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	arena_free(&f->arena);
	free(f);
	return 0;
}

/* Parses text (which may hold NULs: len), returning the root or NULL with f->cap filled. */
static struct toml_value *parse_n(struct fixture *f, const char *text, size_t len)
{
	memset(&f->cap, 0, sizeof(f->cap));
	f->diag.errors = 0;
	f->src = (struct source){"test.toml", text, len};
	return toml_parse(&f->arena, &f->diag, &f->src);
}

static struct toml_value *parse(struct fixture *f, const char *text)
{
	return parse_n(f, text, strlen(text));
}

static struct toml_value *parse_ok(struct fixture *f, const char *text)
{
	struct toml_value *root = parse(f, text);
	if (!root)
		fail_msg("rejected at %d:%d: %s\n%s", f->cap.line, f->cap.col, f->cap.text, text);
	assert_int_equal(f->diag.errors, 0);
	return root;
}

static void test_keys_and_values_carry_line_and_column(void **state)
{
	struct fixture *f = *state;
	const struct toml_value *root = parse_ok(f, "# comment\n"
	                                            "name = \"x\"\n"
	                                            "  [tool.cuwheel]\n"
	                                            "\tarch = [ 1, 2 ]\n"
	                                            "s.t.u = true\n"
	                                            "\"é\" = 1 # é counts as one column\n"
	                                            "after = 'é' \n");
	const struct toml_kv *kv = toml_get_kv(root, "name");
	assert_non_null(kv);
	assert_int_equal(kv->line, 2);
	assert_int_equal(kv->col, 1);
	assert_int_equal(kv->value->line, 2);
	assert_int_equal(kv->value->col, 8);

	const struct toml_value *tool = toml_get(root, "tool");
	assert_non_null(tool);
	kv = toml_get_kv(tool, "cuwheel");
	assert_int_equal(kv->line, 3);
	assert_int_equal(kv->col, 9); /* the key's last part */
	assert_int_equal(kv->value->line, 3);
	assert_int_equal(kv->value->col, 3); /* the header's '[' */

	kv = toml_get_kv(kv->value, "arch");
	assert_int_equal(kv->line, 4);
	assert_int_equal(kv->col, 2); /* a tab is one character */
	assert_int_equal(kv->value->type, TOML_ARRAY);
	assert_int_equal(kv->value->col, 9);
	assert_int_equal(kv->value->u.array.items[1]->col, 14);

	const struct toml_value *cw = toml_get(tool, "cuwheel");
	const struct toml_value *s = toml_get(cw, "s");
	const struct toml_kv *u = toml_get_kv(toml_get(s, "t"), "u");
	assert_non_null(u);
	assert_int_equal(u->line, 5);
	assert_int_equal(u->col, 5);
	assert_int_equal(u->value->col, 9);

	kv = toml_get_kv(cw, "after");
	assert_int_equal(kv->value->line, 7);
	assert_int_equal(kv->value->col, 9);
	kv = toml_get_kv(cw, "é");
	assert_non_null(kv);
	assert_int_equal(kv->value->col, 7);
}

static void test_crlf_and_bom_keep_columns(void **state)
{
	struct fixture *f = *state;
	const struct toml_value *root = parse_ok(f, "\xEF\xBB\xBF"
	                                            "a = 1\r\n"
	                                            "b = \"\"\"\r\nx\r\ny\"\"\"\r\n");
	const struct toml_kv *kv = toml_get_kv(root, "b");
	assert_int_equal(kv->line, 2);
	assert_int_equal(kv->col, 1);
	assert_string_equal(kv->value->u.str.s, "x\ny"); /* CRLF reads as LF */
	assert_int_equal(toml_get_kv(root, "a")->col, 1);
}

static void test_implicit_table_takes_location_of_its_header(void **state)
{
	struct fixture *f = *state;
	const struct toml_value *root = parse_ok(f, "[a.b]\n"
	                                            "x = 1\n"
	                                            "\n"
	                                            "[a]\n"
	                                            "y = 2\n");
	const struct toml_kv *a = toml_get_kv(root, "a");
	assert_int_equal(a->line, 4);
	assert_int_equal(a->value->line, 4);
	assert_int_equal(a->value->col, 1);
}

static void test_values_decode(void **state)
{
	struct fixture *f = *state;
	const struct toml_value *root =
	    parse_ok(f, "i = -9_223_372_036_854_775_808\n"
	                "h = 0x7FFF_FFFF_FFFF_FFFF\n"
	                "o = 0o17\n"
	                "b = 0b101\n"
	                "fl = -1_0.5e-1_0\n"
	                "ninf = -inf\n"
	                "s = \"tab\\t \\u00e9 \\U0001F600 nul\\u0000!\"\n"
	                "lit = 'C:\\path'\n"
	                "ml = \"\"\"\\\n   joined \\\n   here\"\"\"\n"
	                "dt = 1979-05-27 07:32:00.5z\n"
	                "ld = 2024-02-29\n"
	                "lt = 23:59:60\n");
	assert_true(toml_get(root, "i")->u.i == INT64_MIN);
	assert_true(toml_get(root, "h")->u.i == INT64_MAX);
	assert_int_equal(toml_get(root, "o")->u.i, 15);
	assert_int_equal(toml_get(root, "b")->u.i, 5);
	assert_true(toml_get(root, "fl")->u.f == -10.5e-10);
	assert_int_equal(toml_get(root, "ninf")->type, TOML_FLOAT);
	const struct toml_value *s = toml_get(root, "s");
	assert_int_equal(s->u.str.len, strlen("tab\t \xC3\xA9 \xF0\x9F\x98\x80 nul") + 2);
	assert_memory_equal(s->u.str.s, "tab\t \xC3\xA9 \xF0\x9F\x98\x80 nul\0!", s->u.str.len);
	assert_string_equal(toml_get(root, "lit")->u.str.s, "C:\\path");
	assert_string_equal(toml_get(root, "ml")->u.str.s, "joined here");
	const struct toml_value *dt = toml_get(root, "dt");
	assert_int_equal(dt->type, TOML_DATETIME);
	assert_string_equal(dt->u.str.s, "1979-05-27T07:32:00.5Z");
	assert_int_equal(toml_get(root, "ld")->type, TOML_DATE_LOCAL);
	assert_int_equal(toml_get(root, "lt")->type, TOML_TIME_LOCAL);
}

/* Bad inputs with the exact line:col of the first error and a part of its message. */
static const struct {
	const char *name, *text;
	int line, col;
	const char *msg;
} bad_inputs[] = {
    {"duplicate key names the first line", "a = 1\nb = 2\n\na = 3\n", 4, 1,
     "duplicate key 'a' (first defined at line 1)"},
    {"missing equals", "key \"v\"\n", 1, 5, "expected '=' after key"},
    {"missing value", "x = \n", 1, 5, "expected a value"},
    {"table defined twice", "[t]\n[u]\n[ t ]\n", 3, 3, "table 't' is already defined (at line 1)"},
    {"super-table after dotted keys", "[f]\napple.color = 1\n[f.apple]\n", 3, 4,
     "already defined (at line 2) by dotted keys"},
    {"dotted key into a header table", "[a.b]\nz = 1\n[a]\nb.t = 2\n", 4, 1,
     "it has its own [header] at line 1"},
    {"inline table is closed", "a = {x = 1}\n[a]\n", 2, 2, "is already defined"},
    {"inline table extended by dotted key", "a = {x = 1}\na.y = 2\n", 2, 1,
     "it is an inline table"},
    {"static array appended by [[...]]", "a = [1]\n[[a]]\n", 2, 3,
     "cannot define array of tables 'a': it is already an array"},
    {"array of tables redefined as table", "[[a]]\n[a]\n", 2, 2, "an array of tables"},
    {"integer overflow", "n = 9223372036854775808\n", 1, 5, "does not fit in 64 bits"},
    {"hex overflow", "n = 0x8000000000000000\n", 1, 5, "does not fit in 64 bits"},
    {"leading zero", "n = 012\n", 1, 5, "leading zeros"},
    {"underscore at end", "n = 1_\n", 1, 5, "underscore"},
    {"bad escape points at backslash", "s = \"ab\\qc\"\n", 1, 8, "invalid escape"},
    {"surrogate escape", "s = \"\\uD800\"\n", 1, 6, "not a Unicode scalar value"},
    {"control char in string", "s = \"a\x01\"\n", 1, 7, "U+0001 must be escaped"},
    {"bare CR", "a = 1\rb = 2\n", 1, 6, "carriage return"},
    {"invalid UTF-8 column counts characters", "s = \"\xC3\xA9\xC3\x28\"\n", 1, 7, "invalid UTF-8"},
    {"overlong UTF-8", "s = \"\xC0\xAF\"\n", 1, 6, "invalid UTF-8"},
    {"february 30", "d = 2023-02-29\n", 1, 5, "day out of range"},
    {"hour 24", "t = 24:00:00\n", 1, 5, "hour out of range"},
    {"offset minutes", "d = 2023-01-01T00:00:00+01:60\n", 1, 5, "time offset out of range"},
    {"newline in inline table", "a = {x = 1,\n y = 2}\n", 1, 12, "on one line"},
    {"trailing comma in inline table", "a = {x = 1, }\n", 1, 13, "trailing comma"},
    {"junk after value", "a = 1 2\n", 1, 7, "after a key/value pair"},
    {"unterminated string", "\n\ns = \"abc\n", 3, 5, "unterminated string"},
    {"unclosed header", "[a\n", 1, 3, "expected ']'"},
    {"value after table header", "[a] b = 1\n", 1, 5, "after a table header"},
    {"multi-line string as key", "\"\"\"k\"\"\" = 1\n", 1, 1, "multi-line"},
    {"DEL in comment", "# a\x7F\n", 1, 4, "U+007F"},
};

static void test_bad_inputs_report_line_column_and_message(void **state)
{
	struct fixture *f = *state;
	for (size_t i = 0; i < N_OF(bad_inputs); i++) {
		if (parse(f, bad_inputs[i].text))
			fail_msg("%s: accepted", bad_inputs[i].name);
		if (f->cap.count != 1 || f->diag.errors != 1)
			fail_msg("%s: %d diagnostics, want exactly 1", bad_inputs[i].name,
			         f->cap.count);
		if (f->cap.line != bad_inputs[i].line || f->cap.col != bad_inputs[i].col ||
		    !strstr(f->cap.text, bad_inputs[i].msg))
			fail_msg("%s: got %d:%d '%s', want %d:%d '...%s...'", bad_inputs[i].name,
			         f->cap.line, f->cap.col, f->cap.text, bad_inputs[i].line,
			         bad_inputs[i].col, bad_inputs[i].msg);
	}
}

static void test_nul_byte_is_rejected_not_truncated(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "a = 1\n\0b = 2\n";
	assert_null(parse_n(f, text, sizeof(text) - 1));
	assert_int_equal(f->cap.line, 2);
	assert_int_equal(f->cap.col, 1);
}

/* Returns `k = ` then n times open, the inner value, n times close, in the arena. */
static const char *nested(struct fixture *f, int n, const char *open, const char *close,
                          const char *inner)
{
	struct strbuf sb = {0};
	sb_puts(&sb, "k = ");
	for (int i = 0; i < n; i++)
		sb_puts(&sb, open);
	sb_puts(&sb, inner);
	for (int i = 0; i < n; i++)
		sb_puts(&sb, close);
	sb_putc(&sb, '\n');
	return sb_to_arena(&sb, &f->arena);
}

static void test_depth_limit_is_an_error_not_a_crash(void **state)
{
	struct fixture *f = *state;
	/* k sits at level 1, so TOML_MAX_DEPTH nested arrays are the most that fit. */
	assert_non_null(parse(f, nested(f, TOML_MAX_DEPTH, "[", "]", "1")));
	assert_null(parse(f, nested(f, TOML_MAX_DEPTH + 1, "[", "]", "1")));
	assert_non_null(strstr(f->cap.text, "nesting deeper than"));
	assert_int_equal(f->cap.line, 1);
	assert_int_equal(f->cap.col, 5 + TOML_MAX_DEPTH);

	/* An inline table holds its key at the next level: {a={a=1}} is three levels. */
	assert_non_null(parse(f, nested(f, TOML_MAX_DEPTH / 2, "{a=[", "]}", "1")));
	assert_null(parse(f, nested(f, 100000, "{a=", "}", "1")));
	assert_non_null(strstr(f->cap.text, "nesting deeper than"));
	assert_null(parse(f, nested(f, 100000, "[", "]", "")));
	assert_non_null(strstr(f->cap.text, "nesting deeper than"));

	/* Dotted keys and headers count too: the tree never gets deeper than the limit. */
	struct strbuf sb = {0};
	sb_puts(&sb, "[a");
	for (int i = 0; i < TOML_MAX_DEPTH; i++)
		sb_puts(&sb, ".a");
	sb_puts(&sb, "]\n");
	assert_null(parse(f, sb_str(&sb)));
	assert_int_equal(f->cap.line, 1);
	sb_reset(&sb);
	for (int i = 0; i < 200; i++)
		sb_puts(&sb, "a.");
	sb_puts(&sb, "a = 1\n");
	assert_null(parse(f, sb_str(&sb)));
	assert_non_null(strstr(f->cap.text, "deeper than"));
	sb_release(&sb);
}

static void test_get_finds_keys_and_rejects_non_tables(void **state)
{
	struct fixture *f = *state;
	const struct toml_value *root = parse_ok(f, "[project]\n"
	                                            "name = \"tinyraster\"\n"
	                                            "\"with.dot\" = 1\n"
	                                            "[[x]]\n"
	                                            "[[x]]\n"
	                                            "n = 2\n");
	const struct toml_value *project = toml_get(root, "project");
	assert_non_null(project);
	assert_int_equal(project->type, TOML_TABLE);
	const struct toml_value *name = toml_get(project, "name");
	assert_int_equal(name->type, TOML_STRING);
	assert_string_equal(name->u.str.s, "tinyraster");
	assert_non_null(toml_get(project, "with.dot")); /* a quoted key is one key */
	assert_null(toml_get(project, "with"));
	assert_null(toml_get(project, "missing"));
	assert_null(toml_get(name, "name")); /* not a table */
	assert_null(toml_get(NULL, "name"));
	const struct toml_value *x = toml_get(root, "x");
	assert_int_equal(x->type, TOML_ARRAY);
	assert_int_equal(x->u.array.len, 2);
	assert_int_equal(toml_get(x->u.array.items[1], "n")->u.i, 2);
	assert_string_equal(toml_type_name(TOML_DATETIME_LOCAL), "datetime-local");
	assert_string_equal(toml_type_name(x->type), "array");
}

static void test_tagged_json_escapes_and_round_trips(void **state)
{
	struct fixture *f = *state;
	const struct toml_value *root =
	    parse_ok(f, "\"q\\\"\\u0001\" = [0.1, nan, -inf, 1e300, 'x\\y']\nt = 07:32:00\n");
	struct strbuf sb = {0};
	toml_to_tagged_json(root, &sb);
	assert_string_equal(
	    sb_str(&sb),
	    "{\"q\\\"\\u0001\":[{\"type\":\"float\",\"value\":\"0.10000000000000001\"},"
	    "{\"type\":\"float\",\"value\":\"nan\"},"
	    "{\"type\":\"float\",\"value\":\"-inf\"},"
	    "{\"type\":\"float\",\"value\":\"1.0000000000000001e+300\"},"
	    "{\"type\":\"string\",\"value\":\"x\\\\y\"}],"
	    "\"t\":{\"type\":\"time-local\",\"value\":\"07:32:00\"}}");
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_keys_and_values_carry_line_and_column, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_crlf_and_bom_keep_columns, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_implicit_table_takes_location_of_its_header, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_values_decode, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_inputs_report_line_column_and_message, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_nul_byte_is_rejected_not_truncated, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_depth_limit_is_an_error_not_a_crash, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_get_finds_keys_and_rejects_non_tables, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_tagged_json_escapes_and_round_trips, setup,
	                                    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
