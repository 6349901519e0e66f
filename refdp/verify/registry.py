"""Registry of the checks that ``refdp verify`` runs.

A check is a zero-argument function in a module of ``proofs_checks/``,
registered with :func:`register`; it returns a :class:`CheckResult`. Each
registration names the claim, the public mechanisms or functions it covers (a
meta-test requires every public mechanism to be covered) and whether it belongs
to the ``--quick`` subset.
"""
from __future__ import annotations

import importlib
import pkgutil
import time
from dataclasses import dataclass, field
from typing import Callable

from ..utils import constraints as _c
from .verdict import Verdict

__all__ = ["CheckResult", "Check", "register", "all_checks", "run_check", "METHODS", "combined_method"]

#: The labels a verdict's method can carry.
METHODS = ("certified", "algebraic", "estimated", "statistical")


def combined_method(parts) -> str:
    """The method label of a verdict that needs every one of ``parts``.

    ``parts`` are method labels or objects with a ``method`` attribute. A
    conjunction is only as strong as its weakest part: ``"estimated"`` if any
    part is estimated, else ``"statistical"`` if any is statistical, else
    ``"algebraic"`` if all are algebraic, else ``"certified"``.
    """
    labels = [p if isinstance(p, str) else p.method for p in parts]
    for label in labels:
        if label not in METHODS:
            from ..utils.validation import parameter_error
            raise parameter_error("parts", "combined_method", f"method labels in {METHODS}", label)
    if "estimated" in labels:
        return "estimated"
    if "statistical" in labels:
        return "statistical"
    if labels and all(label == "algebraic" for label in labels):
        return "algebraic"
    return "certified"


_VERDICT = _c.Checked("a Verdict or 'holds', 'fails', 'undecided' (parsed by Verdict.parse)",
                      invalid=("maybe", None, 1.5))


@_c.constrained_fields(
    measured=_c.Checked("the worst value found: any real (a check's quantity may be signed)"),
    bound=_c.Checked("the value the claim bounds it by: any real"),
    verdict=_VERDICT, digits=_c.Interval(int, 0, None), detail=_c.InstanceOf((str,), "a str"),
    method=_c.Checked("one of METHODS (checked in __post_init__)", invalid=("guessed", None)),
    evidence=_c.Checked("None or the evidence of a certificate"),
)
@dataclass
class CheckResult:
    """Outcome of one check.

    Attributes
    ----------
    measured : float or mpmath.mpf
        Worst value found (e.g. the largest ``|ln P/P'|`` over all neighbours).
    bound : float or mpmath.mpf
        The value the claim bounds it by.
    verdict : Verdict
    digits : int
        Decimal digits of precision of the comparison (0 for float-only checks).
    detail : str
        Where the worst value was found (worst pair, output, seed).
    method : {"certified", "estimated", "algebraic", "statistical"}
        How the verdict was reached: ``"certified"`` -- interval enclosures
        with outward rounding or exact arithmetic (a proof, given the code
        that computed them); ``"algebraic"`` -- exact polynomial arithmetic;
        ``"estimated"`` -- agreement of floating-point or two-precision
        evaluations (not a proof); ``"statistical"`` -- a test on samples with
        a stated false-failure rate.

    ``bool(result)`` is True only when the verdict is HOLDS.
    """

    measured: object
    bound: object
    verdict: Verdict
    digits: int
    detail: str = ""
    method: str = "estimated"
    evidence: list = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        self.verdict = Verdict.parse(self.verdict, "CheckResult", "verdict")
        if not isinstance(self.method, str) or self.method not in METHODS:
            from ..utils.validation import parameter_error
            raise parameter_error("method", "CheckResult", f"one of {METHODS}", self.method)

    @property
    def passed(self) -> bool:
        return self.verdict.passed

    def __bool__(self) -> bool:
        return self.passed


@_c.constrained_fields(
    name=_c.InstanceOf((str,), "a str"), claim=_c.InstanceOf((str,), "a str"),
    func=_c.Callable("a callable returning a CheckResult"), covers=_c.Checked("the names of what the check covers"),
    quick=_c.FLAG, module=_c.InstanceOf((str,), "a str"), cost=_c.Interval(float, 0, None, closed="left"),
)
@dataclass
class Check:
    name: str
    claim: str
    func: Callable[[], CheckResult]
    covers: tuple = ()
    quick: bool = True
    module: str = ""
    cost: float = 1.0


_REGISTRY: dict[str, Check] = {}


@_c.constrained(name=_c.InstanceOf((str,), "a str"), claim=_c.InstanceOf((str,), "a str"),
                covers=_c.Checked("the names of what the check covers"), quick=_c.FLAG,
                cost=_c.Interval(float, 0, None, closed="left"))
def register(name: str, claim: str, *, covers=(), quick: bool = True, cost: float = 1.0):
    """Decorator registering a check function under a unique ``name``.

    ``cost`` is a rough relative running time (1 for a check of about a
    second); ``refdp verify`` starts the costliest checks first so that its
    worker processes finish together. It never affects a result.
    """

    def deco(func):
        if name in _REGISTRY and _REGISTRY[name].func.__qualname__ != func.__qualname__:
            raise ValueError(f"duplicate check name {name!r}")
        _REGISTRY[name] = Check(name, claim, func, tuple(covers), quick, func.__module__, float(cost))
        return func

    return deco


@_c.constrained()
def all_checks() -> list[Check]:
    """Import every module of ``proofs_checks`` and return the registered checks in order.

    The checks live one subpackage per source (``proofs_checks/<source>/``);
    every module of every subpackage is imported, in the order of its dotted
    name, except those whose name (or a parent's) starts with an underscore.
    """
    import proofs_checks

    names = [info.name for info in pkgutil.walk_packages(proofs_checks.__path__, "proofs_checks.")
             if not any(part.startswith("_") for part in info.name.split(".")[1:])]
    for name in sorted(names):
        importlib.import_module(name)
    return list(_REGISTRY.values())


@_c.constrained_fields(check=_c.Checked("the Check run"), result=_c.Checked("None or its CheckResult"),
                       seconds=_c.Interval(float, 0, None, closed="left"), error=_c.InstanceOf((str,), "a str"))
@dataclass
class Outcome:
    check: Check
    result: CheckResult | None
    seconds: float
    error: str = ""

    @property
    def passed(self) -> bool:
        return self.result is not None and self.result.verdict.passed

    def __bool__(self) -> bool:
        return self.passed


@_c.constrained(check=_c.InstanceOf((Check,), "a refdp.verify.Check"))
def run_check(check: Check) -> Outcome:
    """Run one check, timing it; an exception is recorded as a failure."""
    t0 = time.perf_counter()
    try:
        res = check.func()
        if not isinstance(res, CheckResult):
            raise TypeError(f"check {check.name} returned {type(res).__name__}, not CheckResult")
        return Outcome(check, res, time.perf_counter() - t0)
    except Exception as exc:  # a crashing check fails closed
        return Outcome(check, None, time.perf_counter() - t0, f"{type(exc).__name__}: {exc}")
