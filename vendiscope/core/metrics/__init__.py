"""Diversity metrics: the Vendi family, per-record scores, curves, streaming, the scoring job."""
