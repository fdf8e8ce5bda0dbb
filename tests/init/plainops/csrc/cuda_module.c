/* cuda_module.c: plainops._cuda, the binding (the only source of it that includes Python.h). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "plainops.h"

static PyObject *variant(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	return PyUnicode_FromString(plainops_variant());
}

static PyObject *scale_variant(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	return PyUnicode_FromString(plainops_scale_variant());
}

static PyObject *devices(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	int count = 0;
	int err = plainops_devices(&count);
	return Py_BuildValue("(ii)", err, count);
}

static PyMethodDef methods[] = {
    {"variant", variant, METH_NOARGS, "Which build of variant.cpp this module holds."},
    {"scale_variant", scale_variant, METH_NOARGS, "The define scale.cu was compiled with."},
    {"devices", devices, METH_NOARGS, "(cudaGetDeviceCount's error code, the count)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cuda", NULL, -1, methods};

PyMODINIT_FUNC PyInit__cuda(void)
{
	return PyModule_Create(&module);
}
