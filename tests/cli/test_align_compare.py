"""``contrastive-bounds align compare CL NSCL`` (docs/theorems.md B5 on a user's embeddings): values, JSON, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from contrastive_bounds.numerics.alignment._cka import cosine_gram_cka
from contrastive_bounds.numerics.alignment._rsa import rsa_from_similarity
from contrastive_bounds.properties.cli._app import app

runner = CliRunner()


@pytest.fixture()
def files(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((200, 6))
    y = x + 0.3 * rng.standard_normal(x.shape)
    np.save(tmp_path / "cl.npy", x)
    np.savez(tmp_path / "nscl.npz", z=y)
    np.savez(tmp_path / "two.npz", z=y, w=x)
    np.save(tmp_path / "y.npy", rng.integers(0, 4, 200))
    return tmp_path, x, y


def _unit(x):
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_compare_json_values(files):
    """--json: CKA and RSA equal the Gram-form values of the files; bounds, labels and the cross-check are present."""
    d, x, y = files
    res = runner.invoke(app, ["align", "compare", str(d / "cl.npy"), str(d / "nscl.npz"), "--labels", str(d / "y.npy"),
                              "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    sa, sb = _unit(x) @ _unit(x).T, _unit(y) @ _unit(y).T
    assert out["cka"]["cosine"]["biased"] == pytest.approx(cosine_gram_cka(sa, sb), abs=1e-12)
    assert out["rsa"]["pearson"] == pytest.approx(rsa_from_similarity(sa, sb), abs=1e-12)
    assert out["bounds"]["cka"]["holds"] and out["labels"]["num_classes"] == 4
    assert out["cross_check"]["max_abs_difference"] < 1e-12


def test_compare_table(files):
    """The terminal form lists every measure with its lower bounds."""
    d, _, _ = files
    res = runner.invoke(app, ["align", "compare", str(d / "cl.npy"), str(d / "two.npz"), "--key", "z"])
    assert res.exit_code == 0, res.output
    for word in ("CKA cosine Gram (Paper B), biased", "RSA Spearman", "rho =", "Spearman: exact"):
        assert word in res.stdout


def test_compare_bad_input_exits_2_with_one_line(files, tmp_path):
    """Missing file, ambiguous .npz, different row counts, bad labels: exit 2 naming the argument."""
    d, x, _ = files
    np.save(tmp_path / "short.npy", x[:50])
    np.save(tmp_path / "lab.npy", np.zeros(200))
    cases = [([str(d / "cl.npy"), str(d / "missing.npy")], "NSCL="),
             ([str(d / "cl.npy"), str(d / "two.npz")], "--key"),
             ([str(d / "cl.npy"), str(tmp_path / "short.npy")], "n=200 rows and NSCL n=50"),
             ([str(d / "cl.npy"), str(d / "nscl.npz"), "--labels", str(tmp_path / "lab.npy")], "--labels")]
    for args, word in cases:
        res = runner.invoke(app, ["align", "compare", *args])
        assert res.exit_code == 2, res.output
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and word in lines[0], res.output
