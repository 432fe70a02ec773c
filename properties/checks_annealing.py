"""Checks of Paper A (THEOREMS.md A1-A8)."""
