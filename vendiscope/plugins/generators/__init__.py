"""Generator LLMs that write new training examples (Prismatic Synthesis).

``transformers`` runs a causal LM in this process (the bundled SmolLM2-135M-Instruct by
default); ``openai`` talks to any OpenAI-compatible ``/v1/chat/completions`` server (vLLM,
llama.cpp, Ollama, TGI, ``transformers serve``, hosted APIs).
"""
