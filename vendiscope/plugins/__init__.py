"""Vendiscope's built-in plugins, registered through the same entry point a third party uses.

This module must stay cheap to import: it only names its contributions.
"""

from vendiscope import __version__
from vendiscope.core.plugins.manifest import Contribution, PluginManifest

_IMPORTERS = "vendiscope.plugins.importers"
_EXPORTERS = "vendiscope.plugins.exporters"

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
    ),
)
