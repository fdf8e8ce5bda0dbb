/* audit_json.c: audit results as JSON (jansson), with stable keys for programs to read. */
#include <jansson.h>
#include <stdlib.h>

#include "packager/audit.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *strv_json(const struct strv *sv)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < sv->n; i++)
		json_array_append_new(arr, json_string(sv->v[i]));
	return arr;
}

static json_t *result_json(const struct audit_result *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "wheel", json_string(r->wheel));
	json_object_set_new(o, "ok", json_boolean(r->ok));
	json_object_set_new(o, "errors", json_integer(r->errors));
	json_object_set_new(o, "warnings", json_integer(r->warnings));
	json_object_set_new(o, "pure", json_boolean(r->pure));
	json_object_set_new(o, "arch", str_or_null(r->arch));
	json_object_set_new(o, "policy", str_or_null(r->policy));
	json_object_set_new(o, "platform_tag", str_or_null(r->platform_tag));
	json_object_set_new(o, "why_not_higher", str_or_null(r->why_not_higher));
	json_object_set_new(o, "versioned_symbols", strv_json(&r->versioned));
	json_t *libs = json_array();
	for (size_t i = 0; i < r->n_libs; i++) {
		json_t *l = json_object();
		json_object_set_new(l, "soname", json_string(r->libs[i].soname));
		json_object_set_new(l, "needed_by", json_string(r->libs[i].needed_by));
		json_object_set_new(l, "provider", str_or_null(r->libs[i].provider));
		json_object_set_new(l, "excluded", json_boolean(r->libs[i].excluded));
		json_array_append_new(libs, l);
	}
	json_object_set_new(o, "external_libs", libs);
	json_t *elfs = json_array();
	for (size_t i = 0; i < r->n_elfs; i++) {
		const struct audit_elf *e = &r->elfs[i];
		json_t *x = json_object();
		json_object_set_new(x, "member", json_string(e->member));
		json_object_set_new(x, "arch", str_or_null(e->arch));
		json_object_set_new(x, "module", str_or_null(e->module));
		json_object_set_new(x, "needed", strv_json(&e->needed));
		json_object_set_new(x, "rpath", strv_json(&e->rpath));
		json_object_set_new(x, "runpath", strv_json(&e->runpath));
		json_object_set_new(x, "cuda_archs", strv_json(&e->cubins));
		json_array_append_new(elfs, x);
	}
	json_object_set_new(o, "elf_files", elfs);
	json_t *fs = json_array();
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct audit_finding *f = &r->findings[i];
		json_t *x = json_object();
		json_object_set_new(x, "level", json_string(audit_level_name(f->level)));
		json_object_set_new(x, "code", json_string(f->code));
		json_object_set_new(x, "member", str_or_null(f->member));
		json_object_set_new(x, "message", json_string(f->message));
		json_object_set_new(x, "hint", str_or_null(f->hint));
		json_array_append_new(fs, x);
	}
	json_object_set_new(o, "findings", fs);
	return o;
}

char *audit_results_json(struct arena *a, const struct audit_result *r, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, result_json(&r[i]));
	char *s = json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(arr);
	char *out = arena_strdup(a, s ? s : "[]");
	free(s);
	return out;
}
