/* cmd_ci.c: `cuwheel ci github`: the plan as a GitHub Actions workflow, written atomically. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "base/os.h"
#include "ci/github.h"
#include "cli/plan_common.h"
#include "matrix/provision.h"

const char cmd_ci_help[] =
    "usage: cuwheel ci github [-o FILE | --stdout] [--per-cell] [--gpu-label LABEL]\n"
    "                         [--cuwheel-ref REPO@REF]\n"
    "\n"
    "Writes a GitHub Actions workflow for every selected cell of the plan, whatever this\n"
    "machine can build (Linux and Windows cells alike):\n"
    "  kernels  one matrix entry per (OS, CUDA toolkit): installs the toolkit (NVIDIA's apt\n"
    "           repository, `cuwheel toolkit install` for the 13.x releases PyPI carries, the\n"
    "           network installer on Windows), ninja, ccache and cuwheel, restores the ccache\n"
    "           of that (OS, toolkit, kernel flags), runs `cuwheel build --stage kernels\n"
    "           --export kernels-out` and uploads it as kernels-cuXY-PLATFORM-KEY;\n"
    "  wheels   needs kernels: per (OS, toolkit) or, with --per-cell, per cell, sets up the\n"
    "           Pythons, downloads that archive and runs `cuwheel build --stage wheels\n"
    "           --import kernels-out --only ID...`; uploads dist/*.whl;\n"
    "  test     with --gpu-label: installs the wheels on a self-hosted GPU runner and runs\n"
    "           the project's test command (`cuwheel test`); without it the wheel jobs test;\n"
    "  index    needs every wheel (and test) job: `cuwheel index dist --out site`, uploaded\n"
    "           as the artifact 'site' (GitHub Pages steps included as comments).\n"
    "Windows cells use MSVC (ilammy/msvc-dev-cmd), with the VS 2019 toolset 14.29 for CUDA\n"
    "older than 12.4, which refuses newer MSVC. [tool.cuwheel.cache] remote is passed to\n"
    "every compile through the secret CUWHEEL_CCACHE_REMOTE (falling back to the configured\n"
    "URL unless it holds credentials). The output is deterministic.\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE  where to write (default .github/workflows/wheels.yml in the project)\n"
    "  --stdout           print the workflow instead of writing it\n"
    "  --per-cell         one wheel job per cell instead of one per (OS, toolkit)\n"
    "  --gpu-label LABEL  run the tests on self-hosted runners with these labels (comma-\n"
    "                     separated), after the wheel jobs\n"
    "  --cuwheel-ref REPO@REF\n"
    "                     the cuwheel the jobs build (default cuwheel/cuwheel@v" CUWHEEL_VERSION
    ";\n"
    "                     a project that is cuwheel's own repository builds its checkout)\n"
    "\n"
    "For other CI systems: `cuwheel plan --shard I/N --json`.\n"
    "\n"
    "Exit status: 0 written, 1 error, 2 usage, 3 nothing selected.\n";

/* True when dir is a checkout of cuwheel itself (its CMakeLists.txt names the project). */
static bool is_cuwheel_checkout(struct cli *c, const char *dir)
{
	struct source s;
	struct diag quiet = {0};
	if (!os_exists(os_join(&c->arena, dir, "cli/main.c")) ||
	    !os_read_file(&c->arena, &quiet, os_join(&c->arena, dir, "CMakeLists.txt"), &s))
		return false;
	return strstr(s.text, "project(cuwheel ") != NULL;
}

/* The CUDA minors the toolkit lock file provisions from PyPI ("13.0"); empty without a lock. */
static void pypi_minors(struct cli *c, struct strv *out)
{
	const char *path = provision_lock_path(&c->arena, c->env);
	struct provision_lock lock;
	struct diag quiet = {0};
	if (!path || !provision_lock_load(&c->arena, &quiet, path, &lock))
		return;
	/* PyPI's only: the workflow installs those with `cuwheel toolkit install`; the Debian
	 * source is not emitted to CI yet (runners' apt and keyrings differ). */
	for (size_t i = 0; i < lock.n_sets; i++)
		if (lock.sets[i].source == PROVISION_PYPI && !strv_contains(out, lock.sets[i].minor))
			strv_push(&c->arena, out, lock.sets[i].minor);
}

int cmd_ci(struct cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"stdout", no_argument, NULL, 'S'},
	    {"per-cell", no_argument, NULL, 'P'},
	    {"gpu-label", required_argument, NULL, 'G'},
	    {"cuwheel-ref", required_argument, NULL, 'R'},
	    {NULL, 0, NULL, 0},
	};
	if (argc < 2 || argv[1][0] == '-')
		return cli_usage(c, "ci", "which CI system? 'cuwheel ci github'");
	if (strcmp(argv[1], "github") != 0)
		return cli_usage(c, "ci", "'%s' is not a CI system cuwheel writes for (github)",
		                 argv[1]);
	const char *output = NULL, *ref = NULL;
	bool to_stdout = false;
	struct ci_github_opts o = {0};
	optind = 0;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc - 1, argv + 1, "+o:", opts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			output = optarg;
			break;
		case 'S':
			to_stdout = true;
			break;
		case 'P':
			o.per_cell = true;
			break;
		case 'G':
			if (!*optarg)
				return cli_usage(c, "ci", "--gpu-label needs a runner label");
			o.gpu_label = optarg;
			break;
		case 'R':
			ref = optarg;
			break;
		default:
			return cli_usage(c, "ci", "unknown option '%s'", argv[optind]);
		}
	}
	if (optind < argc - 1)
		return cli_usage(c, "ci", "unexpected argument '%s'", argv[optind + 1]);
	if (output && to_stdout)
		return cli_usage(c, "ci", "-o and --stdout exclude each other");

	struct plan_ctx pc;
	int rc = plan_load(c, NULL, &pc);
	if (rc != CLI_OK)
		return rc;
	if (pc.plan.n_selected == 0) {
		fprintf(stderr, "cuwheel: nothing selected: every cell is excluded or skipped\n");
		return CLI_NOTHING;
	}
	if (ref) {
		const char *at = strchr(ref, '@');
		if (!at || at == ref || !at[1] || !strchr(ref, '/'))
			return cli_usage(c, "ci", "--cuwheel-ref wants OWNER/NAME@REF, not '%s'",
			                 ref);
		o.cuwheel_repo = arena_strndup(&c->arena, ref, (size_t)(at - ref));
		o.cuwheel_ref = at + 1;
	} else {
		o.cuwheel_from_checkout = is_cuwheel_checkout(c, pc.cfg.project_dir);
		o.cuwheel_repo = "cuwheel/cuwheel";
		o.cuwheel_ref = "v" CUWHEEL_VERSION;
	}
	struct strv pypi = {0};
	pypi_minors(c, &pypi);
	o.pypi_cuda = &pypi;

	char *text;
	struct ci_github_stats st;
	if (!ci_github_emit(&c->arena, &c->diag, &pc.plan, &o, &text, &st))
		return CLI_FAIL;
	if (to_stdout) {
		fputs(text, stdout);
	} else {
		const char *path =
		    output ? os_abspath(&c->arena, output)
		           : os_join(&c->arena, pc.cfg.project_dir, ".github/workflows/wheels.yml");
		char *dir = arena_strdup(&c->arena, path);
		char *slash = strrchr(dir, '/');
		if (slash && slash != dir)
			*slash = '\0';
		if (!os_mkdir_p(&c->diag, dir) ||
		    !os_write_atomic(&c->diag, path, text, strlen(text), 0644))
			return CLI_FAIL;
		printf("cuwheel: wrote %s\n", path);
	}
	fprintf(stderr,
	        "cuwheel: %zu cells: %zu kernels jobs (one per OS and toolkit), %zu wheel jobs, "
	        "%zu GPU test jobs, 1 index job%s\n",
	        st.n_cells, st.n_kernels, st.n_wheels, st.n_tests,
	        st.n_skipped ? "; some cells left out (see the warnings)" : "");
	return CLI_OK;
}
