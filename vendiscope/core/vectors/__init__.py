"""Vector jobs: the chunked, resumable job skeleton, embedding, gradient features, engines."""
