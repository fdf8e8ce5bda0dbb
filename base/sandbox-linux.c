/* sandbox-linux.c: the bubblewrap sandbox (sandbox.h): finding bwrap, trying it, and the
 * command line that runs a command inside it. */
#include "base/sandbox.h"

#include <limits.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

#include "base/env.h"
#include "base/os-file.h"
#include "base/os-run.h"

/* Where bwrap is looked for when $CUWHEEL_BWRAP is not set, before PATH: the distributions'
 * own places, so that no directory a user (or a project) put first on PATH decides it. */
static const char *const bwrap_places[] = {"/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"};

/* The areas the sandbox hides behind empty tmpfs besides the home dirs: the temp dirs other
 * programs share (a private one, writable: tools write there whatever TMPDIR says), and
 * /run (sockets: D-Bus, the container runtime's, ssh and gpg agents), read-only as the
 * home dirs are. */
static const char *const hidden_writable[] = {"/tmp", "/var/tmp"};

/* Finds bwrap as sandbox.h says; fills s->bwrap and s->found_by, or s->error. */
static bool bwrap_find(struct arena *a, const char *const *env, struct sandbox *s)
{
	const char *given = env_nonempty(env, "CUWHEEL_BWRAP");
	if (given) {
		char *real = given[0] == '/' ? os_realpath(a, given) : NULL;
		if (!real || !os_is_exec(real)) {
			s->error = arena_printf(a,
			                        "CUWHEEL_BWRAP='%s' is not an absolute path to an "
			                        "executable",
			                        given);
			return false;
		}
		s->bwrap = real;
		s->found_by = "CUWHEEL_BWRAP";
		return true;
	}
	for (size_t i = 0; i < sizeof(bwrap_places) / sizeof(*bwrap_places); i++)
		if (os_is_exec(bwrap_places[i])) {
			s->bwrap = bwrap_places[i];
			s->found_by = "a fixed place";
			return true;
		}
	const char *on_path = os_which(a, env, "bwrap");
	char *real = on_path && on_path[0] == '/' ? os_realpath(a, on_path) : NULL;
	if (real) {
		s->bwrap = real;
		s->found_by = "PATH";
		return true;
	}
	s->error = "bubblewrap (bwrap) is not installed: not at /usr/bin/bwrap, "
	           "/usr/local/bin/bwrap or /bin/bwrap, not on PATH, and CUWHEEL_BWRAP is not set";
	return false;
}

/* The first line of text, printable ASCII only (what bwrap says is shown and recorded). */
static const char *first_line(struct arena *a, const char *text)
{
	size_t n = strcspn(text, "\r\n");
	if (n > 300)
		n = 300;
	char *out = arena_strndup(a, text, n);
	for (char *p = out; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	return out;
}

bool sandbox_probe(struct arena *a, const char *const *env, struct sandbox *s)
{
	memset(s, 0, sizeof(*s));
	if (!bwrap_find(a, env, s))
		return false;
	/* The same shape as a capture's sandbox, with bwrap's own directory readable. */
	struct strv argv = {0};
	const char *dir = arena_strndup(a, s->bwrap, (size_t)(strrchr(s->bwrap, '/') - s->bwrap));
	const char *readable[] = {*dir ? dir : "/", NULL};
	struct sandbox_spec spec = {.readable = readable};
	sandbox_argv(a, s, env, &spec, &argv);
	strv_push(a, &argv, s->bwrap);
	strv_push(a, &argv, "--version");
	strv_push(a, &argv, NULL);
	const char *const clean_env[] = {"LC_ALL=C", NULL};
	struct os_run r = {.argv = argv.v,
	                   .capture = true,
	                   .probe = true,
	                   .timeout_s = 30,
	                   .max_output = 4096,
	                   .env = clean_env,
	                   .env_only = true};
	struct strbuf out = {0};
	struct diag quiet = {0}; /* a probe: its failure is the answer */
	int st = 1;
	bool started = os_run(&quiet, &r, &out, &st);
	const char *said = first_line(a, sb_str(&out));
	sb_release(&out);
	if (started && st == 0 && !strncmp(said, "bubblewrap ", 11)) {
		s->version = said;
		return true;
	}
	if (!started)
		s->error = arena_printf(a, "%s cannot be run", s->bwrap);
	else if (st == OS_STATUS_TIMED_OUT)
		s->error = arena_printf(a, "%s did not answer in 30 s", s->bwrap);
	else
		s->error = arena_printf(a, "%s cannot make the sandbox here (exit status %d): %s",
		                        s->bwrap, st, *said ? said : "(it said nothing)");
	return false;
}

/* Adds path, resolved, to dirs unless it is "/", missing, not a directory, or already there. */
static void dir_add(struct arena *a, struct strv *dirs, const char *path)
{
	if (!path || path[0] != '/')
		return;
	char *real = os_realpath(a, path);
	if (!real || !strcmp(real, "/") || !os_is_dir(real) || strv_contains(dirs, real))
		return;
	strv_push(a, dirs, real);
}

/* True when path is dir or lies below it (both resolved). */
static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* The directories hidden behind an empty tmpfs, outermost first (one inside another is
 * left out: the outer one hides it). */
static void hidden_dirs(struct arena *a, const char *const *env, struct strv *out)
{
	struct strv all = {0};
	for (size_t i = 0; i < sizeof(hidden_writable) / sizeof(*hidden_writable); i++)
		dir_add(a, &all, hidden_writable[i]);
	dir_add(a, &all, "/run");
	dir_add(a, &all, "/home");
	dir_add(a, &all, "/root");
	dir_add(a, &all, env_nonempty(env, "HOME"));
	struct passwd *pw = getpwuid(getuid());
	if (pw)
		dir_add(a, &all, pw->pw_dir);
	for (size_t i = 0; i < all.n; i++) {
		bool inner = false;
		for (size_t j = 0; j < all.n; j++)
			if (j != i && below(all.v[i], all.v[j]) && strcmp(all.v[i], all.v[j]))
				inner = true;
		if (!inner)
			strv_push(a, out, all.v[i]);
	}
}

void sandbox_argv(struct arena *a, const struct sandbox *s, const char *const *env,
                  const struct sandbox_spec *spec, struct strv *argv)
{
	static const char *const fixed[] = {
	    "--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
	    "--unshare-cgroup-try",
	    /* root in its own user namespace would still hold every capability there, enough
	     * to unmount the tmpfs that hides a home: none is left */
	    "--cap-drop", "ALL", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
	    "--dev", "/dev", "--proc", "/proc"};
	strv_push(a, argv, s->bwrap);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		strv_push(a, argv, fixed[i]);
	struct strv hidden = {0};
	hidden_dirs(a, env, &hidden);
	for (size_t i = 0; i < hidden.n; i++) {
		strv_push(a, argv, "--tmpfs");
		strv_push(a, argv, hidden.v[i]);
	}
	struct strv back = {0};
	for (size_t i = 0; spec->readable && spec->readable[i]; i++)
		dir_add(a, &back, spec->readable[i]);
	for (size_t i = 0; i < back.n; i++) {
		bool inside = false, is_hidden = false;
		for (size_t j = 0; j < hidden.n; j++) {
			inside |= below(back.v[i], hidden.v[j]);
			is_hidden |= below(hidden.v[j], back.v[i]); /* a hidden dir, or above one */
		}
		if (!inside || is_hidden)
			continue;
		strv_push(a, argv, "--ro-bind");
		strv_push(a, argv, back.v[i]);
		strv_push(a, argv, back.v[i]);
	}
	if (spec->writable) {
		strv_push(a, argv, "--bind");
		strv_push(a, argv, spec->writable);
		strv_push(a, argv, spec->writable);
	}
	/* last: the directories bwrap made in them for the binds above are made by now */
	struct strv rw = {0};
	for (size_t j = 0; j < sizeof(hidden_writable) / sizeof(*hidden_writable); j++)
		dir_add(a, &rw, hidden_writable[j]);
	for (size_t i = 0; i < hidden.n; i++) {
		if (!strv_contains(&rw, hidden.v[i])) {
			strv_push(a, argv, "--remount-ro");
			strv_push(a, argv, hidden.v[i]);
		}
	}
	strv_push(a, argv, "--chdir");
	strv_push(a, argv, spec->cwd ? spec->cwd : "/");
	strv_push(a, argv, "--");
}

bool sandbox_canon_argv(struct arena *a, const char *bwrap, const char *project, const char *build,
                        const char *const *ro_binds, struct strv *argv)
{
	struct strv top = {0};
	if (!os_list_dir(a, "/", &top))
		return false;
	strv_push(a, argv, bwrap);
	for (size_t i = 0; i < top.n; i++) {
		if (!strcmp(top.v[i], "cuwheel"))
			continue;
		const char *path = arena_printf(a, "/%s", top.v[i]);
		struct os_stat st;
		char target[PATH_MAX];
		ssize_t n;
		if (os_lstat(path, &st) && st.kind == OS_KIND_LINK &&
		    (n = readlink(path, target, sizeof(target) - 1)) > 0) {
			strv_push(a, argv, "--symlink");
			strv_push(a, argv, arena_strndup(a, target, (size_t)n));
		} else {
			strv_push(a, argv, "--dev-bind");
			strv_push(a, argv, path);
		}
		strv_push(a, argv, path);
	}
	static const char *const fixed[] = {"--dir", "/cuwheel", "--die-with-parent", "--unsetenv",
	                                    "CCACHE_BASEDIR"};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		strv_push(a, argv, fixed[i]);
	const char *binds[][2] = {{project, SANDBOX_CANON_PROJECT}, {build, SANDBOX_CANON_BUILD}};
	for (size_t i = 0; i < 2; i++) {
		strv_push(a, argv, "--bind");
		strv_push(a, argv, binds[i][0]);
		strv_push(a, argv, binds[i][1]);
	}
	for (size_t i = 0; ro_binds && ro_binds[i]; i += 2) {
		strv_push(a, argv, "--ro-bind");
		strv_push(a, argv, ro_binds[i]);
		strv_push(a, argv, ro_binds[i + 1]);
	}
	strv_push(a, argv, "--chdir");
	strv_push(a, argv, SANDBOX_CANON_BUILD);
	strv_push(a, argv, "--");
	return true;
}
