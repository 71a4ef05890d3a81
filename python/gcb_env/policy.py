"""A trained policy as a file, and the one call that plays it: numpy only, so an evaluation can run it
without torch.

    from gcb_env.policy import load_policy

    policy = load_policy("ppo-default.npz")
    action = policy(obs["observation"], obs["action_mask"])   # an int the mask allows

The file is a numpy `.npz` of a multilayer perceptron (what gcb_env.baselines.ppo trains and saves):
arrays `w0, b0, w1, b1, ...` (weights as [out, in], as torch stores them) and `meta`, a JSON
object as bytes: `format` (1), `preprocess` ("symlog": sign(x) · log(1 + |x|) on each value of the
observation), `activation` ("tanh" between layers), `observation_size`, `n_actions`, and whatever
the trainer adds (scenario, env arguments, seed, steps). The action is the legal one with the
highest logit (the lowest index on a tie); with `sample=True` it is drawn from the masked softmax
with a generator seeded by `seed` (and again by `reset(seed)`).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np

__all__ = ["FORMAT", "MLPPolicy", "load_policy", "save_policy", "symlog"]

FORMAT = 1
_ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}


def symlog(x: np.ndarray) -> np.ndarray:
    """sign(x) · log(1 + |x|): counts of hundreds and tile indexes on one scale."""
    return np.sign(x) * np.log1p(np.abs(x))


_PREPROCESS = {"symlog": symlog, "none": lambda x: x}


class MLPPolicy:
    """callable(observation, mask) -> action; see the module's docstring."""

    def __init__(self, layers: Sequence[tuple[np.ndarray, np.ndarray]], meta: dict, sample: bool = False, seed: Optional[int] = None):
        if meta.get("format") != FORMAT:
            raise ValueError(f"a policy file of format {meta.get('format')!r}; this gcb_env reads format {FORMAT}")
        for key, table in (("preprocess", _PREPROCESS), ("activation", _ACTIVATIONS)):
            if meta.get(key) not in table:
                raise ValueError(f"a policy file whose {key} is {meta.get(key)!r}; known: {sorted(table)}")
        self.layers = [(np.asarray(w, dtype=np.float64), np.asarray(b, dtype=np.float64)) for w, b in layers]
        self.meta = dict(meta)
        self.sample = sample
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self._preprocess = _PREPROCESS[meta["preprocess"]]
        self._activation = _ACTIVATIONS[meta["activation"]]
        if self.layers[0][0].shape[1] != meta["observation_size"] or self.layers[-1][0].shape[0] != meta["n_actions"]:
            raise ValueError("the policy file's layers do not match its observation_size and n_actions")

    def reset(self, seed: Optional[int] = None) -> None:
        if self.sample:
            self._rng = np.random.default_rng(self._seed if seed is None else seed)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        x = self._preprocess(np.asarray(observation, dtype=np.float64))
        for n, (w, b) in enumerate(self.layers):
            x = x @ w.T + b
            if n < len(self.layers) - 1:
                x = self._activation(x)
        return x

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        observation = np.asarray(observation)
        if observation.shape != (self.meta["observation_size"],):
            raise ValueError(f"an observation of shape {observation.shape}; this policy takes ({self.meta['observation_size']},)")
        legal = np.asarray(mask) != 0
        if not legal.any():
            return 0
        logits = np.where(legal, self.logits(observation), -np.inf)
        if not self.sample:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(self._rng.choice(len(p), p=p / p.sum()))


def save_policy(path: Union[str, Path], layers: Sequence[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]) -> Path:
    """Writes the layers (weights as [out, in]) and meta (format, preprocess, activation and the sizes
    are filled in when missing) to `path`, a .npz file."""
    path = Path(path)
    full = {
        "format": FORMAT,
        "preprocess": "symlog",
        "activation": "tanh",
        "observation_size": int(layers[0][0].shape[1]),
        "n_actions": int(layers[-1][0].shape[0]),
        **meta,
    }
    arrays = {}
    for n, (w, b) in enumerate(layers):
        arrays[f"w{n}"] = np.asarray(w, dtype=np.float32)
        arrays[f"b{n}"] = np.asarray(b, dtype=np.float32)
    arrays["meta"] = np.frombuffer(json.dumps(full, sort_keys=True).encode(), dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    MLPPolicy(layers, full)  # what was written can be read back
    return path


def load_policy(path: Union[str, Path], sample: bool = False, seed: Optional[int] = None) -> MLPPolicy:
    """The policy in the file: callable(observation, mask) -> action."""
    try:
        with np.load(Path(path), allow_pickle=False) as data:
            if "meta" not in data.files:
                raise ValueError("no meta array")
            meta = json.loads(bytes(data["meta"]).decode())
            count = sum(1 for name in data.files if name.startswith("w"))
            layers = [(data[f"w{n}"], data[f"b{n}"]) for n in range(count)]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
        raise ValueError(f"{path}: not a gcb_env policy file ({err}); save_policy writes one") from None
    if not layers:
        raise ValueError(f"{path}: a policy file with no layers")
    return MLPPolicy(layers, meta, sample=sample, seed=seed)
