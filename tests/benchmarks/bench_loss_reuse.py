"""The proxy-LM loss signal with and without a gradients run to take it from, in one run.

    .venv/bin/python tests/benchmarks/bench_loss_reuse.py            # 32 demo records
    .venv/bin/python tests/benchmarks/bench_loss_reuse.py --records 128

The gradients job records each record's loss on the way (the loss its gradients are of) as the
``proxy-loss`` signal. On the same ``--records`` records of the bundled demo dataset, with the
bundled SmolLM2-135M-Instruct in float32 (two datasets holding the same rows):

1. ``proxy-loss`` computed by its own forward passes (records/s without reuse);
2. the gradients job, which records the loss;
3. ``proxy-loss`` after (2): the values are there, nothing is computed (records/s with reuse);
4. the cost of recording: the gradient engine on the same ``--overhead-records`` records,
   features alone and features with their losses, alternated ``--repeats`` times (the
   ratio of the medians; alternating keeps the machine's drift out of the ratio).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks._common import save
from tests.conftest import demo_rows, write_jsonl


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=32)
    parser.add_argument("--overhead-records", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import statistics

    from vendiscope.core.gradients.proxy import load_proxy
    from vendiscope.core.io.importing import import_dataset
    from vendiscope.core.signals.job import compute_signal
    from vendiscope.core.store.project import Project
    from vendiscope.core.vectors.featurizing import featurize_dataset
    from vendiscope.plugins.featurizers.gradients import GradientFeaturizer

    n = args.records
    params = {"precision": "float32"}

    def timed(step) -> float:
        started = time.perf_counter()
        step()
        return time.perf_counter() - started

    with tempfile.TemporaryDirectory() as folder:
        rows = write_jsonl(Path(folder) / "rows.jsonl", demo_rows(0, n))
        project = Project.create(Path(folder) / "bench.vscope")
        for name in ("own", "recorded"):
            import_dataset(project, rows, name=name)
        load_proxy(None)  # read the weights once, so no step pays the cold disk
        own = timed(lambda: compute_signal(project, "own", "proxy-loss"))
        gradients = timed(lambda: featurize_dataset(project, "recorded", params=params))
        after = timed(lambda: compute_signal(project, "recorded", "proxy-loss"))
        project.close()

    engine = GradientFeaturizer(**params).engine()
    records = [
        {"prompt": r.get("prompt"), "response": r.get("response")}
        for r in demo_rows(0, args.overhead_records)
    ]
    plain, recorded = [], []
    for _ in range(args.repeats):
        plain.append(timed(lambda: engine.features(records)))
        recorded.append(timed(lambda: engine.features_and_losses(records)))
    results = {
        "records": n,
        "signal_alone_s": round(own, 2),
        "signal_alone_records_per_s": round(n / own, 2),
        "gradients_recording_loss_s": round(gradients, 1),
        "gradients_records_per_s": round(n / gradients, 3),
        "signal_after_gradients_s": round(after, 3),
        "signal_after_gradients_records_per_s": round(n / after, 1),
        "signal_speedup_with_reuse": round(own / after, 1),
        "engine_features_s": [round(x, 2) for x in plain],
        "engine_features_and_losses_s": [round(x, 2) for x in recorded],
        "recording_overhead_ratio": round(
            statistics.median(recorded) / statistics.median(plain), 3
        ),
    }
    for key, value in results.items():
        print(f"{key:40} {value}")
    save("loss_reuse", results)


if __name__ == "__main__":
    main()
