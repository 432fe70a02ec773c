"""Where a bound or claim comes from: paper, arXiv id, theorem/equation, and our reading."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Source", "PAPER_A", "PAPER_B", "LOSS_GAP_PAPER"]


@dataclass(frozen=True)
class Source:
    """A citation carried by every bound and claim.

    Attributes:
      paper: authors and short title (or the classical reference).
      arxiv: arXiv identifier such as ``"2510.08852"``, or ``None`` for classical references.
      where: theorem, corollary or equation number, e.g. ``"Theorem 1"``.
      reading: our reading where sources disagree (``None`` when the statement is taken as is).
    """

    paper: str
    arxiv: str | None = None
    where: str = ""
    reading: str | None = None

    def cite(self) -> str:
        """One-line citation, e.g. ``Luthra, Mishra, Galanti (2025), arXiv:2510.08852, Theorem 1``."""
        parts = [self.paper]
        if self.arxiv:
            parts.append(f"arXiv:{self.arxiv}")
        if self.where:
            parts.append(self.where)
        return ", ".join(parts)

    def to_dict(self) -> dict[str, str | None]:
        """JSON-ready form."""
        return {"paper": self.paper, "arxiv": self.arxiv, "where": self.where, "reading": self.reading,
                "citation": self.cite()}


PAPER_B = "Luthra, Mishra, Galanti (2025), On the Alignment Between Supervised and Self-Supervised Contrastive Learning"
PAPER_A = "Chaudhry (2026), Asymptotic and Finite-Time Guarantees for Langevin-Based Temperature Annealing in InfoNCE"
LOSS_GAP_PAPER = "Luthra et al. (2025), Self-supervised contrastive learning is approximately supervised contrastive learning"
