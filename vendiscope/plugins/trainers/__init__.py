"""Trainers that fine-tune a small model on a subset and score it on a target set (studies).

``causal-lm`` trains the last blocks of a causal LM (or LoRA adapters on them), the bundled
SmolLM2-135M-Instruct by default, caching what the frozen blocks below compute.
"""
