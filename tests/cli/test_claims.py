"""The ``claims`` command: a verdict per claim, exit 1 when one contradicts the toolkit's assertion, and
with --certify a certification that gave up ("supported") counts as a contradiction, as in check B7.claims."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app
import contrastive_bounds.theory._registry as registry
from contrastive_bounds.theory._claim import Verdict

runner = CliRunner()
NAME = "alignment.frobenius_decreasing_in_tau"


def test_certify_certifies_a_true_claim_and_exits_0():
    """A sign claim the toolkit asserts is certified by interval arithmetic: exit 0, agrees."""
    res = runner.invoke(app, ["claims", "--only", NAME, "--certify", "--json"])
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout)["claims"][0]
    assert row["verdict"]["status"] in ("proved", "certified") and row["agrees"] is True


def test_a_certification_that_gave_up_fails_the_command(monkeypatch):
    """With --certify a 'supported' verdict (the interval arithmetic gave up) exits 1 and says so; without
    --certify the same verdict is accepted (sampled evidence is all that was asked)."""
    claim = next(c for c in registry.claims() if c.name == NAME)
    monkeypatch.setattr(type(claim), "run", lambda self, certify=False: Verdict("supported", "sampled 100 points"))
    res = runner.invoke(app, ["claims", "--only", NAME, "--certify"], env={"COLUMNS": "300"})
    assert res.exit_code == 1 and "DISAGREES (certification gave up)" in res.output, res.output
    assert res.output.strip().splitlines()[-1] == (f"claims failed: 1 verdict contradicts what the toolkit asserts: "
                                                   f"{NAME} (the toolkit asserts it holds; verdict supported)")
    res = runner.invoke(app, ["claims", "--only", NAME, "--certify", "--json"])
    out = json.loads(res.stdout)
    assert res.exit_code == 1 and out["disagreements"] == [NAME] and out["claims"][0]["agrees"] is False
    assert runner.invoke(app, ["claims", "--only", NAME]).exit_code == 0
