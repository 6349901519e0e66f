"""A small Cython module that cimports refdp/_core.pxd compiles and calls the kernels."""
import os
import subprocess
import sys
import textwrap

import numpy as np

import refdp

USER_PYX = textwrap.dedent("""
    # cython: language_level=3
    from libc.stdint cimport int64_t
    from refdp._core cimport stable_logsumexp, count_votes_int64, laplace_difference_log_tail

    def lse(double[::1] x):
        cdef double r
        with nogil:
            r = stable_logsumexp(&x[0], x.shape[0])
        return r

    def votes(const int64_t[:, ::1] v, Py_ssize_t n_classes, int64_t[:, ::1] out):
        cdef Py_ssize_t bad
        with nogil:
            bad = count_votes_int64(&v[0, 0], v.shape[0], v.shape[1], n_classes, &out[0, 0])
        return bad

    def tail(double gap, double gamma):
        return laplace_difference_log_tail(gap, gamma)
""")

SETUP_PY = textwrap.dedent("""
    import sys
    import numpy as np
    from Cython.Build import cythonize
    from setuptools import Extension, setup
    setup(
        name="refdp_cimport_user",
        ext_modules=cythonize(
            [Extension("refdp_cimport_user", ["refdp_cimport_user.pyx"],
                       include_dirs=[np.get_include()])],
            include_path=[sys.argv.pop()],
        ),
        script_args=["build_ext", "--inplace"],
    )
""")


def test_cython_module_can_cimport_the_core(tmp_path):
    (tmp_path / "refdp_cimport_user.pyx").write_text(USER_PYX)
    (tmp_path / "setup.py").write_text(SETUP_PY)
    include = os.path.dirname(os.path.dirname(os.path.abspath(refdp.__file__)))
    assert os.path.exists(os.path.join(include, "refdp", "_core.pxd"))
    proc = subprocess.run([sys.executable, "setup.py", include], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    code = textwrap.dedent("""
        import numpy as np, math
        import refdp_cimport_user as u
        x = np.array([0.0, 1.0, 2.0])
        assert abs(u.lse(x) - math.log(1 + math.e + math.e**2)) < 1e-14
        v = np.array([[0, 1, 2], [2, 1, 0]], dtype=np.int64)
        out = np.full((3, 3), -7, dtype=np.int64)
        assert u.votes(v, 3, out) == -1
        assert out.tolist() == [[1, 0, 1], [0, 2, 0], [1, 0, 1]], out
        assert u.votes(np.array([[0, 3]], dtype=np.int64), 3, np.zeros((2, 3), dtype=np.int64)) == 1
        assert abs(u.tail(0.0, 1.0) - math.log(0.5)) < 1e-15
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env=env, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
