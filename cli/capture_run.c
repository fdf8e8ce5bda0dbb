/* capture_run.c: the setup.py capture that `cuwheel init` and a build or plan of a project
 * without [tool.cuwheel] run: whether one is needed, the capture itself, and the on-the-fly
 * config it writes into the build dir. */
#include "cli/init.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "base/path.h"
#include "base/sandbox.h"
#include "ci/torch_builds.h"
#include "init/capture.h"
#include "init/init_config.h"
#include "packager/sdist.h"
#include "standards/toml.h"
#include "toolchain/discover.h"

/* The build dir a project without config uses: $CUWHEEL_BUILD_DIR, else build/cuwheel in the
 * directory cuwheel runs in (-C DIR). */
const char *cli_default_build_dir(struct cli *c)
{
	const char *b = env_nonempty(c->env, "CUWHEEL_BUILD_DIR");
	return os_abspath(&c->arena, b ? b : os_join(&c->arena, c->project_dir, "build/cuwheel"));
}

static const char *default_dist_dir(struct cli *c)
{
	const char *b = env_nonempty(c->env, "CUWHEEL_DIST_DIR");
	return os_abspath(&c->arena, b ? b : os_join(&c->arena, c->project_dir, "dist"));
}

/* pyproject.toml of dir: 1 when its [tool.cuwheel] describes the build, and sets *project when
 * it has a [project] without dynamic fields; 0 when it has no [tool.cuwheel] (or no file) or
 * one that holds only setup-env (the capture's environment); -1 when it cannot be parsed or
 * (with setup_env) its setup-env is refused (reported). setup_env (or NULL) gets setup-env's
 * NAME=VALUE entries. */
static int pyproject_state(struct cli *c, struct diag *d, const char *dir, bool *project,
                           struct strv *setup_env)
{
	*project = false;
	const char *path = os_join(&c->arena, dir, "pyproject.toml");
	if (!os_exists(path) || os_is_dir(path))
		return 0;
	struct source src;
	if (!os_read_file(&c->arena, d, path, &src))
		return -1;
	src.path = path;
	struct toml_value *root = toml_parse(&c->arena, d, &src);
	if (!root)
		return -1;
	const struct toml_value *p = toml_get(root, "project");
	*project = p && p->type == TOML_TABLE && !toml_get(p, "dynamic");
	const struct toml_value *tool = toml_get(toml_get(root, "tool"), "cuwheel");
	if (setup_env && tool && tool->type == TOML_TABLE &&
	    !config_setup_env(&c->arena, d, &src, tool, setup_env))
		return -1;
	if (!tool || tool->type != TOML_TABLE)
		return tool ? 1 : 0;
	for (size_t i = 0; i < tool->u.table.len; i++)
		if (strcmp(tool->u.table.items[i].key, "setup-env") != 0)
			return 1;
	return 0;
}

bool cli_needs_capture(struct cli *c)
{
	if (c->config_file)
		return false;
	if (c->sdist)
		return true;
	bool project;
	return pyproject_state(c, &c->diag, c->project_dir, &project, NULL) == 0 &&
	       os_exists(os_join(&c->arena, c->project_dir, "setup.py"));
}

bool cli_has_config(struct cli *c, struct diag *d)
{
	bool project;
	return c->config_file || pyproject_state(c, d, c->project_dir, &project, NULL) == 1;
}

static int cmp_version(const void *x, const void *y)
{
	const char *a = *(const char *const *)x, *b = *(const char *const *)y;
	int am = 0, an = 0, bm = 0, bn = 0;
	sscanf(a, "%d.%d", &am, &an);
	sscanf(b, "%d.%d", &bm, &bn);
	return am != bm ? am - bm : an - bn;
}

/* The sandbox setup.py runs in: true with *sb the probed bwrap, or with *sb NULL when the
 * user opted out (--unsandboxed, CUWHEEL_UNSANDBOXED=1), said in a warning; false, refused
 * with the reason and the ways out, when none can be made here. */
static bool capture_sandbox(struct cli *c, const char *setup, const struct sandbox **sb)
{
	struct arena *a = &c->arena;
	const char *opt = env_nonempty(c->env, "CUWHEEL_UNSANDBOXED");
	*sb = NULL;
	if (c->unsandboxed || (opt && !strcmp(opt, "1"))) {
		diag_path(&c->diag, DIAG_WARNING, setup,
		          "runs without the sandbox (%s): the project's code can read your files, "
		          "write wherever you can, reach the network and leave processes running",
		          c->unsandboxed ? "--unsandboxed" : "CUWHEEL_UNSANDBOXED=1");
		return true;
	}
	struct sandbox *s = arena_calloc(a, 1, sizeof(*s));
	if (sandbox_probe(a, c->env, s)) {
		*sb = s;
		return true;
	}
	diag_path(&c->diag, DIAG_ERROR, setup,
	          "cuwheel runs setup.py (the project's own code) only in a sandbox, and none can "
	          "be made here: %s",
	          s->error);
	diag_msg(&c->diag, DIAG_NOTE,
	         "the sandbox is bubblewrap's (bwrap: user, mount, PID and network namespaces); "
	         "it needs bwrap installed and user namespaces allowed (Docker's default seccomp "
	         "profile and Ubuntu 24.04's AppArmor restriction refuse them)");
	diag_msg(&c->diag, DIAG_HINT,
	         "install bubblewrap (apt-get install bubblewrap) or allow user namespaces; for a "
	         "project you trust, --unsandboxed or CUWHEEL_UNSANDBOXED=1 runs it without one; "
	         "`cuwheel doctor` says whether the sandbox works (docs/manual/init.md)");
	return false;
}

/* Adds the directory `up` levels above path (its links resolved first when resolve) to dirs;
 * nothing when path is NULL. */
static void dir_above(struct arena *a, struct strv *dirs, const char *path, int up, bool resolve)
{
	char *p = !path ? NULL : resolve ? os_realpath(a, path) : os_abspath(a, path);
	for (int i = 0; p && i < up; i++) {
		char *slash = strrchr(p, '/');
		if (!slash || slash == p)
			return;
		*slash = '\0';
	}
	if (p)
		strv_push(a, dirs, p);
}

/* What setup.py needs to read where the sandbox hides it (a home dir, /tmp): the interpreter
 * (its venv, its base install, torch's site-packages), the toolkits found, CUDA_HOME and
 * CUDA_PATH, and cuwheel's cache (provisioned toolkits and Pythons). NULL-terminated. */
static const char *const *capture_readable(struct cli *c, const struct discovery *ds,
                                           const struct interp *py)
{
	struct arena *a = &c->arena;
	struct strv r = {0};
	dir_above(a, &r, py->path, 2, false);         /* <venv>/bin/python */
	dir_above(a, &r, py->path, 2, true);          /* its target: <prefix>/bin/python3.X */
	dir_above(a, &r, py->include_dir, 2, true);   /* <prefix>/include/python3.X */
	dir_above(a, &r, py->torch.lib_dir, 2, true); /* <site-packages>/torch/lib */
	for (size_t i = 0; i < ds->n_toolkits; i++)
		strv_push(a, &r, ds->toolkits[i].root);
	strv_push(a, &r, env_nonempty(c->env, "CUDA_HOME"));
	strv_push(a, &r, env_nonempty(c->env, "CUDA_PATH"));
	strv_push(a, &r, cuwheel_cache_dir(a, c->env));
	struct strv out = {0};
	for (size_t i = 0; i < r.n; i++)
		if (r.v[i])
			strv_push(a, &out, r.v[i]);
	strv_push(a, &out, NULL);
	return out.v;
}

/* The python and cuda axes by PyTorch's table (q->table_axes): the Pythons the release of the
 * captured torch has wheels for (free-threaded ones left out) and the CUDA of PyPI's build. */
static void table_axes(struct cli *c, struct init_inputs *in, struct capture *cap)
{
	const char *dot = cap->torch ? strchr(cap->torch, '.') : NULL;
	size_t n = dot ? (size_t)(dot + 1 - cap->torch) + strspn(dot + 1, "0123456789") : 0;
	const struct torch_build *b =
	    dot ? torch_build_find(arena_strndup(&c->arena, cap->torch, n)) : NULL;
	if (!b)
		return;
	in->pythons = (struct strv){0};
	for (const char *p = b->pythons; *p;) {
		size_t k = strcspn(p, " ");
		if (k && p[k - 1] != 't')
			strv_push(&c->arena, &in->pythons, arena_strndup(&c->arena, p, k));
		p += k + (p[k] == ' ');
	}
	cap->torch_cuda = b->pypi;
	in->axes_from =
	    arena_printf(&c->arena, "PyPI's torch %s (ci/torch_builds.def)", b->release);
}

/* Captures q->tree's setup.py and derives its config into res; false after diagnostics. */
bool cli_capture_tree(struct cli *c, struct capture_request *q)
{
	struct arena *a = &c->arena;
	if (!c->sdist) {
		q->tree = c->project_dir;
		return true;
	}
	const char *sdist = c->sdist[0] == '/' || !strcmp(c->project_dir, ".")
	                        ? c->sdist
	                        : os_join(a, c->project_dir, c->sdist);
	struct sdist_limits lim;
	sdist_default_limits(&lim);
	if (!sdist_unpack(a, &c->diag, sdist, os_join(a, q->build_dir, "sdist"), &lim, &q->tree))
		return false;
	q->sdist = c->sdist;
	return true;
}

/* The environment setup.py's capture is given: --setup-env's entries, then the project's
 * [tool.cuwheel] setup-env for the names --setup-env leaves unset (capture_switches adds
 * FORCE_CUDA=1 unless either sets it); NULL-terminated in *out. False after the project's
 * setup-env or pyproject.toml is refused (located). */
static bool capture_given_env(struct cli *c, const struct capture_request *q, const char *tree,
                              bool *pyproject_project, struct strv *out)
{
	struct arena *a = &c->arena;
	struct strv given = {0};
	for (size_t i = 0; q->setenv && q->setenv[i]; i++)
		strv_push(a, &given, q->setenv[i]);
	size_t n_given = given.n;
	if (pyproject_state(c, &c->diag, tree, pyproject_project, &given) < 0)
		return false;
	for (size_t i = 0; i < given.n; i++) {
		size_t n = strcspn(given.v[i], "=");
		bool over = false;
		for (size_t j = 0; i >= n_given && j < n_given; j++)
			over |= !strncmp(given.v[j], given.v[i], n + 1);
		if (!over)
			strv_push(a, out, given.v[i]);
	}
	strv_push(a, out, NULL);
	return true;
}

bool cli_capture_config(struct cli *c, const struct capture_request *q, struct capture_result *res)
{
	struct arena *a = &c->arena;
	memset(res, 0, sizeof(*res));
	const char *tree = os_realpath(a, q->tree);
	if (!tree) {
		diag_errno(&c->diag, q->tree, "cannot open the project directory");
		return false;
	}
	if (!os_exists(os_join(a, tree, "setup.py"))) {
		diag_path(&c->diag, DIAG_ERROR, q->sdist ? q->sdist : q->tree,
		          "%s no setup.py to read the build from, and no [tool.cuwheel] says it",
		          q->sdist ? "the sdist holds" : "holds");
		diag_msg(
		    &c->diag, DIAG_HINT,
		    "describe the build as [tool.cuwheel] in a config beside it: cuwheel build "
		    "%s--config myproject.cuwheel.toml (docs/manual/init.md)",
		    q->sdist ? arena_printf(a, "%s ", q->sdist) : "");
		return false;
	}
	bool pyproject_project = false;
	struct strv merged = {0};
	if (!capture_given_env(c, q, tree, &pyproject_project, &merged))
		return false;
	const struct sandbox *sb;
	if (!capture_sandbox(c, os_join(a, q->tree, "setup.py"), &sb))
		return false;
	/* One Python with torch, the newest found; the toolkit its torch was built for. */
	struct discover_request dr = {.env = c->env, .project_dir = tree};
	struct discover_opts dopt = {.probe_torch = true};
	struct discovery ds;
	if (!discover_run(a, &c->diag, &dr, os_join(a, q->build_dir, "probes"), &dopt, &ds))
		return false;
	const struct interp *py = NULL;
	for (size_t i = 0; i < ds.n_pythons && !py; i++)
		if (ds.pythons[i].torch.present)
			py = &ds.pythons[i];
	if (!py && ds.n_pythons)
		py =
		    &ds.pythons[0]; /* no torch anywhere: a plain C/C++ extension may not need it */
	if (!py) {
		diag_path(&c->diag, DIAG_ERROR, os_join(a, q->tree, "setup.py"),
		          "no Python found here to run it with");
		diag_msg(&c->diag, DIAG_HINT,
		         "put a Python (with torch, for a torch extension) on PATH; `cuwheel "
		         "doctor --torch` lists what is found");
		return false;
	}
	const struct toolkit *tk = NULL;
	for (size_t i = 0; i < ds.n_toolkits && !tk; i++)
		if (py->torch.cuda &&
		    !strcmp(arena_printf(a, "%d.%d", ds.toolkits[i].major, ds.toolkits[i].minor),
		            py->torch.cuda))
			tk = &ds.toolkits[i];
	if (!tk && ds.n_toolkits)
		tk = &ds.toolkits[0];

	const char *const *setenv = capture_switches(a, (const char *const *)merged.v);
	struct capture_opts co = {
	    .python = py->path,
	    .project_dir = tree,
	    .tmp_parent = q->build_dir,
	    .setenv = setenv,
	    .env = c->env,
	    .sandbox = sb,
	    .readable = capture_readable(c, &ds, py),
	    .timeout_s = q->timeout_s,
	    .cache_dir = os_join(a, q->build_dir, "capture"),
	    /* a record made without the sandbox is not one made in it */
	    .cache_key = arena_printf(
	        a, "torch %s cuda %s toolkit %s %s", py->torch.version ? py->torch.version : "-",
	        py->torch.cuda ? py->torch.cuda : "-", tk && tk->version ? tk->version : "-",
	        sb ? "sandboxed" : "unsandboxed")};
	/* The capture's temp dir lives in the build dir, which the copy leaves out. */
	if (!os_mkdir_p(&c->diag, q->build_dir))
		return false;
	const char *rb = os_realpath(a, q->build_dir);
	if (!rb) {
		diag_errno(&c->diag, q->build_dir, "cannot open the build directory");
		return false;
	}
	co.tmp_parent = rb;
	if (os_path_inside(a, rb, tree) && strcmp(rb, tree))
		co.skip_dir = path_relative(a, tree, rb);
	/* The wheels a build places there are no input of setup.py's. */
	const char *dist = NULL;
	if (q->dist_dir_key && !(dist = os_realpath(a, q->dist_dir_key))) {
		/* Not made yet: its parent's real path and its name. */
		const char *abs = os_abspath(a, q->dist_dir_key);
		const char *sl = strrchr(abs, '/');
		const char *parent =
		    sl ? os_realpath(a, arena_strndup(a, abs, (size_t)(sl - abs))) : NULL;
		dist = parent ? os_join(a, parent, sl + 1) : NULL;
	}
	if (dist && os_path_inside(a, dist, tree) && strcmp(dist, tree))
		co.key_skip = path_relative(a, tree, dist);
	struct capture *cap = &res->cap;
	res->tried = true;
	if (!capture_run(a, &c->diag, &co, cap))
		return false;
	res->ran = true;

	struct init_inputs in = {.cap = cap,
	                         .project_dir = tree,
	                         .build_dir = rb,
	                         .py = py,
	                         .tk = tk,
	                         .cxx = tk && tk->host.cxx ? tk->host.cxx : "c++",
	                         .cc = tk && tk->host.cc ? tk->host.cc : "cc",
	                         .setenv = setenv,
	                         .has_pkginfo = os_exists(os_join(a, tree, "PKG-INFO")),
	                         .build_dir_key = q->build_dir_key,
	                         .dist_dir_key = q->dist_dir_key,
	                         .header = arena_printf(a, "%s setup.py ran %s.", q->header,
	                                                sb ? "in a bubblewrap sandbox"
	                                                   : "WITHOUT a sandbox (--unsandboxed or "
	                                                     "CUWHEEL_UNSANDBOXED=1)")};
	in.metadata_elsewhere = in.has_pkginfo || pyproject_project;
	for (size_t i = 0; i < ds.n_pythons; i++) {
		const struct interp *p = &ds.pythons[i];
		if (p->torch.present && p->torch.version_short && py->torch.version_short &&
		    !strcmp(p->torch.version_short, py->torch.version_short) && !p->freethreaded) {
			const char *v = arena_printf(a, "%d.%d", p->major, p->minor);
			if (!strv_contains(&in.pythons, v))
				strv_push(a, &in.pythons, v);
		}
	}
	if (in.pythons.n)
		qsort(in.pythons.v, in.pythons.n, sizeof(*in.pythons.v), cmp_version);
	if (q->table_axes)
		table_axes(c, &in, cap);
	if (!init_config_write(a, &c->diag, &in, &res->text))
		return false;
	res->python = py->path;
	res->mode = sb ? "in a bubblewrap sandbox" : "without a sandbox";
	return true;
}

bool cli_capture_on_the_fly(struct cli *c, const char **tree, const char **config)
{
	struct arena *a = &c->arena;
	struct strv setenv = {0};
	for (size_t i = 0; i < c->setup_env.n; i++)
		strv_push(a, &setenv, c->setup_env.v[i]);
	strv_push(a, &setenv, NULL);
	struct capture_request q = {.build_dir = cli_default_build_dir(c),
	                            .setenv = setenv.v,
	                            .header = "Captured on the fly by cuwheel from setup.py "
	                                      "(no [tool.cuwheel] anywhere)."};
	q.build_dir_key = q.build_dir;
	q.dist_dir_key = default_dist_dir(c);
	if (!cli_capture_tree(c, &q))
		return false;
	struct capture_result res = {0};
	if (!cli_capture_config(c, &q, &res)) {
		if (!res.tried) /* refused before setup.py ran: said, with its own hint */
			return false;
		/* setup.py ran: `cuwheel init` would refuse the same build, so the hint above
		 * (write [tool.cuwheel] by hand) is the way on; only say where the build was read
		 * from. */
		diag_msg(&c->diag, DIAG_HINT,
		         res.ran
		             ? "no [tool.cuwheel] here: cuwheel read the build from setup.py "
		               "(it ran), and that build cannot be said as a config as it is"
		             : "no [tool.cuwheel] here, so cuwheel read the build from setup.py, "
		               "which failed as said; `cuwheel init` writes a config to edit by "
		               "hand once setup.py can be captured");
		return false;
	}
	const char *dir = os_join(a, q.build_dir, "init");
	const char *path = os_join(a, dir, "cuwheel.toml");
	if (!os_mkdir_p(&c->diag, dir) ||
	    !os_write_if_changed(a, &c->diag, path, res.text, strlen(res.text), 0644))
		return false;
	fprintf(stderr,
	        "cuwheel: no [tool.cuwheel]: the build is read from setup.py (run with %s, %s) "
	        "into %s; `cuwheel init` writes it for review\n",
	        esc_str(a, ESC_TERM, res.python), res.mode, esc_str(a, ESC_TERM, path));
	*tree = q.tree;
	*config = path;
	return true;
}
