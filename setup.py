"""Build script: cythonizes refdp/_core.pyx with the compiler directives in one place.

Set ``REFDP_DEBUG=1`` in the environment to build with bounds checking,
wraparound and division checks turned back on (debug builds).
"""
import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

DEBUG = os.environ.get("REFDP_DEBUG", "0") not in ("", "0")

COMPILER_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "cdivision": not DEBUG,
    "initializedcheck": DEBUG,
    "nonecheck": DEBUG,
    "embedsignature": True,
}

# Every compiled module is refdp/_<name>.pyx (with its .pxd beside it).
extensions = [
    Extension(
        f"refdp.{os.path.splitext(os.path.basename(path))[0]}",
        sources=[path],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O0", "-g"] if DEBUG else ["-O3"],
    )
    for path in sorted(glob.glob(os.path.join("refdp", "_*.pyx")))
]

setup(
    # proofs_checks (one subpackage per source) is installed as a top-level
    # package so that an installed `refdp verify` finds the checks without the
    # source tree.
    packages=find_packages(include=["refdp", "refdp.*", "proofs_checks", "proofs_checks.*"]),
    package_data={"refdp": ["*.pyx", "*.pxd"]},
    ext_modules=cythonize(extensions, compiler_directives=COMPILER_DIRECTIVES),
    zip_safe=False,
)
