/* entry_points.h: the PyPA entry-points specification's rules for names, groups and object
 * references, shared by the config loader and the audit (entry_points.txt in a wheel). */
#ifndef CUWHEEL_PACKAGER_ENTRY_POINTS_H
#define CUWHEEL_PACKAGER_ENTRY_POINTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

/* NULL when name is a valid entry-point name (a script's name too, when script: it becomes a
 * file name); else why not, as a phrase. */
const char *entry_point_name_problem(const char *name, bool script);
/* NULL when group is a valid group name ([A-Za-z0-9_.-]+); else why not. */
const char *entry_point_group_problem(const char *group);
/* NULL when ref is an object reference "module.sub[:attr.attr]" (optionally followed by
 * " [extra, ...]"), with ":attr" required when need_attr (scripts); else why not. */
const char *entry_point_ref_problem(const char *ref, bool need_attr);
/* NULL when text (len bytes) is a valid entry_points.txt; else "line N: why" in a. */
const char *entry_points_txt_problem(struct arena *a, const char *text, size_t len);

#endif
