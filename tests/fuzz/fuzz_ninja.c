/* fuzz_ninja.c: libFuzzer target for build.ninja escaping (standards/ninja.c): for any string and
 * route, a value ninja_arg_refusal accepts comes back exactly through the layers that read it:
 *   ninja_arg:  ninja's "$$" -> "$", then /bin/sh's word splitting and quotes -> one word;
 *   ninja_path: ninja's "$ ", "$:", "$$" -> one path token;
 *   -D / -I / -Xcompiler through nvcc: inside nvcc's "..." for /bin/sh, with no ',' to split;
 * and a stub name is plain (needs no stub itself) and decodes back to its source. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "standards/ninja.h"

/* The libFuzzer entry point: returns 0 (inputs are never rejected from the corpus). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PLAIN "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%^"

/* ninja's evaluation of a variable's value: only "$$" may appear; a line break ends it. */
static char *ninja_value(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	for (const char *p = s; *p; p++) {
		if (*p == '\n' || *p == '\r')
			abort(); /* a value that spans lines adds a line to build.ninja */
		if (*p == '$') {
			if (p[1] != '$')
				abort(); /* a variable reference or escape nobody asked for */
			p++;
		}
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* /bin/sh's reading of one word made of plain characters and '...' quotes; aborts on anything
 * that would split it or that sh would expand. */
static char *sh_word(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			for (p++; *p != '\''; p++) {
				if (!*p)
					abort(); /* unterminated quote */
				*o++ = *p;
			}
		} else if (*p == '\\' && p[1] == '\'') {
			*o++ = *++p;
		} else if (strchr(PLAIN, *p)) {
			*o++ = *p;
		} else {
			abort(); /* unquoted: sh would split, expand or run it */
		}
	}
	*o = '\0';
	return out;
}

/* ninja's reading of a path token in a build line. */
static char *ninja_token(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	for (const char *p = s; *p; p++) {
		if (*p == ' ' || *p == ':' || *p == '|' || *p == '\n' || *p == '\r')
			abort(); /* would end the token */
		if (*p == '$') {
			p++;
			if (*p != ' ' && *p != ':' && *p != '$')
				abort();
		}
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	enum arg_route route = (enum arg_route)(data[0] % 6);
	char *s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	struct arena a = {0};
	const char *why = ninja_arg_refusal(s, route);
	if (!why) {
		struct strbuf sb = {0};
		ninja_arg(&sb, s);
		char *v = ninja_value(sb_str(&sb));
		char *w = sh_word(v);
		if (strcmp(w, s) != 0)
			abort(); /* the compiler would not see the argument written */
		free(v);
		free(w);
		sb_release(&sb);
		if (route == ARG_PATH) {
			ninja_path(&sb, s);
			char *t = ninja_token(sb_str(&sb));
			if (strcmp(t, s) != 0)
				abort();
			free(t);
			sb_release(&sb);
		}
		if (route == ARG_NVCC_DEFINE || route == ARG_NVCC_INCLUDE ||
		    route == ARG_NVCC_HOST) {
			/* nvcc puts the value in "..." for /bin/sh: nothing in it may be special
			 * there, and a -D/-I value is split at ','. */
			if (strpbrk(s, "$`\\\"\n"))
				abort();
			if (route != ARG_NVCC_HOST && strchr(s, ','))
				abort();
			if (route == ARG_NVCC_INCLUDE && strchr(s, '\''))
				abort(); /* nvcc hands the compiler \' for it */
		}
		if (route == ARG_NVCC_FLAG)
			for (const char *p = s; *p; p++)
				if (!strchr(PLAIN, *p))
					abort();
	} else if (!*why) {
		abort(); /* a refusal says why */
	}
	if (*s && !strpbrk(s, "\n\r")) {
		char *stub = ninja_stub_name(&a, s);
		if (ninja_source_needs_stub(stub, true) || ninja_source_needs_stub(stub, false))
			abort(); /* a stub's own name must pass everywhere */
		/* _XX decodes back to the source: distinct sources never share a stub. */
		if (strncmp(stub, "src/", 4) != 0)
			abort();
		char *back = malloc(strlen(stub) + 1), *o = back;
		for (const char *p = stub + 4; *p; p++) {
			if (*p == '_') {
				unsigned x = 0;
				for (int k = 1; k <= 2; k++) {
					char c = p[k];
					x = x * 16 + (unsigned)(c >= 'a' ? c - 'a' + 10 : c - '0');
				}
				*o++ = (char)x;
				p += 2;
			} else {
				*o++ = *p;
			}
		}
		*o = '\0';
		if (strcmp(back, s) != 0)
			abort();
		free(back);
	}
	arena_free(&a);
	free(s);
	return 0;
}
