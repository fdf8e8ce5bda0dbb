/* escape.h: untrusted text (archive members, metadata, probe and compiler output) made inert
 * for the sink it is printed to: a terminal or log, or a GitHub workflow command. */
#ifndef CUWHEEL_BASE_ESCAPE_H
#define CUWHEEL_BASE_ESCAPE_H

#include <stddef.h>

#include "base/arena.h"
#include "base/strbuf.h"

enum esc_sink {
	/* One value inside a terminal or log line (a member name, a link target, a version a
	 * probe printed): C-style escapes for every control byte (\n \r \t \\ \xNN, ESC and DEL
	 * included), C1 controls, bidi overrides and invalid UTF-8 as \xNN per byte; a value that
	 * begins (after blanks) with "::" gets that ':' as \x3a and "##[" becomes "#\x23[", so it
	 * can never open a workflow command even where it starts a line. Valid UTF-8 is kept. */
	ESC_TERM,
	/* Text of several lines for a terminal or log (a compiler's or a probe's output): as
	 * ESC_TERM, but '\n' and '\t' are kept as they are and every line gets the "::" rule. */
	ESC_LOG,
	/* The message of a GitHub workflow command (after the second "::"): '%' as %25, CR as
	 * %0D, LF as %0A; other control bytes and invalid UTF-8 as in ESC_TERM. */
	ESC_WORKFLOW,
	/* A property value of a workflow command (file=, title=): as ESC_WORKFLOW, plus ':' as
	 * %3A and ',' as %2C. */
	ESC_WORKFLOW_PROP,
	/* Inline text in Markdown (a GitHub step summary's table cell): as ESC_TERM, then a
	 * backslash before each character Markdown or GitHub acts on inline (\ ` * _ [ ] ( ) < >
	 * | ! # ~ & $ @), so it cannot end the cell, open a link, image, code span, emphasis,
	 * raw HTML, an entity, math or a mention; the text renders as ESC_TERM's. Not for code
	 * spans (they show backslashes as they are). */
	ESC_MARKDOWN,
	/* A JSON text as jansson writes it (a file a user may `cat`): DEL and the code points
	 * ESC_TERM escapes as a terminal acts on them (C1 controls, U+009B CSI included, bidi
	 * controls, line separators) become \u escapes, which are the same JSON; every other
	 * byte, the layout's newlines included, is kept (jansson already escapes C0 controls). */
	ESC_JSON,
};

/* Returns the NUL-terminated s escaped for sink, in a ("" for NULL). */
char *esc_str(struct arena *a, enum esc_sink sink, const char *s);
/* Returns the n bytes at s escaped for sink, in a. */
char *esc_mem(struct arena *a, enum esc_sink sink, const char *s, size_t n);

#endif
