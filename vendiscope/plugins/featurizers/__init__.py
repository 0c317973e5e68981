"""Built-in featurizers: records -> feature vectors (proxy-LM gradients for G-Vendi)."""
