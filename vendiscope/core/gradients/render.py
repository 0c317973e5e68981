"""Records -> token ids and labels for a response-only language-modelling loss.

A record is a dict with any of ``prompt``, ``response`` and ``text``:

- with a response, it is rendered as a two-turn conversation (user = the prompt, or the
  text when there is no prompt; assistant = the response) with the tokenizer's chat template,
  or as ``"prompt\\n\\nresponse"`` when the tokenizer has none (or ``chat_template=False``).
  The tokens of the response carry a label; the prompt and the template tokens before the
  response get ``-100``. The template tokens after the response (the end-of-turn marker,
  e.g. ``<|im_end|>\\n``) are labelled too with ``end_of_turn=True`` — supervised
  fine-tuning trains on them (the model learns to stop), and so does the paper's code
  (TRL's completion-only collator labels everything after the assistant header) — or
  dropped with ``end_of_turn=False`` (with a causal model they cannot change the loss on
  the response). Plain rendering with ``end_of_turn`` appends the tokenizer's end-of-text
  token to the response.
- ``system_prompt=None`` keeps what the chat template inserts when a conversation has no
  system turn (SmolLM2 and Qwen2.5 insert a default system prompt, as the paper's code
  renders it); a string is used as the system message instead (``""``: an empty system
  turn, without the default text).
- without a response, the whole text (``text``, else ``prompt``) is the target: every
  token is labelled (the first one has no context, so it is ``-100`` too).

Labels follow the Hugging Face convention: ``labels[t]`` is predicted from positions
``< t`` (the loss shifts them by one).

**Truncation.** When an example is longer than ``max_length`` tokens, tokens are removed
from the left of the prompt (its beginning; the template header is kept), so that the
response stays whole. If removing the whole prompt is not enough, the response is cut from
the right (its beginning is kept). Whole-text targets keep their first ``max_length``
tokens. An example left with no labelled token (an empty record, or a template header
longer than ``max_length``) is returned with ``empty`` set, never as a silent zero.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

IGNORE = -100


@dataclass(frozen=True)
class Encoded:
    """One example: token ids and labels (``-100`` = no loss), and what happened to it."""

    input_ids: list[int]
    labels: list[int]
    truncated: bool = False

    @property
    def n_targets(self) -> int:
        return sum(1 for label in self.labels if label != IGNORE)

    @property
    def empty(self) -> bool:
        """No token carries a loss: the example has no gradient."""
        return self.n_targets == 0

    def __len__(self) -> int:
        return len(self.input_ids)


@dataclass(frozen=True)
class _Style:
    template: bool  # render with the tokenizer's chat template
    end_of_turn: bool  # label the template tokens after the response
    system_prompt: str | None  # None: what the template inserts


@dataclass(frozen=True)
class _Rendered:
    text: str
    prompt: tuple[int, int]  # character span of the prompt (may be empty)
    target: tuple[int, int]  # character span of the target
    specials: bool  # let the tokenizer add its special tokens (plain text only)
    whole: bool  # the target is the whole text (no response)


def has_chat_template(tokenizer: Any) -> bool:
    return bool(getattr(tokenizer, "chat_template", None))


def encode_examples(
    tokenizer: Any,
    records: Sequence[dict[str, str | None]],
    *,
    max_length: int,
    chat_template: bool,
    end_of_turn: bool = True,
    system_prompt: str | None = None,
) -> list[Encoded]:
    """Encode ``records`` (see the module docstring for the rules)."""
    if max_length < 2:
        raise ValueError(f"max_length must be at least 2, not {max_length}")
    style = _Style(chat_template and has_chat_template(tokenizer), end_of_turn, system_prompt)
    rendered = [_render(tokenizer, record, style) for record in records]
    tokens = _tokenize(tokenizer, rendered)
    return [
        _encode(r, ids, offsets, max_length)
        for r, (ids, offsets) in zip(rendered, tokens, strict=True)
    ]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def _render(tokenizer: Any, record: dict[str, Any], style: _Style) -> _Rendered:
    prompt, response = _text(record.get("prompt")), _text(record.get("response"))
    text = _text(record.get("text"))
    if not response.strip():
        whole = text if text.strip() else prompt
        return _Rendered(whole, (0, 0), (0, len(whole)), True, True)
    user = prompt if prompt.strip() else text
    if not style.template:
        head = f"{user}\n\n" if user else ""
        eos = getattr(tokenizer, "eos_token", None) if style.end_of_turn else None
        full = head + response + (eos if isinstance(eos, str) else "")
        return _Rendered(full, (0, len(user)), (len(head), len(full)), True, False)
    messages = [{"role": "user", "content": user}, {"role": "assistant", "content": response}]
    if style.system_prompt is not None:
        messages.insert(0, {"role": "system", "content": style.system_prompt})
    full = tokenizer.apply_chat_template(messages, tokenize=False)
    target = _locate(full, response)
    if target is None:
        raise ValueError(
            "the model's chat template rewrites the response, so its tokens cannot be found; "
            "use plain rendering (chat_template=False)"
        )
    prompt_span = _locate(full[: target[0]], user) if user else None
    if style.end_of_turn:
        target = (target[0], len(full))
    return _Rendered(full, prompt_span or (target[0], target[0]), target, False, False)


def _locate(haystack: str, needle: str) -> tuple[int, int] | None:
    for candidate in (needle, needle.strip()):
        if candidate:
            start = haystack.rfind(candidate)
            if start >= 0:
                return start, start + len(candidate)
    return None


def _tokenize(tokenizer: Any, rendered: list[_Rendered]) -> list[tuple[list[int], list[tuple]]]:
    """Token ids and character offsets of each rendered text."""
    out: list[tuple[list[int], list[tuple]]] = [([], [])] * len(rendered)
    if getattr(tokenizer, "is_fast", False):
        for specials in (True, False):
            slots = [i for i, r in enumerate(rendered) if r.specials is specials]
            if not slots:
                continue
            batch = tokenizer(
                [rendered[i].text for i in slots],
                add_special_tokens=specials,
                return_offsets_mapping=True,
            )
            for i, ids, offsets in zip(
                slots, batch["input_ids"], batch["offset_mapping"], strict=True
            ):
                out[i] = (list(ids), [tuple(o) for o in offsets])
        return out
    for i, r in enumerate(rendered):  # slow tokenizer: tokenize span by span
        prefix = tokenizer("", add_special_tokens=True)["input_ids"] if r.specials else []
        ids, offsets = list(prefix), [(0, 0)] * len(prefix)
        cuts = sorted({0, *r.prompt, *r.target, len(r.text)})
        for start, end in itertools.pairwise(cuts):
            piece = tokenizer(r.text[start:end], add_special_tokens=False)["input_ids"]
            ids += piece
            offsets += [(start, end)] * len(piece)
        out[i] = (ids, offsets)
    return out


def _overlaps(offset: tuple, span: tuple[int, int]) -> bool:
    start, end = offset
    return end > start and start < span[1] and end > span[0]


def _encode(r: _Rendered, ids: list[int], offsets: list[tuple], max_length: int) -> Encoded:
    target = [_overlaps(o, r.target) for o in offsets]
    if r.whole:
        ids, target = ids[:max_length], target[:max_length]
        truncated = len(offsets) > max_length
        return _finish(ids, target, truncated)
    last = max((i for i, t in enumerate(target) if t), default=-1)
    if last < 0:
        return Encoded([], [], False)
    ids, target = ids[: last + 1], target[: last + 1]  # unlabelled tokens after the target
    excess = len(ids) - max_length
    truncated = excess > 0
    if excess > 0:
        prompt = [i for i, o in enumerate(offsets[: len(ids)]) if _overlaps(o, r.prompt)]
        prompt = [i for i in prompt if not target[i]]
        drop = set(prompt[:excess])
        ids = [x for i, x in enumerate(ids) if i not in drop]
        target = [t for i, t in enumerate(target) if i not in drop]
        ids, target = ids[:max_length], target[:max_length]
    return _finish(ids, target, truncated)


def _finish(ids: list[int], target: list[bool], truncated: bool) -> Encoded:
    labels = [x if t else IGNORE for x, t in zip(ids, target, strict=True)]
    if labels:
        labels[0] = IGNORE  # nothing precedes the first token
    return Encoded(ids, labels, truncated)
