# SPDX-License-Identifier: Apache-2.0
"""Replay a request trace through the golden model and print the statistics.

Usage::

    python -m golden_model.replay TRACE.npz [--entries N] [--probe P] [--addr-width A]
        [--line-shift S] [--tag-width T] [--count-width C] [--ts-width W]
        [--tick-shift K] [--config c3=5,c2=3,w3=25,w2=50,w1=125,hash_seed=0x1234] [--json]

Parameters come from the trace's ``meta["params"]`` if it has them, overridden by the
options; the rest take their defaults. Only the block's parameters are read from
``meta["params"]`` (its name and its keys in any case, as ``meta["config"]``'s): a
workload generator keeps its own settings there too (``evaluation.workload.write_trace``
does), and the command names the keys it ignores. The configuration starts at the reset
one, then ``meta["config"]`` and ``--config`` (in that order) are committed at cycle 0. The output
is one ``name value`` line per statistic, the occupancy, and the replay speed (with
``--json``: one JSON object instead). A trace of more than :data:`CHUNK` requests is
replayed in parts of that many (the same answers as in one run), with a line on the
standard error after each part.

A trace or an option it cannot use is refused before the replay with one ``error:`` line
and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from regmap import PARAM_NAMES
from regmap.arguments import int_range

from .model import Config, KvAsuModel
from .trace import load_trace

__all__ = ["main", "parse_config", "trace_settings", "meta_settings", "settings_model",
           "ignored_note", "CHUNK"]

#: Requests per call of the model: bounds the memory of the replay's Python lists, and
#: sets how often a long replay reports its progress.
CHUNK = 1 << 20


def parse_config(text: str) -> dict[str, int]:
    """``"c3=5,w1=100,hash_seed=0x1234"`` to ``{"c3": 5, "w1": 100, "hash_seed": 0x1234}``.

    Values are Python integer literals (decimal, ``0x``, ``0b``...). Raises ``ValueError``
    for an unknown key or a malformed item.
    """
    config: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if not sep or key not in Config._fields:
            raise ValueError(f"bad configuration item {item!r}: expected KEY=VALUE with KEY "
                             f"one of {', '.join(Config._fields)}")
        try:
            config[key] = int(value.strip(), 0)
        except ValueError:
            raise ValueError(f"bad configuration value in {item!r}: not an integer") from None
    return config


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m golden_model.replay",
        description="Replay a KV-ASU request trace (.npz) through the golden model.")
    parser.add_argument("trace", help="trace file written by golden_model.trace.save_trace")
    for name in PARAM_NAMES:
        parser.add_argument(f"--{name.lower().replace('_', '-')}", dest=name.lower(),
                            type=int_range(0), metavar="N", help=f"elaboration parameter {name}")
    parser.add_argument("--config", default="", metavar="K=V,...",
                        help="configuration to commit first, e.g. c3=3,c2=2")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _lower_keys(meta: dict, key: str, path) -> dict:
    """``meta[key]`` (``key`` in any case) with its keys in lower case; ``ValueError`` if it
    is not a JSON object, or if ``meta`` or the section gives two keys that differ only in
    case (which of them applies would be a guess)."""
    names = [name for name in meta if name.lower() == key]
    if len(names) > 1:
        raise ValueError(f"meta of {path} gives {key} twice ({', '.join(names)})")
    section = meta[names[0]] if names else {}
    if not isinstance(section, dict):
        raise ValueError(f"meta[{key!r}] of {path} must be a JSON object")
    out: dict = {}
    for name, value in section.items():
        if name.lower() in out:
            raise ValueError(f"meta[{key!r}] of {path} gives {name.lower()} twice")
        out[name.lower()] = value
    return out


def trace_settings(trace, path) -> tuple[dict, dict, list[str]]:
    """The block's settings in a trace's ``meta``, as the replay commands (this one and the
    RTL's, ``verif.replay``) and the policy comparison (``evaluation.compare``) read them:
    ``(params, config, ignored)``, the block's parameters of ``meta["params"]`` and the
    configuration of ``meta["config"]`` (keys in lower case), and the keys of
    ``meta["params"]`` that are no parameter of the block (a workload generator keeps its
    own settings there too). ``ValueError``, naming ``path``, for a section that is not a
    JSON object, a key given twice, or a ``meta["config"]`` key that is no configuration
    register."""
    return meta_settings(trace.meta, path)


def meta_settings(meta: dict, path) -> tuple[dict, dict, list[str]]:
    """:func:`trace_settings` of a trace whose ``meta`` is ``meta``."""
    known = {name.lower() for name in PARAM_NAMES}
    given = _lower_keys(meta, "params", path)
    config = _lower_keys(meta, "config", path)
    unknown = sorted(set(config) - set(Config._fields))
    if unknown:
        raise ValueError(f"meta['config'] of {path} has unknown key(s) "
                         f"{', '.join(unknown)}: expected {', '.join(Config._fields)}")
    params = {key: value for key, value in given.items() if key in known}
    return params, config, sorted(set(given) - known)


def settings_model(params: dict, config: dict, params_from: str,
                   config_from: str) -> KvAsuModel:
    """The model the replay runs: a :class:`KvAsuModel` of ``params`` with ``config``
    committed at cycle 0 (both as :func:`trace_settings` gives them, keys in lower case).
    ``ValueError`` for parameters or a configuration the block refuses, naming where they
    came from (``params_from``, ``config_from``)."""
    try:
        model = KvAsuModel(**params)
    except (TypeError, ValueError) as error:
        raise ValueError(f"parameters ({params_from}): {error}") from None
    if config:
        try:
            model.commit(0, **config)
        except (TypeError, ValueError) as error:
            raise ValueError(f"configuration ({config_from}): {error}") from None
    return model


def ignored_note(path, ignored: list[str]) -> str:
    """The note that names the keys of ``meta["params"]`` a replay ignores."""
    return (f"note: meta['params'] of {path}: ignored, as no parameter of the block: "
            f"{', '.join(ignored)}")


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        trace = load_trace(args.trace)
        params, config, ignored = trace_settings(trace, args.trace)
        if ignored:
            print(ignored_note(args.trace, ignored), file=sys.stderr)
        params.update({name.lower(): getattr(args, name.lower()) for name in PARAM_NAMES
                       if getattr(args, name.lower()) is not None})
        config.update(parse_config(args.config))
        model = settings_model(params, config,
                               f"meta['params'] of {args.trace}, then the options",
                               f"meta['config'] of {args.trace}, then --config")
    except (OSError, ValueError, TypeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except MemoryError:       # (ENTRIES is given: the default table is small)
        print(f"error: not enough memory for a table of {params.get('entries')} entries",
              file=sys.stderr)
        return 2

    start = time.perf_counter()
    n = len(trace)
    for first in range(0, n, CHUNK):
        last = min(n, first + CHUNK)
        model.run(trace.cycle[first:last], trace.op[first:last], trace.addr[first:last],
                  trace.min_tlevel[first:last])
        if n > CHUNK:
            print(f"replayed {last} of {n} requests ({time.perf_counter() - start:.0f} s)",
                  file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    # A replay too short for the clock to see has no rate (None), not an infinite one.
    rate = round(len(trace) / seconds) if seconds > 0 else None

    report = {"requests": len(trace), **model.stats.as_dict(), "occupancy": model.occupancy,
              "seconds": round(seconds, 3), "requests_per_second": rate}
    if args.json:
        print(json.dumps({"params": model.params.as_dict(), "config": model.config.as_dict(),
                          **report}))
    else:
        for name, value in report.items():
            print(f"{name:20} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
