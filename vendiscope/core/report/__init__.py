"""The self-contained HTML audit report."""
