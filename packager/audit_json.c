/* audit_json.c: audit results as JSON (jansson), with stable keys for programs to read. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "packager/audit.h"
#include "standards/json_values.h"

/* The findings alone, as audit_result_to_json writes them: [{level, code, member, message,
 * hint}] (a new reference; report.json carries them in its cell summaries). */
static json_t *audit_findings_json(const struct audit_result *r)
{
	json_t *fs = json_array();
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct audit_finding *f = &r->findings[i];
		json_t *x = json_object();
		json_object_set_new(x, "level", json_string(audit_level_name(f->level)));
		json_object_set_new(x, "code", json_str_or_null(f->code));
		json_object_set_new(x, "member", json_str_or_null(f->member));
		json_object_set_new(x, "message", json_str_or_null(f->message));
		json_object_set_new(x, "hint", json_str_or_null(f->hint));
		json_array_append_new(fs, x);
	}
	return fs;
}

json_t *audit_result_to_json(const struct audit_result *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "wheel", json_string(r->wheel));
	json_object_set_new(o, "ok", json_boolean(r->ok));
	json_object_set_new(o, "errors", json_integer(r->errors));
	json_object_set_new(o, "warnings", json_integer(r->warnings));
	json_object_set_new(o, "pure", json_boolean(r->pure));
	json_object_set_new(o, "arch", json_str_or_null(r->arch));
	json_object_set_new(o, "policy", json_str_or_null(r->policy));
	json_object_set_new(o, "platform_tag", json_str_or_null(r->platform_tag));
	json_object_set_new(o, "why_not_higher", json_str_or_null(r->why_not_higher));
	json_object_set_new(o, "versioned_symbols", json_strv(&r->versioned));
	json_t *libs = json_array();
	for (size_t i = 0; i < r->n_libs; i++) {
		json_t *l = json_object();
		json_object_set_new(l, "soname", json_string(r->libs[i].soname));
		json_object_set_new(l, "needed_by", json_string(r->libs[i].needed_by));
		json_object_set_new(l, "provider", json_str_or_null(r->libs[i].provider));
		json_object_set_new(l, "excluded", json_boolean(r->libs[i].excluded));
		json_array_append_new(libs, l);
	}
	json_object_set_new(o, "external_libs", libs);
	json_t *elfs = json_array();
	for (size_t i = 0; i < r->n_elfs; i++) {
		const struct audit_elf *e = &r->elfs[i];
		json_t *x = json_object();
		json_object_set_new(x, "member", json_string(e->member));
		json_object_set_new(x, "arch", json_str_or_null(e->arch));
		json_object_set_new(x, "module", json_str_or_null(e->module));
		json_object_set_new(x, "needed", json_strv(&e->needed));
		json_object_set_new(x, "rpath", json_strv(&e->rpath));
		json_object_set_new(x, "runpath", json_strv(&e->runpath));
		json_object_set_new(x, "cuda_archs", json_strv(&e->cubins));
		json_array_append_new(elfs, x);
	}
	json_object_set_new(o, "elf_files", elfs);
	json_object_set_new(o, "findings", audit_findings_json(r));
	return o;
}

char *audit_results_json(struct arena *a, const struct audit_result *r, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, audit_result_to_json(&r[i]));
	char *s = json_dump_text(a, arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(arr);
	return s ? s : arena_strdup(a, "[]");
}

bool audit_result_from_json(struct arena *a, const json_t *o, struct audit_result *out)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(o) || !json_is_string(json_object_get(o, "wheel")))
		return false;
	out->wheel = json_str_read(a, o, "wheel");
	out->ok = json_is_true(json_object_get(o, "ok"));
	out->opened = true;
	out->errors = (int)json_integer_value(json_object_get(o, "errors"));
	out->warnings = (int)json_integer_value(json_object_get(o, "warnings"));
	out->pure = json_is_true(json_object_get(o, "pure"));
	out->arch = json_str_read(a, o, "arch");
	out->policy = json_str_read(a, o, "policy");
	out->platform_tag = json_str_read(a, o, "platform_tag");
	out->why_not_higher = json_str_read(a, o, "why_not_higher");
	json_strv_read(a, json_object_get(o, "versioned_symbols"), &out->versioned);
	const json_t *libs = json_object_get(o, "external_libs");
	out->libs = arena_calloc(a, json_array_size(libs) + 1, sizeof(*out->libs));
	size_t i;
	const json_t *v;
	json_array_foreach(libs, i, v)
	{
		struct audit_lib *l = &out->libs[out->n_libs++];
		l->soname = json_str_read(a, v, "soname");
		l->needed_by = json_str_read(a, v, "needed_by");
		l->provider = json_str_read(a, v, "provider");
		l->excluded = json_is_true(json_object_get(v, "excluded"));
	}
	const json_t *elfs = json_object_get(o, "elf_files");
	out->elfs = arena_calloc(a, json_array_size(elfs) + 1, sizeof(*out->elfs));
	json_array_foreach(elfs, i, v)
	{
		struct audit_elf *e = &out->elfs[out->n_elfs++];
		e->member = json_str_read(a, v, "member");
		e->arch = json_str_read(a, v, "arch");
		e->module = json_str_read(a, v, "module");
		json_strv_read(a, json_object_get(v, "needed"), &e->needed);
		json_strv_read(a, json_object_get(v, "rpath"), &e->rpath);
		json_strv_read(a, json_object_get(v, "runpath"), &e->runpath);
		json_strv_read(a, json_object_get(v, "cuda_archs"), &e->cubins);
	}
	const json_t *fs = json_object_get(o, "findings");
	out->findings = arena_calloc(a, json_array_size(fs) + 1, sizeof(*out->findings));
	json_array_foreach(fs, i, v)
	{
		struct audit_finding *f = &out->findings[out->n_findings++];
		const char *lvl = json_string_value(json_object_get(v, "level"));
		f->level = AUDIT_NOTE;
		for (int l = AUDIT_ERROR; l <= AUDIT_NOTE; l++)
			if (lvl && !strcmp(lvl, audit_level_name((enum audit_level)l)))
				f->level = (enum audit_level)l;
		f->code = json_str_read(a, v, "code");
		f->member = json_str_read(a, v, "member");
		f->message = json_str_read(a, v, "message");
		f->hint = json_str_read(a, v, "hint");
	}
	return true;
}
