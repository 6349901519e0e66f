"""A small Cython module that cimports refdp/_lnmax.pxd compiles and computes the LNMax law."""
import os
import subprocess
import sys
import textwrap

import pytest

import refdp
from refdp import core as _kernels

USER_PYX = textwrap.dedent("""
    # cython: language_level=3
    import numpy as np
    from libc.stdint cimport int64_t
    from refdp._lnmax cimport lnmax_log_law, lnmax_workspace_doubles, lnmax_workspace_ints

    def law(const int64_t[::1] counts, double gamma, const double[::1] gx, const double[::1] gw,
            const double[::1] rx, const double[::1] rw):
        cdef Py_ssize_t C = counts.shape[0]
        out = np.empty(C)
        work = np.empty(lnmax_workspace_doubles(C))
        iwork = np.empty(lnmax_workspace_ints(C), dtype=np.int64)
        cdef double[::1] o = out, w = work
        cdef int64_t[::1] iw = iwork
        with nogil:
            lnmax_log_law(&counts[0], C, gamma, &gx[0], &gw[0], gx.shape[0], &rx[0], &rw[0], rx.shape[0],
                          &w[0], &iw[0], &o[0])
        return out
""")

SETUP_PY = textwrap.dedent("""
    import sys
    import numpy as np
    from Cython.Build import cythonize
    from setuptools import Extension, setup
    setup(
        name="refdp_lnmax_user",
        ext_modules=cythonize(
            [Extension("refdp_lnmax_user", ["refdp_lnmax_user.pyx"], include_dirs=[np.get_include()])],
            include_path=[sys.argv.pop()],
        ),
        script_args=["build_ext", "--inplace"],
    )
""")


@pytest.mark.slow
@pytest.mark.skipif(not _kernels.LNMAX_COMPILED, reason="refdp._lnmax is not built")
def test_cython_module_can_cimport_the_lnmax_kernel(tmp_path):
    (tmp_path / "refdp_lnmax_user.pyx").write_text(USER_PYX)
    (tmp_path / "setup.py").write_text(SETUP_PY)
    include = os.path.dirname(os.path.dirname(os.path.abspath(refdp.__file__)))
    proc = subprocess.run([sys.executable, "setup.py", include], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    code = textwrap.dedent("""
        import numpy as np
        import refdp_lnmax_user as u
        from refdp.pate import lnmax_distribution
        from refdp.core import lnmax_gl_tables as gl_tables
        counts = np.array([9, 4, 4, 0], dtype=np.int64)
        got = u.law(counts, 0.3, *gl_tables(4))
        assert np.array_equal(got, lnmax_distribution(counts, 0.3, log=True)), got
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=str(tmp_path) + os.pathsep + include)
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
