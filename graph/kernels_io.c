/* kernels_io.c: archive export and import between build stages. */
#include "graph/kernels_io.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/os-file.h"
#include "standards/digest.h"
#include "standards/json_values.h"

static const char *archive_name(const struct archive_paths *ap)
{
	const char *slash = strrchr(ap->dir, '/');
	return slash ? slash + 1 : ap->dir;
}

static json_t *source_hashes(struct arena *a, struct diag *d, const struct config *cfg)
{
	json_t *src = json_object();
	for (size_t i = 0; i < cfg->kernels.files.n; i++) {
		const char *rel = cfg->kernels.files.v[i];
		char *h = file_sha256_hex(a, d, os_join(a, cfg->project_dir, rel), NULL);
		if (!h) {
			json_decref(src);
			return NULL;
		}
		json_object_set_new(src, rel, json_string(h));
	}
	return src;
}

bool kernels_export(struct arena *a, struct diag *d, const struct plan *p,
                    const struct build_graph *g, const char *dir)
{
	if (!os_mkdir_p(d, dir))
		return false;
	json_t *root = json_object();
	json_object_set_new(root, "format", json_integer(1));
	json_object_set_new(root, "project", json_string(p->cfg->project.name));
	json_object_set_new(root, "version", json_string(p->cfg->project.version));
	json_t *arr = json_array();
	bool ok = true;
	for (size_t t = 0; ok && t < p->n_toolkits; t++) {
		const struct archive_paths *ap = &g->archives[t];
		if (!ap->dir)
			continue;
		const struct toolkit_plan *tp = &p->toolkits[t];
		char *src = os_join(a, g->build_dir, ap->archive);
		char *sub = os_join(a, dir, archive_name(ap));
		char *dst = os_join(a, sub, "libkernels.a");
		char *hash = file_sha256_hex(a, d, src, NULL);
		json_t *sources = source_hashes(a, d, p->cfg);
		ok = hash && sources && os_mkdir_p(d, sub) && os_copy_file(d, src, dst);
		if (!ok) {
			json_decref(sources);
			break;
		}
		json_t *j = json_object();
		json_object_set_new(j, "cuda", json_string(tp->cuda));
		json_object_set_new(j, "nvcc_version", json_string(tp->tk->version));
		json_object_set_new(j, "key", json_string(ap->key));
		json_object_set_new(
		    j, "archive",
		    json_string(arena_printf(a, "%s/libkernels.a", archive_name(ap))));
		json_object_set_new(j, "sha256", json_string(hash));
		json_object_set_new(j, "archs", json_string(p->cfg->kernels.archs_text));
		json_object_set_new(j, "sources", sources);
		json_array_append_new(arr, j);
	}
	json_object_set_new(root, "archives", arr);
	char *text = ok ? json_dump_text(a, root, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
	json_decref(root);
	if (ok)
		ok = text &&
		     os_write_atomic(d, os_join(a, dir, "manifest.json"), text, strlen(text), 0644);
	return ok;
}

bool kernels_import(struct arena *a, struct diag *d, const struct plan *p,
                    const struct build_graph *g, const char *dir)
{
	char *mpath = os_join(a, dir, "manifest.json");
	json_error_t jerr;
	json_t *root = json_load_file(mpath, 0, &jerr);
	if (!root) {
		diag_at(d, DIAG_ERROR, NULL, 0, 0, "%s:%d:%d: cannot read the kernels manifest: %s",
		        mpath, jerr.line, jerr.column, jerr.text);
		diag_msg(d, DIAG_HINT, "create it with: cuwheel build --stage kernels --export %s",
		         dir);
		return false;
	}
	json_t *arr = json_object_get(root, "archives");
	bool ok = json_is_array(arr);
	if (!ok)
		diag_path(d, DIAG_ERROR, mpath, "has no 'archives' array");
	json_t *want_sources = ok ? source_hashes(a, d, p->cfg) : NULL;
	for (size_t t = 0; ok && t < p->n_toolkits; t++) {
		const struct archive_paths *ap = &g->archives[t];
		if (!ap->dir)
			continue;
		const struct toolkit_plan *tp = &p->toolkits[t];
		json_t *match = NULL, *same_cuda = NULL, *e;
		size_t i;
		json_array_foreach(arr, i, e)
		{
			const char *key = json_string_value(json_object_get(e, "key"));
			const char *cuda = json_string_value(json_object_get(e, "cuda"));
			if (key && !strcmp(key, ap->key))
				match = e;
			else if (cuda && !strcmp(cuda, tp->cuda))
				same_cuda = e;
		}
		if (!match) {
			if (same_cuda)
				diag_path(
				    d, DIAG_ERROR, mpath,
				    "the CUDA %s archive was built with other settings (key %s, "
				    "nvcc %s, archs %s); this plan needs key %s (nvcc %s, archs "
				    "%s)",
				    tp->cuda, json_string_value(json_object_get(same_cuda, "key")),
				    json_string_value(json_object_get(same_cuda, "nvcc_version")),
				    json_string_value(json_object_get(same_cuda, "archs")), ap->key,
				    tp->tk->version, p->cfg->kernels.archs_text);
			else
				diag_path(d, DIAG_ERROR, mpath, "has no archive for CUDA %s",
				          tp->cuda);
			ok = false;
			break;
		}
		/* The sources must be the ones the archive was compiled from. */
		json_t *have = json_object_get(match, "sources");
		const char *rel;
		json_t *hv;
		json_object_foreach(want_sources, rel, hv)
		{
			const char *theirs = json_string_value(json_object_get(have, rel));
			if (!theirs || strcmp(theirs, json_string_value(hv))) {
				diag_path(
				    d, DIAG_ERROR, mpath,
				    "kernel source %s %s the exported CUDA %s archive was built "
				    "from",
				    rel, theirs ? "differs from the one" : "is not among those",
				    tp->cuda);
				ok = false;
			}
		}
		if (json_object_size(have) != json_object_size(want_sources)) {
			diag_path(d, DIAG_ERROR, mpath,
			          "the CUDA %s archive was built from %zu kernel "
			          "sources; this project has %zu",
			          tp->cuda, json_object_size(have), json_object_size(want_sources));
			ok = false;
		}
		if (!ok)
			break;
		const char *file = json_string_value(json_object_get(match, "archive"));
		const char *sha = json_string_value(json_object_get(match, "sha256"));
		if (!file || strstr(file, "..") || file[0] == '/' || !sha) {
			diag_path(d, DIAG_ERROR, mpath, "archive entry for CUDA %s is malformed",
			          tp->cuda);
			ok = false;
			break;
		}
		char *src = os_join(a, dir, file);
		char *have_sha = file_sha256_hex(a, d, src, NULL);
		if (!have_sha || strcmp(have_sha, sha)) {
			if (have_sha)
				diag_path(d, DIAG_ERROR, src,
				          "sha256 %s does not match the manifest's %s", have_sha,
				          sha);
			ok = false;
			break;
		}
		char *dst = os_join(a, g->build_dir, ap->archive);
		ok = os_mkdir_p(d, os_join(a, g->build_dir, ap->dir)) &&
		     os_copy_file_atomic(a, d, src, dst);
	}
	json_decref(want_sources);
	json_decref(root);
	return ok;
}
