"""Vendiscope's built-in plugins, registered through the same entry point a third party uses.

This module must stay cheap to import: it only names its contributions.
"""

from vendiscope import __version__
from vendiscope.api import Contribution, PluginManifest

_IMPORTERS = "vendiscope.plugins.importers"
_EXPORTERS = "vendiscope.plugins.exporters"
_SIGNALS = "vendiscope.plugins.signals"

manifest = PluginManifest(
    name="vendiscope-builtins",
    version=__version__,
    description="Importers and exporters for the formats people use for training data.",
    contributions=(
        Contribution(
            "importer",
            "jsonl",
            f"{_IMPORTERS}.jsonl:JsonlImporter",
            "JSON Lines",
            meta={"extensions": [".jsonl", ".ndjson", ".jsonl.gz"]},
        ),
        Contribution(
            "importer",
            "json",
            f"{_IMPORTERS}.json_array:JsonArrayImporter",
            "JSON array",
            meta={"extensions": [".json"]},
        ),
        Contribution(
            "importer",
            "csv",
            f"{_IMPORTERS}.csv:CsvImporter",
            "CSV / TSV",
            meta={"extensions": [".csv", ".tsv", ".tab"]},
        ),
        Contribution(
            "importer",
            "parquet",
            f"{_IMPORTERS}.parquet:ParquetImporter",
            "Parquet",
            meta={"extensions": [".parquet", ".pq"]},
        ),
        Contribution(
            "importer",
            "hf-disk",
            f"{_IMPORTERS}.hf_disk:HFDiskImporter",
            "Hugging Face datasets folder (save_to_disk)",
            meta={"extensions": ["/"], "folder_markers": ["state.json", "dataset_dict.json"]},
        ),
        Contribution(
            "importer",
            "txt-folder",
            f"{_IMPORTERS}.txt_folder:TxtFolderImporter",
            "Folder of .txt files",
            meta={"extensions": ["/"]},
        ),
        Contribution(
            "exporter",
            "jsonl",
            f"{_EXPORTERS}.jsonl:JsonlExporter",
            "JSON Lines",
            meta={"suffix": ".jsonl"},
        ),
        Contribution(
            "exporter", "csv", f"{_EXPORTERS}.csv:CsvExporter", "CSV", meta={"suffix": ".csv"}
        ),
        Contribution(
            "exporter",
            "parquet",
            f"{_EXPORTERS}.parquet:ParquetExporter",
            "Parquet",
            meta={"suffix": ".parquet"},
        ),
        Contribution(
            "exporter",
            "hf-disk",
            f"{_EXPORTERS}.hf_disk:HFDiskExporter",
            "Hugging Face datasets folder (load_from_disk)",
            meta={"suffix": ""},
        ),
        Contribution(
            "featurizer",
            "gradients",
            "vendiscope.plugins.featurizers.gradients:GradientFeaturizer",
            "Proxy-LM gradients (G-Vendi)",
        ),
        Contribution(
            "metric",
            "vendi",
            "vendiscope.plugins.metrics.vendi:VendiMetric",
            "Vendi score",
            description=(
                "Effective number of distinct examples (Vendi score of order q) of a vector "
                "set, optionally quality-weighted, with a bootstrap interval and per-record "
                "leverage, contribution or kNN uniqueness."
            ),
        ),
        Contribution(
            "embedder",
            "sentence-transformers",
            "vendiscope.plugins.embedders.sentence_transformers:SentenceTransformerEmbedder",
            "Sentence-transformers encoder",
            meta={"default": True},
        ),
        Contribution(
            "view",
            "map",
            "vendiscope.plugins.views.map:MapView",
            "Map",
            description="The 2-D map coloured by cluster, sparse cluster, source, score or subset.",
        ),
        Contribution(
            "view",
            "cluster-coverage",
            "vendiscope.plugins.views.clusters:ClusterCoverageView",
            "Cluster coverage",
            description="Share of the dataset and of a subset per cluster; sparse ones marked.",
        ),
        Contribution(
            "view",
            "selection-curves",
            "vendiscope.plugins.views.selection:SelectionCurvesView",
            "Diversity vs budget",
            description="Vendi of each prefix of the selection runs, random order as the baseline.",
        ),
        Contribution(
            "view",
            "synthesis-curve",
            "vendiscope.plugins.views.synthesis:SynthesisCurveView",
            "Synthesis curve",
            description="G-Vendi as accepted generations grow, against the unfiltered baseline.",
        ),
        Contribution(
            "view",
            "study-scatter",
            "vendiscope.plugins.views.study:StudyScatterView",
            "Study scatter",
            description="A diversity metric of each study subset against the trained gain.",
        ),
        Contribution(
            "view",
            "spectrum",
            "vendiscope.plugins.views.spectrum:SpectrumView",
            "Vendi spectrum",
            description="The largest eigenvalues behind G-Vendi and embedding-Vendi.",
        ),
        Contribution(
            "view",
            "composition",
            "vendiscope.plugins.views.composition:CompositionView",
            "Composition by source",
            description="Each source's own Vendi score and its contribution to the whole.",
        ),
        Contribution(
            "view",
            "coverage",
            "vendiscope.plugins.views.coverage:CoverageView",
            "Coverage of a target set",
            description="Fraction of a benchmark within a radius of the data; uncovered items.",
        ),
        Contribution(
            "view",
            "near-duplicates",
            "vendiscope.plugins.views.near_duplicates:NearDuplicatesView",
            "Near-duplicate groups",
            description="Group sizes or the largest groups of the latest near-duplicate run.",
        ),
        Contribution(
            "selector",
            "greedy-vendi",
            "vendiscope.plugins.selectors.greedy_vendi:GreedyVendiSelector",
            "Greedy Vendi",
            description=(
                "Adds, one at a time, the row that raises the (optionally quality-weighted) "
                "Vendi score of the subset the most."
            ),
        ),
        Contribution(
            "selector",
            "prismatic",
            "vendiscope.plugins.selectors.prismatic:PrismaticSelector",
            "Prismatic sparse clusters",
            description=(
                "Samples from spherical-k-means clusters smaller than the median, the "
                "under-represented regions of Prismatic Synthesis."
            ),
        ),
        Contribution(
            "selector",
            "k-center",
            "vendiscope.plugins.selectors.kcenter:KCenterSelector",
            "k-center (coreset)",
            description="Picks the row farthest from those already picked, shrinking the "
            "covering radius.",
        ),
        Contribution(
            "selector",
            "facility-location",
            "vendiscope.plugins.selectors.facility:FacilityLocationSelector",
            "Facility location",
            description=(
                "Picks representatives so every row has a similar picked neighbour, by lazy "
                "greedy over a FAISS kNN graph."
            ),
        ),
        Contribution(
            "selector",
            "dpp",
            "vendiscope.plugins.selectors.dpp:DPPSelector",
            "Greedy k-DPP",
            description="Greedily maximises the log-determinant of the subset's (quality-"
            "weighted) cosine kernel.",
        ),
        Contribution(
            "selector",
            "random",
            "vendiscope.plugins.selectors.random_choice:RandomSelector",
            "Random",
            description="Draws rows uniformly (or in proportion to quality) at random, the "
            "control for every other selector.",
        ),
        Contribution(
            "generator",
            "transformers",
            "vendiscope.plugins.generators.transformers_local:TransformersGenerator",
            "Local model (transformers)",
            description=(
                "Completes chat prompts in batches with a local causal LM (the bundled "
                "SmolLM2-135M-Instruct by default), seeded sampling on CPU or CUDA."
            ),
            meta={"default": True},
        ),
        Contribution(
            "generator",
            "openai",
            "vendiscope.plugins.generators.openai_compat:OpenAIGenerator",
            "OpenAI-compatible server",
            description=(
                "Sends chat prompts to any /v1/chat/completions server (vLLM, llama.cpp, "
                "Ollama, TGI, transformers serve, hosted APIs), concurrently, with retries."
            ),
        ),
        Contribution(
            "trainer",
            "causal-lm",
            "vendiscope.plugins.trainers.causal_lm:CausalLMTrainer",
            "Fine-tune a causal LM",
            description=(
                "Trains the last blocks of a small causal LM (the bundled SmolLM2-135M-Instruct "
                "by default), or LoRA adapters on them, on a subset; scores its loss and "
                "accuracy on a target set. Frozen blocks are computed once per example."
            ),
            meta={"default": True},
        ),
        Contribution(
            "signal",
            "text-stats",
            f"{_SIGNALS}.text_stats:TextStats",
            "Text heuristics (Gopher rules)",
            description=(
                "Word counts, symbol, digit and non-alphabetic ratios, repeated lines, "
                "paragraphs and n-grams, truncation, emptiness, and a low-quality flag from "
                "the Gopher rules at datatrove's thresholds."
            ),
        ),
        Contribution(
            "signal",
            "pii",
            f"{_SIGNALS}.pii:Pii",
            "Personal data and secrets",
            description=(
                "E-mail addresses, phone numbers, IP addresses, Luhn-checked payment cards and "
                "API keys, with the spans that raised each flag."
            ),
        ),
        Contribution(
            "signal",
            "language",
            f"{_SIGNALS}.language:Language",
            "Language",
            description="The language of each record (75 languages) and the confidence.",
        ),
        Contribution(
            "signal",
            "proxy-loss",
            f"{_SIGNALS}.proxy_loss:ProxyLoss",
            "Proxy-LM loss and perplexity",
            description=(
                "Each record's loss under the proxy language model (the G-Vendi proxy by "
                "default): forward passes only, rendered as the gradient features are."
            ),
            meta={"on_demand": True},  # loads a language model: computed when named
        ),
        Contribution(
            "signal",
            "llm-judge",
            f"{_SIGNALS}.llm_judge:LlmJudge",
            "LLM judge (rubric rating)",
            description=(
                "A language model (local or an OpenAI-compatible server) rates each record 1-5 "
                "against an editable rubric and gives a one-sentence reason."
            ),
            meta={"on_demand": True},  # calls a language model per record: computed when named
        ),
        Contribution(
            "signal",
            "contamination",
            f"{_SIGNALS}.contamination:Contamination",
            "Benchmark contamination",
            description=(
                "Records sharing a 13-word n-gram with a target dataset (a benchmark), with "
                "the target record matched."
            ),
        ),
    ),
)
