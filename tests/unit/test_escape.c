/* test_escape.c: esc_add makes hostile text inert for every sink: ANSI colours, OSC 8 links,
 * bare CRs, forged workflow commands, C1 controls, bidi overrides and invalid UTF-8; and
 * Markdown's table pipes, links, HTML, code spans and emphasis; and JSON text with DEL and C1
 * controls as \u escapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/escape.h"
#include "standards/json_values.h"

static int setup_arena(void **state)
{
	*state = calloc(1, sizeof(struct arena));
	return *state ? 0 : -1;
}

static int teardown_arena(void **state)
{
	arena_free(*state);
	free(*state);
	return 0;
}

/* The hostile names of issue 25, one per attack. */
static const char *const hostile[] = {
    "\033[31mred\033[0m.py",
    "\033]8;;https://evil.example/\033\\click\033]8;;\033\\",
    "ok.py\rpkg/__init__.py",
    "::error title=x::forged",
    "a\n::error title=x::forged",
    "  ::warning::indented",
    "##[error]forged",
    "\xc2\x9b"
    "31m", /* U+009B, the one-byte CSI, as UTF-8 */
    "\x9b"
    "31m", /* the raw C1 byte */
    "evil\xe2\x80\xae"
    "yp.exe", /* U+202E RIGHT-TO-LEFT OVERRIDE */
    "del\x7f\x08",
    "\xff\xfe",
    "\xed\xa0\x80", /* a surrogate */
    "\xc0\xaf",     /* an overlong '/' */
};

/* True when s holds no byte a terminal acts on: no C0 control but those allowed, no DEL, no
 * C1 control, only valid UTF-8 without bidi controls, and no line starting with "::". */
static bool inert(const char *s, const char *allowed)
{
	const unsigned char *p = (const unsigned char *)s;
	bool bol = true;
	for (size_t i = 0; p[i]; i++) {
		if ((p[i] < 0x20 && !strchr(allowed, p[i])) || p[i] == 0x7F)
			return false;
		if (p[i] >= 0x80 && p[i] < 0xC0 && (i == 0 || p[i - 1] < 0x80))
			return false; /* a lone continuation or C1 byte */
		if (p[i] == 0xC2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F)
			return false;
		if (p[i] == 0xE2 && p[i + 1] == 0x80 && p[i + 2] >= 0xAA && p[i + 2] <= 0xAE)
			return false;
		if (p[i] == 0xFF || p[i] == 0xFE || p[i] == 0xED || p[i] == 0xC0)
			return false;
		if (bol && p[i] == ':' && p[i + 1] == ':')
			return false;
		if (p[i] == '#' && p[i + 1] == '#' && p[i + 2] == '[')
			return false;
		if (p[i] == '\n')
			bol = true;
		else if (p[i] != ' ' && p[i] != '\t')
			bol = false;
	}
	return true;
}

static void term_escapes_every_hostile_name_inert(void **state)
{
	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++) {
		char *e = esc_str(*state, ESC_TERM, hostile[i]);
		if (!inert(e, "")) {
			print_error("not inert: %s\n", e);
			fail();
		}
	}
}

static void term_uses_c_escapes(void **state)
{
	struct arena *a = *state;
	assert_string_equal(esc_str(a, ESC_TERM, "\033[31mred\033[0m"), "\\x1b[31mred\\x1b[0m");
	assert_string_equal(esc_str(a, ESC_TERM, "a\rb\nc\td\\e"), "a\\rb\\nc\\td\\\\e");
	assert_string_equal(esc_str(a, ESC_TERM, "\033]8;;http://x/\033\\t\033]8;;\033\\"),
	                    "\\x1b]8;;http://x/\\x1b\\\\t\\x1b]8;;\\x1b\\\\");
	assert_string_equal(esc_str(a, ESC_TERM, "del\x7f"), "del\\x7f");
	assert_string_equal(esc_str(a, ESC_TERM, "\xc2\x9b"), "\\xc2\\x9b");
	assert_string_equal(esc_str(a, ESC_TERM, "\x9b"), "\\x9b");
	assert_string_equal(esc_str(a, ESC_TERM, "\xff"), "\\xff");
	assert_string_equal(esc_str(a, ESC_TERM, "x\xe2\x80\xaey"), "x\\xe2\\x80\\xaey");
	assert_string_equal(esc_str(a, ESC_TERM, "caf\xc3\xa9/\xe6\x97\xa5.py"),
	                    "caf\xc3\xa9/\xe6\x97\xa5.py"); /* valid UTF-8 text is kept */
	assert_string_equal(esc_str(a, ESC_TERM, "pkg/a.py"), "pkg/a.py");
	assert_string_equal(esc_str(a, ESC_TERM, NULL), "");
	/* A NUL inside counted bytes is escaped, not an end. */
	assert_string_equal(esc_mem(a, ESC_TERM, "a\0b", 3), "a\\x00b");
}

static void term_never_starts_a_workflow_command(void **state)
{
	struct arena *a = *state;
	assert_string_equal(esc_str(a, ESC_TERM, "::error title=x::y"), "\\x3a:error title=x::y");
	assert_string_equal(esc_str(a, ESC_TERM, " \t::x"), " \\t\\x3a:x");
	assert_string_equal(esc_str(a, ESC_TERM, "a::b"), "a::b"); /* not at a line's start */
	assert_string_equal(esc_str(a, ESC_TERM, ":x"), ":x");
	assert_string_equal(esc_str(a, ESC_TERM, "a\n::error::x"), "a\\n::error::x");
	assert_string_equal(esc_str(a, ESC_TERM, "##[error]x"), "#\\x23[error]x");
}

static void log_keeps_lines_and_escapes_each(void **state)
{
	struct arena *a = *state;
	assert_string_equal(esc_str(a, ESC_LOG, "a.cu(3): error: x\n::error title=x::y\n\tz\n"),
	                    "a.cu(3): error: x\n\\x3a:error title=x::y\n\tz\n");
	assert_string_equal(esc_str(a, ESC_LOG, "x\n  ::warning::w"), "x\n  \\x3a:warning::w");
	assert_string_equal(esc_str(a, ESC_LOG, "p\rq\033[2J"), "p\\rq\\x1b[2J");
	assert_string_equal(esc_str(a, ESC_LOG, "printf(\"\\n\")"), "printf(\"\\n\")");
	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++) {
		char *e = esc_str(a, ESC_LOG, hostile[i]);
		if (!inert(e, "\n\t")) {
			print_error("not inert: %s\n", e);
			fail();
		}
	}
}

static void workflow_data_percent_encodes_line_breaks(void **state)
{
	struct arena *a = *state;
	assert_string_equal(esc_str(a, ESC_WORKFLOW, "100% a\r\nb"), "100%25 a%0D%0Ab");
	assert_string_equal(esc_str(a, ESC_WORKFLOW, "x\n::error title=x::y"),
	                    "x%0A::error title=x::y");
	assert_string_equal(esc_str(a, ESC_WORKFLOW, "a:b,c"), "a:b,c");
	assert_string_equal(esc_str(a, ESC_WORKFLOW, "\033[31m"), "\\x1b[31m");
	assert_string_equal(esc_str(a, ESC_WORKFLOW, "%0A"), "%250A"); /* no double decoding */
	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++) {
		char *e = esc_str(a, ESC_WORKFLOW, hostile[i]);
		assert_null(strpbrk(e, "\r\n\033"));
	}
}

static void workflow_property_also_encodes_colon_and_comma(void **state)
{
	struct arena *a = *state;
	assert_string_equal(esc_str(a, ESC_WORKFLOW_PROP, "a:b,c%\n"), "a%3Ab%2Cc%25%0A");
	char *e = esc_str(a, ESC_WORKFLOW_PROP, "::error title=x::y");
	assert_string_equal(e, "%3A%3Aerror title=x%3A%3Ay");
}

/* Markdown a step summary's table cell must not act on: a pipe that ends the cell, a
 * javascript: link and image, raw HTML, a code span, emphasis, an entity, math, a mention. */
static const char *const md_hostile[] = {
    "a|b",
    "[x](javascript:alert(1))",
    "![i](https://evil.example/t.png)",
    "<script>x</script>",
    "<https://evil.example>",
    "`code`",
    "**bold** _em_ ~~del~~",
    "&lt;&#60;",
    "$x^2$",
    "@octocat",
    "\\`|",
    "a\n| b | c |",
    "#1",
};

/* True when every character Markdown acts on inline in s is backslash-escaped. */
static bool md_inert(const char *s)
{
	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '\\' && s[i + 1]) {
			i++; /* an escaped character: literal */
			continue;
		}
		if (strchr("\\`*_[]()<>|!#~&$@", s[i]) || s[i] == '\n')
			return false;
	}
	return true;
}

static void markdown_escapes_every_hostile_text(void **state)
{
	for (size_t i = 0; i < sizeof(md_hostile) / sizeof(*md_hostile); i++) {
		char *e = esc_str(*state, ESC_MARKDOWN, md_hostile[i]);
		if (!md_inert(e) || !inert(e, "")) {
			print_error("not inert: %s -> %s\n", md_hostile[i], e);
			fail();
		}
	}
	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++) {
		char *e = esc_str(*state, ESC_MARKDOWN, hostile[i]);
		if (!md_inert(e) || !inert(e, "")) {
			print_error("not inert: %s\n", e);
			fail();
		}
	}
}

static void markdown_renders_as_term_text(void **state)
{
	struct arena *a = *state;
	assert_string_equal(esc_str(a, ESC_MARKDOWN, "a|b"), "a\\|b");
	assert_string_equal(esc_str(a, ESC_MARKDOWN, "[x](javascript:y)"),
	                    "\\[x\\]\\(javascript:y\\)");
	assert_string_equal(esc_str(a, ESC_MARKDOWN, "<b>&amp;`"), "\\<b\\>\\&amp;\\`");
	/* ESC_TERM's escapes keep their backslash visible: "\x1b" renders as \x1b. */
	assert_string_equal(esc_str(a, ESC_MARKDOWN, "\033[31m"), "\\\\x1b\\[31m");
	assert_string_equal(esc_str(a, ESC_MARKDOWN, "a\nb"), "a\\\\nb");
	/* A wheel's name stays readable. */
	assert_string_equal(esc_str(a, ESC_MARKDOWN, "demo-1.0+cu130-cp312-cp312-linux_x86_64.whl"),
	                    "demo-1.0+cu130-cp312-cp312-linux\\_x86\\_64.whl");
	assert_string_equal(esc_str(a, ESC_MARKDOWN, NULL), "");
}

static void json_sink_writes_del_c1_and_bidi_as_u_escapes(void **state)
{
	struct arena *a = *state;
	/* U+009B (CSI) as jansson writes it, raw UTF-8 inside the string. */
	assert_string_equal(esc_str(a, ESC_JSON,
	                            "{\"n\": \"a\xc2\x9b"
	                            "31mb\"}"),
	                    "{\"n\": \"a\\u009B31mb\"}");
	assert_string_equal(esc_str(a, ESC_JSON, "\"d\x7f\xc2\x85\xe2\x80\xae\""),
	                    "\"d\\u007F\\u0085\\u202E\"");
	/* The layout, escapes jansson wrote and valid text are kept. */
	assert_string_equal(
	    esc_str(a, ESC_JSON, "{\n \"k\": \"\\u001B caf\xc3\xa9 \xe6\x97\xa5\"\n}"),
	    "{\n \"k\": \"\\u001B caf\xc3\xa9 \xe6\x97\xa5\"\n}");
}

static void json_dump_text_round_trips_a_c1_name(void **state)
{
	struct arena *a = *state;
	const char *name = "evil\xc2\x9b"
	                   "31m\x7f\x1b[0m.whl";
	json_t *o = json_pack("{s:s}", "wheel", name);
	char *text = json_dump_text(a, o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(o);
	assert_non_null(text);
	assert_true(inert(text, "\n"));
	assert_non_null(strstr(text, "evil\\u009B31m\\u007F\\u001B[0m.whl"));
	json_error_t err;
	json_t *back = json_loads(text, 0, &err);
	assert_non_null(back);
	assert_string_equal(json_string_value(json_object_get(back, "wheel")), name);
	json_decref(back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(term_escapes_every_hostile_name_inert, setup_arena,
	                                    teardown_arena),
	    cmocka_unit_test_setup_teardown(term_uses_c_escapes, setup_arena, teardown_arena),
	    cmocka_unit_test_setup_teardown(term_never_starts_a_workflow_command, setup_arena,
	                                    teardown_arena),
	    cmocka_unit_test_setup_teardown(log_keeps_lines_and_escapes_each, setup_arena,
	                                    teardown_arena),
	    cmocka_unit_test_setup_teardown(workflow_data_percent_encodes_line_breaks, setup_arena,
	                                    teardown_arena),
	    cmocka_unit_test_setup_teardown(workflow_property_also_encodes_colon_and_comma,
	                                    setup_arena, teardown_arena),
	    cmocka_unit_test_setup_teardown(markdown_escapes_every_hostile_text, setup_arena,
	                                    teardown_arena),
	    cmocka_unit_test_setup_teardown(markdown_renders_as_term_text, setup_arena,
	                                    teardown_arena),
	    cmocka_unit_test_setup_teardown(json_sink_writes_del_c1_and_bidi_as_u_escapes,
	                                    setup_arena, teardown_arena),
	    cmocka_unit_test_setup_teardown(json_dump_text_round_trips_a_c1_name, setup_arena,
	                                    teardown_arena),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
