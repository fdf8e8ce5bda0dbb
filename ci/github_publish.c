/* github_publish.c: the opt-in publishing jobs ([tool.cuwheel.ci] publish): release assets, the
 * per-variant index on GitHub Pages, the sdist on PyPI. Each runs on a tag push, after the
 * index job succeeded (every cell built), with only the permissions it needs. */
#include <string.h>

#include "ci/github_internal.h"
#include "ci/yaml.h"

/* Opens a publishing job: needs the index (and after, when given), runs for tags,
 * permissions as given ("key: value" lines), in the configured environment (else env_default,
 * or none). */
static void publish_open(struct emit *e, const char *id, const char *name, const char *after,
                         const char *const *perms, const char *env_default, const char *url)
{
	struct strbuf *sb = &e->sb;
	strv_push(e->a, &e->jobs, id);
	e->n_jobs++;
	sb_printf(sb, "\n  %s:\n", id);
	yaml_kv(sb, 4, "name", name);
	yaml_key(sb, 4, "needs");
	yaml_item(sb, 6, "index");
	if (after)
		yaml_item(sb, 6, after);
	yaml_comment(sb, 4, "A tag whose every cell was built (the index job succeeded).");
	yaml_kv(sb, 4, "if", "startsWith(github.ref, 'refs/tags/')");
	yaml_kv(sb, 4, "runs-on", "ubuntu-24.04");
	yaml_key(sb, 4, "permissions");
	for (size_t i = 0; perms[i]; i++)
		sb_printf(sb, "      %s\n", perms[i]);
	const char *env = e->o->environment ? e->o->environment : env_default;
	if (env) {
		yaml_key(sb, 4, "environment");
		yaml_kv(sb, 6, "name", env);
		if (url)
			yaml_kv_expr(sb, 6, "url", url);
	}
	sb_puts(sb, "    timeout-minutes: 30\n    steps:\n");
}

/* The wheels the index job published become the tag's release assets (the release is made
 * when the tag has none). */
static void release_job(struct emit *e)
{
	static const char *const perms[] = {"contents: write", NULL};
	publish_open(e, "release", "release assets", NULL, perms, NULL, NULL);
	gh_download(e, "published-wheels", NULL, "release-assets");
	yaml_step(&e->sb, 6, "Upload the wheels to the tag's release");
	yaml_key(&e->sb, 8, "env");
	yaml_kv_expr(&e->sb, 10, "GH_TOKEN", "${{ github.token }}");
	yaml_run(&e->sb, 8, CI_SCRIPT(release_upload_sh));
}

/* The PEP 503/691 index of every release's wheels (one sub-index per local variant) on GitHub
 * Pages, after the release job uploaded this tag's: pip install --index-url
 * https://OWNER.github.io/REPO/cu130/ NAME. The site links to the release assets (each wheel
 * stored once, every release listed) and is refused before deploying if it passes Pages' 1 GB. */
static void pages_job(struct emit *e)
{
	static const char *const perms[] = {"contents: read", "pages: write", "id-token: write",
	                                    NULL};
	publish_open(e, "pages", "index on GitHub Pages", "release", perms, "github-pages",
	             "${{ steps.deploy.outputs.page_url }}");
	gh_install_cuwheel(e);
	yaml_step(&e->sb, 6, "The index of every release's wheels, linked to the release assets");
	yaml_key(&e->sb, 8, "env");
	yaml_kv_expr(&e->sb, 10, "GH_TOKEN", "${{ github.token }}");
	yaml_kv(&e->sb, 10, "SITE", "site");
	gh_libraries_env(e, 10);
	yaml_run(&e->sb, 8, gh_with_libraries(e, CI_SCRIPT(pages_site_sh)));
	yaml_step(&e->sb, 6, "The site within GitHub Pages' 1 GB");
	yaml_key(&e->sb, 8, "env");
	yaml_kv(&e->sb, 10, "SITE", "site");
	yaml_kv(&e->sb, 10, "PAGES_LIMIT", CI_PAGES_LIMIT);
	yaml_run(&e->sb, 8, CI_SCRIPT(pages_size_sh));
	gh_uses(e, 6, CI_ACTION_PAGES_UPLOAD, true);
	sb_puts(&e->sb, "        with:\n          path: site/\n");
	yaml_step(&e->sb, 6, "Deploy");
	yaml_kv(&e->sb, 8, "id", "deploy");
	gh_uses(e, 8, CI_ACTION_PAGES_DEPLOY, false);
}

/* The sdist the wheels were built from, to PyPI by trusted publishing (no token: PyPI trusts
 * this repository's workflow and environment, configured once on pypi.org). */
static void pypi_job(struct emit *e)
{
	static const char *const perms[] = {"id-token: write", NULL};
	publish_open(e, "pypi-sdist", "sdist to PyPI", NULL, perms, "pypi", NULL);
	if (e->o->src.sdist_committed)
		gh_checkout(e);
	gh_sdist_step(e);
	yaml_step(&e->sb, 6, "The sdist alone in its directory");
	yaml_run(&e->sb, 8, "mkdir -p sdist-out\ncp \"$SDIST\" sdist-out/\n");
	gh_uses(e, 6, CI_ACTION_PYPI_PUBLISH, true);
	sb_puts(&e->sb, "        with:\n          packages-dir: sdist-out/\n");
}

void gh_publish_jobs(struct emit *e)
{
	const struct strv *pub = e->o->publish;
	for (size_t i = 0; pub && i < pub->n; i++) {
		if (!strcmp(pub->v[i], "release"))
			release_job(e);
		else if (!strcmp(pub->v[i], "pages"))
			pages_job(e);
		else if (!strcmp(pub->v[i], "pypi-sdist"))
			pypi_job(e);
	}
}
