/* cmd_doctor.c: `cuwheel doctor`: what discovery found on this machine, where it looked and
 * why what it saw was not taken, and the tools a build needs. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/env.h"
#include "base/escape.h"
#include "base/os-file.h"
#include "base/os-run.h"
#include "base/sandbox.h"
#include "cli/cli.h"
#include "cli/plan_common.h"
#include "matrix/config.h"
#include "matrix/discover_project.h"
#include "standards/json_values.h"

enum doctor_option { DOCTOR_JSON, DOCTOR_TORCH, DOCTOR_NO_CACHE, DOCTOR_CONFIG };

static const struct cli_option doctor_options[] = {
    {"json", 0, NULL, DOCTOR_JSON, "print one JSON object (below) on stdout instead of the report"},
    {"torch", 0, NULL, DOCTOR_TORCH,
     "also import torch in every interpreter (done anyway when the project\n"
     "has a torch axis or a torch extension)"},
    {"no-cache", 0, NULL, DOCTOR_NO_CACHE, "probe everything again, reading and writing no cache"},
    {"config", 0, "FILE", DOCTOR_CONFIG,
     "the config beside the project (its pythons and toolkits tables, build\n"
     "dir); with SDIST.tar.gz, the project unpacked from it"},
    {0},
};

static const char doctor_help_text[] =
    "usage: cuwheel doctor [SDIST.tar.gz] [--config FILE] [--json] [--torch] [--no-cache]\n"
    "\n"
    "Lists the CUDA toolkits and Python interpreters this machine has, how each was found,\n"
    "every place looked at and why what was there was not taken, and the tools a build uses\n"
    "(ninja, ccache, C and C++ compilers), and whether the sandbox a captured setup.py runs in\n"
    "(bubblewrap) can be made here. Uses the project's pyproject.toml when there is one,\n"
    "or the --config FILE given as for build (explicit toolkits/pythons tables, build dir),\n"
    "defaults otherwise.\n"
    "\n"
    "Toolkits come from the explicit table, $CUDA_HOME, $CUDA_PATH, nvcc on PATH,\n"
    "/usr/local/cuda, /usr/local/cuda-*, /opt/cuda* and toolkits cuwheel provisioned\n"
    "(<cache>/toolkits/<version>/ with cuwheel-toolkit.json). Pythons come from the explicit\n"
    "table, python3.X on PATH (pyenv shims resolved), pyenv (~/.pyenv, $PYENV_ROOT), manylinux\n"
    "/opt/python/*, and uv ($UV_PYTHON_INSTALL_DIR, ~/.local/share/uv/python); CPython >= 3.8\n"
    "with its headers, one per version (explicit > PATH > pyenv > manylinux > uv).\n"
    "Interpreter probes and nvcc answers are cached in the project's <build-dir>/probes\n"
    "(build/cuwheel/probes), or without a project in $CUWHEEL_CACHE_DIR/probes (default\n"
    "~/.cache/cuwheel/probes), keyed by path and mtime.\n";

const struct cli_help cmd_doctor_help = {
    .text = doctor_help_text,
    .groups = {{NULL, doctor_options}},
    .more =
        "JSON (keys are stable; new keys may be added):\n"
        "  {\"schema\": 1, \"cuwheel\": VERSION, \"ok\": BOOL, \"cache_dir\": PATH|null,\n"
        "   \"toolkits\": [{\"version\": \"13.0.88\", \"major\", \"minor\", \"root\", \"nvcc\",\n"
        "                 \"found_by\", \"sm\": [75, ...], \"compute\": [75, ...],\n"
        "                 \"cudart_static\": BOOL, \"lib_dir\", \"include_dir\"}],\n"
        "   \"pythons\": [{\"key\": \"3.12\"|\"3.13t\", \"version\": \"3.12.1\", \"path\", "
        "\"found_by\",\n"
        "                \"implementation\", \"abiflags\", \"freethreaded\", \"ext_suffix\", "
        "\"soabi\",\n"
        "                \"include_dir\", \"platform\", \"torch\": null (not probed) |\n"
        "                {\"present\", \"version\", \"cuda\", \"cxx11_abi\", \"include_dirs\",\n"
        "                 \"lib_dir\", \"pybind11_compiler_type\", \"pybind11_stdlib\",\n"
        "                 \"pybind11_build_abi\", \"error\"},\n"
        "                \"pybind11\": {\"version\", \"include_dir\", \"error\"}}],\n"
        "   \"tools\": [{\"name\": \"ninja\"|\"ccache\"|\"cc\"|\"c++\", \"path\": PATH|null,\n"
        "              \"version\": TEXT|null}],\n"
        "   \"looked\": [{\"what\": \"toolkit\"|\"python\", \"where\", \"result\"}],\n"
        "   \"sandbox\": {\"works\": BOOL, \"bwrap\": PATH|null, \"found_by\": TEXT|null,\n"
        "               \"version\": TEXT|null, \"error\": TEXT|null}}\n"
        "\n"
        "The sandbox is the one setup.py runs in when it is captured (cuwheel init, and build\n"
        "or plan without [tool.cuwheel]): bubblewrap, tried here as a capture would use it;\n"
        "where it does not work, those captures are refused unless --unsandboxed.\n"
        "\n"
        "Exit status: 0 when at least one toolkit and one Python were found, 1 otherwise.\n",
};

struct tool {
	const char *name, *path, *version;
};

/* Finds a tool on env's PATH (the compilers honour $CC / $CXX: var) and the first line of its
 * --version. */
static struct tool tool_find(struct arena *a, const char *const *env, const char *name,
                             const char *var)
{
	struct tool t = {name, NULL, NULL};
	const char *prog = var && env_nonempty(env, var) ? env_nonempty(env, var) : name;
	t.path = os_which(a, env, prog);
	if (!t.path)
		return t;
	const char *argv[] = {t.path, "--version", NULL};
	struct diag quiet = {0}; /* a probe: a tool that cannot say its version is shown without */
	struct strbuf out = {0};
	struct os_run r = {.argv = argv, .capture = true, .probe = true};
	int st;
	if (os_run(&quiet, &r, &out, &st) && st == 0) {
		const char *s = sb_str(&out);
		const char *v = strncmp(s, "ccache version ", 15) == 0 ? s + 15 : s;
		t.version = esc_mem(a, ESC_TERM, v, strcspn(v, "\r\n")); /* a probe's words */
	}
	sb_release(&out);
	return t;
}

/* "sm_75–sm_121 (12)" from a sorted target list. */
static const char *targets_str(struct arena *a, const char *prefix, const int *v, size_t n)
{
	if (!n)
		return "none listed";
	if (n == 1)
		return arena_printf(a, "%s%d", prefix, v[0]);
	return arena_printf(a, "%s%d\u2013%s%d (%zu)", prefix, v[0], prefix, v[n - 1], n);
}

static const char *py_key(struct arena *a, const struct interp *ip)
{
	return arena_printf(a, "%d.%d%s", ip->major, ip->minor,
	                    ip->freethreaded || strchr(ip->abiflags, 't') ? "t" : "");
}

static json_t *int_array(const int *v, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_integer(v[i]));
	return arr;
}

static json_t *torch_json(const struct torch_info *t)
{
	if (!t->present && !t->error)
		return json_null();
	json_t *inc = json_array();
	for (size_t i = 0; i < t->include_dirs.n; i++)
		json_array_append_new(inc, json_string(t->include_dirs.v[i]));
	json_t *o = json_object();
	json_object_set_new(o, "present", json_boolean(t->present));
	json_object_set_new(o, "version", json_str_or_null(t->version));
	json_object_set_new(o, "cuda", json_str_or_null(t->cuda));
	json_object_set_new(o, "cxx11_abi", json_integer(t->cxx11_abi));
	json_object_set_new(o, "include_dirs", inc);
	json_object_set_new(o, "lib_dir", json_str_or_null(t->lib_dir));
	json_object_set_new(o, "pybind11_compiler_type",
	                    json_str_or_null(t->pybind11_compiler_type));
	json_object_set_new(o, "pybind11_stdlib", json_str_or_null(t->pybind11_stdlib));
	json_object_set_new(o, "pybind11_build_abi", json_str_or_null(t->pybind11_build_abi));
	json_object_set_new(o, "error", json_str_or_null(t->error));
	return o;
}

static void print_json(struct arena *a, const struct discovery *ds, const struct tool *tools,
                       size_t n_tools, const char *cache_dir, const struct sandbox *sb, bool ok)
{
	json_t *tks = json_array(), *pys = json_array(), *tls = json_array(), *lk = json_array();
	for (size_t i = 0; i < ds->n_toolkits; i++) {
		const struct toolkit *t = &ds->toolkits[i];
		json_t *tj = json_pack(
		    "{s:s, s:i, s:i, s:s, s:s, s:s, s:o, s:o, s:b, s:o, s:o}", "version",
		    t->version, "major", t->major, "minor", t->minor, "root", t->root, "nvcc",
		    t->nvcc, "found_by", t->found_by, "sm", int_array(t->sm, t->n_sm), "compute",
		    int_array(t->compute, t->n_compute), "cudart_static", t->has_cudart_static,
		    "lib_dir", json_str_or_null(t->lib_dir), "include_dir",
		    json_str_or_null(t->include_dir));
		json_object_set_new(tj, "host_compiler",
		                    json_pack("{s:s, s:s?, s:i, s:b, s:s?}", "cxx", t->host.cxx,
		                              "version", t->host.version, "max_gcc",
		                              t->host.max_gcc, "ccbin", t->host.ccbin, "error",
		                              t->host.error));
		json_array_append_new(tks, tj);
	}
	for (size_t i = 0; i < ds->n_pythons; i++) {
		const struct interp *p = &ds->pythons[i];
		json_t *o = json_object();
		json_object_set_new(o, "key", json_string(py_key(a, p)));
		json_object_set_new(o, "version", json_string(p->version));
		json_object_set_new(o, "path", json_string(p->path));
		json_object_set_new(o, "found_by", json_string(p->found_by));
		json_object_set_new(o, "implementation", json_str_or_null(p->implementation));
		json_object_set_new(o, "abiflags", json_string(p->abiflags));
		json_object_set_new(o, "freethreaded", json_boolean(p->freethreaded));
		json_object_set_new(o, "ext_suffix", json_str_or_null(p->ext_suffix));
		json_object_set_new(o, "soabi", json_str_or_null(p->soabi));
		json_object_set_new(o, "include_dir", json_str_or_null(p->include_dir));
		json_object_set_new(o, "platform", json_str_or_null(p->platform));
		json_object_set_new(o, "torch", torch_json(&p->torch));
		json_object_set_new(o, "pybind11",
		                    json_pack("{s:o, s:o, s:o}", "version",
		                              json_str_or_null(p->pybind11.version), "include_dir",
		                              json_str_or_null(p->pybind11.include_dir), "error",
		                              json_str_or_null(p->pybind11.error)));
		json_array_append_new(pys, o);
	}
	for (size_t i = 0; i < n_tools; i++)
		json_array_append_new(tls,
		                      json_pack("{s:s, s:o, s:o}", "name", tools[i].name, "path",
		                                json_str_or_null(tools[i].path), "version",
		                                json_str_or_null(tools[i].version)));
	for (size_t i = 0; i < ds->n_looked; i++)
		json_array_append_new(lk, json_pack("{s:s, s:s, s:s}", "what", ds->looked[i].what,
		                                    "where", ds->looked[i].where, "result",
		                                    ds->looked[i].result));
	json_t *sj = json_pack("{s:b, s:o, s:o, s:o, s:o}", "works", !sb->error, "bwrap",
	                       json_str_or_null(sb->bwrap), "found_by",
	                       json_str_or_null(sb->found_by), "version",
	                       json_str_or_null(sb->version), "error", json_str_or_null(sb->error));
	json_t *root =
	    json_pack("{s:i, s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:o}", "schema", 1, "cuwheel",
	              CUWHEEL_VERSION, "ok", ok, "cache_dir", json_str_or_null(cache_dir),
	              "toolkits", tks, "pythons", pys, "tools", tls, "looked", lk, "sandbox", sj);
	char *text = json_dump_text(a, root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (text)
		puts(text);
	json_decref(root);
}

/* Paths found on the machine and what probes said are escaped for the terminal. */
static void print_text(struct arena *a, const struct discovery *ds, const struct tool *tools,
                       size_t n_tools, const char *cache_dir, const struct sandbox *sb)
{
#define E(s) esc_str(a, ESC_TERM, (s))
	printf("CUDA toolkits (%zu):\n", ds->n_toolkits);
	if (!ds->n_toolkits)
		printf("  none\n");
	for (size_t i = 0; i < ds->n_toolkits; i++) {
		const struct toolkit *t = &ds->toolkits[i];
		printf("  %-9s %s  (found by %s)\n", t->version, E(t->root), E(t->found_by));
		printf("  %-9s SASS %s, PTX %s, static cudart: %s\n", "",
		       targets_str(a, "sm_", t->sm, t->n_sm),
		       targets_str(a, "compute_", t->compute, t->n_compute),
		       t->has_cudart_static ? "yes" : "no");
		if (t->host.error)
			printf("  %-9s host compiler: none: %s\n", "",
			       esc_str(a, ESC_LOG, t->host.error));
		else
			printf("  %-9s host compiler: %s (gcc %s)%s\n", "", E(t->host.cxx),
			       t->host.version ? t->host.version : "?",
			       t->host.max_gcc
			           ? arena_printf(a, ", accepts gcc <= %d", t->host.max_gcc)
			           : "");
	}
	printf("\nPythons (%zu):\n", ds->n_pythons);
	if (!ds->n_pythons)
		printf("  none\n");
	for (size_t i = 0; i < ds->n_pythons; i++) {
		const struct interp *p = &ds->pythons[i];
		printf("  %-9s %s  (found by %s)\n", E(p->version), E(p->path), E(p->found_by));
		printf("  %-9s %s, %s", "", p->ext_suffix ? p->ext_suffix : "?",
		       p->platform ? p->platform : "?");
		const struct torch_info *t = &p->torch;
		if (t->present)
			printf(", torch %s (%s%s, cxx11 abi %d)", t->version,
			       t->cuda ? "CUDA " : "CPU", t->cuda ? t->cuda : "", t->cxx11_abi);
		else if (t->error)
			printf(", no torch");
		if (p->pybind11.include_dir)
			printf(", pybind11 %s", p->pybind11.version ? p->pybind11.version : "?");
		printf("\n");
	}
	printf("\nTools:\n");
	for (size_t i = 0; i < n_tools; i++)
		printf("  %-9s %s%s%s\n", tools[i].name,
		       tools[i].path ? E(tools[i].path) : "not found", tools[i].version ? "  " : "",
		       tools[i].version ? tools[i].version : "");
	printf("\nSandbox (setup.py's capture):\n");
	if (!sb->error)
		printf("  works     %s  (%s, found by %s)\n", E(sb->bwrap), E(sb->version),
		       sb->found_by);
	else
		printf("  none      %s\n            captures of setup.py are refused unless "
		       "--unsandboxed\n",
		       esc_str(a, ESC_LOG, sb->error));
	printf("\nLooked at:\n");
	for (size_t i = 0; i < ds->n_looked; i++)
		printf("  %-7s %s: %s\n", ds->looked[i].what, E(ds->looked[i].where),
		       esc_str(a, ESC_LOG, ds->looked[i].result));
	printf("\nProbe cache: %s\n", cache_dir ? E(cache_dir) : "off");
#undef E
}

/* Says what is missing and lists where it was looked for. */
static void report_missing(struct cli *c, const struct discovery *ds, const char *what,
                           const char *label)
{
	diag_msg(&c->diag, DIAG_ERROR, "no %s found; looked at:", label);
	for (size_t i = 0; i < ds->n_looked; i++)
		if (strcmp(ds->looked[i].what, what) == 0)
			diag_path(&c->diag, DIAG_NOTE, ds->looked[i].where, "%s",
			          ds->looked[i].result);
}

int cmd_doctor(struct cli *c, int argc, char **argv)
{
	bool json = false, no_cache = false;
	struct discover_opts opts = {0};
	struct cli_args p;
	cli_args_init(&p, c, "doctor", doctor_options, CLI_ARGS_IN_TURN, argc, argv);
	int id;
	while ((id = cli_args_next(&p)) != CLI_ARG_END) {
		switch (id) {
		case DOCTOR_JSON:
			json = true;
			break;
		case DOCTOR_TORCH:
			opts.probe_torch = true;
			break;
		case DOCTOR_NO_CACHE:
			no_cache = true;
			break;
		case DOCTOR_CONFIG:
			c->config_file = p.value;
			break;
		case CLI_ARG_OPERAND:
			if (c->sdist || !cli_is_sdist(p.value))
				return cli_usage(c, "doctor", "unexpected argument '%s'", p.value);
			c->sdist = p.value;
			break;
		default:
			return CLI_USAGE;
		}
	}
	struct arena *a = &c->arena;
	struct config cfg = {0};
	const char *dir = os_abspath(a, c->project_dir);
	if (c->config_file || c->sdist || os_exists(os_join(a, dir, "pyproject.toml"))) {
		if (!cli_config_load(c, &cfg)) {
			diag_msg(&c->diag, DIAG_WARNING,
			         "continuing without the project's configuration");
			memset(&cfg, 0, sizeof(cfg));
		}
	}
	if (!cfg.project_dir)
		cfg.project_dir = dir;
	cfg.env = c->env; /* also for the defaults, without a project or after a failed load */
	const char *cache_dir = no_cache ? NULL : discover_cache_dir(a, &cfg);
	struct discovery ds;
	if (!discover_with(a, &c->diag, &cfg, cache_dir, &opts, &ds))
		return CLI_FAIL;
	struct tool tools[] = {
	    tool_find(a, c->env, "ninja", NULL),
	    tool_find(a, c->env, "ccache", NULL),
	    tool_find(a, c->env, "cc", "CC"),
	    tool_find(a, c->env, "c++", "CXX"),
	};
	size_t n_tools = sizeof(tools) / sizeof(tools[0]);
	struct sandbox sb;
	sandbox_probe(a, c->env, &sb); /* its failure is a line of the report */
	bool ok = ds.n_toolkits > 0 && ds.n_pythons > 0;
	if (json)
		print_json(a, &ds, tools, n_tools, cache_dir, &sb, ok);
	else
		print_text(a, &ds, tools, n_tools, cache_dir, &sb);
	fflush(stdout);
	if (!ds.n_toolkits)
		report_missing(c, &ds, "toolkit", "CUDA toolkit");
	if (!ds.n_pythons)
		report_missing(c, &ds, "python", "usable Python interpreter (CPython >= 3.8)");
	if (!ds.n_toolkits)
		diag_msg(&c->diag, DIAG_HINT,
		         "set CUDA_HOME, add a [tool.cuwheel.toolkits] entry, or run "
		         "'cuwheel toolkit install VERSION'");
	if (sb.error)
		diag_msg(&c->diag, DIAG_WARNING,
		         "no sandbox for setup.py here (%s): `cuwheel init`, and build or plan "
		         "without [tool.cuwheel], refuse to run setup.py unless --unsandboxed",
		         sb.error);
	for (size_t i = 0; i < n_tools; i++)
		if (!tools[i].path && strcmp(tools[i].name, "ccache") != 0)
			diag_msg(&c->diag, DIAG_WARNING, "%s not found on PATH: builds need it",
			         tools[i].name);
	return ok ? CLI_OK : CLI_FAIL;
}
