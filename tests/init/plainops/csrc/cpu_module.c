/* cpu_module.c: plainops._cpu, the binding (the only source of it that includes Python.h). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "plainops.h"

static PyObject *variant(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	return PyUnicode_FromString(plainops_variant());
}

static PyMethodDef methods[] = {
    {"variant", variant, METH_NOARGS, "Which build of variant.cpp this module holds."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cpu", NULL, -1, methods};

PyMODINIT_FUNC PyInit__cpu(void)
{
	return PyModule_Create(&module);
}
