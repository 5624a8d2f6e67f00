/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * py_module.c - the _pageclear module: initialisation, the errno-to-exception
 * mapping and the argument converters every part shares.
 */
#include "py_module.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

PyObject *pci_py_error(int ret, const char *what)
{
    int e = ret < 0 ? -ret : ret;
    if (e == EINVAL) {
        PyErr_Format(PyExc_ValueError, "%s: %s", what, strerror(e));
    } else if (e == EOVERFLOW) {
        PyErr_Format(PyExc_OverflowError, "%s: %s", what, strerror(e));
    } else {
        /* OSError(errno, text) so callers can test .errno. */
        PyObject *text = PyUnicode_FromFormat("%s: %s", what, strerror(e));
        if (text != NULL) {
            PyObject *args = Py_BuildValue("(iO)", e, text);
            if (args != NULL) {
                PyErr_SetObject(PyExc_OSError, args);
                Py_DECREF(args);
            }
            Py_DECREF(text);
        }
    }
    return NULL;
}

int pci_py_threads(PyObject *obj, const char *what, int *out)
{
    PyObject *index = PyNumber_Index(obj);
    if (index == NULL)
        return -1;
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow != 0 || v < 0 || v > INT_MAX) {
        PyErr_Format(PyExc_ValueError,
                     "%s: threads must be 0 (one per CPU) or a positive "
                     "count, got %R", what, obj);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int pci_py_size(PyObject *obj, const char *what, size_t *out)
{
    PyObject *index = PyNumber_Index(obj);
    if (index == NULL)
        return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow != 0 || v < 0 || (unsigned long long)v > SIZE_MAX) {
        PyErr_Format(PyExc_ValueError, "%s must be a non-negative byte "
                     "count that fits in memory, got %R", what, obj);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "pageclear._pageclear",
    .m_doc = "The C layer of pageclear: thin calls into libpageclear. "
             "Use the pageclear package, not this module.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__pageclear(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL)
        return NULL;
    if (PyModule_AddStringConstant(m, "__version__", pc_version()) < 0 ||
        PyModule_AddIntConstant(m, "PAGE_SIZE", (long)PC_PAGE_SIZE) < 0 ||
        PyModule_AddFunctions(m, pci_py_info_methods) < 0 ||
        PyModule_AddFunctions(m, pci_py_clear_methods) < 0 ||
        PyModule_AddFunctions(m, pci_py_present_methods) < 0 ||
        PyModule_AddFunctions(m, pci_py_serve_methods) < 0 ||
        pci_py_pool_add_types(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
