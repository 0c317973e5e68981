"""Per-example gradient features of a proxy language model (G-Vendi, Jung et al. 2025).

G-Vendi is the Vendi score of unit-normalised, randomly projected per-example gradients of a
small instruction-tuned proxy LM. This package produces those vectors; the Vendi score itself
is a metric plugin.

Modules, one job each (torch and transformers are imported inside functions only):

``proxy``     load the proxy model (the bundled GGUF, a local folder or a hub id), choose the
              parameter set that gets gradients
``render``    records -> token ids and response-only labels (chat template or plain text)
``batches``   length-bucketed, right-padded batches and the per-example mean loss
``sketch``    seeded streaming projections to ``d`` (count-sketch, dense Rademacher blocks)
``exact``     mode "exact": true per-example gradients, projected with ``sketch``
``logra``     mode "fast": LoGra-style Kronecker-projected gradients of linear layers
``features``  the whole pipeline: records -> ``(n, d)`` float32 unit rows
"""
