/* test_context.c: the test step's context file (see test_context.h). */
#include "wheeltest/test_context.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "standards/json_values.h"

char *test_context_render(struct arena *a, const struct config *cfg, const struct discovery *ds)
{
	json_t *root = json_object();
	json_object_set_new(root, "format", json_integer(1));
	json_object_set_new(root, "project_dir", json_string(cfg->project_dir));
	json_t *t = json_object();
	json_object_set_new(t, "command", json_str_or_null(cfg->test.command));
	json_object_set_new(t, "requires", json_strv(&cfg->test.requires));
	json_object_set_new(t, "find_links", json_strv(&cfg->test.find_links));
	json_object_set_new(t, "torch_from_index", json_boolean(cfg->test.torch_from_index));
	json_object_set_new(t, "torch_compat", json_strv(&cfg->test.torch_compat));
	json_object_set_new(t, "torch_requires_tested",
	                    json_boolean(cfg->test.torch_requires_tested));
	/* What the torch-compat step imports: the project's compiled modules. */
	struct strv mods = {0};
	for (size_t i = 0; i < cfg->n_extensions; i++)
		if (cfg->extensions[i].module)
			strv_push(a, &mods, cfg->extensions[i].module);
	json_object_set_new(t, "imports", json_strv(&mods));
	json_object_set_new(root, "test", t);
	json_object_set_new(root, "matrix_python", json_strv(&cfg->matrix.python));
	json_t *py = json_array();
	for (size_t i = 0; i < ds->n_pythons; i++) {
		const struct interp *ip = &ds->pythons[i];
		json_t *o = json_object();
		json_object_set_new(o, "path", json_string(ip->path));
		json_object_set_new(o, "version", json_str_or_null(ip->version));
		json_object_set_new(o, "major", json_integer(ip->major));
		json_object_set_new(o, "minor", json_integer(ip->minor));
		json_object_set_new(o, "implementation", json_str_or_null(ip->implementation));
		json_object_set_new(o, "abiflags", json_str_or_null(ip->abiflags));
		json_object_set_new(o, "freethreaded", json_boolean(ip->freethreaded));
		json_object_set_new(o, "platform", json_str_or_null(ip->platform));
		/* The torch the test venv is given (torch = "build") and is chosen by. */
		if (ip->torch.present) {
			json_t *tj = json_object();
			json_object_set_new(tj, "version", json_str_or_null(ip->torch.version));
			json_object_set_new(tj, "version_short",
			                    json_str_or_null(ip->torch.version_short));
			json_object_set_new(tj, "include_dirs", json_strv(&ip->torch.include_dirs));
			json_object_set_new(o, "torch", tj);
		}
		json_array_append_new(py, o);
	}
	json_object_set_new(root, "pythons", py);
	/* The cross Pythons a wheel of another architecture is tested with (cross_venv.h). */
	json_t *cross = json_array();
	for (size_t i = 0; i < ds->n_cross; i++) {
		const struct cross_installed *p = &ds->cross[i];
		if (p->kind != CROSS_PYTHON)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "platform", json_string(p->platform));
		json_object_set_new(o, "version", json_string(p->version));
		json_object_set_new(o, "minor", json_string(p->minor));
		json_object_set_new(o, "root", json_string(p->root));
		json_array_append_new(cross, o);
	}
	json_object_set_new(root, "cross_pythons", cross);
	char *s = json_dump_text(a, root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return arena_printf(a, "%s\n", s ? s : "{}");
}

static bool strv_of(struct arena *a, const json_t *o, const char *key, struct strv *out)
{
	const json_t *arr = json_object_get(o, key);
	if (!json_is_array(arr))
		return false;
	size_t i;
	const json_t *v;
	json_array_foreach(arr, i, v)
	{
		if (!json_is_string(v))
			return false;
		strv_push(a, out, arena_strdup(a, json_string_value(v)));
	}
	return true;
}

/* The context's cross Pythons into ds->cross (absent: none). */
static bool read_cross(struct arena *a, const json_t *root, struct discovery *ds)
{
	const json_t *cross = json_object_get(root, "cross_pythons");
	if (!cross)
		return true;
	if (!json_is_array(cross))
		return false;
	ds->cross = arena_calloc(a, json_array_size(cross) + 1, sizeof(*ds->cross));
	size_t i;
	const json_t *o;
	json_array_foreach(cross, i, o)
	{
		struct cross_installed *p = &ds->cross[ds->n_cross++];
		p->kind = CROSS_PYTHON;
		p->platform = json_str_read(a, o, "platform");
		p->version = json_str_read(a, o, "version");
		p->minor = json_str_read(a, o, "minor");
		p->root = json_str_read(a, o, "root");
		if (!p->platform || !p->version || !p->minor || !p->root)
			return false;
	}
	return true;
}

bool test_context_read(struct arena *a, struct diag *d, const char *path, struct config *cfg,
                       struct discovery *ds)
{
	memset(cfg, 0, sizeof(*cfg));
	memset(ds, 0, sizeof(*ds));
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	if (!root) {
		diag_path(d, DIAG_ERROR, path,
		          "cannot read the test context (%s); `cuwheel build` "
		          "writes it",
		          err.text);
		return false;
	}
	const json_t *t = json_object_get(root, "test");
	const json_t *py = json_object_get(root, "pythons");
	bool ok = json_integer_value(json_object_get(root, "format")) == 1 &&
	          json_is_string(json_object_get(root, "project_dir")) && json_is_object(t) &&
	          json_is_array(py) && strv_of(a, t, "requires", &cfg->test.requires) &&
	          strv_of(a, t, "find_links", &cfg->test.find_links) &&
	          strv_of(a, root, "matrix_python", &cfg->matrix.python);
	if (ok) {
		cfg->project_dir = json_str_read(a, root, "project_dir");
		cfg->test.command = json_str_read(a, t, "command");
		cfg->test.torch_from_index = json_is_true(json_object_get(t, "torch_from_index"));
		cfg->test.torch_requires_tested =
		    json_is_true(json_object_get(t, "torch_requires_tested"));
		struct strv mods = {0};
		ok &= strv_of(a, t, "torch_compat", &cfg->test.torch_compat) &&
		      strv_of(a, t, "imports", &mods);
		cfg->extensions = arena_calloc(a, mods.n + 1, sizeof(*cfg->extensions));
		for (size_t m = 0; m < mods.n; m++)
			cfg->extensions[cfg->n_extensions++].module = mods.v[m];
		ds->pythons = arena_calloc(a, json_array_size(py) + 1, sizeof(*ds->pythons));
		size_t i;
		const json_t *o;
		json_array_foreach(py, i, o)
		{
			struct interp *ip = &ds->pythons[ds->n_pythons++];
			ip->path = json_str_read(a, o, "path");
			ip->version = json_str_read(a, o, "version");
			ip->major = (int)json_integer_value(json_object_get(o, "major"));
			ip->minor = (int)json_integer_value(json_object_get(o, "minor"));
			ip->implementation = json_str_read(a, o, "implementation");
			ip->abiflags = json_str_read(a, o, "abiflags");
			ip->freethreaded = json_is_true(json_object_get(o, "freethreaded"));
			ip->platform = json_str_read(a, o, "platform");
			const json_t *tj = json_object_get(o, "torch");
			if (json_is_object(tj)) {
				ip->torch.present = true;
				ip->torch.version = json_str_read(a, tj, "version");
				ip->torch.version_short = json_str_read(a, tj, "version_short");
				ok &= strv_of(a, tj, "include_dirs", &ip->torch.include_dirs);
			}
			ok &= ip->path != NULL;
		}
		ok &= read_cross(a, root, ds);
	}
	json_decref(root);
	if (!ok)
		diag_path(d, DIAG_ERROR, path,
		          "not a test context of this cuwheel (format 1); "
		          "run `cuwheel build` again");
	return ok;
}
