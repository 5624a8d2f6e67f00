/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * py_serve.c - zeroed huge pages from the `pageclear serve` daemon
 * (pc_serve_get): the descriptor as an int the caller owns.
 */
#include "py_module.h"

static PyObject *py_serve_get(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"size", "page_size", "reserve_only", NULL};
    (void)self;
    PyObject *size_obj, *page_obj = NULL;
    int reserve_only = 0;
    size_t size, page = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O$p:serve_get", kwlist, &size_obj,
                                     &page_obj, &reserve_only))
        return NULL;
    if (pci_py_size(size_obj, "serve_get: size", &size) < 0 ||
        (page_obj != NULL && pci_py_size(page_obj, "serve_get: page_size", &page) < 0))
        return NULL;
    int fd = -1, rc;
    /* It blocks until the daemon answers: other threads run meanwhile. */
    Py_BEGIN_ALLOW_THREADS
    rc = pc_serve_get(size, page, reserve_only ? PC_SERVE_RESERVE_ONLY : 0, &fd);
    Py_END_ALLOW_THREADS
    if (rc < 0)
        return pci_py_error(rc, "serve_get");
    return PyLong_FromLong(fd);
}

PyMethodDef pci_py_serve_methods[] = {
    {"serve_get", PCI_PY_KW(py_serve_get), METH_VARARGS | METH_KEYWORDS,
     "serve_get(size, page_size=0, *, reserve_only=False) -> int: a sealed "
     "memfd of zeroed huge pages from pageclear serve (pc_serve_get)."},
    {NULL, NULL, 0, NULL},
};
