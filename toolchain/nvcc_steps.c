/* nvcc_steps.c: reading `nvcc --dryrun` into steps, and the chains that run them side by
 * side (nvcc_steps.h). */
#include "toolchain/nvcc_steps.h"

#include <string.h>

#include "base/strbuf.h"

/* The arguments that make a command other than one compile to one object with a depfile
 * from -MD -MF: nvcc stops early, writes other dependency output or keeps its files. */
static const char *const not_split[] = {"-E",
                                        "-M",
                                        "-MM",
                                        "-MMD",
                                        "-MT",
                                        "-MP",
                                        "--generate-dependencies",
                                        "--generate-nonsystem-dependencies",
                                        "--generate-dependencies-with-compile",
                                        "--generate-nonsystem-dependencies-with-compile",
                                        "-dryrun",
                                        "--dryrun",
                                        "-keep",
                                        "--keep",
                                        "-keep-dir",
                                        "--keep-dir",
                                        "-save-temps",
                                        "--save-temps",
                                        "-ptx",
                                        "--ptx",
                                        "-cubin",
                                        "--cubin",
                                        "-fatbin",
                                        "--fatbin",
                                        "-cuda",
                                        "--cuda",
                                        "-lib",
                                        "--lib",
                                        "-link",
                                        "--link",
                                        "-dlink",
                                        "--device-link",
                                        "-run",
                                        "--run",
                                        "-v",
                                        "--verbose",
                                        NULL};

static bool listed(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

bool nvcc_steps_args(struct arena *a, const char *const *argv, struct strv *dry,
                     const char **depfile, const char **object, const char **why)
{
	*depfile = *object = NULL;
	bool compile = false;
	for (size_t i = 0; argv[i]; i++) {
		const char *s = argv[i];
		for (const char *p = s; *p; p++)
			if (strchr("\"\\$`'", *p) || (unsigned char)*p < 0x20 || *p == 0x7f) {
				*why = arena_printf(
				    a,
				    "argument %zu holds a character nvcc's dry run may "
				    "not quote",
				    i);
				return false;
			}
		if (i == 0) {
			strv_push(a, dry, s);
		} else if (!strcmp(s, "-MD")) {
			continue;
		} else if (!strcmp(s, "-MF") || !strcmp(s, "-o")) {
			if (!argv[i + 1]) {
				*why = arena_printf(a, "%s names no file", s);
				return false;
			}
			if (!strcmp(s, "-o")) {
				*object = argv[i + 1];
				strv_push(a, dry, s);
				strv_push(a, dry, argv[i + 1]);
			} else {
				*depfile = argv[i + 1];
			}
			i++;
		} else if (!strcmp(s, "--threads") || !strcmp(s, "-t")) {
			/* The steps run side by side here; and 12.x's dry run under --threads N > 1
			 * fails (it reads the output its threads would have written). */
			i += argv[i + 1] != NULL;
		} else if (!strncmp(s, "--threads=", 10) || !strncmp(s, "-t=", 3)) {
			continue;
		} else if (listed(not_split, s)) {
			*why = arena_printf(a, "it is not one compile with -MD (%s)", s);
			return false;
		} else {
			compile |= !strcmp(s, "-c");
			strv_push(a, dry, s);
		}
	}
	if (!compile || !*object) {
		*why = "it is not one compile (-c) to an object (-o)";
		return false;
	}
	return true;
}

/* The value of variable name (name_len bytes) among env ("NAME=value"), or NULL. */
static const char *env_value(const struct strv *env, const char *name, size_t name_len)
{
	for (size_t i = env->n; i-- > 0;)
		if (!strncmp(env->v[i], name, name_len) && env->v[i][name_len] == '=')
			return env->v[i] + name_len + 1;
	return NULL;
}

static bool name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* $NAME at *p, a variable the dry run set before: its value appended, *p past it. */
static bool expand(const char **p, const struct strv *env, struct strbuf *w)
{
	const char *name = *p + 1;
	size_t n = 0;
	while (name_char(name[n]))
		n++;
	const char *value = n ? env_value(env, name, n) : NULL;
	if (!value)
		return false;
	sb_puts(w, value);
	*p = name + n;
	return true;
}

/* The next word at *p as sh reads nvcc's lines: double quotes (with \" \\ \$ \` inside),
 * backslash escapes and $NAME of the dry run's own variables; any other shell syntax is not
 * read. *redirect: the word was a redirection (">", "2>" and its target), to drop. */
static bool next_word(const char **pp, const struct strv *env, struct strbuf *w, bool *redirect)
{
	const char *p = *pp;
	sb_reset(w);
	*redirect = false;
	if (*p == '>' || (p[0] == '2' && p[1] == '>')) {
		*redirect = true;
		p += *p == '>' ? 1 : 2;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	bool quoted = false;
	while (*p && *p != ' ' && *p != '\t') {
		if (*p == '"') {
			quoted = true;
			for (p++; *p && *p != '"';) {
				if (*p == '\\' && p[1] && strchr("\"\\$`", p[1])) {
					sb_putc(w, p[1]);
					p += 2;
				} else if (*p == '$') {
					if (!expand(&p, env, w))
						return false;
				} else if (*p == '`') {
					return false;
				} else {
					sb_putc(w, *p++);
				}
			}
			if (*p++ != '"')
				return false;
		} else if (*p == '\\') {
			if (!p[1])
				return false;
			sb_putc(w, p[1]);
			p += 2;
		} else if (*p == '$') {
			if (!expand(&p, env, w))
				return false;
		} else if (strchr("'`;&|<>(){}", *p)) {
			return false;
		} else {
			sb_putc(w, *p++);
		}
	}
	*pp = p;
	return quoted || w->len > 0;
}

/* The words of line, redirections dropped. */
static bool split_words(struct arena *a, const char *line, const struct strv *env, struct strv *out)
{
	struct strbuf w = {0};
	bool ok = true;
	for (const char *p = line;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		bool redirect;
		if (!next_word(&p, env, &w, &redirect)) {
			ok = false;
			break;
		}
		if (!redirect)
			strv_push(a, out, arena_strndup(a, w.buf ? w.buf : "", w.len));
	}
	sb_release(&w);
	return ok;
}

/* A line "NAME=value" of the dry run: the variable nvcc sets, its words joined. */
static bool read_env(struct arena *a, const char *line, struct nvcc_steps *s)
{
	size_t n = 0;
	while (name_char(line[n]))
		n++;
	if (!n || line[n] != '=' || (line[0] >= '0' && line[0] <= '9'))
		return false;
	struct strv words = {0};
	if (!split_words(a, line + n + 1, &s->env, &words))
		return false;
	struct strbuf v = {0};
	sb_add(&v, line, n + 1);
	for (size_t i = 0; i < words.n; i++)
		sb_printf(&v, "%s%s", i ? " " : "", words.v[i]);
	strv_push(a, &s->env, sb_to_arena(&v, a));
	sb_release(&v);
	return true;
}

static bool read_line(struct arena *a, const char *line, struct nvcc_steps *s)
{
	if (read_env(a, line, s))
		return true;
	struct strv words = {0};
	if (!split_words(a, line, &s->env, &words) || !words.n || !*words.v[0])
		return false;
	if (!strcmp(words.v[0], "rm")) {
		for (size_t i = 1; i < words.n; i++)
			strv_push(a, &s->temps, words.v[i]);
		return words.n > 1;
	}
	if (words.v[0][0] == '-')
		return false; /* "-- Filter Dependencies --", or another step nvcc runs itself */
	s->steps = arena_realloc(a, s->steps, s->n, s->n + 1, sizeof(*s->steps));
	s->steps[s->n++] = (struct nvcc_step){.argv = words.v};
	return true;
}

bool nvcc_steps_parse(struct arena *a, const char *text, struct nvcc_steps *s, const char **why)
{
	*s = (struct nvcc_steps){0};
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		char *line = arena_strndup(a, p, len);
		if (len && line[len - 1] == '\r')
			line[len - 1] = '\0';
		p += len + (p[len] == '\n');
		if (strncmp(line, "#$ ", 3) != 0) {
			if (*line)
				strv_push(a, &s->notes, line);
			continue;
		}
		if (!read_line(a, line + 3, s)) {
			*why = arena_printf(a, "the dry run's line '%.80s' is not one read here",
			                    line + 3);
			return false;
		}
	}
	if (!s->n) {
		*why = "the dry run lists no step";
		return false;
	}
	return true;
}

/* True when word names the intermediate t: the word itself, or its end after '=' or ','
 * (--create=FILE, --image3=kind=elf,sm=90,file=FILE). */
static bool names(const char *word, const char *t)
{
	size_t wl = strlen(word), tl = strlen(t);
	if (wl == tl)
		return !strcmp(word, t);
	return wl > tl && !strcmp(word + wl - tl, t) && strchr("=,", word[wl - tl - 1]);
}

static size_t argv_len(const char **argv)
{
	size_t n = 0;
	while (argv[n])
		n++;
	return n;
}

/* The value after option opt in argv, or NULL. */
static const char *option_value(const char **argv, const char *opt)
{
	for (size_t i = 0; argv[i]; i++)
		if (!strcmp(argv[i], opt) && argv[i + 1])
			return argv[i + 1];
	return NULL;
}

static bool has_word(const char **argv, const char *w)
{
	for (size_t i = 0; argv[i]; i++)
		if (!strcmp(argv[i], w))
			return true;
	return false;
}

/* Step i reads the module id another step writes (host_id): it writes its own instead. */
static void own_module_id(struct arena *a, struct nvcc_steps *s, size_t i, const char *host_id,
                          size_t writer)
{
	struct nvcc_step *st = &s->steps[i];
	size_t n = argv_len(st->argv);
	const char **v = arena_calloc(a, n + 2, sizeof(*v));
	const char *own = arena_printf(a, "%s.cicc%zu", host_id, i);
	for (size_t j = 0, k = 0; j < n; j++) {
		if (!strcmp(st->argv[j], "--module_id_file_name") && j + 1 < n) {
			v[k++] = "--gen_module_id_file";
			v[k++] = st->argv[j];
			v[k++] = own;
			j++;
		} else {
			v[k++] = st->argv[j];
		}
	}
	st->original = st->argv;
	st->argv = v;
	st->own_id = own;
	st->shared_id = host_id;
	st->id_writer = writer;
	strv_push(a, &s->temps, own);
}

/* The intermediates the dry run does not `rm` (without -objtemp nvcc removes its /tmp files
 * itself): what a step but the last writes with -o, and every file nvcc names tmpxft_<pid>_...
 * (a word, or its end after '=' or ','), so that the steps reading them wait for their writers
 * and the runner removes them. */
static void more_temps(struct arena *a, struct nvcc_steps *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const char **argv = s->steps[i].argv;
		const char *out = option_value(argv, "-o");
		if (out && i + 1 < s->n && !strv_contains(&s->temps, out))
			strv_push(a, &s->temps, out);
		for (size_t j = 0; argv[j]; j++) {
			const char *w = argv[j], *cut = strrchr(w, '=');
			const char *comma = strrchr(w, ',');
			if (comma > cut)
				cut = comma;
			w = cut ? cut + 1 : w;
			const char *base = strrchr(w, '/');
			if (!strncmp(base ? base + 1 : w, "tmpxft_", 7) && base &&
			    !strv_contains(&s->temps, w))
				strv_push(a, &s->temps, w);
		}
	}
}

/* The step that first names each intermediate writes it; a step depends on the writers of
 * those it names. Steps that depend on one chain join it; a step depending on two chains or
 * on a joining step, and the last step, join after every chain. */
static void assign_chains(struct arena *a, struct nvcc_steps *s)
{
	size_t *writer = arena_calloc(a, s->temps.n + 1, sizeof(*writer));
	for (size_t t = 0; t < s->temps.n; t++)
		writer[t] = s->n;
	s->nchains = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct nvcc_step *st = &s->steps[i];
		size_t chain = s->n; /* none yet */
		bool join = i + 1 == s->n;
		for (size_t j = 0; st->argv[j]; j++)
			for (size_t t = 0; t < s->temps.n; t++) {
				if (!names(st->argv[j], s->temps.v[t]))
					continue;
				if (writer[t] == s->n) {
					writer[t] = i;
					continue;
				}
				size_t c = writer[t] == i ? chain : s->steps[writer[t]].chain;
				if (c == NVCC_JOIN || (chain != s->n && c != chain))
					join = true;
				else
					chain = c;
			}
		st->chain = join ? NVCC_JOIN : chain != s->n ? chain : s->nchains++;
	}
}

bool nvcc_steps_schedule(struct arena *a, struct nvcc_steps *s, const char *object,
                         const char **why)
{
	const char *host_id = NULL;
	size_t writer = 0;
	for (size_t i = 0; i < s->n; i++) {
		const char *id = option_value(s->steps[i].argv, "--module_id_file_name");
		if (!id)
			continue;
		if (has_word(s->steps[i].argv, "--gen_module_id_file")) {
			if (host_id) {
				*why = "two steps write a module id";
				return false;
			}
			host_id = id;
			writer = i;
		} else if (host_id && !strcmp(id, host_id)) {
			own_module_id(a, s, i, host_id, writer);
		} else {
			*why = "a step reads a module id no step before it writes";
			return false;
		}
	}
	more_temps(a, s);
	assign_chains(a, s);
	const char *last = option_value(s->steps[s->n - 1].argv, "-o");
	if (!last || strcmp(last, object) != 0) {
		*why = "the last step does not write the object";
		return false;
	}
	return true;
}

const char **nvcc_steps_with_depfile(struct arena *a, const char **argv, const char **dep)
{
	const char *out = option_value(argv, "-o");
	*dep = NULL;
	if (!out || !has_word(argv, "-E"))
		return argv;
	size_t n = argv_len(argv);
	const char **v = arena_calloc(a, n + 4, sizeof(*v));
	memcpy(v, argv, n * sizeof(*v));
	*dep = arena_printf(a, "%s.d", out);
	v[n] = "-MD";
	v[n + 1] = "-MF";
	v[n + 2] = *dep;
	return v;
}
