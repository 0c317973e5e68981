"""Real text for benchmarks: Python docstrings as prompt/response pairs, grouped by domain.

Each pair asks what a documented function or class does (the prompt) and answers with its
docstring (the response). The domain of a pair is its top-level package (``numpy``,
``email``, ``sqlalchemy`` ...). Sources are read with :mod:`ast` from the files of the
standard library and of the installed packages — nothing is imported, so no module runs.
Pairs are deterministic for a given installation (sorted files, seeded draws).

    from tests.benchmarks.docstrings import harvest, draw
    pairs = harvest()                      # {domain: [{"prompt", "response", "domain", "id"}]}
    one = draw(pairs, 32, domains=1)        # 32 pairs from one domain
    many = draw(pairs, 32, domains=16)      # 32 pairs spread over 16 domains
"""

from __future__ import annotations

import ast
import json
import random
import site
import sysconfig
import tempfile
from functools import cache
from pathlib import Path

MIN_CHARS = 120
MAX_CHARS = 700
PACKAGES = (
    "numpy", "scipy", "sqlalchemy", "torch", "transformers", "pandas", "sklearn", "PIL",
    "jinja2", "click", "typer", "rich", "alembic", "umap", "pyarrow", "datasets", "faiss",
    "huggingface_hub", "psutil", "hypothesis", "_pytest", "fsspec", "networkx", "sympy",
    "matplotlib", "joblib", "httpx2", "attr", "yaml", "dateutil", "mako", "tqdm",
)  # fmt: skip
STDLIB = (
    "email", "asyncio", "json", "http", "logging", "unittest", "xml", "urllib", "multiprocessing",
    "concurrent", "importlib", "sqlite3", "collections", "tkinter", "argparse", "zipfile",
    "tarfile", "pathlib", "typing", "decimal", "fractions", "statistics", "random", "shutil",
    "subprocess", "threading", "socket", "ssl", "csv", "configparser", "textwrap", "difflib",
)  # fmt: skip


def _roots() -> dict[str, Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    found = {name: stdlib / name for name in STDLIB}
    for name in STDLIB:
        if not found[name].exists():
            found[name] = stdlib / f"{name}.py"
    for folder in map(Path, site.getsitepackages()):
        for name in PACKAGES:
            if (folder / name).is_dir():
                found.setdefault(name, folder / name)
    return {name: path for name, path in found.items() if path.exists()}


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*.py") if "tests" not in p.parts and "test" not in p.parts)


def _clean(doc: str) -> str:
    text = doc.strip()
    if len(text) > MAX_CHARS:  # whole paragraphs up to the limit
        cut = text.rfind("\n\n", 0, MAX_CHARS)
        text = text[: cut if cut > MIN_CHARS else MAX_CHARS].rstrip()
    return text


def _pairs(domain: str, path: Path, root: Path) -> list[dict[str, str]]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError):
        return []
    module = ".".join(path.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__")
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        doc = ast.get_docstring(node)
        if not doc or len(doc.strip()) < MIN_CHARS or node.name.startswith("_"):
            continue
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        out.append(
            {
                "id": f"{module}.{node.name}",
                "domain": domain,
                "prompt": f"What does the {kind} `{node.name}` in `{module}` do?",
                "response": _clean(doc),
            }
        )
    return out


CACHE = Path(tempfile.gettempdir()) / "vendiscope-bench-docstrings.json"


@cache
def harvest(min_per_domain: int = 40) -> dict[str, list[dict[str, str]]]:
    """Every domain with at least ``min_per_domain`` distinct docstrings -> its pairs.

    Parsing takes a minute or two; the result is kept in a file in the temporary folder.
    """
    if CACHE.is_file():
        cached = json.loads(CACHE.read_text(encoding="utf-8"))
        if cached.get("min_per_domain") == min_per_domain:
            return cached["domains"]
    domains: dict[str, list[dict[str, str]]] = {}
    for domain, root in sorted(_roots().items()):
        seen: set[str] = set()
        pairs = []
        for path in _files(root):
            for pair in _pairs(domain, path, root):
                if pair["response"] not in seen:
                    seen.add(pair["response"])
                    pairs.append(pair)
        if len(pairs) >= min_per_domain:
            domains[domain] = pairs
    partial = CACHE.with_suffix(".tmp")
    partial.write_text(json.dumps({"min_per_domain": min_per_domain, "domains": domains}))
    partial.replace(CACHE)
    return domains


def draw(
    pairs: dict[str, list[dict[str, str]]],
    n: int,
    *,
    domains: int,
    seed: int = 0,
    largest: bool = True,
) -> list[dict[str, str]]:
    """``n`` pairs spread evenly over ``domains`` domains (the largest ones, or random ones)."""
    rng = random.Random(seed)
    names = sorted(pairs, key=lambda d: (-len(pairs[d]), d))
    if not largest:
        rng.shuffle(names)
    chosen = names[:domains]
    if len(chosen) < domains:
        raise ValueError(f"only {len(chosen)} domains have enough docstrings, not {domains}")
    out: list[dict[str, str]] = []
    for i, domain in enumerate(chosen):
        share = n // domains + (1 if i < n % domains else 0)
        pool = pairs[domain]
        if share > len(pool):
            raise ValueError(f"domain {domain} has {len(pool)} docstrings, not {share}")
        out += rng.sample(pool, share)
    rng.shuffle(out)
    return out
