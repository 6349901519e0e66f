"""The audit benchmark: correct and deliberately broken mechanisms with their claimed epsilon.

Every mechanism has the batch form ``mechanism(dataset, n_samples, rng) ->
n_samples outputs`` of :func:`refdp.audit.audit_black_box` (per-call
mechanisms are wrapped with :func:`refdp.audit.vectorise`), a claimed epsilon,
the candidate pairs it is audited on (each described), and what is known of
its true privacy. The mechanisms are written for this benchmark from the
published descriptions:

* noisy histograms and report-noisy-max variants: Ding, Wang, Wang, Zhang and
  Kifer, "Detecting Violations of Differential Privacy" (StatDP), CCS 2018,
  the noisy-max and histogram algorithms of their Sec. 6; the names
  (NoisyHist1-2, ReportNoisyMax1-4) are DP-Sniper's (Bichsel, Steffen,
  Bogunovic and Vechev, IEEE S&P 2021);
* sparse vector variants SVT1-SVT6: Algorithms 1-6 of Lyu, Su and Li,
  "Understanding the Sparse Vector Technique for Differential Privacy",
  PVLDB 10(6), 2017, Figure 1 (Alg. 1 theirs; 2 Dwork and Roth 2014; 3 Roth's
  2011 lecture notes; 4 Lee and Clifton 2014; 5 Stoddard, Chen and
  Machanavajjhala 2014; 6 Chen, Xu, Xiong, Fang and Hu 2015), with their
  privacy properties from the same paper's Table 1;
* a Laplace mechanism with a naive inverse-CDF sampler drawing its uniform on
  a coarse grid (Mironov, "On Significance of the Least Significant Bits for
  Differential Privacy", CCS 2012, Sec. 3); its flaw is a floating-point one,
  so it is audited with the float-bits events as well as the default ones;
* correct mechanisms from refdp (report-noisy-max, the exponential
  mechanism) and randomised response, whose epsilon is known exactly.

The settings follow DP-Sniper's default experiment (claimed epsilon 0.1; five
queries for noisy max and histograms, ten for the sparse vector technique,
at most one positive answer, threshold 0.5 for SVT1 and 1 for the others), so
that the bounds can be set beside theirs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from refdp.audit import query_answer_pairs, vectorise
from refdp.mechanisms import exponential_mechanism, report_noisy_max

EPSILON = 0.1          # the claimed epsilon of every DP-Sniper mechanism
FALSE_ = -1000.0       # SVT3's code for "below the threshold" (its outputs are otherwise noisy answers)
ABORTED = -2000.0      # SVT3's code for "not answered: the cutoff was reached"


@dataclass
class Case:
    """One audited mechanism."""

    name: str
    mechanism: object
    claimed_epsilon: float
    broken: bool
    truth: str                 # what is known about its privacy, with the source
    pairs: list
    pairs_text: str
    dpsniper: str | None = None  # DP-Sniper's name for the same mechanism
    options: dict = field(default_factory=dict)  # audit options for this case (budget, float bits)
    dim: int | None = None       # length of the query-answer inputs (for the pair search)


# ------------------------------------------------------------ histograms ----

def noisy_hist(scale_of_epsilon):
    """Histogram counts plus i.i.d. Laplace noise of scale ``scale_of_epsilon(EPSILON)``."""
    scale = scale_of_epsilon(EPSILON)

    def mechanism(counts, n, rng):
        counts = np.asarray(counts, dtype=np.float64)
        return counts + rng.laplace(0.0, scale, size=(n, counts.size))
    return mechanism


# ------------------------------------------------------- report noisy max ----

def noisy_max(noise, release):
    """Report-noisy-max with Laplace, exponential or Gaussian noise of scale 2/eps, releasing the index or value.

    The Gaussian variant adds N(0, (2/eps)^2) noise (standard deviation 2/eps).
    """
    scale = 2.0 / EPSILON

    def mechanism(answers, n, rng):
        answers = np.asarray(answers, dtype=np.float64)
        size = (n, answers.size)
        if noise == "laplace":
            z = rng.laplace(0.0, scale, size)
        elif noise == "gaussian":
            z = rng.normal(0.0, scale, size)
        else:
            z = rng.exponential(scale, size)
        noisy = answers + z
        return noisy.argmax(axis=1) if release == "index" else noisy.max(axis=1)
    return mechanism


# ------------------------------------------------ sparse vector technique ----

def _cutoff(above, c):
    """Codes 1 (above), 0 (below), -1 (not answered once c answers were above), row by row."""
    count = np.cumsum(above, axis=1)
    answered_before = np.concatenate([np.zeros((above.shape[0], 1), dtype=count.dtype), count[:, :-1]], axis=1)
    return np.where(answered_before >= c, -1, above.astype(np.int64))


def svt(variant, c=1, threshold=1.0, epsilon=EPSILON, sensitivity=1.0):
    """Lyu, Su and Li (2017), Figure 1, Algorithm ``variant`` (1-6), in batch form.

    Outputs: a row per run, one entry per query: 1 above the threshold, 0
    below, -1 not answered (after the c-th positive answer); Algorithm 3
    releases the noisy answer instead of 1 and codes below / not answered as
    FALSE_ / ABORTED.
    """
    if variant == 4:
        eps1 = epsilon / 4.0
    else:
        eps1 = epsilon / 2.0
    eps2 = epsilon - eps1
    rho_scale = (c if variant == 2 else 1) * sensitivity / eps1
    nu_scale = {1: 2 * c * sensitivity / eps2, 2: 2 * c * sensitivity / eps2, 3: c * sensitivity / eps2,
                4: sensitivity / eps2, 5: 0.0, 6: sensitivity / eps2}[variant]

    def mechanism(answers, n, rng):
        q = np.asarray(answers, dtype=np.float64)
        k = q.size
        rho = rng.laplace(0.0, rho_scale, size=(n, 1))
        nu = rng.laplace(0.0, nu_scale, size=(n, k)) if nu_scale > 0 else np.zeros((n, k))
        noisy = q + nu
        if variant == 2:
            # the threshold noise is drawn afresh after every positive answer
            out = np.empty((n, k), dtype=np.int64)
            count = np.zeros(n, dtype=np.int64)
            r = rho[:, 0].copy()
            for i in range(k):
                above = noisy[:, i] >= threshold + r
                out[:, i] = np.where(count >= c, -1, above)
                fresh = rng.laplace(0.0, rho_scale, size=n)
                r = np.where(above & (count < c), fresh, r)
                count += above & (count < c)
            return out
        above = noisy >= threshold + rho
        if variant in (5, 6):
            return above.astype(np.int64)            # no cutoff
        codes = _cutoff(above, c)
        if variant == 3:
            return np.where(codes == 1, noisy, np.where(codes == 0, FALSE_, ABORTED))
        return codes
    return mechanism


# -------------------------------------------------- floating-point Laplace ----

def naive_grid_laplace(bits, epsilon=EPSILON):
    """f(D) + Laplace(1/eps) by inverting the CDF at a uniform drawn on the grid k / 2**bits.

    The textbook inverse-CDF sampler: u uniform in (0, 1), noise
    ``-b sign(u - 1/2) ln(1 - 2|u - 1/2|)``. Drawing u on a grid of ``2**bits``
    points makes the noise take finitely many values, so that outputs of
    ``f(D)`` and ``f(D')`` sit on two different finite sets (Mironov 2012).
    """
    b, grid = 1.0 / epsilon, float(2 ** bits)

    def mechanism(value, n, rng):
        u = rng.integers(1, 2 ** bits, size=n) / grid
        noise = -b * np.sign(u - 0.5) * np.log(1.0 - 2.0 * np.abs(u - 0.5))
        return float(np.asarray(value).reshape(-1)[0]) + noise
    return mechanism


def numpy_laplace(epsilon=EPSILON):
    """f(D) + numpy's Laplace(1/eps) (the sampler refdp.mechanisms.laplace_mechanism uses)."""
    def mechanism(value, n, rng):
        return float(np.asarray(value).reshape(-1)[0]) + rng.laplace(0.0, 1.0 / epsilon, size=n)
    return mechanism


# ------------------------------------------------------- refdp / exact ----

def refdp_noisy_max(epsilon=EPSILON):
    def mechanism(answers, n, rng):
        return report_noisy_max(answers, epsilon, rng=rng, size=n)
    return mechanism


def refdp_exponential(epsilon=EPSILON):
    def one(answers, rng):
        return exponential_mechanism(answers, epsilon, rng=rng)
    return vectorise(one)


def randomised_response(epsilon):
    """Report the bit with probability e^eps / (1 + e^eps): exactly epsilon-DP."""
    p = np.exp(epsilon) / (1.0 + np.exp(epsilon))

    def mechanism(bit, n, rng):
        b = int(np.asarray(bit).reshape(-1)[0])
        return np.where(rng.random(n) < p, b, 1 - b)
    return mechanism


# ----------------------------------------------------------------- cases ----

def _hist_pairs():
    return query_answer_pairs(5, componentwise=False)


def _query_pairs(k):
    return query_answer_pairs(k, componentwise=True)


HIST_TEXT = ("histograms of 5 counts, one count changed by one (add/remove): D = (1,1,1,1,1) vs "
             "D' = (0,1,1,1,1) and D' = (2,1,1,1,1)")
QUERY_TEXT = ("{k} query answers of sensitivity 1, StatDP's patterns around D = (1,...,1): one, "
              "one-and-the-rest, half, all answers moved by one, and the crossing pair "
              "(1,..,1,0,..,0) vs (0,..,0,1,..,1); refdp.audit.query_answer_pairs({k})")


#: The witness pair of the Gaussian report-noisy-max entries of the exact-epsilon table.
GAUSSIAN_PAIR = [(np.ones(5), np.array([0.0, 2.0, 2.0, 2.0, 2.0]), "(1,1,1,1,1) vs (0,2,2,2,2)")]
GAUSSIAN_TEXT = "D = (1,1,1,1,1) vs D' = (0,2,2,2,2) (the witness pair of the exact-epsilon table)"


def disable_alternates():
    """Make the audit test only the chosen event at the held-out stage, as before rarer alternatives existed.

    The audit then behaves exactly as it did before (the alternatives read
    no random numbers): the benchmarks' ``--no-alternates`` runs measure the
    previous rule in the same conditions as the current one.
    """
    import refdp.audit.blackbox as blackbox

    blackbox._alternate = lambda scores, fa, fb, ta, tb, objectives, *rest: [[] for _ in objectives]


def cases():
    """The benchmark, in the order of the report."""
    lyu = "Lyu, Su and Li 2017, Table 1"
    out = [
        Case("NoisyHist1", noisy_hist(lambda e: 1.0 / e), EPSILON, False,
             "eps-DP under add/remove (Laplace mechanism, L1 sensitivity 1)", _hist_pairs(), HIST_TEXT,
             "NoisyHist1"),
        Case("NoisyHist2", noisy_hist(lambda e: e), EPSILON, True,
             "noise scale eps instead of 1/eps: (1/eps)-DP = 10-DP (Ding et al. 2018)", _hist_pairs(),
             HIST_TEXT, "NoisyHist2"),
        Case("NoisyHist1, replace-one", noisy_hist(lambda e: 1.0 / e), EPSILON, True,
             "Lap(1/eps) calibrated for add/remove, used under replace-one (L1 sensitivity 2): 2 eps-DP",
             [(np.ones(5), np.array([0.0, 2.0, 1.0, 1.0, 1.0]), "one record moved from bin 0 to bin 1")],
             "D = (1,1,1,1,1) vs D' = (0,2,1,1,1): one record moved between bins (replace-one)"),
        Case("ReportNoisyMax1", noisy_max("laplace", "index"), EPSILON, False,
             "eps-DP (Lap(2/eps), index; Dwork and Roth 2014, Claim 3.9)", _query_pairs(5),
             QUERY_TEXT.format(k=5), "ReportNoisyMax1"),
        Case("ReportNoisyMax2", noisy_max("exponential", "index"), EPSILON, False,
             "eps-DP (exponential noise of scale 2/eps, index; Ding et al. 2018)", _query_pairs(5),
             QUERY_TEXT.format(k=5), "ReportNoisyMax2"),
        Case("ReportNoisyMax3", noisy_max("laplace", "value"), EPSILON, True,
             "releases the noisy maximum: not eps-DP (Ding et al. 2018); on D = 0 vs D' = 1 the "
             "density ratio reaches e^(5 eps / 2) = e^0.25 (five Laplace(20) tails)", _query_pairs(5),
             QUERY_TEXT.format(k=5), "ReportNoisyMax3"),
        Case("ReportNoisyMax4", noisy_max("exponential", "value"), EPSILON, True,
             "releases the noisy maximum with exponential noise: not eps-DP (Ding et al. 2018)",
             _query_pairs(5), QUERY_TEXT.format(k=5), "ReportNoisyMax4"),
        Case("ReportNoisyMax (Gaussian), index", noisy_max("gaussian", "index"), EPSILON, True,
             "N(0, (2/eps)^2) noise, index: exact epsilon 0.119074 on the pair (certified quadrature, "
             "refdp.audit.truth)", GAUSSIAN_PAIR, GAUSSIAN_TEXT),
        Case("ReportNoisyMax (Gaussian), value", noisy_max("gaussian", "value"), EPSILON, True,
             "N(0, (2/eps)^2) noise, value: exact epsilon infinite on the pair (tail asymptotics, "
             "refdp.audit.truth)", GAUSSIAN_PAIR, GAUSSIAN_TEXT),
        Case("SVT1", svt(1, threshold=0.5), EPSILON, False, f"eps-DP ({lyu})", _query_pairs(10),
             QUERY_TEXT.format(k=10), "SparseVectorTechnique1"),
        Case("SVT2", svt(2), EPSILON, False, f"eps-DP ({lyu})", _query_pairs(10),
             QUERY_TEXT.format(k=10), "SparseVectorTechnique2"),
        Case("SVT3", svt(3), EPSILON, True, f"not eps-DP: infinity-DP ({lyu}); releases noisy answers",
             _query_pairs(10), QUERY_TEXT.format(k=10), "SparseVectorTechnique3"),
        Case("SVT4", svt(4), EPSILON, True, f"((1 + 6c)/4) eps-DP = 0.175-DP for c = 1 ({lyu})",
             _query_pairs(10), QUERY_TEXT.format(k=10), "SparseVectorTechnique4"),
        Case("SVT5", svt(5), EPSILON, True, f"infinity-DP: no noise on the answers ({lyu})",
             _query_pairs(10), QUERY_TEXT.format(k=10), "SparseVectorTechnique5"),
        Case("SVT6", svt(6), EPSILON, True, f"infinity-DP: no cutoff ({lyu})", _query_pairs(10),
             QUERY_TEXT.format(k=10), "SparseVectorTechnique6"),
        Case("Laplace, naive sampler (2^-12 grid)", naive_grid_laplace(12), EPSILON, True,
             "outputs on value-dependent finite sets: not eps-DP for any eps (Mironov 2012)",
             [(np.array([0.0]), np.array([1.0]), "f(D) = 0 vs f(D') = 1")], "f(D) = 0 vs f(D') = 1",
             options={"float_bits": True}),
        Case("Laplace, naive sampler (2^-24 grid)", naive_grid_laplace(24), EPSILON, True,
             "outputs on value-dependent finite sets: not eps-DP for any eps (Mironov 2012)",
             [(np.array([0.0]), np.array([1.0]), "f(D) = 0 vs f(D') = 1")], "f(D) = 0 vs f(D') = 1",
             options={"float_bits": True}),
        Case("refdp report_noisy_max", refdp_noisy_max(), EPSILON, False,
             "eps-DP (two-sided scale 2/eps; checked exactly by refdp verify)", _query_pairs(5),
             QUERY_TEXT.format(k=5)),
        Case("refdp exponential_mechanism (per call)", refdp_exponential(), EPSILON, False,
             "eps-DP (McSherry and Talwar 2007; checked exactly by refdp verify)", _query_pairs(5),
             QUERY_TEXT.format(k=5), options={"n_samples": 100_000}),
        Case("randomised response, eps = ln 3", randomised_response(np.log(3.0)), float(np.log(3.0)), False,
             "exactly ln 3-DP: the bound approaches the claim", [(0, 1, "bit 0 vs bit 1")], "bit 0 vs bit 1"),
        Case("randomised response claiming ln 2", randomised_response(np.log(3.0)), float(np.log(2.0)), True,
             "exactly ln 3 = 1.0986-DP, claimed ln 2 = 0.693", [(0, 1, "bit 0 vs bit 1")], "bit 0 vs bit 1"),
    ]
    return out


def floating_point_cases():
    """Floating-point Laplace samplers, audited with and without the float-bits events."""
    pair = [(np.array([0.0]), np.array([1.0]), "f(D) = 0 vs f(D') = 1")]
    return [
        ("naive sampler, 2^-12 grid", naive_grid_laplace(12), pair),
        ("naive sampler, 2^-24 grid", naive_grid_laplace(24), pair),
        ("naive sampler, 2^-53 grid", naive_grid_laplace(53), pair),
        ("numpy Generator.laplace (refdp.mechanisms.laplace_mechanism)", numpy_laplace(), pair),
    ]


#: DP-Sniper's lower bounds for the same mechanisms at claimed epsilon 0.1
#: (logistic-regression classifier, 90% confidence, 2e8 samples for the final
#: estimate), field "eps_lcb" of eval_sp2021/reference-results/dd_search_reg_data.log
#: in the repository github.com/eth-sri/dp-sniper (the reference results of the
#: S&P 2021 paper), with the seconds logged in the same file
#: (time_dd_search + time_final_estimate_eps, on the authors' machine).
DPSNIPER_REFERENCE = {
    "NoisyHist1": (0.0978, 34.8 + 2.9),
    "NoisyHist2": (4.6020, 37.8 + 2.8),
    "ReportNoisyMax1": (0.0923, 58.8 + 3.0),
    "ReportNoisyMax2": (0.0975, 55.7 + 2.7),
    "ReportNoisyMax3": (0.2478, 59.4 + 3.0),
    "ReportNoisyMax4": (0.3463, 59.8 + 3.1),
    "SparseVectorTechnique1": (0.0858, 118.0 + 8.0),
    "SparseVectorTechnique2": (0.0859, 148.1 + 11.8),
    "SparseVectorTechnique3": (0.1716, 149.8 + 10.5),
    "SparseVectorTechnique4": (0.1687, 122.7 + 7.8),
    "SparseVectorTechnique5": (1.7612, 56.3 + 2.6),
    "SparseVectorTechnique6": (0.2720, 90.7 + 4.8),
}


#: The largest privacy loss over the pairs each mechanism is audited on, where
#: it is known in closed form (value, how it is known). The black-box bound
#: divided by this is the power of the audit. Values marked "quadrature" are
#: float integrals of the outcome probabilities (benchmarks/audit/oracle.py),
#: not certified enclosures.
KNOWN_EPSILON = {
    "NoisyHist1": (0.1, "one count moves by 1 under Laplace(1/eps)"),
    "NoisyHist2": (10.0, "one count moves by 1 under Laplace(eps): 1/eps"),
    "NoisyHist1, replace-one": (0.2, "two counts move by 1 under Laplace(1/eps)"),
    "ReportNoisyMax3": (0.25, "five Laplace(20) tails below the answers: 5/20"),
    "ReportNoisyMax4": (float("inf"), "values in [0, 1) are impossible under (1,...,1), possible under (0,...,0)"),
    "ReportNoisyMax (Gaussian), index": (0.119074, "certified quadrature (refdp.audit.truth)"),
    "ReportNoisyMax (Gaussian), value": (float("inf"), "certified by the tail asymptotics (refdp.audit.truth)"),
    "SVT1": (0.08853, "quadrature, half higher, half lower"),
    "SVT4": (0.17247, "quadrature, half higher, half lower"),
    "SVT3": (float("inf"), "noisy answers released: an answer's support moves"),
    "SVT5": (float("inf"), "no answer noise: outcomes impossible under one input"),
    "randomised response, eps = ln 3": (float(np.log(3.0)), "exact"),
    "randomised response claiming ln 2": (float(np.log(3.0)), "exact"),
}
