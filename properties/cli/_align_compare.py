"""``contrastive-bounds align compare CL.npy NSCL.npy``: Paper B's alignment measures on a user's embeddings (B5)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table

from contrastive_bounds.properties.cli._common import command, console, emit_json

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)


def compare(
    cl: str = typer.Argument(..., metavar="CL", help="CL embeddings: .npy or .npz, rows = samples, columns = features."),
    nscl: str = typer.Argument(..., metavar="NSCL", help="NSCL (or any second) embeddings of the same samples, same row order."),
    labels: Optional[str] = typer.Option(None, help="Integer labels .npy/.npz of shape (n,): adds C, pi_max and CKA "
                                         "with labels."),
    key: Optional[str] = typer.Option(None, help="Array name inside .npz files holding several arrays."),
    spearman_sample: int = typer.Option(2000, help="Rows of the subsample for Spearman RSA when n(n-1)/2 > 5e6, in "
                                        "[3, 5000]."),
    seed: int = typer.Option(0, help="Seed of that subsample, in [0, 2^32 - 1]."),
    json_out: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """CKA (cosine/linear, biased/debiased), RSA (Pearson/Spearman), rho, r and the CKA/RSA lower bounds, in feature form."""
    from contrastive_bounds.numerics.alignment._compare import compare_embeddings, load_embeddings, load_labels

    x = load_embeddings(cl, "CL", key)
    y = load_embeddings(nscl, "NSCL", key)
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"CL has n={x.shape[0]} rows and NSCL n={y.shape[0]}: the rows must be the same samples")
    lab = load_labels(labels, x.shape[0]) if labels is not None else None
    out = compare_embeddings(x, y, lab, spearman_sample=spearman_sample, seed=seed)
    out["files"] = {"cl": cl, "nscl": nscl, "labels": labels}
    if json_out:
        emit_json(out)
        return
    table = Table(title=f"CL vs NSCL embeddings: n={out['n']}, d={out['dim_cl']} and {out['dim_nscl']} (feature form)")
    for col in ("measure", "value", "lower bound (corollary)", "lower bound (sharp)"):
        table.add_column(col)
    b = out["bounds"]

    def lows(which: str) -> tuple[str, str]:
        if b[which]["vacuous"]:
            return f"vacuous: {b[which]['vacuous']}", "vacuous"
        return f"{b[which]['corollary']:.6f}", f"{b[which]['sharp']:.6f}"

    table.add_row("CKA cosine Gram (Paper B), biased", f"{out['cka']['cosine']['biased']:.6f}", *lows("cka"))
    table.add_row("CKA cosine Gram, debiased", f"{out['cka']['cosine']['debiased']:.6f}", "", "")
    table.add_row("linear CKA raw features, biased", f"{out['cka']['linear']['biased']:.6f}", "", "")
    table.add_row("linear CKA raw features, debiased", f"{out['cka']['linear']['debiased']:.6f}", "", "")
    table.add_row("RSA Pearson (RDM 1 - cosine)", f"{out['rsa']['pearson']:.6f}", *lows("rsa"))
    table.add_row("RSA Spearman", f"{out['rsa']['spearman']['value']:.6f}", "", "")
    table.add_row("rho = ||K_CL - K_NSCL|| / ||K_CL||", f"{out['rho']:.6g}", "", "")
    table.add_row("r = ||b - a|| / (sqrt(M) sigma_a)", f"{out['r']:.6g}", "", "")
    console.print(table)
    console.print(f"Spearman: {out['rsa']['spearman']['method']}")
    if out["cross_check"] is not None:
        console.print(f"cross-check with n x n Grams: largest difference {out['cross_check']['max_abs_difference']:.2e}")
    if out["labels"] is not None:
        lb = out["labels"]
        console.print(f"labels: C = {lb['num_classes']}, pi_max = {lb['pi_max']:.4g}; CKA with the labels: CL "
                      f"{lb['cka_with_labels']['cl']:.4f}, NSCL {lb['cka_with_labels']['nscl']:.4f}")


def register(app: typer.Typer) -> None:
    """Add ``compare`` to the ``align`` sub-app."""
    app.command("compare")(command(compare, aliases={"x_cl": "cl", "x_nscl": "nscl"}))
