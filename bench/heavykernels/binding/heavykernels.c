/* heavykernels.c: the binding stub of heavykernels._C (CPython C API): the only file that
 * includes Python.h, so the only one compiled per Python. Device memory is passed as integer
 * addresses (a torch tensor's data_ptr(), a cupy array's data.ptr). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cuda_runtime_api.h>

#include "hk.h"

static PyObject *py_variants(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	PyObject *text = PyUnicode_FromString(hk_variants());
	if (!text)
		return NULL;
	PyObject *lines = PyUnicode_Splitlines(text, 0);
	Py_DECREF(text);
	return lines;
}

static PyObject *py_runtime_version(PyObject *self, PyObject *args)
{
	(void)self;
	(void)args;
	int v = 0;
	cudaRuntimeGetVersion(&v);
	return PyLong_FromLong(v);
}

static PyObject *py_gemm(PyObject *self, PyObject *args, PyObject *kw)
{
	(void)self;
	static char *names[] = {"dtype", "tile", "epilogue", "a",     "b",      "bias", "c",
	                        "m",     "n",    "k",        "alpha", "stream", NULL};
	int dtype, tile, epi, m, n, k;
	unsigned long long a, b, bias, c, stream = 0;
	float alpha = 1.f;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "iiiKKKKiii|fK", names, &dtype, &tile, &epi, &a,
	                                 &b, &bias, &c, &m, &n, &k, &alpha, &stream))
		return NULL;
	int rc;
	Py_BEGIN_ALLOW_THREADS rc =
	    hk_gemm(dtype, tile, epi, (const void *)(uintptr_t)a, (const void *)(uintptr_t)b,
	            (const void *)(uintptr_t)bias, (void *)(uintptr_t)c, m, n, k, alpha,
	            (void *)(uintptr_t)stream);
	Py_END_ALLOW_THREADS if (rc ==
	                         1) return PyErr_Format(PyExc_ValueError,
	                                                "no gemm variant for dtype %d, tile %d, "
	                                                "epilogue %d",
	                                                dtype, tile, epi);
	return PyLong_FromLong(rc);
}

static PyObject *py_softmax(PyObject *self, PyObject *args)
{
	(void)self;
	int dtype, log, rows, cols;
	unsigned long long x, y, stream = 0;
	if (!PyArg_ParseTuple(args, "iiKKii|K", &dtype, &log, &x, &y, &rows, &cols, &stream))
		return NULL;
	int rc;
	Py_BEGIN_ALLOW_THREADS rc =
	    hk_softmax(dtype, log, (const void *)(uintptr_t)x, (void *)(uintptr_t)y, rows, cols,
	               (void *)(uintptr_t)stream);
	Py_END_ALLOW_THREADS return PyLong_FromLong(rc);
}

static PyMethodDef methods[] = {
    {"variants", py_variants, METH_NOARGS, "The compiled template instantiations."},
    {"runtime_version", py_runtime_version, METH_NOARGS, "cudaRuntimeGetVersion()."},
    {"gemm", (PyCFunction)(void (*)(void))py_gemm, METH_VARARGS | METH_KEYWORDS,
     "gemm(dtype, tile, epilogue, a, b, bias, c, m, n, k, alpha=1.0, stream=0) -> cudaError"},
    {"softmax", py_softmax, METH_VARARGS,
     "softmax(dtype, log, x, y, rows, cols, stream=0) -> cudaError"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT,
                                    "heavykernels._C",
                                    "heavykernels' CUDA kernels",
                                    -1,
                                    methods,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL};

PyMODINIT_FUNC PyInit__C(void)
{
	PyObject *m = PyModule_Create(&module);
	if (m && (PyModule_AddIntConstant(m, "F32", HK_F32) ||
	          PyModule_AddIntConstant(m, "F16", HK_F16) ||
	          PyModule_AddIntConstant(m, "BF16", HK_BF16))) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
