/* A query term's postings added into every document's score, in one pass (bot.search.bm25).

   numpy needs four passes and two temporary arrays for what add_postings does in one: gather
   each posting's ratio by its code, multiply it by the term's idf, widen the 4-byte
   document numbers, then add each weight at its document (np.add.at). The operations are
   the same, one multiplication then one addition per posting, in posting order, so the
   scores are the same bit for bit; the build turns off the fusing of the two into one
   multiply-add (-ffp-contract=off), which would round once instead of twice.

   move_postings adds a second field's scores, summed in an array of their own, into the
   first's where that field's postings are, and leaves that array all zeros again: what
   adding the field's whole vector does (x + 0.0 is x), without a pass over every document. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* A buffer's item type: its format's last character (numpy may prefix a byte order). */
static char item_type(const Py_buffer *view) {
    const char *format = view->format == NULL ? "B" : view->format;
    return format[strlen(format) - 1];
}

static int check(const Py_buffer *view, char wanted, Py_ssize_t size, const char *name) {
    if (view->ndim != 1 || item_type(view) != wanted || view->itemsize != size) {
        PyErr_Format(PyExc_TypeError, "%s: a one-dimensional contiguous array of '%c'", name,
                     wanted);
        return -1;
    }
    return 0;
}

static void release(Py_buffer *views, int count) {
    while (count > 0) {
        PyBuffer_Release(&views[--count]);
    }
}

/* Contiguous one-dimensional views of ``count`` objects with their item formats, the first
   ``writable`` of them writable; on failure, none is held. */
static int take(PyObject **objects, Py_buffer *views, int count, int writable) {
    for (int held = 0; held < count; held++) {
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (held < writable ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(objects[held], &views[held], flags) < 0) {
            release(views, held);
            return -1;
        }
    }
    return 0;
}

/* The views released, and None, or the error of the posting a loop stopped at. */
static PyObject *finish(Py_buffer *views, int count, Py_ssize_t done, Py_ssize_t postings) {
    release(views, count);
    if (done < postings) {
        PyErr_Format(PyExc_IndexError, "posting %zd: a document or code out of range", done);
        return NULL;
    }
    return Py_NewRef(Py_None);
}

static PyObject *add_postings(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *objects[4];
    Py_buffer views[4];
    double factor;
    if (!PyArg_ParseTuple(args, "OOOOd", &objects[0], &objects[1], &objects[2], &objects[3],
                          &factor) ||
        take(objects, views, 4, 1) < 0) {
        return NULL;
    }
    Py_buffer *scores = &views[0], *docs = &views[1], *codes = &views[2], *ratios = &views[3];
    char code_type = item_type(codes);
    if (check(scores, 'd', 8, "scores") < 0 || check(docs, 'i', 4, "docs") < 0 ||
        check(ratios, 'd', 8, "ratios") < 0 ||
        check(codes, code_type == 'I' ? 'I' : 'H', code_type == 'I' ? 4 : 2, "codes") < 0) {
        release(views, 4);
        return NULL;
    }
    Py_ssize_t count = docs->shape[0];
    if (codes->shape[0] != count) {
        release(views, 4);
        PyErr_SetString(PyExc_ValueError, "one code per document");
        return NULL;
    }
    double *score = scores->buf;
    const int32_t *doc = docs->buf;
    const double *ratio = ratios->buf;
    const uint64_t documents = (uint64_t)scores->shape[0], pairs = (uint64_t)ratios->shape[0];
    Py_ssize_t done = 0;
    Py_BEGIN_ALLOW_THREADS
    if (code_type == 'I') {
        const uint32_t *code = codes->buf;
        for (; done < count; done++) {
            if ((uint64_t)(uint32_t)doc[done] >= documents || code[done] >= pairs) break;
            score[doc[done]] += ratio[code[done]] * factor;
        }
    } else {
        const uint16_t *code = codes->buf;
        for (; done < count; done++) {
            if ((uint64_t)(uint32_t)doc[done] >= documents || code[done] >= pairs) break;
            score[doc[done]] += ratio[code[done]] * factor;
        }
    }
    Py_END_ALLOW_THREADS
    return finish(views, 4, done, count);
}

static PyObject *move_postings(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *objects[3];
    Py_buffer views[3];
    double factor;
    if (!PyArg_ParseTuple(args, "OOOd", &objects[0], &objects[1], &objects[2], &factor) ||
        take(objects, views, 3, 2) < 0) {
        return NULL;
    }
    Py_buffer *scores = &views[0], *field = &views[1], *docs = &views[2];
    if (check(scores, 'd', 8, "scores") < 0 || check(field, 'd', 8, "field") < 0 ||
        check(docs, 'i', 4, "docs") < 0) {
        release(views, 3);
        return NULL;
    }
    double *score = scores->buf, *moved = field->buf;
    const int32_t *doc = docs->buf;
    const uint64_t documents = (uint64_t)(scores->shape[0] < field->shape[0] ? scores->shape[0]
                                                                             : field->shape[0]);
    Py_ssize_t count = docs->shape[0], done = 0;
    Py_BEGIN_ALLOW_THREADS
    for (; done < count; done++) {
        uint64_t at = (uint64_t)(uint32_t)doc[done];
        if (at >= documents) break;
        score[at] += moved[at] * factor;
        moved[at] = 0.0;
    }
    Py_END_ALLOW_THREADS
    return finish(views, 3, done, count);
}

static PyMethodDef methods[] = {
    {"add_postings", add_postings, METH_VARARGS,
     "add_postings(scores, docs, codes, ratios, factor): scores[docs[i]] += "
     "ratios[codes[i]] * factor for each posting i, in order."},
    {"move_postings", move_postings, METH_VARARGS,
     "move_postings(scores, field, docs, factor): scores[d] += field[d] * factor, then "
     "field[d] = 0.0, for each d of docs, in order (a d listed again adds 0.0)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_postings", NULL, 0, methods,
                                     NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__postings(void) { return PyModule_Create(&module); }
