/* cmd_internal.c: developer tools that are not part of the user-facing CLI. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/os-file.h"
#include "base/sandbox.h"
#include "base/strbuf.h"
#include "cli/cli.h"
#include "cli/internal.h"
#include "graph/buildgraph.h"
#include "standards/toml.h"

const struct cli_help cmd_internal_help = {
    .text =
        "usage: cuwheel internal toml-decode < FILE.toml\n"
        "       cuwheel internal render-ninja PLAN.json\n"
        "\n"
        "       cuwheel internal stage|finish|compat|test-cell|canon|nvcc-overlap ...   (the "
        "steps build.ninja runs)\n"
        "\n"
        "toml-decode  read a TOML document on stdin and print it as toml-test's tagged JSON\n"
        "             on stdout (exit 0), or a located error on stderr (exit 1).\n"
        "render-ninja print the build.ninja that the resolved plan PLAN.json (the plan.json\n"
        "             `cuwheel build` writes beside build.ninja) renders to; writes nothing.\n"
        "stage        lay out a cell's packages and modules for packing.\n"
        "finish       audit a packed wheel, stamp its platform tag and place it in dist/.\n"
        "compat       try a packed torch wheel with each torch of torch-compat.\n"
        "test-cell    test the wheel a cell placed in dist/ on its Python(s).\n"
        "canon        run a compile with device line info with the project and the build dir\n"
        "             at fixed paths (" SANDBOX_CANON_PROJECT ", " SANDBOX_CANON_BUILD
        ") in a bubblewrap\n"
        "             mount namespace, and name the real ones in its depfile after.\n"
        "nvcc-overlap run an nvcc compile (-- NVCC ARGS...) as the steps `nvcc --dryrun` lists,\n"
        "             the host's front end beside each device pass; the same object and depfile\n"
        "             as nvcc's. CUWHEEL_NVCC_OVERLAP=off runs nvcc whole; =explain says why a\n"
        "             command runs whole. Under `cuwheel build`, CUWHEEL_EARLY (run:DIR,\n"
        "             adopt:DIR) hands a compile started while the sources are scanned to\n"
        "             the graph's own edge.\n",
    .groups = {{"stage", internal_stage_options},
               {"finish", internal_finish_options},
               {"compat", internal_compat_options},
               {"test-cell", internal_test_cell_options},
               {"canon", internal_canon_options}},
};

static int internal_toml_decode(struct cli *c)
{
	struct source src;
	if (!os_read_fd(&c->arena, &c->diag, 0, "<stdin>", &src))
		return CLI_FAIL;
	struct toml_value *root = toml_parse(&c->arena, &c->diag, &src);
	if (!root)
		return CLI_FAIL;
	struct strbuf sb = {0};
	toml_to_tagged_json(root, &sb);
	sb_putc(&sb, '\n');
	fwrite(sb.buf, 1, sb.len, stdout);
	sb_release(&sb);
	return CLI_OK;
}

/* Renders the build.ninja of a resolved plan file: the renderer alone, without discovery,
 * config or file writes (the golden tests render their committed plans with it). */
static int internal_render_ninja(struct cli *c, const char *file)
{
	struct source src;
	if (!os_read_file(&c->arena, &c->diag, file, &src))
		return CLI_FAIL;
	json_error_t err;
	json_t *doc = json_loadb(src.text, src.len, 0, &err);
	if (!doc) {
		diag_at(&c->diag, DIAG_ERROR, &src, err.line, err.column, "%s", err.text);
		return CLI_FAIL;
	}
	struct graph_plan r;
	bool ok = buildgraph_plan_check(&c->arena, &c->diag, file, doc) &&
	          buildgraph_plan_read(&c->arena, &c->diag, file, doc, &r);
	json_decref(doc);
	if (!ok)
		return CLI_FAIL;
	struct build_graph g;
	buildgraph_render(&c->arena, &r, &g);
	/* The command's output: build.ninja's bytes, control characters a plan's strings may
	 * hold escaped for the terminal (none in a plan cuwheel resolved: ninja_path_ok). */
	fputs(esc_str(&c->arena, ESC_LOG, g.text), stdout);
	return CLI_OK;
}

int cmd_internal(struct cli *c, int argc, char **argv)
{
	if (argc < 2)
		return cli_usage(c, "internal", "missing tool name (toml-decode)");
	if (strcmp(argv[1], "toml-decode") == 0) {
		if (argc > 2)
			return cli_usage(c, "internal", "toml-decode takes no arguments");
		return internal_toml_decode(c);
	}
	if (strcmp(argv[1], "render-ninja") == 0) {
		if (argc != 3)
			return cli_usage(c, "internal", "render-ninja takes one PLAN.json");
		return internal_render_ninja(c, argv[2]);
	}
	if (strcmp(argv[1], "stage") == 0)
		return internal_stage(c, argc - 1, argv + 1);
	if (strcmp(argv[1], "finish") == 0)
		return internal_finish(c, argc - 1, argv + 1);
	if (strcmp(argv[1], "compat") == 0)
		return internal_compat(c, argc - 1, argv + 1);
	if (strcmp(argv[1], "canon") == 0)
		return internal_canon(c, argc - 1, argv + 1);
	if (strcmp(argv[1], "nvcc-overlap") == 0)
		return internal_nvcc_overlap(c, argc - 1, argv + 1);
	if (strcmp(argv[1], "test-cell") == 0)
		return internal_test_cell(c, argc - 1, argv + 1);
	return cli_usage(c, "internal", "unknown tool '%s'", argv[1]);
}
