"""Theorem-1 logs (docs/theorems.md B3, B4): the file format, its validation, and the evaluation along a log.

A log written from a simulation must reproduce the simulation's own records and bounds; embeddings and
similarity matrices must give the same numbers; the mismatch (L1) is held to a dense numpy transcription
of B3's gradient, the bound to the mpmath closed form of Theorem 1 (docs/reference-values.md C02's
formula, pi_max form) and L2 to its one-step formula; malformed input is refused naming the array.
"""

from __future__ import annotations

import math
import os
import pickle
import re

import mpmath as mp
import numpy as np
import pytest

from contrastive_bounds.numerics.alignment._descent_problem import DescentConfig, make_problem
from contrastive_bounds.numerics.alignment._descent_run import run_similarity_descent
from contrastive_bounds.numerics.alignment._step_schedule import StepSizeSchedule
from contrastive_bounds.numerics.alignment._theorem1_log import load_array_file
from contrastive_bounds.numerics.alignment._theorem1_log_io import (
    read_theorem1_log, theorem1_log_arrays, write_theorem1_log)
from contrastive_bounds.numerics.alignment._theorem1_trajectory import evaluate_theorem1_log
from contrastive_bounds import theory as alignment
N, C, B, STEPS = 60, 10, 40, 12


@pytest.fixture(scope="module")
def run():
    """A scheduled similarity descent with every step recorded (the log of a 'user' who ran the toolkit)."""
    s0, lab = make_problem(N, C, dim=6, seed=3)
    cfg = DescentConfig(batch_size=B, steps=STEPS, tau=0.5, step_size=2.0, seed=5, chunk_size=STEPS,
                        schedule=StepSizeSchedule("inverse-sqrt", {"t0": 2.0}, warmup_steps=2, warmup_start=0.5))
    return run_similarity_descent(s0, lab, cfg, trajectory_every=1)


def _dense_mismatch(s_cl, s_nscl, batch, labels, tau):
    """||G_CL - G_NSCL||_F by B3's formula written out with loops (first-view anchors, decoupled, distinct batch)."""
    n, b = s_cl.shape[0] // 2, len(batch)
    out = 0.0
    for k in range(b):
        i = int(batch[k])
        rows = []
        for sig, kind in ((s_cl, "cl"), (s_nscl, "nscl")):
            g = np.zeros(2 * n)
            cols = [c for t in batch if t != i and (kind == "cl" or labels[t] != labels[i]) for c in (int(t), int(t) + n)]
            x = sig[i, cols] / tau
            q = np.exp(x - x.max())
            g[cols] = q / q.sum() / (tau * b)
            g[i + n] -= 1.0 / (tau * b)
            rows.append(g)
        out += float(np.sum((rows[0] - rows[1]) ** 2))
    return math.sqrt(out)


@pytest.mark.slow
def test_log_of_a_simulation_reproduces_the_run(run, tmp_path):
    """Written and read back (.npz and a folder of .npy), the log gives the run's d_t, mismatch, bounds of every
    link, holds, slack budget and batch event: the two code paths (scan records, gradients recomputed from the
    logged Sigma's) agree to rounding."""
    arrays = theorem1_log_arrays(run)
    path = str(tmp_path / "run.npz")
    write_theorem1_log(path, arrays)
    folder = tmp_path / "run_folder"
    folder.mkdir()
    for k, v in arrays.items():
        np.save(folder / f"{k}.npy", v)
    for source in (path, str(folder)):
        ev = evaluate_theorem1_log(read_theorem1_log(source))
        np.testing.assert_allclose(ev.distance, run.distance, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(ev.mismatch, run.records["mismatch"], rtol=1e-12)
        for link, ref in run.bounds_log10.items():
            fin = np.isfinite(ref)
            np.testing.assert_allclose(ev.bounds_log10[link][fin], ref[fin], rtol=0, atol=1e-12)
            assert np.array_equal(ev.bounds_log10[link][~fin], ref[~fin])
        assert ev.holds() == {**run.link_holds(), "L2_step": True}
        for k, v in run.slack_budget().items():
            assert ev.slack_budget()[k] == pytest.approx(v, abs=1e-12)
        assert ev.batch_event() == run.batch_event() and ev.summary()["status"] == run.summary()["status"]
        assert ev.summary()["eta_sum"] == run.eta_sum


def test_mismatch_and_bound_against_independent_computations(run):
    """L1's mismatch equals a dense loop transcription of B3 at every record; Theorem 1 at every record equals
    the mpmath closed form exp(S/(2 tau^2 B)) S/(tau sqrt B) Delta with S = sum_{s<t} eta_s; L2 per step equals
    (1 + a eta_t) d_t + c eta_t."""
    lg = read_theorem1_log(theorem1_log_arrays(run))
    ev = evaluate_theorem1_log(lg)
    for k in (0, 5, STEPS - 1):
        ref = _dense_mismatch(lg.sigma_cl[k], lg.sigma_nscl[k], lg.batches[k], lg.labels, 0.5)
        assert ev.mismatch[k] == pytest.approx(ref, rel=1e-12)
    mp.mp.dps = 40
    s = mp.mpf(0)
    for t in range(STEPS + 1):
        if t:
            s += mp.mpf(float(lg.step_sizes[t - 1]))
        if s > 0:
            ref = alignment.FROBENIUS.evaluate(tau=0.5, batch_size=B, pi_max=lg.pi_max, delta=0.05, steps=STEPS,
                                               eta_sum=s)
            assert ev.bounds_log10["theorem1"][t] == pytest.approx(float(mp.log10(ref.value)), abs=1e-12)
    a = 1 / (2 * 0.25 * B)
    c = 10.0 ** ev.delta_log10 / (0.5 * math.sqrt(B))
    direct = np.log10((1 + a * lg.step_sizes) * ev.distance[:-1] + c * lg.step_sizes)
    np.testing.assert_allclose(ev.l2_step_log10, direct, rtol=1e-13)


def test_embeddings_give_the_numbers_of_their_cosine_grams():
    """A log of embeddings equals the log of their cosine Grams (d_t in feature form, mismatch from block rows),
    for d < m with equal and unequal widths and for d >= m."""
    rng = np.random.default_rng(0)
    m, k1 = 2 * N, 4
    labels = np.arange(N) % C
    batches = np.stack([rng.choice(N, B, replace=False) for _ in range(k1 - 1)])
    common = dict(labels=labels, batches=batches, step_sizes=np.full(k1 - 1, 0.5), tau=np.array(0.4))
    for d1, d2 in ((7, 7), (5, 9), (150, 150)):
        e_cl = rng.normal(size=(k1, m, d1))
        e_nscl = rng.normal(size=(k1, m, d2))
        unit = [e / np.linalg.norm(e, axis=2, keepdims=True) for e in (e_cl, e_nscl)]
        grams = [np.clip(np.einsum("kid,kjd->kij", u, u), -1, 1) for u in unit]
        emb = evaluate_theorem1_log(read_theorem1_log({**common, "embeddings_cl": e_cl, "embeddings_nscl": e_nscl}))
        gram = evaluate_theorem1_log(read_theorem1_log({**common, "sigma_cl": grams[0], "sigma_nscl": grams[1]}))
        np.testing.assert_allclose(emb.distance, np.linalg.norm((grams[0] - grams[1]).reshape(k1, -1), axis=1),
                                   rtol=1e-10)
        np.testing.assert_allclose(emb.mismatch, gram.mismatch, rtol=1e-10)
        assert emb.summary()["input"] == "embeddings"
        assert emb.status()[0] == "premise_failed"  # unrelated embeddings: d_0 > 0


def test_sparse_records_premise_and_learning_rates(run):
    """Records every 3 steps: L2 composed over the gaps, no summed links (said in a note), the bound unchanged;
    d_0 > 0 is marked premise_failed and every bound starts at d_0; learning_rates with a response give
    eta_t = response * lr_t."""
    arrays = theorem1_log_arrays(run)
    full = evaluate_theorem1_log(read_theorem1_log(arrays))
    keep = np.arange(0, STEPS + 1, 3)
    sparse = {**arrays, "sigma_cl": arrays["sigma_cl"][keep], "sigma_nscl": arrays["sigma_nscl"][keep],
              "record_steps": keep}
    ev = evaluate_theorem1_log(read_theorem1_log(sparse))
    assert "triangle" not in ev.bounds_log10 and "L1" not in ev.bounds_log10 and any("every step" in n for n in ev.notes)
    for link in ("L2", "L3", "theorem1"):
        np.testing.assert_array_equal(ev.bounds_log10[link], full.bounds_log10[link][keep])
    assert ev.holds()["L2_step"] and np.all(ev.l2_step_log10 >= full.l2_step_log10[keep[:-1]])
    shifted = {**arrays, "sigma_nscl": np.clip(arrays["sigma_nscl"] + 0.01 * (1 - np.eye(2 * N)), -1, 1)}
    ev0 = evaluate_theorem1_log(read_theorem1_log(shifted))
    assert ev0.status()[0] == "premise_failed" and "d_0" in ev0.status()[1]
    assert ev0.bounds_log10["theorem1"][0] == pytest.approx(math.log10(ev0.distance[0]), abs=1e-15)
    lr = {k: v for k, v in arrays.items() if k != "step_sizes"}
    lg = read_theorem1_log({**lr, "learning_rates": arrays["step_sizes"] / 4, "response": np.array(4.0)})
    np.testing.assert_allclose(lg.step_sizes, arrays["step_sizes"], rtol=1e-15)
    with pytest.raises(ValueError, match="holds learning_rates but no response"):
        read_theorem1_log({**lr, "learning_rates": arrays["step_sizes"]})


def test_sampler_seed_and_missing_batches(run):
    """batch_size + seed regenerate the run's batches (same mismatch); without batches the links that need
    gradients are not evaluated, with the reason, and the bound still is."""
    arrays = theorem1_log_arrays(run)
    base = {k: v for k, v in arrays.items() if k != "batches"}
    seeded = evaluate_theorem1_log(read_theorem1_log({**base, "batch_size": np.array(B), "seed": np.array(5)}))
    np.testing.assert_array_equal(seeded.log.batches, arrays["batches"])
    assert seeded.log.batches_source == "sampler"
    bare = evaluate_theorem1_log(read_theorem1_log({**base, "batch_size": np.array(B)}))
    assert bare.mismatch is None and "no batch indices" in bare.l1_reason and bare.holds()["L1_step"] is None
    assert set(bare.bounds_log10) == {"L2", "L3", "theorem1"} and bare.batch_event() is None
    np.testing.assert_array_equal(bare.bounds_log10["theorem1"], seeded.bounds_log10["theorem1"])


def _good():
    """A minimal valid log: 3 records of m = 4 symmetric similarities, labels, batches, step sizes, tau."""
    s = np.stack([np.eye(4)] * 3)
    return {"sigma_cl": s, "sigma_nscl": s.copy(), "labels": np.array([0, 1]), "batches": np.array([[0, 1], [1, 0]]),
            "step_sizes": np.array([0.1, 0.2]), "tau": np.array(0.5)}


def _with(**changes):
    out = _good()
    for k, v in changes.items():
        if v is None:
            out.pop(k)
        else:
            out[k] = v
    return out


_NONSYM = np.stack([np.eye(4)] * 3)
_NONSYM[1, 0, 2] = 0.3
_NAN = np.stack([np.eye(4)] * 3)
_NAN[2, 1, 1] = np.nan


@pytest.mark.parametrize("arrays,match", [
    (_with(sigma_nscl=None), r"holds sigma_cl but not sigma_nscl"),
    (_with(sigma_cl=None, sigma_nscl=None), r"must hold sigma_cl and sigma_nscl, or embeddings_cl .*neither"),
    (_with(embeddings_cl=np.ones((3, 4, 2)), embeddings_nscl=np.ones((3, 4, 2))), r"both kinds"),
    (_with(sigma_cl=np.ones((3, 4))), r"sigma_cl has shape \(3, 4\); expected \(K\+1, m, m\)"),
    (_with(sigma_cl=np.ones((3, 4, 5))), r"sigma_cl has shape \(3, 4, 5\); each record must be a square"),
    (_with(sigma_nscl=np.stack([np.eye(4)] * 4)), r"sigma_cl has shape \(3, 4, 4\) but sigma_nscl \(4, 4, 4\)"),
    (_with(sigma_cl=np.stack([np.eye(4)] * 3).astype(np.int64)), r"sigma_cl has dtype int64; float32 or float64"),
    (_with(sigma_cl=np.stack([np.eye(4)] * 3) * 1.5), r"sigma_cl has entries outside \[-1, 1\]"),
    (_with(sigma_cl=_NONSYM), r"sigma_cl is not symmetric \(first at record 1, index \(0, 2\)"),
    (_with(sigma_nscl=_NAN), r"sigma_nscl has NaN or inf at record 2, index \(1, 1\)"),
    (_with(sigma_cl=np.stack([np.eye(4)]), sigma_nscl=np.stack([np.eye(4)])), r"holds 1 record\(s\); at least 2"),
    (_with(step_sizes=np.array([0.1, 0.2, 0.3])), r"step_sizes has \(3,\) values; the records cover T=2 steps"),
    (_with(step_sizes=np.array([0.1, np.nan])), r"step_sizes\[1\]=nan must be finite"),
    (_with(step_sizes=None), r"holds no step_sizes"),
    (_with(batches=np.array([[0, 1]])), r"batches must be an integer array \(T, B\) = \(2, B\)"),
    (_with(batches=np.array([[0, 2], [1, 0]])), r"batches hold sample index 2 outside \[0, n\) = \[0, 2\)"),
    (_with(labels=np.array([0, 1, 1])), r"m=4 rows but labels n=3 samples"),
    (_with(labels=np.array([0.5, 1.0])), r"labels must be a 1-D integer array"),
    (_with(labels=None), r"needs labels or pi_max"),
    (_with(labels=None, pi_max=np.array(0.5)), r"batches \(or a sampler seed\) need labels"),
    (_with(tau=None), r"holds no tau"),
    (_with(tau=np.array(-1.0)), r"^the log's 'tau'=-1.0 is outside its domain"),
    (_with(tau=np.array([0.5, 0.6])), r"tau must be a scalar"),
    (_with(record_steps=np.array([0, 2, 1])), r"record_steps must start at 0 and increase strictly"),
    (_with(record_steps=np.array([0, 1])), r"record_steps has 2 entries but sigma_cl has 3 records"),
    (_with(batches=None), r"needs batches \(T, B\) or batch_size"),
    (_with(anchors=np.array("all")), r"anchors='all' must be 'first' or 'both'"),
    (_with(coupled=np.array(3)), r"coupled must be a bool"),
    (_with(sigmas=np.ones(3)), r"unknown array 'sigmas'"),
    (_with(delta=np.array(2.0)), r"^the log's 'delta'=2.0 is outside"),
    (_with(symmetric=np.array(False), sigma_cl=_NONSYM), None),
])
def test_malformed_logs_are_refused_naming_the_array(arrays, match):
    """Each malformed log raises ValueError naming the array and what is wrong (the last case is valid:
    symmetric=false lifts the symmetry demand for row-wise similarity descent)."""
    if match is None:
        assert read_theorem1_log(arrays).symmetric is False
        return
    with pytest.raises(ValueError, match=match):
        read_theorem1_log(arrays)


def test_conflicting_options_are_refused():
    """tau, step sizes and response given twice (log and caller) with different values are refused."""
    with pytest.raises(ValueError, match=r"^tau=0.7 differs from the log's array 'tau' = 0.5"):
        read_theorem1_log(_good(), tau=0.7)
    assert read_theorem1_log(_good(), tau=0.5).tau == 0.5
    with pytest.raises(ValueError, match=r"^step_size=1.0 is given but .* holds step_sizes"):
        read_theorem1_log(_good(), step_size=1.0)
    assert np.array_equal(read_theorem1_log(_with(step_sizes=None), step_size=0.3).step_sizes, [0.3, 0.3])
    with pytest.raises(ValueError, match=r"^response=2.0 applies to learning_rates"):
        read_theorem1_log(_good(), response=2.0)


def test_malformed_files_are_refused_and_never_unpickled(tmp_path):
    """An empty file, text, a pickle, a corrupt archive, a lone .npy, an object array inside an .npz and a missing
    path are refused with a message naming the file; nothing is unpickled (the pickle's payload never runs)."""
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    text = tmp_path / "log.npz"
    text.write_text("step,loss\n1,0.5\n")

    class Boom:
        def __reduce__(self):
            return (os.system, ("touch " + str(tmp_path / "pwned"),))

    pick = tmp_path / "pickle.npz"
    pick.write_bytes(pickle.dumps(Boom()))
    corrupt = tmp_path / "corrupt.npz"
    np.savez(corrupt, **_good())
    corrupt.write_bytes(corrupt.read_bytes()[:200])
    lone = tmp_path / "one.npy"
    np.save(lone, np.eye(3))
    objects = tmp_path / "objects.npz"
    np.savez(objects, **{**_good(), "labels": np.array([{"a": 1}, None], dtype=object)})
    cases = [(empty, r"is empty \(0 bytes\)"), (text, r"is not a .npy or .npz file \(it starts with b'step,los"),
             (pick, r"is not a .npy or .npz file"), (corrupt, r"not a readable .npz archive|corrupt|cannot be read"),
             (lone, r"is a single .npy array"), (objects, r"labels holds Python objects \(pickled data\)"),
             (tmp_path / "missing.npz", r"no such file or folder"), (tmp_path / "bare", r"is a folder without .npy files")]
    (tmp_path / "bare").mkdir()
    for path, match in cases:
        with pytest.raises(ValueError, match=match):
            read_theorem1_log(str(path))
    assert not (tmp_path / "pwned").exists()
    six = tmp_path / "six.npz"
    np.savez(six, **_good())
    with pytest.raises(ValueError, match=r"^--eta-file=.* holds 6 arrays"):
        load_array_file(str(six), "--eta-file")
    np.testing.assert_array_equal(load_array_file(str(six), "--eta-file", key="step_sizes"), [0.1, 0.2])
    np.testing.assert_array_equal(load_array_file(str(lone), "--eta-file"), np.eye(3))
    with pytest.raises(ValueError, match=r"^--eta-file=.* is not a .npy or .npz file"):
        load_array_file(str(text), "--eta-file")


def test_the_documented_format_lists_exactly_the_arrays_read():
    """docs/alignment-numerics.md's format table names every array the reader knows, and no other."""
    from pathlib import Path

    from contrastive_bounds.numerics.alignment._theorem1_log import LOG_ARRAYS

    page = (Path(__file__).resolve().parents[3] / "docs" / "alignment-numerics.md").read_text(encoding="utf-8")
    table = page[page.index("### The file format"):page.index("### What is evaluated")]
    names = set()
    for line in table.splitlines():
        if line.startswith("| `"):
            names |= set(re.findall(r"`(\w+)`", line.split("|")[1]))
    assert names == set(LOG_ARRAYS)


def test_a_vacuous_log_reports_no_verdict_for_its_links():
    """Delta infinite (1 - pi_max - epsilon <= 0): every bound after t = 0 is +inf, the status says vacuous with
    the reason, and the links using Delta get no verdict (None), never a green 'holds'; triangle still does."""
    lg = read_theorem1_log(_with(pi_max=np.array(0.5)))
    ev = evaluate_theorem1_log(lg)
    status, reason = ev.status()
    assert status == "vacuous" and "<= 0" in reason
    holds = ev.holds()
    assert holds["triangle"] is True and all(holds[k] is None for k in ("L1_step", "L2_step", "L1", "L2", "L3",
                                                                         "theorem1"))
    assert np.all(ev.bounds_log10["theorem1"][1:] == np.inf) and ev.record_status()[1:] == ["vacuous", "vacuous"]
