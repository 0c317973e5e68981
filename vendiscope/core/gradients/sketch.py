"""Seeded random projections to ``d`` dimensions that never hold a ``P x d`` matrix.

The input arrives as named blocks (one per parameter tensor, or per layer); a block of
``n`` coordinates is projected on its own and the results are summed, which equals
projecting the concatenation. Everything random is derived from ``(seed, block name,
chunk number)`` alone, so the output does not depend on the batch size, the batch
composition or the order of the blocks.

``sparse`` (default): a count-sketch (sparse Johnson-Lindenstrauss). Coordinate ``i`` of a
block goes to one bucket ``h(i)`` of ``d`` with a random sign ``s(i)``; ``y[h(i)] += s(i) x[i]``.
It preserves inner products in expectation (``E <Sx, Sy> = <x, y>``) with the variance of a
dense Gaussian projection for the dense vectors gradients are. The hash codes are drawn on
the CPU in chunks of ``CHUNK`` coordinates, so they are the same on every device; they are
kept (4 bytes per coordinate) up to ``cache_bytes`` and drawn again beyond that.

``rademacher``: dense ``+-1/sqrt(d)`` matrices generated on the fly for each chunk of rows
(``DENSE_ROWS`` x ``d`` at a time) on the compute device. Costs ``O(n d)`` per block, so it
is meant for GPUs; CPU and CUDA random streams differ, so the vectors depend on the device
kind (each is deterministic).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

KINDS = ("sparse", "rademacher")
CHUNK = 1 << 22
DENSE_ROWS = 4096


def derived_seed(*parts: Any) -> int:
    """A stable 63-bit seed from any printable parts (independent of Python's hash salt)."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") & ((1 << 63) - 1)


def generator(*parts: Any, device: Any = "cpu") -> torch.Generator:
    import torch

    return torch.Generator(device=device).manual_seed(derived_seed(*parts))


class Projector:
    """Projects named blocks of shape ``(B, n)`` to ``(B, dim)``; see the module docstring."""

    def __init__(
        self,
        dim: int,
        *,
        seed: int = 0,
        kind: str = "sparse",
        device: Any = "cpu",
        cache_bytes: int = 1 << 30,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown projection '{kind}' (choose one of: {', '.join(KINDS)})")
        if dim < 1:
            raise ValueError(f"dim must be positive, not {dim}")
        self.dim = dim
        self.seed = seed
        self.kind = kind
        self.device = device
        self.cache_bytes = cache_bytes
        self._codes: dict[tuple[str, int], torch.Tensor] = {}
        self._cached = 0

    def describe(self) -> str:
        if self.kind == "sparse":
            return f"count-sketch (sparse JL) to {self.dim}, seed {self.seed}"
        return f"dense Rademacher to {self.dim} (generated per block), seed {self.seed}"

    def project(self, blocks: Iterable[tuple[str, torch.Tensor]]) -> torch.Tensor:
        """The sum of the projections of each ``(name, (B, n) tensor)``."""
        out = None
        for name, block in blocks:
            part = self.project_block(name, block)
            out = part if out is None else out.add_(part)
        if out is None:
            raise ValueError("nothing to project")
        return out

    def project_block(self, name: str, block: torch.Tensor) -> torch.Tensor:
        import torch

        block = block.reshape(block.shape[0], -1).to(torch.float32)
        if self.kind == "sparse":
            return self._count_sketch(name, block)
        return self._rademacher(name, block)

    # ----------------------------------------------------------------- count-sketch
    def _count_sketch(self, name: str, block: torch.Tensor) -> torch.Tensor:
        import torch

        n = block.shape[1]
        both = torch.zeros((block.shape[0], 2 * self.dim), dtype=torch.float32, device=block.device)
        for number, start in enumerate(range(0, n, CHUNK)):
            stop = min(start + CHUNK, n)
            codes = self.codes(name, number, stop - start).to(block.device)
            for row in range(block.shape[0]):  # 1-D index_add_ is the fast path (int32 codes)
                both[row].index_add_(0, codes, block[row, start:stop])
        return both[:, : self.dim] - both[:, self.dim :]

    def codes(self, name: str, number: int, size: int) -> torch.Tensor:
        """Bucket + ``dim`` * sign-bit of each coordinate of chunk ``number`` of ``name``."""
        import torch

        key = (name, number)
        found = self._codes.get(key)
        if found is not None and found.numel() == size:
            return found
        codes = torch.randint(
            0,
            2 * self.dim,
            (size,),
            generator=generator(self.seed, "count-sketch", self.dim, name, number),
            dtype=torch.int32,
        )
        if str(self.device) != "cpu":
            codes = codes.to(self.device)
        if self._cached + 4 * size <= self.cache_bytes:
            self._codes[key] = codes
            self._cached += 4 * size
        return codes

    # ----------------------------------------------------------------- dense Rademacher
    def _rademacher(self, name: str, block: torch.Tensor) -> torch.Tensor:
        import torch

        n = block.shape[1]
        out = torch.zeros((block.shape[0], self.dim), dtype=torch.float32, device=block.device)
        matrix = torch.empty((DENSE_ROWS, self.dim), dtype=torch.float32, device=block.device)
        for number, start in enumerate(range(0, n, DENSE_ROWS)):
            stop = min(start + DENSE_ROWS, n)
            rows = matrix[: stop - start]
            gen = generator(self.seed, "rademacher", self.dim, name, number, device=block.device)
            rows.bernoulli_(0.5, generator=gen).mul_(2.0).sub_(1.0)
            out.addmm_(block[:, start:stop], rows)
        return out.mul_(self.dim**-0.5)
