/* cmd_ci.c: `cuwheel ci github`: the plan as a GitHub Actions workflow, written atomically.
 * The cells come from the config and ci/torch_builds.def alone (no discovery: the same config
 * gives the same workflow on every machine). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "base/path.h"
#include "ci/github.h"
#include "ci/torch_builds.h"
#include "cli/init.h"
#include "cli/plan_common.h"
#include "packager/sdist.h"
#include "standards/digest.h"
#include "toolchain/provision.h"
#include "toolchain/provision_cross.h"

enum ci_option {
	CI_OUTPUT,
	CI_STDOUT,
	CI_PER_CELL,
	CI_GPU_LABEL,
	CI_CUWHEEL,
	CI_CONFIG,
	CI_SDIST_SPEC,
	CI_SHA256
};

static const struct cli_option ci_github_options[] = {
    {"config", 0, "FILE", CI_CONFIG,
     "the config beside the project (with SDIST: the project is the sdist);\n"
     "without it and [tool.cuwheel], NAME.cuwheel.toml is written from setup.py"},
    {"sdist-spec", 0, "NAME==VER", CI_SDIST_SPEC,
     "the sdist the jobs fetch from PyPI (default: SDIST's own name and\n"
     "version); SDIST is still read to plan"},
    {"sha256", 0, "HEX", CI_SHA256, "the sdist's sha256, checked against SDIST"},
    {"output", 'o', "FILE", CI_OUTPUT,
     "where to write (default .github/workflows/wheels.yml in the repository)"},
    {"stdout", 0, NULL, CI_STDOUT, "print the workflow instead of writing it"},
    {"per-cell", 0, NULL, CI_PER_CELL, "one Linux wheel job per cell instead of one per leg"},
    {"gpu-label", 0, "LABEL", CI_GPU_LABEL,
     "run the tests on self-hosted runners with these labels (comma-\n"
     "separated), after the wheel jobs"},
    {"cuwheel", 0, "SPEC", CI_CUWHEEL,
     "where the jobs get cuwheel: git+URL@COMMIT (built in the job) or\n"
     "WHEEL-URL#sha256=HEX (default [tool.cuwheel.ci] cuwheel)"},
    {0},
};

const struct cli_help cmd_ci_help = {
    .text =
        "usage: cuwheel ci github [SDIST.tar.gz] [--config FILE] [--sdist-spec NAME==VER]\n"
        "                         [--sha256 HEX] [-o FILE | --stdout] [--per-cell]\n"
        "                         [--gpu-label LABEL] [--cuwheel SPEC]\n"
        "\n"
        "Writes a GitHub Actions workflow for every selected cell of the plan, whatever this\n"
        "machine has (cells come from the config and cuwheel's table of PyTorch's builds,\n"
        "ci/torch_builds.def; nothing is discovered), one chain of jobs per leg (OS, CUDA\n"
        "toolkit), so that a failing leg loses only its own cells:\n"
        "  kernels-LEG   Linux, in the manylinux_2_28 image: CUDA (pinned packages), ccache,\n"
        "                cuwheel (built at a pinned commit, or its wheel by digest), the sdist\n"
        "                (by sha256), torch (one venv per Python and torch build, pinned,\n"
        "                from PyPI or PyTorch's per-CUDA index), then `cuwheel build --stage\n"
        "                kernels --export kernels-out`;\n"
        "  wheels-LEG    needs kernels-LEG: `cuwheel build --stage wheels --import\n"
        "                kernels-out` per leg or, with --per-cell, per cell; uploads wheels;\n"
        "  test-LEG      with --gpu-label: `cuwheel test` on a self-hosted GPU runner;\n"
        "  Windows legs  wingraph (Linux) -> winbuild (Windows: probe.py, ninja, MSVC) ->\n"
        "                winpack (Linux: pack, audit) -> wintest (Windows: fresh venvs);\n"
        "  index         after every leg, whatever it did: indexes the wheels that exist,\n"
        "                names the missing cells and why, and then fails the run if any is;\n"
        "  release, pages, pypi-sdist  with [tool.cuwheel.ci] publish, on tags: release\n"
        "                assets, the index on GitHub Pages, the sdist on PyPI (trusted\n"
        "                publishing), each with only the permissions it needs. The Pages\n"
        "                index lists every release's wheels, linked to the release assets\n"
        "                (pages needs release), and is refused over Pages' 1 GB.\n"
        "Without --config and without [tool.cuwheel], the build is read from setup.py (as\n"
        "`cuwheel init` does) into NAME.cuwheel.toml in the repository, with the Pythons and\n"
        "CUDA of PyPI's build of its torch; review it and commit it with the workflow.\n"
        "SDIST outside the repository is fetched by the jobs from PyPI and checked against\n"
        "its sha256; inside it, it is used as committed. Paths are relative to the\n"
        "repository's root (the nearest directory above the config, or the project, with a\n"
        "`.git`). Actions are pinned by commit. The output is deterministic; a workflow over\n"
        "GitHub's 500 KB limit is refused. docs/manual/ci.md walks through it.\n",
    .groups = {{"github", ci_github_options}},
    .more = "For other CI systems: `cuwheel plan --shard I/N --json`.\n"
            "\n"
            "Exit status: 0 written, 1 error, 2 usage, 3 nothing selected.\n",
};

/* The CUDA minors the toolkit lock file provisions from PyPI ("13.0") into out, and every minor
 * it pins (PyPI's and Debian's) into all; empty without a lock. */
static void lock_minors(struct cli *c, struct strv *out, struct strv *all)
{
	struct provision_lock lock;
	/* A lock that cannot be read: a warning, and the workflow installs no toolkit from PyPI. */
	if (!cli_provision_lock_quiet(c, &lock))
		return;
	/* PyPI's only: the workflow installs those with `cuwheel toolkit install`; the Debian
	 * source is not emitted to CI yet (runners' apt and keyrings differ). */
	for (size_t i = 0; i < lock.n_sets; i++) {
		if (lock.sets[i].source == PROVISION_PYPI &&
		    !strv_contains(out, lock.sets[i].minor))
			strv_push(&c->arena, out, lock.sets[i].minor);
		if (!strv_contains(all, lock.sets[i].minor))
			strv_push(&c->arena, all, lock.sets[i].minor);
	}
}

/* aarch64 = "cross": the cross lock the legs' parts come from (NULL when there is none: every
 * linux_aarch64 cell is then left out, saying so). False when it cannot be read. */
static bool ci_cross_lock(struct cli *c, struct ci_github_opts *o)
{
	const char *path = cross_lock_path(&c->arena, c->env);
	if (!path)
		return true;
	struct cross_lock *lock = arena_alloc(&c->arena, sizeof(*lock));
	if (!cross_lock_load(&c->arena, &c->diag, path, lock))
		return false;
	o->cross = lock;
	return true;
}

static bool all_hex(const char *s, size_t n)
{
	size_t i = 0;
	while (s[i] && strchr("0123456789abcdef", s[i]))
		i++;
	return i == n && !s[i];
}

/* --cuwheel git+URL@COMMIT | URL#sha256=HEX. */
static bool parse_cuwheel(struct cli *c, const char *spec, struct ci_cuwheel *out)
{
	if (strpbrk(spec, "\n\r\t \"'$`\\") || spec[0] == '-')
		return false;
	if (!strncmp(spec, "git+", 4)) {
		const char *at = strrchr(spec, '@');
		if (!at || !all_hex(at + 1, 40) || at - spec <= 4)
			return false;
		out->git = arena_strndup(&c->arena, spec + 4, (size_t)(at - spec - 4));
		out->rev = at + 1;
	} else {
		const char *h = strstr(spec, "#sha256=");
		if (!h || !all_hex(h + 8, 64))
			return false;
		out->url = arena_strndup(&c->arena, spec, (size_t)(h - spec));
		out->sha256 = h + 8;
	}
	const char *url = out->git ? out->git : out->url;
	return !strncmp(url, "https://", 8) || !strncmp(url, "file://", 7);
}

/* The repository's root: the nearest directory at or above dir with a .git, else dir. */
static const char *repo_root(struct cli *c, const char *dir)
{
	char *d = arena_strdup(&c->arena, dir);
	for (;;) {
		if (os_exists(os_join(&c->arena, d, ".git")))
			return d;
		char *slash = strrchr(d, '/');
		if (!slash || slash == d)
			return dir;
		*slash = '\0';
	}
}

/* path relative to root, or NULL (with an error naming what) when it lies outside. */
static const char *in_repo(struct cli *c, const char *root, const char *path, const char *what)
{
	if (!os_path_inside(&c->arena, path, root)) {
		diag_path(&c->diag, DIAG_ERROR, path,
		          "%s lies outside the repository (%s): the jobs see only the checkout",
		          what, root);
		return NULL;
	}
	const char *real = os_realpath(&c->arena, path);
	return path_relative(&c->arena, root, real ? real : path);
}

/* A project without [tool.cuwheel] and no --config: its build is read from setup.py, as
 * `cuwheel init -o` would, into ROOT/<name>.cuwheel.toml (ROOT: the repository of the project
 * dir), with the python and cuda axes of a torch extension from PyPI's torch, not from this
 * machine; the workflow then names that file. An existing file is never overwritten. */
static bool write_reviewed_config(struct cli *c)
{
	struct arena *a = &c->arena;
	struct capture_request q = {.build_dir = cli_default_build_dir(c),
	                            .header =
	                                "Written by `cuwheel ci github` from setup.py: review "
	                                "it, commit it beside the workflow.",
	                            .table_axes = true};
	if (!cli_capture_tree(c, &q))
		return false;
	struct capture_result res;
	if (!cli_capture_config(c, &q, &res))
		return false;
	const char *name = "project";
	for (size_t i = 0; i < res.cap.meta.n; i++)
		if (!strcmp(res.cap.meta.v[i].key, "name") && *res.cap.meta.v[i].value)
			name = res.cap.meta.v[i].value;
	char *file = arena_printf(a, "%s.cuwheel.toml", name);
	for (char *p = file; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			*p = '_';
	const char *real = os_realpath(a, c->project_dir);
	const char *path = os_join(a, repo_root(c, real ? real : c->project_dir), file);
	if (os_exists(path)) {
		diag_path(&c->diag, DIAG_ERROR, path,
		          "exists: cuwheel ci github does not overwrite a config");
		diag_msg(&c->diag, DIAG_HINT, "review it, then pass it: --config %s",
		         esc_str(a, ESC_TERM, path));
		return false;
	}
	if (!os_write_atomic(&c->diag, path, res.text, strlen(res.text), 0644))
		return false;
	fprintf(stderr,
	        "cuwheel: no [tool.cuwheel]: wrote %s from setup.py (run with %s); review it and "
	        "commit it with the workflow\n",
	        esc_str(a, ESC_TERM, path), esc_str(a, ESC_TERM, res.python));
	c->config_file = path;
	return true;
}

/* Where the jobs find the project, its config and sdist, and put the wheels. */
static bool ci_source(struct cli *c, const struct config *cfg, const char *spec, const char *sha256,
                      const char **root_out, struct ci_source *src)
{
	struct arena *a = &c->arena;
	const char *start = cfg->config_file ? cfg->base_dir : cfg->project_dir;
	const char *real_start = os_realpath(a, start);
	const char *root = repo_root(c, real_start ? real_start : start);
	*root_out = root;
	src->project = ".";
	if (!cfg->sdist && !(src->project = in_repo(c, root, cfg->project_dir, "the project")))
		return false;
	if (cfg->config_file && !(src->config = in_repo(c, root, cfg->config_file, "the config")))
		return false;
	if (!(src->dist = in_repo(c, root, cfg->dist_dir, "the dist dir")))
		return false;
	src->submodules = os_exists(os_join(a, root, ".gitmodules"));
	if (!cfg->sdist)
		return true;
	char *digest = file_sha256_hex(a, &c->diag, cfg->sdist, NULL);
	if (!digest)
		return false;
	if (sha256 && strcmp(sha256, digest)) {
		diag_path(&c->diag, DIAG_ERROR, cfg->sdist, "sha256 is %s, not the --sha256 %s",
		          digest, sha256);
		return false;
	}
	if (os_path_inside(a, cfg->sdist, root)) {
		src->sdist = in_repo(c, root, cfg->sdist, "the sdist");
		src->sdist_committed = true;
		return src->sdist != NULL;
	}
	const char *base = strrchr(cfg->sdist, '/');
	base = base ? base + 1 : cfg->sdist;
	src->sdist_name = base;
	src->sdist_proj = cfg->project.name;
	src->sdist_sha256 = digest;
	src->sdist = arena_printf(a, "sdist/%s", base);
	if (spec) {
		const char *eq = strstr(spec, "==");
		if (!eq || eq == spec) {
			diag_path(&c->diag, DIAG_ERROR, "--sdist-spec", "'%s' is not NAME==VERSION",
			          spec);
			return false;
		}
		if (strcmp(eq + 2, cfg->project.version)) {
			diag_path(&c->diag, DIAG_ERROR, "--sdist-spec",
			          "'%s' names version %s; %s is %s", spec, eq + 2, base,
			          cfg->project.version);
			return false;
		}
		src->sdist_proj = arena_strndup(a, spec, (size_t)(eq - spec));
	}
	for (const char *p = src->sdist_proj; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p)) {
			diag_path(&c->diag, DIAG_ERROR, "--sdist-spec",
			          "'%s' is not a project name on an index", src->sdist_proj);
			return false;
		}
	return true;
}

/* Expands the matrix without discovery (toolkit globs against what cuwheel can provision) and
 * pairs the torch cells by PyTorch's table. Returns CLI_OK or the exit code. */
static int ci_plan(struct cli *c, const struct config *cfg, struct plan *plan)
{
	if (cfg->matrix.cuda.n == 0) {
		diag_path(&c->diag, DIAG_ERROR, cfg->src.path,
		          "[tool.cuwheel.matrix] has no cuda axis: the workflow's cells cannot "
		          "depend on the toolkits of the machine that writes it");
		diag_msg(&c->diag, DIAG_HINT,
		         "set cuda = [\"13.0\"] (or \"13.*\") in [tool.cuwheel.matrix], or "
		         "CUWHEEL_MATRIX_CUDA");
		return CLI_FAIL;
	}
	struct matrix_opts mo = {0};
	struct provision_lock lock;
	if (cli_provision_lock_quiet(c, &lock))
		for (size_t i = 0; i < lock.n_sets; i++)
			if (!strv_contains(&mo.provisionable, lock.sets[i].minor))
				strv_push(&c->arena, &mo.provisionable, lock.sets[i].minor);
	if (!matrix_expand(&c->arena, &c->diag, cfg, NULL, &mo, plan))
		return CLI_FAIL;
	if (plan->n_selected == 0) {
		diag_msg(&c->diag, DIAG_ERROR,
		         "nothing selected: every cell is excluded or skipped");
		return CLI_NOTHING;
	}
	return torch_builds_pair(&c->arena, &c->diag, plan) ? CLI_OK : CLI_FAIL;
}

/* The overrides of [tool.cuwheel] that shape what the jobs plan and make (cells, wheel names,
 * archs, flags, tests), in the order the workflow pins them, with the key that keeps each in the
 * config. The machine's own (CUWHEEL_BUILD_DIR, _DIST_DIR, _PYTHONS: paths; CUWHEEL_CCACHE,
 * _CACHE_REMOTE: the workflow sets its jobs' caches itself) are not carried. */
static const struct {
	const char *name, *key;
} plan_env[] = {
    {"CUWHEEL_MATRIX_PYTHON", "[tool.cuwheel.matrix] python"},
    {"CUWHEEL_MATRIX_TORCH", "[tool.cuwheel.matrix] torch"},
    {"CUWHEEL_MATRIX_PLATFORM", "[tool.cuwheel.matrix] platform"},
    {"CUWHEEL_BUILD", "[tool.cuwheel.matrix] build"},
    {"CUWHEEL_SKIP", "[tool.cuwheel.matrix] skip"},
    {"CUWHEEL_LOCAL_VERSION", "[tool.cuwheel.matrix] local-version"},
    {"CUWHEEL_ARCHS", "[tool.cuwheel.kernels] archs"},
    {"CUWHEEL_CUDART", "[tool.cuwheel.kernels] cudart"},
    {"CUWHEEL_COMPRESSION", "[tool.cuwheel] compression"},
    {"CUWHEEL_MIN_MANYLINUX", "[tool.cuwheel.audit] min-manylinux"},
    {"CUWHEEL_TEST_COMMAND", "[tool.cuwheel.test] command"},
    {"CUWHEEL_TEST_REQUIRES", "[tool.cuwheel.test] requires"},
    {"CUWHEEL_TEST_TORCH_COMPAT", "[tool.cuwheel.test] torch-compat"},
    {"CUWHEEL_TEST_TORCH_REQUIRES", "[tool.cuwheel.test] torch-requires"},
};

/* Pins in o every override of plan_env the environment set, as the config read it (a list
 * space-separated), so each job's `cuwheel` plans what this workflow lists. An empty value is
 * refused: GitHub's runner can leave an empty variable unset in a container job
 * (actions/runner#3043, open), and its jobs would plan the config's value instead. */
static bool env_pins(struct cli *c, const struct config *cfg, struct ci_github_opts *o)
{
	const struct strv *lists[] = {&cfg->matrix.python,
	                              &cfg->matrix.torch,
	                              &cfg->matrix.platform,
	                              &cfg->matrix.build,
	                              &cfg->matrix.skip,
	                              NULL,
	                              NULL,
	                              NULL,
	                              NULL,
	                              NULL,
	                              NULL,
	                              &cfg->test.requires,
	                              &cfg->test.torch_compat,
	                              NULL};
	_Static_assert(sizeof(lists) / sizeof(*lists) == sizeof(plan_env) / sizeof(*plan_env),
	               "one list (or NULL) per plan_env entry");
	_Static_assert(sizeof(plan_env) / sizeof(*plan_env) <= CI_GITHUB_MAX_PINS,
	               "CI_GITHUB_MAX_PINS holds plan_env");
	bool ok = true;
	o->n_pins = 0;
	for (size_t i = 0; i < sizeof(plan_env) / sizeof(*plan_env); i++) {
		const char *val = env_value(cfg->env, plan_env[i].name);
		if (!val)
			continue;
		if (lists[i]) {
			struct strbuf sb = {0};
			for (size_t k = 0; k < lists[i]->n; k++)
				sb_printf(&sb, "%s%s", k ? " " : "", lists[i]->v[k]);
			val = sb_to_arena(&sb, &c->arena);
		} else if (!strcmp(plan_env[i].name, "CUWHEEL_COMPRESSION")) {
			val = arena_printf(&c->arena, "%d", cfg->compression);
		}
		if (!val[0]) {
			diag_msg(
			    &c->diag, DIAG_ERROR,
			    "%s is set but empty, and GitHub's runner can leave an empty variable "
			    "unset in a container job (actions/runner#3043): the workflow cannot "
			    "pin it, and its jobs would plan the config's value",
			    plan_env[i].name);
			diag_msg(&c->diag, DIAG_HINT, "put it in the config (%s) and unset %s",
			         plan_env[i].key, plan_env[i].name);
			ok = false;
			continue;
		}
		o->pins[o->n_pins].name = plan_env[i].name;
		o->pins[o->n_pins++].value = val;
	}
	return ok;
}

static int write_out(struct cli *c, const char *root, const char *output, bool to_stdout,
                     const char *text)
{
	if (to_stdout) {
		fputs(text, stdout);
		return CLI_OK;
	}
	const char *path = output ? os_abspath(&c->arena, output)
	                          : os_join(&c->arena, root, ".github/workflows/wheels.yml");
	char *dir = arena_strdup(&c->arena, path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	if (!os_mkdir_p(&c->diag, dir) ||
	    !os_write_atomic(&c->diag, path, text, strlen(text), 0644))
		return CLI_FAIL;
	printf("cuwheel: wrote %s\n", esc_str(&c->arena, ESC_TERM, path));
	return CLI_OK;
}

int cmd_ci(struct cli *c, int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-')
		return cli_usage(c, "ci", "which CI system? 'cuwheel ci github'");
	if (strcmp(argv[1], "github") != 0)
		return cli_usage(c, "ci", "'%s' is not a CI system cuwheel writes for (github)",
		                 argv[1]);
	const char *output = NULL, *spec = NULL, *sdist_spec = NULL, *sha256 = NULL;
	bool to_stdout = false;
	struct ci_github_opts o = {0};
	struct cli_args p;
	cli_args_init(&p, c, "ci", ci_github_options, CLI_ARGS_IN_TURN, argc - 1, argv + 1);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case CI_OUTPUT:
			output = p.value;
			break;
		case CI_STDOUT:
			to_stdout = true;
			break;
		case CI_PER_CELL:
			o.per_cell = true;
			break;
		case CI_CONFIG:
			c->config_file = p.value;
			break;
		case CI_SDIST_SPEC:
			sdist_spec = p.value;
			break;
		case CI_SHA256:
			sha256 = p.value;
			if (!all_hex(sha256, 64))
				return cli_usage(c, "ci", "--sha256 wants 64 lowercase hex digits");
			break;
		case CLI_ARG_OPERAND:
			if (c->sdist || !cli_is_sdist(p.value))
				return cli_usage(c, "ci", "unexpected argument '%s'", p.value);
			c->sdist = p.value;
			break;
		case CI_GPU_LABEL:
			if (!*p.value)
				return cli_usage(c, "ci", "--gpu-label needs a runner label");
			o.gpu_label = p.value;
			break;
		case CI_CUWHEEL:
			spec = p.value;
			if (!parse_cuwheel(c, spec, &o.cuwheel))
				return cli_usage(
				    c, "ci",
				    "--cuwheel wants git+https://URL@COMMIT (40 hex digits) "
				    "or https://WHEEL-URL#sha256=HEX, not '%s'",
				    spec);
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (output && to_stdout)
		return cli_usage(c, "ci", "-o and --stdout exclude each other");
	if ((sdist_spec || sha256) && !c->sdist)
		return cli_usage(
		    c, "ci",
		    "--sdist-spec and --sha256 go with the SDIST file: cuwheel reads it "
		    "to plan (wheel names, packages); fetch it first (pip download "
		    "--no-binary :all: --no-deps 'NAME==VER')");

	if (!c->config_file && cli_needs_capture(c) && !write_reviewed_config(c))
		return CLI_FAIL;
	struct plan_ctx *setup;
	int src = cli_setup(c, NULL, &setup);
	if (src != CLI_OK)
		return src;
	struct config cfg = setup->cfg;
	struct plan plan;
	int rc = ci_plan(c, &cfg, &plan);
	if (rc != CLI_OK)
		return rc;
	if (!spec) {
		o.cuwheel = cfg.ci.cuwheel;
		if (!o.cuwheel.git && !o.cuwheel.url) {
			diag_path(
			    &c->diag, DIAG_ERROR, cfg.src.path,
			    "[tool.cuwheel.ci] cuwheel is not set: the jobs must install cuwheel "
			    "from something that exists, and no release of cuwheel does");
			diag_msg(&c->diag, DIAG_HINT,
			         "[tool.cuwheel.ci] cuwheel = {git = \"https://github.com/OWNER/"
			         "cuwheel\", rev = \"<commit>\"} (or {url = WHEEL-URL, sha256 = "
			         "DIGEST}); or --cuwheel git+URL@COMMIT");
			return CLI_FAIL;
		}
	}
	o.container = cfg.ci.container;
	o.publish = &cfg.ci.publish;
	o.environment = cfg.ci.environment;
	struct strv pypi = {0}, lock_cuda = {0};
	lock_minors(c, &pypi, &lock_cuda);
	o.pypi_cuda = &pypi;
	o.lock_cuda = &lock_cuda;
	o.aarch64_cross = cfg.ci.aarch64_cross;
	if (o.aarch64_cross && !ci_cross_lock(c, &o))
		return CLI_FAIL;
	const char *root;
	if (!ci_source(c, &cfg, sdist_spec, sha256, &root, &o.src))
		return CLI_FAIL;
	if (strv_contains(&cfg.ci.publish, "pages") && !strv_contains(&cfg.ci.publish, "release")) {
		diag_path(&c->diag, DIAG_ERROR, cfg.src.path,
		          "[tool.cuwheel.ci] publish = pages needs release: the index on GitHub "
		          "Pages links to the wheels of every release's assets, so each is stored "
		          "once and no release drops out");
		diag_msg(&c->diag, DIAG_HINT, "publish = [\"release\", \"pages\"]");
		return CLI_FAIL;
	}
	if (strv_contains(&cfg.ci.publish, "pypi-sdist") && !o.src.sdist) {
		diag_path(&c->diag, DIAG_ERROR, cfg.src.path,
		          "[tool.cuwheel.ci] publish = pypi-sdist needs an sdist: give "
		          "`cuwheel ci github SDIST --config FILE`");
		return CLI_FAIL;
	}

	/* The jobs plan the matrix this file is written for, not the config's alone. */
	if (!env_pins(c, &cfg, &o))
		return CLI_FAIL;
	char *text;
	struct ci_github_stats st;
	if (!ci_github_emit(&c->arena, &c->diag, &plan, &o, &text, &st))
		return CLI_FAIL;
	if ((rc = write_out(c, root, output, to_stdout, text)) != CLI_OK)
		return rc;
	/* The command's own summary, on stderr because stdout may be the workflow (--stdout). */
	fprintf(stderr,
	        "cuwheel: %zu cells in %zu legs (one per OS and toolkit), %zu jobs with the "
	        "index, %zu bytes%s\n",
	        st.n_cells, st.n_legs, st.n_jobs, strlen(text),
	        st.n_skipped ? "; some cells left out (see the warnings)" : "");
	return CLI_OK;
}
