"""The rounds of a synthesis run and the state they change (rebuilt when a run resumes).

A round: choose seed examples, render the prompts, generate, parse, drop duplicates,
featurize, let the filter decide, and commit everything in one transaction.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from vendiscope.core.base.errors import PluginError, ProjectError
from vendiscope.core.base.jobs import CancelToken, Progress
from vendiscope.core.base.text import shorten
from vendiscope.core.clusters.algorithms.kmeans import Clustering, default_k, spherical_kmeans
from vendiscope.core.io.hashing import Fingerprint, content_hash
from vendiscope.core.metrics.algorithms import vendi
from vendiscope.core.store import record_lookup as stored_records
from vendiscope.core.store import synthesis as store
from vendiscope.core.store import vectors
from vendiscope.core.store.project import Project
from vendiscope.core.synthesis import generation
from vendiscope.core.synthesis.algorithms import filters, parsing
from vendiscope.core.synthesis.algorithms.templates import Template, example_schema, render
from vendiscope.core.synthesis.dedup import EXACT, NEAR, DuplicateGuard
from vendiscope.core.synthesis.options import SynthesisOptions
from vendiscope.core.synthesis.records import PROVENANCE_KEY
from vendiscope.core.synthesis.seeds import choose_seeds

if TYPE_CHECKING:
    from vendiscope.core.plugin_host.interfaces import Featurizer, Generation, Generator
    from vendiscope.core.synthesis.pool import Pool

REJECTS_KEPT = 200
REJECT_TEXT = 400
FILTER_REASON = {"sparse-cluster": "dense cluster", "gain": "gain below threshold"}
BUDGET_REACHED = "budget reached"
ADVICE = (
    "ask for structured output (the transformers generator constrains decoding to the "
    "example's JSON schema when lm-format-enforcer is installed; servers such as llama.cpp's, "
    "vLLM and Ollama honour response_format), use a larger instruction-tuned model, or "
    "generate on a server (docs/generators.md)"
)
RoundCallback = Callable[[dict[str, Any]], None]


@dataclass
class Progressing:
    """Everything the rounds change, rebuilt from the project when a job resumes."""

    accepted_rows: list[np.ndarray] = field(default_factory=list)
    accepted_rounds: list[int] = field(default_factory=list)
    stream_rows: list[np.ndarray] = field(default_factory=list)
    members: list[tuple[str, int]] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    state: filters.PoolState | None = None
    fingerprints: dict[str, Fingerprint] = field(default_factory=dict)
    rows_written: dict[str, int] = field(default_factory=dict)
    restored_gains: list[float] = field(default_factory=list)
    """The gains the filter judged before a resume, in order (its running median)."""

    @property
    def accepted(self) -> int:
        return len(self.accepted_rows)

    def matrix(self, rows: list[np.ndarray], dim: int) -> np.ndarray:
        return np.vstack(rows) if rows else np.empty((0, dim), dtype=np.float32)


class Rounds:
    """The rounds of one synthesis run (fresh or resumed): seed, generate, judge, commit."""

    def __init__(
        self,
        project: Project,
        pool: Pool,
        options: SynthesisOptions,
        all_name: str,
        run_id: int,
        result: dict[str, Any],
        generator: Generator,
        featurizer: Featurizer,
        template: Template,
    ) -> None:
        self.project, self.pool, self.options = project, pool, options
        self.name, self.all_name = str(options.name), all_name
        self.run_id, self.result = run_id, result
        self.generator, self.featurizer, self.template = generator, featurizer, template
        self.dim = pool.vector_set.dim
        self.progressing = Progressing()
        self.guard = DuplicateGuard(options.near_duplicate, self.dim)
        self.pool_gram, self.pool_n = vendi.gram_dual([pool.rows])
        self.threshold = (
            filters.DEFAULT_THRESHOLD if options.threshold is None else options.threshold
        )
        self.schema = example_schema(pool.keys.names)

    # -------------------------------------------------------------- resume
    def restore(self) -> None:
        """Rebuild the rounds' state from what the committed rounds wrote."""
        p = self.progressing
        mapping = self.project.dataset(self.name).field_mapping
        salt = _salt(mapping)
        for dataset in (self.name, self.all_name):
            info = self.project.dataset(dataset)
            fingerprint = Fingerprint(salt=salt)
            fingerprint.update(r.content_hash for r in self.project.iter_records(dataset))
            p.fingerprints[dataset] = fingerprint
            p.rows_written[dataset] = info.row_count
        for record in self.project.iter_records(self.all_name):
            gain = (record.original().get(PROVENANCE_KEY) or {}).get("gain")
            if gain is not None:
                p.restored_gains.append(float(gain))
        accepted = self._stored_rows(self.name)
        stream = self._stored_rows(self.all_name)
        per_round = [entry.get("accepted", 0) for entry in self.result.get("rounds", [])]
        if sum(per_round) != len(accepted):
            raise ProjectError(
                f"dataset '{self.name}' has {len(accepted)} rows but its run recorded "
                f"{sum(per_round)}; it was changed outside the synthesis job"
            )
        p.accepted_rows = list(accepted)
        p.accepted_rounds = [r for r, count in enumerate(per_round) for _ in range(count)]
        p.stream_rows = list(stream)
        self.guard.add_hashes(self.pool.hashes)
        self.guard.add_hashes(self.project.content_hash_positions(self.all_name))
        self.guard.add_rows(self.pool.rows)
        self.guard.add_rows(stream)
        done = len(per_round)
        if done:
            last = done - done % self.options.recluster_every
            if last == done:  # the next round reclusters anyway
                return
            before = sum(per_round[:last])
            self._recluster(before)
            for position in range(before, len(accepted)):
                self._join(accepted[position : position + 1], position)

    def _stored_rows(self, dataset: str) -> np.ndarray:
        if self.project.dataset(dataset).row_count == 0:
            return np.empty((0, self.dim), dtype=np.float32)
        return vectors.load(self.project, dataset, self.pool.vector_set.name).astype(np.float32)

    # -------------------------------------------------------------- clustering
    def _recluster(self, accepted: int) -> None:
        """Cluster the pool and the first ``accepted`` accepted rows afresh."""
        p = self.progressing
        seen = p.state.seen_gains if p.state is not None else p.restored_gains
        rows = np.vstack([self.pool.rows, *p.accepted_rows[:accepted]])
        clustering: Clustering = spherical_kmeans(
            rows, default_k(len(rows)), seed=self.options.seed
        )
        p.state = filters.PoolState.build(rows, clustering)
        p.state.seen_gains = list(seen)  # the gain rule's running median goes on
        p.members = [(self.pool.dataset, i) for i in range(len(self.pool.rows))]
        p.members += [(self.name, i) for i in range(accepted)]
        p.labels = [int(label) for label in clustering.labels]

    def _join(self, row: np.ndarray, position: int) -> None:
        """An accepted row (already in the Gram? no: added here) joins its nearest cluster."""
        p = self.progressing
        assert p.state is not None
        labels, _ = p.state.assign(row)
        p.state.add(row, labels)
        p.members.append((self.name, position))
        p.labels.append(int(labels[0]))

    # -------------------------------------------------------------- one round
    def run(self, progress: Progress, cancel: CancelToken, on_round: RoundCallback | None) -> str:
        options = self.options
        while True:
            stopped = self._stopped()
            if stopped:
                return stopped
            cancel.raise_if_cancelled()
            entry = self._round(len(self.result["rounds"]), progress, cancel)
            if on_round is not None:
                on_round(entry)
            if entry["round"] == 0 and entry["parsed"] == 0:
                raise PluginError(
                    f"the first round gave no usable example: {_top_reasons([entry])}; "
                    f"{ADVICE}. The outputs and why each was rejected are in run {self.run_id} "
                    f"(structured output: {entry.get('structured') or 'not asked for'})"
                )
            fruitless = self._fruitless()
            if fruitless:
                top = _top_reasons(fruitless)
                first, last = fruitless[0]["round"] + 1, fruitless[-1]["round"] + 1
                which = f"round {last}" if first == last else f"rounds {first}-{last}"
                raise PluginError(
                    f"every output of {which} was rejected ({top}); see the rejected outputs "
                    f"of run {self.run_id}, or try another template, a larger max_new_tokens "
                    f"or a stronger model (generator '{options.generator}')"
                )

    def _fruitless(self) -> list[dict[str, Any]]:
        """The last ``patience`` rounds when none of them gave a usable output (the generator
        is not following the template, so further rounds would be wasted); else ``[]``."""
        last = self.result["rounds"][-self.options.patience :]
        if len(last) < self.options.patience:
            return []
        return [] if any(e["parsed"] - e["duplicates"] > 0 for e in last) else last

    def _stopped(self) -> str:
        options, result = self.options, self.result
        if self.progressing.accepted >= options.budget:
            return "budget"
        if options.rounds is not None and len(result["rounds"]) >= options.rounds:
            return "rounds"
        if options.target is not None and result["gvendi"] >= options.target:
            return "target"
        return ""

    def _round(self, number: int, progress: Progress, cancel: CancelToken) -> dict[str, Any]:
        started = time.perf_counter()
        options, p = self.options, self.progressing
        reclustered = number % options.recluster_every == 0 or p.state is None
        if reclustered:
            progress.start(f"round {number + 1}: clustering {self.pool_n + p.accepted:,} rows")
            self._recluster(p.accepted)
            progress.finish()
        assert p.state is not None
        rng = np.random.default_rng([options.seed, number])
        # no more prompts than examples still wanted: -n 4 asks for 4, not a full round
        wanted = max(1, min(options.prompts_per_round, options.budget - p.accepted))
        seeds = choose_seeds(
            np.asarray(p.labels),
            p.state.sizes,
            p.state.median,
            prompts=wanted,
            per_prompt=options.examples_per_prompt,
            rule=options.seeds,
            rng=rng,
            rows=self._member_rows(),
            centroids=p.state.centroids,
        )
        seed_records = [self._seed_records(chosen) for chosen in seeds]
        prompts = [
            self._render([self.pool.keys.example(r) for r in chosen]) for chosen in seed_records
        ]
        progress.start(
            f"round {number + 1}: generating {len(prompts)} examples",
            total=len(prompts),
            unit="examples",
        )
        outputs = generation.generate(
            self.generator,
            prompts,
            seed=options.seed * 100_003 + number,
            progress=progress,
            cancel=cancel,
            schema=self.schema,
        )
        progress.finish()
        if len(outputs) != len(prompts):
            raise PluginError(
                f"generator '{options.generator}' returned {len(outputs)} outputs for "
                f"{len(prompts)} prompts"
            )
        cancel.raise_if_cancelled()
        return self._judge(number, outputs, seed_records, reclustered, started, progress, cancel)

    def _member_rows(self) -> np.ndarray:
        """Unit rows of the members (pool rows, then accepted rows, in member order)."""
        p = self.progressing
        rows = np.vstack([self.pool.rows, *p.accepted_rows])[: len(p.members)]
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)

    def _render(self, examples: list[dict[str, str | None]]) -> list[dict[str, str]]:
        keys = self.pool.keys
        return render(self.template, examples, keys.names, label_key=keys.roles.get("label"))

    def _seed_records(self, chosen: np.ndarray) -> list[Any]:
        p = self.progressing
        by_dataset: dict[str, list[int]] = {}
        for member in chosen:
            dataset, position = p.members[int(member)]
            by_dataset.setdefault(dataset, []).append(position)
        found: list[Any] = []
        for dataset, positions in by_dataset.items():
            rows = stored_records.records_at(self.project, dataset, positions)
            found += [rows[position] for position in positions]
        return found

    def _judge(
        self,
        number: int,
        outputs: list[Generation],
        seed_records: list[list[Any]],
        reclustered: bool,
        started: float,
        progress: Progress,
        cancel: CancelToken,
    ) -> dict[str, Any]:
        options, p, keys = self.options, self.progressing, self.pool.keys
        reasons: Counter[str] = Counter()
        rejects: list[dict[str, Any]] = []
        valid: list[tuple[int, dict[str, str]]] = []
        batch_hashes: set[str] = set()
        for slot, output in enumerate(outputs):
            if output.error is not None or output.text is None:
                reason, detail = parsing.REQUEST_FAILED, output.error or "no text returned"
            else:
                parsed = parsing.parse_example(
                    output.text, keys.names, finish_reason=output.finish_reason
                )
                if parsed.values is not None:
                    digest = content_hash(keys.roles_of(parsed.values))
                    if digest in self.guard.hashes or digest in batch_hashes:
                        reasons[EXACT] += 1
                        continue
                    batch_hashes.add(digest)
                    valid.append((slot, parsed.values))
                    continue
                reason, detail = str(parsed.reason), parsed.detail
            reasons[reason] += 1
            rejects.append(
                {
                    "round": number,
                    "reason": reason,
                    "detail": detail,
                    "text": shorten(output.text or "", REJECT_TEXT),
                }
            )
        parsed_count = len(outputs) - sum(reasons.values()) + reasons[EXACT]
        rows = self._featurize([values for _, values in valid], number, progress, cancel)
        accepted: list[tuple[Any, np.ndarray]] = []
        stream: list[tuple[Any, np.ndarray]] = []
        duplicates = reasons[EXACT]
        for (slot, values), row in zip(valid, rows, strict=True):
            near = self.guard.near(row)
            if near is not None:
                reasons[NEAR] += 1
                duplicates += 1
                continue
            self.guard.add_rows(row.reshape(1, -1))
            # mypy, on the next line: the state is built before the first round
            cluster, _ = p.state.assign(row.reshape(1, -1))  # type: ignore[union-attr]
            if p.accepted + len(accepted) >= options.budget:
                decision = filters.Decision(False, BUDGET_REACHED, int(cluster[0]), None)
            else:
                decision = filters.decide(
                    options.filter, p.state, row.reshape(1, -1), threshold=self.threshold
                )[0]  # type: ignore[arg-type]  # the state is built before the first round
            provenance = {
                "run": self.run_id,
                "round": number,
                "generator": options.generator,
                "model": self.generator.model_id,
                "template": self.template.name,
                "seeds": [r.id for r in seed_records[slot]],
                "cluster": decision.cluster,
                "decision": "accepted" if decision.accepted else "rejected",
                "reason": decision.reason,
            }
            if decision.gain is not None:
                provenance["gain"] = float(decision.gain)
            record = keys.new_record(values, provenance)
            stream.append((record, row))
            if decision.accepted:
                accepted.append((record, row))
                position = p.accepted + len(accepted) - 1
                p.members.append((self.name, position))
                p.labels.append(
                    int(decision.cluster if decision.cluster is not None else cluster[0])
                )
            else:
                reasons[_category(options.filter, decision.reason)] += 1
        return self._commit(
            number,
            outputs,
            parsed_count,
            duplicates,
            accepted,
            stream,
            reasons,
            rejects,
            reclustered,
            started,
        )

    def _featurize(
        self, values: list[dict[str, str]], number: int, progress: Progress, cancel: CancelToken
    ) -> np.ndarray:
        if not values:
            return np.empty((0, self.dim), dtype=np.float32)
        keys = self.pool.keys
        records = [keys.roles_of(v) for v in values]
        progress.start(
            f"round {number + 1}: gradients of {len(records)} generations",
            total=len(records),
            unit="records",
        )
        rows = self.featurizer.featurize(records, progress=progress, cancel=cancel)
        progress.finish()
        return np.asarray(rows, dtype=np.float32)

    def _commit(
        self,
        number: int,
        outputs: list[Generation],
        parsed: int,
        duplicates: int,
        accepted: list[tuple[Any, np.ndarray]],
        stream: list[tuple[Any, np.ndarray]],
        reasons: Counter[str],
        rejects: list[dict[str, Any]],
        reclustered: bool,
        started: float,
    ) -> dict[str, Any]:
        p, result = self.progressing, self.result
        p.accepted_rows += [row.reshape(1, -1) for _, row in accepted]
        p.accepted_rounds += [number] * len(accepted)
        p.stream_rows += [row.reshape(1, -1) for _, row in stream]
        total = p.accepted
        stream_rows = p.matrix(p.stream_rows, self.dim)
        entry = {
            "round": number,
            "prompts": len(outputs),
            "generated": len(outputs),
            "parsed": parsed,
            "duplicates": duplicates,
            "accepted": len(accepted),
            "rejected": len(outputs) - len(accepted),
            "reasons": dict(reasons.most_common()),
            "accepted_total": total,
            "generated_total": len(stream_rows),
            # mypy, on the next line: the state is built before the first round
            "gvendi": p.state.vendi(),  # type: ignore[union-attr]
            "baseline": self._with_pool(stream_rows[:total]) if len(stream_rows) >= total else None,
            "reclustered": reclustered,
            "seconds": round(time.perf_counter() - started, 3),
            "tokens": sum(o.tokens for o in outputs),
            "structured": generation.structured_note(self.generator),
        }
        result["rounds"] = [*result["rounds"], entry]
        result["rejects"] = [*result.get("rejects", []), *rejects][-REJECTS_KEPT:]
        result.update(
            accepted=total,
            generated=len(stream_rows),
            gvendi=entry["gvendi"],
            baseline=entry["baseline"],
        )
        appended = [
            self._appended(self.name, [r for r, _ in accepted], [v for _, v in accepted]),
            self._appended(self.all_name, [r for r, _ in stream], [v for _, v in stream]),
        ]
        store.commit_round(self.project, run_id=self.run_id, result=result, appended=appended)
        return entry

    def _appended(self, dataset: str, records: list[Any], rows: list[np.ndarray]) -> store.Appended:
        fingerprint = self.progressing.fingerprints[dataset]
        fingerprint.update(r.content_hash for r in records)
        matrix = np.vstack([r.reshape(1, -1) for r in rows]) if rows else np.empty((0, self.dim))
        self.progressing.rows_written[dataset] += len(records)
        return store.Appended(
            dataset, self.pool.vector_set.name, records, matrix, fingerprint.hexdigest()
        )

    def _with_pool(self, rows: np.ndarray) -> float:
        if len(rows) == 0:
            return vendi.vendi_from_gram(self.pool_gram, self.pool_n)
        extra, m = vendi.gram_dual([rows])
        return vendi.vendi_from_gram(self.pool_gram + extra, self.pool_n + m)


def _top_reasons(entries: list[dict[str, Any]]) -> str:
    """The three commonest reject reasons of these rounds, with their counts."""
    reasons: Counter[str] = Counter()
    for entry in entries:
        reasons.update(entry["reasons"])
    return ", ".join(f"{reason} ({count})" for reason, count in reasons.most_common(3))


def _category(rule: str, reason: str) -> str:
    """The counted reason of a filter's rejection (its detail stays with the record)."""
    if reason == BUDGET_REACHED:
        return BUDGET_REACHED
    return FILTER_REASON.get(rule, "rejected by the filter")


def _salt(mapping: dict[str, Any]) -> str:
    import orjson

    return orjson.dumps(mapping).decode()
