/* cmd_ci.c: `cuwheel ci github`: the plan as a GitHub Actions workflow, written atomically. */
#include <stdio.h>
#include <string.h>

#include "base/os.h"
#include "ci/github.h"
#include "cli/plan_common.h"
#include "toolchain/provision.h"

enum ci_option { CI_OUTPUT, CI_STDOUT, CI_PER_CELL, CI_GPU_LABEL, CI_CUWHEEL };

static const struct cli_option ci_github_options[] = {
    {"output", 'o', "FILE", CI_OUTPUT,
     "where to write (default .github/workflows/wheels.yml in the project)"},
    {"stdout", 0, NULL, CI_STDOUT, "print the workflow instead of writing it"},
    {"per-cell", 0, NULL, CI_PER_CELL, "one Linux wheel job per cell instead of one per leg"},
    {"gpu-label", 0, "LABEL", CI_GPU_LABEL,
     "run the tests on self-hosted runners with these labels (comma-\n"
     "separated), after the wheel jobs"},
    {"cuwheel", 0, "SPEC", CI_CUWHEEL,
     "what the jobs `pip install` cuwheel from: a requirement or a wheel's\n"
     "URL (default [tool.cuwheel.ci] cuwheel, else cuwheel==" CUWHEEL_VERSION ")"},
    {0},
};

const struct cli_help cmd_ci_help = {
    .text = "usage: cuwheel ci github [-o FILE | --stdout] [--per-cell] [--gpu-label LABEL]\n"
            "                         [--cuwheel SPEC]\n"
            "\n"
            "Writes a GitHub Actions workflow for every selected cell of the plan, whatever this\n"
            "machine can build (Linux and Windows cells alike), one chain of jobs per leg (OS,\n"
            "CUDA toolkit), so that a failing leg loses only its own cells:\n"
            "  kernels-LEG   Linux, in the manylinux_2_28 image: installs CUDA (NVIDIA's RHEL 8\n"
            "                repository, pinned; `cuwheel toolkit install` for the 13.x releases\n"
            "                PyPI carries), ccache and cuwheel (pip), restores the leg's ccache\n"
            "                and runs `cuwheel build --stage kernels --export kernels-out`;\n"
            "  wheels-LEG    needs kernels-LEG: `cuwheel build --stage wheels --import\n"
            "                kernels-out` per leg or, with --per-cell, per cell; uploads\n"
            "                dist/*.whl;\n"
            "  test-LEG      with --gpu-label: `cuwheel test` on a self-hosted GPU runner;\n"
            "  Windows legs  wingraph (Linux) -> winbuild (Windows: probe.py, ninja, MSVC) ->\n"
            "                winpack (Linux: pack, audit) -> wintest (Windows: fresh venvs);\n"
            "  index         after every leg, whatever it did: indexes the wheels that exist,\n"
            "                names the missing cells and why, and then fails the run if any is.\n"
            "Actions are pinned by commit. [tool.cuwheel.ci] cuwheel names what `pip install`\n"
            "installs cuwheel from, container the Linux jobs' image (\"\" for none). The remote\n"
            "cache (secret CUWHEEL_CCACHE_REMOTE) reaches only the steps that compile. The output\n"
            "is deterministic.\n",
    .groups = {{"github", ci_github_options}},
    .more = "For other CI systems: `cuwheel plan --shard I/N --json`.\n"
            "\n"
            "Exit status: 0 written, 1 error, 2 usage, 3 nothing selected.\n",
};

/* The CUDA minors the toolkit lock file provisions from PyPI ("13.0"); empty without a lock. */
static void pypi_minors(struct cli *c, struct strv *out)
{
	struct provision_lock lock;
	/* A lock that cannot be read: a warning, and the workflow installs no toolkit from PyPI. */
	if (!cli_provision_lock_quiet(c, &lock))
		return;
	/* PyPI's only: the workflow installs those with `cuwheel toolkit install`; the Debian
	 * source is not emitted to CI yet (runners' apt and keyrings differ). */
	for (size_t i = 0; i < lock.n_sets; i++)
		if (lock.sets[i].source == PROVISION_PYPI &&
		    !strv_contains(out, lock.sets[i].minor))
			strv_push(&c->arena, out, lock.sets[i].minor);
}

int cmd_ci(struct cli *c, int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-')
		return cli_usage(c, "ci", "which CI system? 'cuwheel ci github'");
	if (strcmp(argv[1], "github") != 0)
		return cli_usage(c, "ci", "'%s' is not a CI system cuwheel writes for (github)",
		                 argv[1]);
	const char *output = NULL, *spec = NULL;
	bool to_stdout = false;
	struct ci_github_opts o = {0};
	struct cli_args p;
	cli_args_init(&p, c, "ci", ci_github_options, CLI_ARGS_LAST, argc - 1, argv + 1);
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
		case CI_GPU_LABEL:
			if (!*p.value)
				return cli_usage(c, "ci", "--gpu-label needs a runner label");
			o.gpu_label = p.value;
			break;
		case CI_CUWHEEL:
			spec = p.value;
			if (!*spec || spec[0] == '-' || strstr(spec, "${") ||
			    strpbrk(spec, "\n\r\t"))
				return cli_usage(
				    c, "ci", "--cuwheel wants a pip requirement or URL, not '%s'",
				    spec);
			break;
		default:
			return CLI_USAGE;
		}
	}
	if (p.next < argc - 1)
		return cli_usage(c, "ci", "unexpected argument '%s'", argv[1 + p.next]);
	if (output && to_stdout)
		return cli_usage(c, "ci", "-o and --stdout exclude each other");

	struct plan_ctx pc;
	int rc = plan_load(c, NULL, &pc);
	if (rc != CLI_OK)
		return rc;
	if (pc.plan.n_selected == 0) {
		diag_msg(&c->diag, DIAG_ERROR,
		         "nothing selected: every cell is excluded or skipped");
		return CLI_NOTHING;
	}
	o.cuwheel = spec                ? spec
	            : pc.cfg.ci.cuwheel ? pc.cfg.ci.cuwheel
	                                : "cuwheel==" CUWHEEL_VERSION;
	o.container = pc.cfg.ci.container;
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
	/* The command's own summary, on stderr because stdout may be the workflow (--stdout). */
	fprintf(stderr,
	        "cuwheel: %zu cells in %zu legs (one per OS and toolkit), %zu jobs with the "
	        "index%s\n",
	        st.n_cells, st.n_legs, st.n_jobs,
	        st.n_skipped ? "; some cells left out (see the warnings)" : "");
	return CLI_OK;
}
