"""Per-example gradient features (G-Vendi) on a tiny randomly initialised causal LM.

The model and tokenizer are built here, offline: a 2-block Llama (hidden 32) and a byte-level
BPE tokenizer trained on a few sentences, with a small chat template.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
import torch

from vendiscope.core.base.errors import InputError, PluginError
from vendiscope.core.base.jobs import Cancelled, CancelToken, RecordingProgress
from vendiscope.core.gradients.batches import (
    WIDTH_STEP,
    collate,
    length_buckets,
    padded_width,
    per_example_loss,
)
from vendiscope.core.gradients.exact import per_example_gradients
from vendiscope.core.gradients.features import (
    GradientEngine,
    cpu_has_native_bf16,
    effective_precision,
    native_bf16_flags,
)
from vendiscope.core.gradients.logra import LoGra
from vendiscope.core.gradients.proxy import (
    parameter_scope,
    parse_parameter_set,
    selected_modules,
    selected_parameters,
)
from vendiscope.core.gradients.render import IGNORE, encode_examples
from vendiscope.core.gradients.sketch import Projector

pytestmark = pytest.mark.usefixtures("one_torch_thread")

TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
_SENTENCE = (
    "the quick brown fox jumps over lazy dog what is two plus four five six seven answer "
    "summarise this text in one sentence please river city prime number sum step reason"
)
WORDS = _SENTENCE.split(" ")
SPECIALS = ["<unk>", "<pad>", "<s>", "<|user|>", "<|assistant|>", "<|end|>"]


# --------------------------------------------------------------------------- the tiny LM
def tiny_tokenizer(*, chat: bool = True) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    rng = random.Random(0)
    corpus = [" ".join(rng.choices(WORDS, k=12)) + " 0123456789 ?!.,+-=" for _ in range(200)]
    tokenizer.train_from_iterator(corpus, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, unk_token="<unk>", pad_token="<pad>", bos_token="<s>"
    )
    if chat:
        fast.chat_template = TEMPLATE
    return fast


def tiny_model(vocab: int, *, tie: bool = False, seed: int = 0) -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        tie_word_embeddings=tie,
        pad_token_id=1,
        bos_token_id=2,
        eos_token_id=5,
    )
    model = LlamaForCausalLM(config).eval()
    model.requires_grad_(False)
    return model


def varied_records(n: int, seed: int = 0) -> list[dict[str, str]]:
    rng = random.Random(seed)
    records = []
    for i in range(n):
        prompt = " ".join(rng.choices(WORDS, k=rng.randint(3, 25))) + "?"
        response = " ".join(rng.choices(WORDS, k=rng.randint(1, 15))) + f" {i % 10}."
        records.append({"prompt": prompt, "response": response})
    return records


def vendi(rows: np.ndarray) -> float:
    """Vendi score (q = 1) of unit rows: exp entropy of the eigenvalues of X^T X / n.

    The dual form (d x d); for d > n the same non-zero eigenvalues come from X X^T / n.
    """
    x = np.asarray(rows, dtype=np.float64)
    gram = x.T @ x if x.shape[1] <= x.shape[0] else x @ x.T
    eig = np.clip(np.linalg.eigvalsh(gram / len(x)), 0.0, None)
    eig = eig[eig > 1e-12]
    return float(np.exp(-(eig * np.log(eig)).sum()))


def unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def flat_gradients(grads: dict[str, torch.Tensor]) -> np.ndarray:
    return torch.cat([g.reshape(g.shape[0], -1) for g in grads.values()], dim=1).numpy()


def func_reference(
    model: Any, input_ids: list[int], labels: list[int], names: list[str]
) -> dict[str, torch.Tensor]:
    """torch.func per-sample gradient of one unpadded example's mean response loss."""
    from torch.func import functional_call, grad

    params = {n: p.detach() for n, p in model.named_parameters()}
    chosen = {n: params[n] for n in names}
    frozen = {n: p for n, p in params.items() if n not in chosen}

    def loss(p: dict[str, torch.Tensor]) -> torch.Tensor:
        ids = torch.tensor([input_ids])
        logits = functional_call(model, {**frozen, **p}, (ids,), {"use_cache": False}).logits
        return torch.nn.functional.cross_entropy(
            logits[0, :-1], torch.tensor(labels[1:]), ignore_index=IGNORE
        )

    return grad(loss)(chosen)


# --------------------------------------------------------------------------- rendering
def test_labels_cover_the_response_and_the_end_of_turn(tokenizer: Any) -> None:
    record = {"prompt": "what is two plus four?", "response": "six, the answer."}
    [encoded] = encode_examples(tokenizer, [record], max_length=512, chat_template=True)
    labelled = [i for i, label in enumerate(encoded.labels) if label != IGNORE]
    assert labelled == list(range(labelled[0], len(encoded)))  # one run, up to the end
    target = tokenizer.decode([encoded.input_ids[i] for i in labelled])
    assert target == record["response"] + "<|end|>\n"  # what the template puts after it
    header = tokenizer.decode(encoded.input_ids[: labelled[0]])
    assert header == "<|user|>\nwhat is two plus four?<|end|>\n<|assistant|>\n"
    assert not encoded.truncated and not encoded.empty
    # the tokens after the generation prompt, as the paper's code (TRL's collator) labels them
    head = tokenizer.apply_chat_template(
        [{"role": "user", "content": record["prompt"]}], add_generation_prompt=True
    )
    head = list(head["input_ids"] if hasattr(head, "keys") else head)
    assert encoded.input_ids[: len(head)] == head and labelled[0] == len(head)


def test_labels_of_the_response_only(tokenizer: Any) -> None:
    record = {"prompt": "what is two plus four?", "response": "six, the answer."}
    [encoded] = encode_examples(
        tokenizer, [record], max_length=512, chat_template=True, end_of_turn=False
    )
    labelled = [i for i, label in enumerate(encoded.labels) if label != IGNORE]
    assert labelled == list(range(labelled[0], len(encoded)))  # the end-of-turn is dropped
    assert tokenizer.decode([encoded.input_ids[i] for i in labelled]) == record["response"]


@pytest.mark.slow
def test_system_prompt_setting(tokenizer: Any, model: Any) -> None:
    record = {"prompt": "what is two plus four?", "response": "six."}
    [default] = encode_examples(tokenizer, [record], max_length=512, chat_template=True)
    [custom] = encode_examples(
        tokenizer, [record], max_length=512, chat_template=True, system_prompt="be brief"
    )
    assert not tokenizer.decode(default.input_ids).startswith("<|system|>")
    assert tokenizer.decode(custom.input_ids).startswith("<|system|>\nbe brief<|end|>\n")
    assert tokenizer.decode(
        [x for x, y in zip(custom.input_ids, custom.labels, strict=True) if y != IGNORE]
    )
    engine = GradientEngine(model, tokenizer, dim=32, system_prompt="be brief", end_of_turn=False)
    described = engine.describe()
    assert described["system_prompt"] == "be brief" and described["end_of_turn"] is False
    assert "end-of-turn" not in described["loss"]
    assert "end-of-turn" in GradientEngine(model, tokenizer, dim=32).describe()["loss"]


def test_loss_is_the_mean_cross_entropy_over_response_tokens(model: Any, tokenizer: Any) -> None:
    records = varied_records(5, seed=3)
    encoded = encode_examples(tokenizer, records, max_length=512, chat_template=True)
    batch = collate(encoded, list(range(5)), pad_id=1)
    losses = per_example_loss(model, batch).losses
    full = per_example_loss(model, batch, gather=False).losses
    for row, example in enumerate(encoded):
        ids = torch.tensor([example.input_ids])
        logits = model(input_ids=ids).logits[0]
        targets = [t for t, label in enumerate(example.labels) if label != IGNORE]
        manual = torch.stack(
            [-torch.log_softmax(logits[t - 1], dim=-1)[example.input_ids[t]] for t in targets]
        ).mean()
        assert losses[row].item() == pytest.approx(manual.item(), rel=1e-5)
        assert full[row].item() == pytest.approx(manual.item(), rel=1e-5)


def test_records_without_response_use_the_whole_text(tokenizer: Any) -> None:
    records = [{"text": "the quick brown fox"}, {"prompt": "river city prime", "response": ""}]
    encoded = encode_examples(tokenizer, records, max_length=512, chat_template=True)
    for example, text in zip(encoded, ("the quick brown fox", "river city prime"), strict=True):
        assert tokenizer.decode(example.input_ids) == text  # no chat template
        assert example.labels[0] == IGNORE
        assert example.labels[1:] == example.input_ids[1:]


def test_plain_rendering_without_a_chat_template(model: Any) -> None:
    plain = tiny_tokenizer(chat=False)
    record = {"prompt": "what is two plus four?", "response": "six."}
    [encoded] = encode_examples(plain, [record], max_length=512, chat_template=True)
    assert plain.decode(encoded.input_ids) == "what is two plus four?\n\nsix."
    labelled = [
        x for x, label in zip(encoded.input_ids, encoded.labels, strict=True) if label != IGNORE
    ]
    assert plain.decode(labelled).strip() == "six."
    engine = GradientEngine(model, plain, dim=64)
    assert engine.describe()["rendering"] == "plain"
    rows = engine.features([record])
    assert rows.shape == (1, 64)


def test_long_prompts_lose_their_start_and_keep_the_response(tokenizer: Any) -> None:
    record = {"prompt": " ".join(WORDS * 3), "response": "six, the answer."}
    [whole] = encode_examples(tokenizer, [record], max_length=10_000, chat_template=True)
    [cut] = encode_examples(tokenizer, [record], max_length=40, chat_template=True)
    assert cut.truncated and not whole.truncated and len(cut) == 40
    response = [x for x, label in zip(cut.input_ids, cut.labels, strict=True) if label != IGNORE]
    assert tokenizer.decode(response) == "six, the answer.<|end|>\n"
    assert tokenizer.decode(cut.input_ids[:2]) == "<|user|>\n"  # the template header stays
    assert tokenizer.decode(cut.input_ids).endswith("<|assistant|>\nsix, the answer.<|end|>\n")
    [tiny] = encode_examples(tokenizer, [record], max_length=8, chat_template=True)
    assert tiny.truncated and len(tiny) == 8 and tiny.n_targets > 0


def test_empty_records_are_flagged_not_zero(model: Any, tokenizer: Any) -> None:
    encoded = encode_examples(tokenizer, [{}, {"prompt": ""}], max_length=64, chat_template=True)
    assert all(e.empty for e in encoded)
    engine = GradientEngine(model, tokenizer, dim=32)
    assert engine.report([{"text": "the fox"}, {}])["empty"] == [1]
    with pytest.raises(InputError, match="no token"):
        engine.features([{"text": "the fox"}, {}])


# --------------------------------------------------------------------------- exact gradients
@pytest.mark.filterwarnings("ignore:There is a performance drop:UserWarning")
@pytest.mark.parametrize("method", ["loop", "vmap"])
def test_exact_gradients_match_torch_func(model: Any, tokenizer: Any, method: str) -> None:
    records = [*varied_records(3, seed=1), {"text": "the quick brown fox jumps"}]
    encoded = encode_examples(tokenizer, records, max_length=512, chat_template=True)
    batch = collate(encoded, list(range(len(records))), pad_id=1)
    params = selected_parameters(model, "all")
    with parameter_scope(model, set(params)):
        grads = per_example_gradients(model, batch, params, method=method)
    assert set(grads) == {n for n, _ in model.named_parameters()}
    for row, example in enumerate(encoded):
        reference = func_reference(model, example.input_ids, example.labels, list(params))
        for name, expected in reference.items():
            torch.testing.assert_close(grads[name][row], expected, atol=1e-4, rtol=1e-4)


def test_fast_blocks_equal_the_kronecker_projection_of_exact_gradients(
    model: Any, tokenizer: Any
) -> None:
    records = varied_records(4, seed=2)
    encoded = encode_examples(tokenizer, records, max_length=512, chat_template=True)
    batch = collate(encoded, list(range(4)), pad_id=1)
    logra = LoGra(model, "all", seed=0, rank=8)
    blocks = logra.layer_blocks(batch)
    params = selected_parameters(model, "all")
    with parameter_scope(model, set(params)):
        grads = per_example_gradients(model, batch, params)
    assert set(blocks) == set(grads)  # every parameter: "all" covers norms too
    assert len(logra.projections) == 2 * 7 + 2  # 7 per block, the head and the embedding
    for key, block in blocks.items():
        g = grads[key]
        if key not in logra.projections:  # a norm weight: its exact gradient, unprojected
            torch.testing.assert_close(block, g.reshape(g.shape[0], -1), atol=1e-5, rtol=1e-4)
            continue
        projection = logra.projections[key]
        expected = torch.einsum("ok,boi,ij->bkj", projection.out.dense(), g, projection.inp.dense())
        scale = expected.abs().max()
        torch.testing.assert_close(block / scale, expected / scale, atol=1e-4, rtol=0)


def test_fast_blocks_of_a_tied_embedding_add_both_uses(tokenizer: Any) -> None:
    tied = tiny_model(len(tokenizer), tie=True, seed=4)
    assert tied.lm_head.weight is tied.model.embed_tokens.weight
    encoded = encode_examples(tokenizer, varied_records(3), max_length=512, chat_template=True)
    batch = collate(encoded, [0, 1, 2], pad_id=1)
    logra = LoGra(tied, "all", seed=0, rank=6, wide=100, wide_rank=64)
    assert logra.projections["model.embed_tokens.weight"].out.kind == "count-sketch"
    blocks = logra.layer_blocks(batch)
    key = "model.embed_tokens.weight"
    assert "lm_head.weight" not in blocks
    params = selected_parameters(tied, "all")
    with parameter_scope(tied, set(params)):
        grads = per_example_gradients(tied, batch, params)
    projection = logra.projections[key]
    expected = torch.einsum(
        "ok,boi,ij->bkj", projection.out.dense(), grads[key], projection.inp.dense()
    )
    scale = expected.abs().max()
    torch.testing.assert_close(blocks[key] / scale, expected / scale, atol=1e-4, rtol=0)


def test_fast_blocks_of_a_gpt2_model(tokenizer: Any) -> None:
    """Conv1D layers with biases, LayerNorms and a learned position embedding."""
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=len(tokenizer), n_embd=32, n_layer=2, n_head=4, n_positions=256)
    gpt2 = GPT2LMHeadModel(config).eval()
    gpt2.requires_grad_(False)
    encoded = encode_examples(tokenizer, varied_records(3), max_length=256, chat_template=True)
    batch = collate(encoded, [0, 1, 2], pad_id=1)
    logra = LoGra(gpt2, "all", seed=0, rank=8)
    blocks = logra.layer_blocks(batch)
    assert logra.n_parameters == sum(p.numel() for p in gpt2.parameters())
    assert not logra.uncovered
    params = selected_parameters(gpt2, "all")
    with parameter_scope(gpt2, set(params)):
        grads = per_example_gradients(gpt2, batch, params)
    modules = dict(gpt2.named_modules())
    for key, block in blocks.items():
        g = grads[key]
        if key not in logra.projections:  # norms, biases of norms, the position embedding
            torch.testing.assert_close(block, g.reshape(3, -1), atol=1e-6, rtol=1e-4)
            continue
        module = modules[key.rsplit(".", 1)[0]]
        if type(module).__name__ == "Conv1D":  # weight (in, out) and a bias: [G^T | g_b]
            bias = grads[key.rsplit(".", 1)[0] + ".bias"]
            g = torch.cat([g.transpose(1, 2), bias[..., None]], dim=2)
        projection = logra.projections[key]
        expected = torch.einsum("ok,boi,ij->bkj", projection.out.dense(), g, projection.inp.dense())
        scale = expected.abs().max()
        torch.testing.assert_close(block / scale, expected / scale, atol=1e-4, rtol=0)


def test_last_blocks_parameter_set(model: Any, tokenizer: Any) -> None:
    assert parse_parameter_set("last-1-blocks-linear") == 1
    with pytest.raises(ValueError, match="parameter set"):
        parse_parameter_set("some")
    modules = selected_modules(model, "last-1-blocks-linear")
    assert sorted(modules) == sorted(
        f"model.layers.1.{m}"
        for m in (
            "self_attn.q_proj",
            "self_attn.k_proj",
            "self_attn.v_proj",
            "self_attn.o_proj",
            "mlp.gate_proj",
            "mlp.up_proj",
            "mlp.down_proj",
        )
    )
    encoded = encode_examples(tokenizer, varied_records(3), max_length=512, chat_template=True)
    batch = collate(encoded, [0, 1, 2], pad_id=1)
    logra = LoGra(model, "last-1-blocks-linear", seed=0, rank=5)
    blocks = logra.layer_blocks(batch)
    params = selected_parameters(model, "last-1-blocks-linear")
    with parameter_scope(model, set(params)):
        grads = per_example_gradients(model, batch, params)
    assert set(blocks) == set(grads)
    for key, block in blocks.items():
        projection = logra.projections[key]
        expected = torch.einsum(
            "ok,boi,ij->bkj", projection.out.dense(), grads[key], projection.inp.dense()
        )
        scale = expected.abs().max()
        torch.testing.assert_close(block / scale, expected / scale, atol=1e-4, rtol=0)


# --------------------------------------------------------------------------- the pipeline
@pytest.mark.parametrize("mode", ["fast", "exact"])
def test_batched_equals_one_at_a_time(model: Any, tokenizer: Any, mode: str) -> None:
    records = varied_records(9, seed=5)
    # float32: batching changes no arithmetic (bf16 rounding would differ by batch shape)
    engine = GradientEngine(model, tokenizer, mode=mode, dim=128, batch_size=4, precision="float32")
    together = engine.features(records)
    alone = np.concatenate([engine.features([r]) for r in records])
    assert together.dtype == np.float32 and together.shape == (9, 128)
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(together, alone, atol=1e-4)


@pytest.mark.parametrize("mode", ["fast", "exact"])
def test_padding_does_not_change_a_row(model: Any, tokenizer: Any, mode: str) -> None:
    short = {"prompt": "two plus four?", "response": "six."}
    long = {"prompt": " ".join(WORDS * 4), "response": " ".join(WORDS)}
    engine = GradientEngine(model, tokenizer, mode=mode, dim=64, batch_size=2, precision="float32")
    alone = engine.features([short])
    together = engine.features([long, short])
    lengths = [len(e) for e in engine.encode([long, short])]
    assert lengths[0] > 4 * lengths[1]
    np.testing.assert_allclose(together[1], alone[0], atol=1e-5)


def test_rows_are_deterministic_under_the_seed(model: Any, tokenizer: Any) -> None:
    records = varied_records(6, seed=6)
    for mode in ("fast", "exact"):
        first = GradientEngine(model, tokenizer, mode=mode, dim=64, seed=0).features(records)
        again = GradientEngine(model, tokenizer, mode=mode, dim=64, seed=0).features(records)
        other = GradientEngine(model, tokenizer, mode=mode, dim=64, seed=1).features(records)
        np.testing.assert_array_equal(first, again)
        assert np.abs(first - other).max() > 0.05


@pytest.mark.parametrize("projection", ["sparse", "rademacher"])
def test_projection_is_independent_of_chunking_and_unbiased(projection: str) -> None:
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.normal(size=(3, 5000)), dtype=torch.float32)
    projector = Projector(256, seed=0, kind=projection)
    whole = projector.project([("w", x)])
    split = projector.project([("w", x[:1]), ("w", x[1:])][:1])
    np.testing.assert_allclose(whole[:1].numpy(), split.numpy(), atol=1e-5)
    rows = Projector(256, seed=0, kind=projection).project([("w", x[2:])])
    np.testing.assert_allclose(whole[2:].numpy(), rows.numpy(), atol=1e-5)
    ratios = [
        (Projector(256, seed=s, kind=projection).project([("w", x[:1])]).norm() / x[0].norm())
        .pow(2)
        .item()
        for s in range(20)
    ]
    assert np.mean(ratios) == pytest.approx(1.0, abs=0.05)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["fast", "exact"])
def test_projected_vendi_is_close_to_the_exact_kernel(
    model: Any, tokenizer: Any, mode: str
) -> None:
    records = varied_records(64, seed=7) + [
        {"text": " ".join(random.Random(i).choices(WORDS, k=20))} for i in range(8)
    ]
    encoded = encode_examples(tokenizer, records, max_length=512, chat_template=True)
    covered = selected_parameters(model, "all")
    batch = collate(encoded, list(range(len(records))), pad_id=1)
    with parameter_scope(model, set(covered)):
        exact = unit(flat_gradients(per_example_gradients(model, batch, covered)))
    projected = GradientEngine(model, tokenizer, mode=mode, dim=1024).features(records)
    reference, ours = vendi(exact), vendi(projected)
    assert ours == pytest.approx(reference, rel=0.03), (mode, reference, ours)


def test_bfloat16_autocast_on_the_cpu(model: Any, tokenizer: Any) -> None:
    records = varied_records(4, seed=9)
    for mode in ("fast", "exact"):
        full = GradientEngine(model, tokenizer, mode=mode, dim=256, precision="float32")
        half = GradientEngine(model, tokenizer, mode=mode, dim=256, precision="bfloat16")
        assert full.describe()["precision"] == "float32"
        assert half.describe()["precision"] == "bfloat16 autocast"
        cosines = (full.features(records) * half.features(records)).sum(axis=1)
        assert cosines.min() > 0.95, (mode, cosines)


def test_auto_precision_is_bf16_only_for_fast_mode_on_a_cpu_with_native_bf16(
    model: Any, tokenizer: Any
) -> None:
    native = cpu_has_native_bf16()
    fast = GradientEngine(model, tokenizer, mode="fast", dim=32).describe()["precision"]
    exact = GradientEngine(model, tokenizer, mode="exact", dim=32).describe()["precision"]
    assert fast == ("bfloat16 autocast" if native else "float32")
    assert exact == "float32"  # the reference stays exact
    assert effective_precision("auto", "cpu") == "float32"  # training keeps float32


@pytest.mark.parametrize(
    ("flags", "native"),
    [
        ("fpu sse2 avx2 avx512f avx512bw", False),
        ("fpu avx2 avx512f avx512_bf16 avx512_vnni", True),
        ("fpu avx2 amx_bf16 amx_tile", True),
    ],
)
def test_native_bf16_is_read_from_the_cpu_flags(flags: str, native: bool) -> None:
    cpuinfo = f"processor\t: 0\nvendor_id\t: X\nflags\t\t: {flags}\nbugs\t\t: none\n"
    assert native_bf16_flags(cpuinfo) is native
    assert native_bf16_flags("processor : 0\n") is False


def test_progress_and_cancel(model: Any, tokenizer: Any) -> None:
    records = varied_records(10, seed=8)
    engine = GradientEngine(model, tokenizer, dim=32, batch_size=3)
    progress = RecordingProgress()
    engine.features(records, progress=progress, cancel=CancelToken())
    assert progress.updates[0] == (0, 10) and progress.updates[-1] == (10, 10)
    assert len(progress.updates) == 1 + 4
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(Cancelled):
        engine.features(records, cancel=cancel)


def test_length_buckets_group_similar_lengths() -> None:
    lengths = [5, 50, 6, 49, 7, 48, 100]
    batches = length_buckets(lengths, 2)
    assert sorted(i for b in batches for i in b) == list(range(7))
    assert batches[0] == [6, 1] and batches[1] == [3, 5]
    assert length_buckets(lengths, 10, max_tokens=150)[0] == [6]
    # counted at padded widths: 50 -> 64 tokens, so two fit in 150 but not three
    assert length_buckets(lengths, 10, max_tokens=150, step=32)[1] == [1, 3]


def test_padded_widths_are_few_whatever_the_lengths() -> None:
    assert [padded_width(n, 32) for n in (1, 32, 33, 150)] == [32, 32, 64, 160]
    assert padded_width(100, 32, cap=100) == 100 and padded_width(90, 32, cap=100) == 96
    assert padded_width(120, 32, cap=100) == 120  # never shorter than the row
    assert len({padded_width(n, WIDTH_STEP, cap=512) for n in range(1, 513)}) == 512 // WIDTH_STEP


def test_the_engine_pads_batches_to_few_widths(model: Any, tokenizer: Any) -> None:
    records = varied_records(12, seed=2)
    engine = GradientEngine(model, tokenizer, dim=32, batch_size=3, max_length=100)
    widths: list[int] = []
    hook = model.register_forward_pre_hook(
        lambda _module, _args, kwargs: widths.append(kwargs["input_ids"].shape[1]),
        with_kwargs=True,
    )
    try:
        engine.features(records)
    finally:
        hook.remove()
    lengths = {len(e) for e in engine.encode(records)}
    assert len(lengths) > 2 and widths
    assert set(widths) <= {32, 64, 96, 100}, (sorted(lengths), widths)


def test_fast_mode_refuses_token_routing_models(model: Any, tokenizer: Any) -> None:
    logra = LoGra(model, "all", seed=0, rank=4)
    with pytest.raises(PluginError, match="exact"):
        logra._mask_for((7, 32), False)


@pytest.mark.parametrize("where", ["forward", "backward"])
@pytest.mark.parametrize("mode", ["fast", "exact"])
def test_cancel_takes_effect_inside_a_batch(
    model: Any, tokenizer: Any, mode: str, where: str
) -> None:
    """A cancel during a batch's forward (or, once the forward is done, its backward) pass
    stops that batch: no batch is finished, and the model computes as before afterwards."""
    records = varied_records(6, seed=9)
    engine = GradientEngine(model, tokenizer, mode=mode, dim=32, batch_size=6)
    before = engine.features(records)
    cancel = CancelToken()
    # the first block's forward pass (the other blocks' checks come after it), or the output
    # head's, after which only the backward pass's checks are left
    site = model.model.layers[0] if where == "forward" else model.get_output_embeddings()
    handle = site.register_forward_hook(lambda *_: cancel.cancel())
    progress = RecordingProgress()
    try:
        with pytest.raises(Cancelled):
            engine.features(records, progress=progress, cancel=cancel)
    finally:
        handle.remove()
    assert progress.updates == [(0, 6)]  # the one batch never finished
    assert np.array_equal(engine.features(records), before)
