"""Terms used by the report and the command line, defined once.

The report (``report.md`` / ``report.html``) ends with the entries of :data:`GLOSSARY` that its text
uses; ``docs/glossary.md`` lists every entry (a test keeps the two in step).
"""

from __future__ import annotations

import re

__all__ = ["GLOSSARY", "terms_used"]

#: term -> definition (plain text; the report escapes it).
GLOSSARY: dict[str, str] = {
    "H*": "critical height of a landscape: the largest barrier that any non-global local minimum must climb "
          "to reach a strictly lower one (Hajek's critical depth d*, the HKS constant m). docs/theorems.md A3.",
    "HKS": "Holley, Kusuoka and Stroock (1989), J. Funct. Anal. 83: annealed diffusions with T(t) = c/log(t + t0) "
           "converge in probability to the global minima iff c > H* (the 'HKS constant c').",
    "Catoni's D": "Catoni's difficulty (1992): D = max over non-global minima x of depth(x)/(V(x) - V_min); no "
                  "schedule makes the miss probability decay faster than t^(-1/D). docs/theorems.md A6.",
    "seed note": "the third-party summaries of Paper A the project started from (docs/theorems.md A8); several of their "
                 "statements are wrong, and the checks named A8.* show how.",
    "Kramers band": "the Eyring-Kramers prediction of a trapped fraction, exp(-integral dt/tau(T(t))), widened by its "
                    "stated model error (model factor x step factor): the range an agreement check accepts.",
    "model factor": "exact mean first-passage time / Eyring-Kramers time at the hottest temperature of a run: how far "
                    "the asymptotic Kramers formula is from the exact 1-D quadrature there.",
    "step factor": "the allowance for the O(h) escape-rate bias of the projected Euler-Maruyama step in a Kramers "
                   "band: F_h = 1 + h·C2 with C2 = sum k^2 (|a_k| + |b_k|) >= sup|V''| (1 + 4.5h on the double well, "
                   "1 + 29.4h on barrier-H at H* = 10); A5.kramers's band for a simulated mean first-passage time is "
                   "[exact, exact·(1 + 5h)].",
    "MFPT": "mean first-passage time: expected time to reach a target set (exact on S^1 by quadrature).",
    "slack budget": "per link of a proof chain, log10(what the link allows / what the simulation used): how many "
                    "orders of magnitude each inequality of the proof gives away.",
    "trivial bound": "the value a quantity can never exceed whatever happens, e.g. 2 sqrt(m(m-1)) for the Frobenius "
                     "distance of two m x m similarity matrices with entries in [-1, 1]; a bound above it is "
                     "uninformative.",
    "uninformative": "verdict: the measurement is on the right side of a bound that is no better than the trivial "
                     "bound (or beyond float64 with no trivial bound known); it could not have failed, so it says "
                     "nothing (exit 1 under check --strict).",
    "vacuous": "verdict: the bound is infinite or undefined here (e.g. 1 - pi_max - epsilon <= 0 makes Delta "
               "infinite); the reason says why (exit 1 under check --strict).",
    "inconclusive": "verdict: the interval straddles the bound, or the check could not have failed at its sample "
                    "size (power below 1/2 against the deviation it must detect), or Holm did not confirm a "
                    "stochastic violation; samples needed says how many would decide (exit 1 under check --strict).",
    "deterministic condition": "a requirement of a check with no randomness behind it: a premise of the statement, "
                               "the registry's verdict, agreement with a reference value or a second implementation, "
                               "finiteness, an identity, a printed inequality that its printed numbers bear out; "
                               "one that fails makes the check violated whatever the "
                               "p-values (Holm corrects stochastic evidence only).",
    "could not have failed": "a check whose verdict is uninformative, vacuous, or inconclusive at power below 1/2: "
                             "whatever the code did, it would not have turned red in this run; the report's first "
                             "line counts them.",
    "witness fault": "a built-in fault of check --self-test that turns a given check red; every registered check has "
                     "one (docs/self-test.md has the check x fault matrix).",
    "finding": "a measurement a check reports beside its verdict (a trend on real data, a published number against "
               "a re-run), decided by a rule fixed before the data with its false-alarm rate stated; not a verdict "
               "on the code.",
    "power": "probability that a check reports a deviation of the stated size from its prediction, at its "
             "false-alarm rate and sample size (normal approximation from its interval).",
    "false alarm": "probability that a check reports violated although the statement is true (e.g. 1e-3 for a "
                   "99.9% interval).",
    "p-value": "p-value of 'the statement holds' for a stochastic check; Holm's correction uses it.",
    "Holm": "Holm's (1979) step-down correction: keeps the probability of any false violated in the whole run at "
            "most the suite alpha (1e-3).",
    "Clopper-Pearson": "the exact binomial confidence interval of a proportion (Clopper and Pearson, 1934).",
    "Richardson": "Richardson extrapolation: 2 m(h/2) - m(h) removes the O(h) bias of a step-size-h estimate.",
    "ratio": "empirical/bound for upper bounds (<= 1 holds; near 1 is tight), bound/empirical for lower bounds, "
             "empirical/prediction for agreement checks.",
    "Delta": "Paper B's per-anchor gradient-mismatch constant of Theorem 1; infinite (vacuous) when "
             "1 - pi_max - epsilon <= 0.",
    "pi_max": "the largest class proportion, 1/C for C balanced classes.",
    "epsilon": "Paper B's Hoeffding + union-bound slack of a batch's same-class fraction over T steps and B "
               "anchors: sqrt(log(T B/delta)/(2B)).",
    "eta_sum": "S = sum over steps of the step sizes eta_t, in similarity units (Paper B, Theorem 1).",
    "CKA": "centred kernel alignment of two Gram/similarity matrices (1 = identical up to scale).",
    "RSA": "representational similarity analysis: Spearman correlation of the off-diagonal dissimilarities.",
    "NSCL": "negatives-only supervised contrastive learning (Paper B): same-class samples are not negatives.",
    "vMF": "von Mises-Fisher law on the sphere; V = -kappa z3 gives E[z3] = coth(kappa/T) - T/kappa exactly.",
}

_WORD = re.compile(r"[A-Za-z_*'-]")


def terms_used(text: str) -> list[str]:
    """Glossary terms that occur in ``text`` as whole words (case-sensitive), in glossary order."""
    found = []
    for term in GLOSSARY:
        for m in re.finditer(re.escape(term), text):
            before = text[m.start() - 1] if m.start() > 0 else " "
            after = text[m.end()] if m.end() < len(text) else " "
            if not _WORD.match(before) and not (_WORD.match(after) and term[-1].isalnum()):
                found.append(term)
                break
    return found
