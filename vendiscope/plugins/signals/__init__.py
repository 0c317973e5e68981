"""Built-in curation signals: text heuristics, PII, language and benchmark contamination."""
