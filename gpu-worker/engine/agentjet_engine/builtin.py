"""The built-in model: tokenizer training, chat template, Qwen2 config and model-folder creation."""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import torch
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import GenerationConfig, PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM
from transformers.utils.chat_template_utils import render_jinja_template

from .fsutil import replace_dir

PAD_TOKEN = "<|endoftext|>"
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
SPECIAL_TOKENS = [PAD_TOKEN, IM_START, IM_END]
TOOL_CALL_TOKENS = ["<tool_call>", "</tool_call>"]
ASSISTANT_HEADER = f"{IM_START}assistant\n"

# Qwen-style template with a compact tools block and Hermes <tool_call> blocks (see PROTOCOL.md).
# Every line starts with a whitespace-stripping tag, so only `{{ }}` expressions produce output.
CHAT_TEMPLATE = r"""{%- if tools %}
{{- '<|im_start|>system\n' }}
{%- if messages and messages[0].role == 'system' and messages[0].content %}
{{- messages[0].content + '\n\n' }}
{%- endif %}
{{- '# Tools\n<tools>' }}
{%- for tool in tools %}
{{- '\n' + (tool | tojson) }}
{%- endfor %}
{{- '\n</tools>\nTo call a tool, reply with <tool_call>\n{"name": <name>, "arguments": <object>}\n</tool_call><|im_end|>\n' }}
{%- elif messages and messages[0].role == 'system' %}
{{- '<|im_start|>system\n' + (messages[0].content or '') + '<|im_end|>\n' }}
{%- endif %}
{%- for message in messages %}
{%- if loop.first and message.role == 'system' %}
{%- elif message.role == 'assistant' %}
{{- '<|im_start|>assistant\n' }}
{%- if message.content %}
{{- message.content }}
{%- endif %}
{%- if message.tool_calls %}
{%- for tool_call in message.tool_calls %}
{%- if tool_call.function is defined %}
{%- set tool_call = tool_call.function %}
{%- endif %}
{%- if not loop.first or message.content %}
{{- '\n' }}
{%- endif %}
{{- '<tool_call>\n{"name": ' + (tool_call.name | tojson) + ', "arguments": ' }}
{%- if tool_call.arguments is string %}
{{- tool_call.arguments }}
{%- else %}
{{- tool_call.arguments | tojson }}
{%- endif %}
{{- '}\n</tool_call>' }}
{%- endfor %}
{%- endif %}
{{- '<|im_end|>\n' }}
{%- else %}
{{- '<|im_start|>' + message.role + '\n' + (message.content or '') + '<|im_end|>\n' }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|im_start|>assistant\n' }}
{%- endif %}"""

# Model sizes: "test" is tiny for fast unit tests, "default" is the ~3.5M-parameter embedded model.
SIZES: dict[str, dict[str, int]] = {
    "test": dict(
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        intermediate_size=176,
        max_position_embeddings=256,
    ),
    "default": dict(
        hidden_size=256,
        num_hidden_layers=4,
        num_attention_heads=4,
        num_key_value_heads=2,
        intermediate_size=704,
        max_position_embeddings=1024,
    ),
}

# Qwen2's pre-tokenizer regex: it isolates every digit (`\p{N}`), so numbers are one token per digit.
# Using Qwen2's exact split matters: transformers 5 `AutoTokenizer` rebuilds any `qwen2` tokenizer with
# this regex (ignoring tokenizer.json's pre-tokenizer), so the folder tokenizes the same either way.
PRETOKENIZE_REGEX = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

_MARKERS = re.compile("|".join(re.escape(t) for t in SPECIAL_TOKENS + TOOL_CALL_TOKENS))


def render_text(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, add_generation_prompt: bool = False
) -> str:
    """Render a conversation with the built-in template, exactly as `apply_chat_template` would."""
    rendered, _ = render_jinja_template(
        conversations=[messages],
        tools=tools or None,
        chat_template=CHAT_TEMPLATE,
        add_generation_prompt=add_generation_prompt,
    )
    return rendered[0]


def _marker_free_pieces(texts: Iterable[str]) -> Iterator[str]:
    """Split texts around special/added tokens so BPE never learns merges that span them."""
    for text in texts:
        for piece in _MARKERS.split(text):
            if piece:
                yield piece


def train_tokenizer(texts: Iterable[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """Train a byte-level BPE tokenizer (digits split one per token) with the built-in chat template.

    The result has at most `vocab_size` tokens in all (fewer when the corpus runs out of merges).
    """
    min_size = 256 + len(SPECIAL_TOKENS) + len(TOOL_CALL_TOKENS)
    if vocab_size < min_size:
        raise ValueError(f"vocab_size must be at least {min_size} (byte alphabet + special tokens), got {vocab_size}")
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(PRETOKENIZE_REGEX), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size - len(TOOL_CALL_TOKENS),  # the added tool-call tokens complete `vocab_size`
        min_frequency=2,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    backend.train_from_iterator(_marker_free_pieces(texts), trainer=trainer)
    backend.add_tokens([AddedToken(t, special=False, normalized=False) for t in TOOL_CALL_TOKENS])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        pad_token=PAD_TOKEN,
        eos_token=IM_END,
        extra_special_tokens=[IM_START],
        chat_template=CHAT_TEMPLATE,
        clean_up_tokenization_spaces=False,
        padding_side="left",
    )
    return tokenizer


def make_config(vocab_size: int, size: str = "default", *, pad_token_id: int = 0, eos_token_id: int = 2) -> Qwen2Config:
    """A Qwen2 config for the built-in model; `size` is "test" (tiny) or "default" (~3.5M params)."""
    if size not in SIZES:
        raise ValueError(f"size must be one of {sorted(SIZES)}, got {size!r}")
    return Qwen2Config(
        vocab_size=vocab_size,
        tie_word_embeddings=True,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        rms_norm_eps=1e-6,
        pad_token_id=pad_token_id,
        bos_token_id=None,
        eos_token_id=eos_token_id,
        **SIZES[size],
    )


def new_model(tokenizer: PreTrainedTokenizerFast, size: str, seed: int) -> Qwen2ForCausalLM:
    """A freshly initialised fp32 built-in model whose config matches `tokenizer`."""
    config = make_config(len(tokenizer), size, pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id)
    tokenizer.model_max_length = config.max_position_embeddings
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config).float()
    model.generation_config = GenerationConfig(eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    return model


def save_model_folder(
    model: Qwen2ForCausalLM,
    tokenizer: PreTrainedTokenizerFast,
    out_dir: str | Path,
    extra_files: dict[str, str] | None = None,
) -> Path:
    """Save model + tokenizer as an ordinary HF folder, atomically (temp dir, then rename)."""
    out = Path(out_dir).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        for name, text in (extra_files or {}).items():
            (tmp / name).write_text(text, encoding="utf-8")
        tmp.chmod(0o755)  # mkdtemp makes 0700 folders; a model folder is ordinary readable data
        for file in tmp.iterdir():
            file.chmod(0o644)
        replace_dir(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def create_model_folder(
    texts: Iterable[str], out_dir: str | Path, size: str = "default", seed: int = 0, vocab_size: int = 2048
) -> Path:
    """Train a tokenizer on `texts`, initialise a model of `size` and save both as an HF folder."""
    tokenizer = train_tokenizer(texts, vocab_size)
    model = new_model(tokenizer, size, seed)
    return save_model_folder(model, tokenizer, out_dir)
