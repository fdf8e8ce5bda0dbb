/* project.c: the project model as JSON, written by `cuwheel build` for its pack steps. */
#include "standards/project.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "standards/json_values.h"

static json_t *pairs_json(const struct str_pairs *p)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < p->n; i++)
		json_array_append_new(arr, json_pack("[s, s]", p->v[i].key, p->v[i].value));
	return arr;
}

static json_t *people_json(const struct person *v, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr,
		                      json_pack("{s:o, s:o}", "name", json_str_or_null(v[i].name),
		                                "email", json_str_or_null(v[i].email)));
	return arr;
}

char *project_meta_render(struct arena *a, const struct project_meta *m, const char *project_dir)
{
	json_t *o = json_object();
	json_object_set_new(o, "format", json_integer(1));
	json_object_set_new(o, "project_dir", json_str_or_null(project_dir));
	json_object_set_new(o, "name", json_str_or_null(m->name));
	json_object_set_new(o, "version", json_str_or_null(m->version));
	json_object_set_new(o, "version_local", json_str_or_null(m->version_local));
	json_object_set_new(o, "description", json_str_or_null(m->description));
	json_object_set_new(o, "readme_text", json_str_or_null(m->readme_text));
	json_object_set_new(o, "readme_path", json_str_or_null(m->readme_path));
	json_object_set_new(o, "readme_type", json_str_or_null(m->readme_type));
	json_object_set_new(o, "requires_python", json_str_or_null(m->requires_python));
	json_object_set_new(o, "license_expression", json_str_or_null(m->license_expression));
	json_object_set_new(o, "license_text", json_str_or_null(m->license_text));
	json_object_set_new(o, "license_files", json_strv(&m->license_files));
	json_object_set_new(o, "authors", people_json(m->authors, m->n_authors));
	json_object_set_new(o, "maintainers", people_json(m->maintainers, m->n_maintainers));
	json_object_set_new(o, "keywords", json_strv(&m->keywords));
	json_object_set_new(o, "classifiers", json_strv(&m->classifiers));
	json_object_set_new(o, "urls", pairs_json(&m->urls));
	json_object_set_new(o, "dependencies", json_strv(&m->dependencies));
	json_t *ex = json_array();
	for (size_t i = 0; i < m->n_extras; i++)
		json_array_append_new(ex, json_pack("{s:s, s:o}", "name", m->extras[i].name, "deps",
		                                    json_strv(&m->extras[i].deps)));
	json_object_set_new(o, "extras", ex);
	json_object_set_new(o, "scripts", pairs_json(&m->scripts));
	json_object_set_new(o, "gui_scripts", pairs_json(&m->gui_scripts));
	json_t *ep = json_array();
	for (size_t i = 0; i < m->n_entry_points; i++)
		json_array_append_new(ep, json_pack("{s:s, s:o}", "group", m->entry_points[i].group,
		                                    "entries",
		                                    pairs_json(&m->entry_points[i].entries)));
	json_object_set_new(o, "entry_points", ep);
	/* An sdist's PKG-INFO, kept verbatim (METADATA is written from it). */
	json_object_set_new(o, "pkginfo",
	                    m->pkginfo ? json_stringn(m->pkginfo, m->pkginfo_len) : json_null());
	json_object_set_new(o, "pkginfo_replaced", json_integer(m->pkginfo_replaced));
	char *s = json_dump_text(a, o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(o);
	return arena_printf(a, "%s\n", s ? s : "{}");
}

struct reader {
	struct arena *a;
	bool ok;
};

static const char *r_str(struct reader *r, const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	if (json_is_string(v))
		return arena_strdup(r->a, json_string_value(v));
	if (v && !json_is_null(v))
		r->ok = false;
	return NULL;
}

static void r_strv(struct reader *r, const json_t *o, const char *key, struct strv *out)
{
	*out = (struct strv){0};
	const json_t *arr = json_object_get(o, key);
	size_t i;
	const json_t *v;
	r->ok &= json_is_array(arr);
	json_array_foreach(arr, i, v)
	{
		if (json_is_string(v))
			strv_push(r->a, out, arena_strdup(r->a, json_string_value(v)));
		else
			r->ok = false;
	}
}

static void r_pairs(struct reader *r, const json_t *o, const char *key, struct str_pairs *out)
{
	const json_t *arr = json_object_get(o, key);
	r->ok &= json_is_array(arr);
	out->v = arena_calloc(r->a, json_array_size(arr) + 1, sizeof(*out->v));
	out->n = 0;
	size_t i;
	const json_t *v;
	json_array_foreach(arr, i, v)
	{
		const char *k = json_string_value(json_array_get(v, 0));
		const char *val = json_string_value(json_array_get(v, 1));
		if (!k || !val) {
			r->ok = false;
			continue;
		}
		out->v[out->n++] =
		    (struct str_pair){arena_strdup(r->a, k), arena_strdup(r->a, val)};
	}
}

static struct person *r_people(struct reader *r, const json_t *o, const char *key, size_t *n)
{
	const json_t *arr = json_object_get(o, key);
	r->ok &= json_is_array(arr);
	struct person *v = arena_calloc(r->a, json_array_size(arr) + 1, sizeof(*v));
	*n = 0;
	size_t i;
	const json_t *p;
	json_array_foreach(arr, i, p)
	{
		v[*n].name = r_str(r, p, "name");
		v[*n].email = r_str(r, p, "email");
		++*n;
	}
	return v;
}

bool project_meta_read(struct arena *a, struct diag *d, const char *path, struct project_meta *m,
                       const char **project_dir)
{
	memset(m, 0, sizeof(*m));
	json_error_t err;
	json_t *o = json_load_file(path, 0, &err);
	if (!o) {
		diag_path(d, DIAG_ERROR, path,
		          "cannot read the project metadata (%s); `cuwheel "
		          "build` writes it",
		          err.text);
		return false;
	}
	struct reader r = {.a = a, .ok = json_integer_value(json_object_get(o, "format")) == 1};
	*project_dir = r_str(&r, o, "project_dir");
	m->name = r_str(&r, o, "name");
	m->version = r_str(&r, o, "version");
	m->version_local = r_str(&r, o, "version_local");
	m->description = r_str(&r, o, "description");
	m->readme_text = r_str(&r, o, "readme_text");
	m->readme_path = r_str(&r, o, "readme_path");
	m->readme_type = r_str(&r, o, "readme_type");
	m->requires_python = r_str(&r, o, "requires_python");
	m->license_expression = r_str(&r, o, "license_expression");
	m->license_text = r_str(&r, o, "license_text");
	r_strv(&r, o, "license_files", &m->license_files);
	m->authors = r_people(&r, o, "authors", &m->n_authors);
	m->maintainers = r_people(&r, o, "maintainers", &m->n_maintainers);
	r_strv(&r, o, "keywords", &m->keywords);
	r_strv(&r, o, "classifiers", &m->classifiers);
	r_pairs(&r, o, "urls", &m->urls);
	r_strv(&r, o, "dependencies", &m->dependencies);
	const json_t *ex = json_object_get(o, "extras");
	r.ok &= json_is_array(ex);
	m->extras = arena_calloc(a, json_array_size(ex) + 1, sizeof(*m->extras));
	size_t i;
	const json_t *v;
	json_array_foreach(ex, i, v)
	{
		struct extra *e = &m->extras[m->n_extras++];
		e->name = r_str(&r, v, "name");
		r_strv(&r, v, "deps", &e->deps);
	}
	r_pairs(&r, o, "scripts", &m->scripts);
	r_pairs(&r, o, "gui_scripts", &m->gui_scripts);
	const json_t *ep = json_object_get(o, "entry_points");
	r.ok &= json_is_array(ep);
	m->entry_points = arena_calloc(a, json_array_size(ep) + 1, sizeof(*m->entry_points));
	json_array_foreach(ep, i, v)
	{
		struct entry_group *g = &m->entry_points[m->n_entry_points++];
		g->group = r_str(&r, v, "group");
		r_pairs(&r, v, "entries", &g->entries);
	}
	const json_t *pi = json_object_get(o, "pkginfo");
	if (json_is_string(pi)) {
		m->pkginfo_len = json_string_length(pi);
		m->pkginfo = arena_strndup(a, json_string_value(pi), m->pkginfo_len);
	} else {
		r.ok &= json_is_null(pi);
	}
	const json_t *pr = json_object_get(o, "pkginfo_replaced");
	r.ok &= json_is_integer(pr);
	m->pkginfo_replaced = (unsigned)json_integer_value(pr);
	json_decref(o);
	if (!r.ok || !m->name || !m->version || !*project_dir) {
		diag_path(d, DIAG_ERROR, path,
		          "not project metadata of this cuwheel (format 1); run "
		          "`cuwheel build` again");
		return false;
	}
	return true;
}
