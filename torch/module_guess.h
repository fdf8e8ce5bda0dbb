/* module_guess.h: where a source defines its Python module with PYBIND11_MODULE, read from
 * its text: such a source fails the Python-free proof by construction (pybind11's macro is
 * its own text, which expands otherwise without Python's headers), so the plan decides it
 * without the proof's preprocessor runs. */
#ifndef CUWHEEL_TORCH_MODULE_GUESS_H
#define CUWHEEL_TORCH_MODULE_GUESS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

/* Where the module is defined: 1-based line and column (in bytes) of PYBIND11_MODULE. */
struct module_use {
	size_t line, col;
};

/* Finds the first use of the identifier PYBIND11_MODULE followed by '(' (whitespace and
 * comments between) in text (len bytes) that is outside comments, string and character
 * literals (raw strings too), directives, and every preprocessor conditional of the text
 * (#if, #ifdef, #ifndef to their #endif, at any depth). Returns true and sets *out when there
 * is one and the text neither #defines nor #undefs PYBIND11_MODULE; false when there is none,
 * or where the text cannot be read with certainty (a raw string's delimiter that is not one). */
bool module_guess(const char *text, size_t len, struct module_use *out);
/* module_guess of the file at path; false when it cannot be read or is over MODULE_GUESS_MAX
 * bytes (the proof then decides as ever). */
bool module_guess_file(struct arena *a, const char *path, struct module_use *out);

/* The largest source module_guess_file reads. */
#define MODULE_GUESS_MAX ((size_t)4 << 20)

#endif
