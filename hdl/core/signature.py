# SPDX-License-Identifier: Apache-2.0
"""The ports of the KV-ASU core (``KvAsuCore``): the request and response streams, the
configuration and control it takes from the register block, and what it reports back."""

from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from regmap import MEM_ID_WIDTH

from ..layouts import STAT_NAMES, check_params, config_layout, request_layout, response_layout
from .options import CoreOptions

__all__ = ["CoreSignature"]


class CoreSignature(wiring.Signature):
    """The core's signature.

    Parameters
    ----------
    params : regmap.Params
    options : CoreOptions
        ``predictor`` adds ``policy``; a protected build (``options.protected``) the error
        ports.
    observation : wiring.Signature or None
        Adds the ``observe`` port (the formal harness's ``ObservationSignature``).

    Members (as the core sees them)
    -------------------------------
    req : In(stream.Signature(request_layout(params)))
        Requests. ``ready`` is low while ``hold``, ``flush`` or ``flushing`` is high, while
        ``enable`` is low, while the response buffer has no room for one more response,
        and (not serial) for an EVICT / EVICT_ANY while an OBSERVE accepted in one of the
        ``evict_gap`` previous cycles, or an EVICT / EVICT_ANY accepted in one of the
        ``evict_evict_gap`` previous cycles, could still change the LRU tail it reads
        (``ready`` depends on ``req.payload.op``; a QUERY moves no tail, and nothing but an
        EVICT waits after an EVICT). With ``policy`` 1 (``options.predictor``) instead: in
        the two cycles after an EVICT / EVICT_ANY (its FREEs), and for an EVICT /
        EVICT_ANY while an OBSERVE, EVICT or FREE was accepted in one of the
        ``predictor_gap`` previous cycles.
        Serial mode: also while any request is in flight. With ``nonblocking`` high,
        ``ready`` is high instead and the request is dropped in those cycles.
    rsp : Out(stream.Signature(response_layout(params)))
        Responses, one per accepted request, in order. Fixed latency ``latency`` cycles
        from acceptance to ``valid`` when the consumer keeps up.
    cfg : In(config_layout(params))
        Active configuration. Must not change while a request is in flight.
    enable : In(1)
        Requests are accepted only while high.
    nonblocking : In(1)
        ``MODE.NONBLOCKING`` (docs/spec-decisions.md D13): ``req.ready`` is high and a
        request the core could not take (every reason above) is dropped, without a
        response; it counts in ``stat_inc``'s ``req_dropped`` bit
        ``PipelineTiming.drop_stat_lag`` cycles later (one cycle before a request's own
        increments would come), which puts it on the right side of a CLEAR_STATS
        (``KvAsuRegisters.stat_lag``).
    hold : In(1)
        Requests are not accepted while high.
    flush : In(1)
        One-cycle pulse: untrack every line (only while no request is in flight and not
        ``flushing``). The LRU list and the occupancy are empty at the end of the pulse
        cycle, and the table starts a new generation (``Admission``); every
        ``2**GEN_WIDTH``-th flush or reset instead clears the table's valid bits by a sweep
        (``flushing``), docs/spec-decisions.md D12.
    idle : Out(1)
        No accepted request has a state update or a statistics increment still pending.
        A register: it rises one cycle after the last stage has emptied.
    flushing : Out(1)
        The clear sweep is running: high from the cycle after a ``flush`` pulse or a reset
        that finds every table generation used, for ``ENTRIES / PROBE`` cycles (one table
        row per cycle; the valid bits are in block RAM, which a reset does not clear).
    occupancy : Out(SLOT_WIDTH + 1)
        Number of tracked lines: a request's insert or eviction counts in the cycle its
        response enters the response FIFO (L, one cycle after E2), with its statistics.
    stat_inc : Out(len(STAT_NAMES))
        Bit ``i``: increment statistic ``STAT_NAMES[i]`` this cycle.
    cycle : In(64)
        The cycle counter (``Timebase.cycle``); a request accepted while ``cycle == c``
        has time ``c >> TICK_SHIFT``.
    policy : In(1)
        Only with ``options.predictor``: the committed ``POLICY.MODE``
        (docs/spec-predictor.md P2): 1 answers by the predictor mode (OBSERVE and QUERY
        one per cycle; an EVICT with its two FREEs behind it, ``predictor_gap``).
        Changes only with a flush, while no request is in flight.
    observe : Out(observation)
        Only with ``observation`` (``KvAsuCore(observe=True)``): the state of every stage
        in flight, for the formal harness (``ObservationSignature``).
    err_uncorrectable : Out(1)
        Only with protection (``options.protection``, docs/spec-decisions.md D11): a table
        or LRU read's registered check failed this cycle (the recovery's ``error``).
    recovery_start : Out(1), recovering : Out(1)
        Only with protection: a recovery starts this cycle (an uncorrectable error with
        none running: the cycle ``d`` of D11); a recovery is running (``req.ready`` low,
        ``Recovery``).
    err_started, err_corrected : Out(1), err_mem : Out(MEM_ID_WIDTH), err_addr : Out(SLOT_WIDTH)
        Only with protection: the report of the cycle before (registers): a recovery
        started in it (``recovery_start`` a cycle later); a table or LRU read's check
        found a corrected word; the memory (``regmap.MEM_IDS``) and slot of its first error
        (the table's before the LRU's, uncorrectable before corrected).
    """

    def __init__(self, params, options, *, observation=None):
        p = check_params(params)
        if not isinstance(options, CoreOptions):
            raise TypeError(f"options must be a CoreOptions, not {options!r}")
        if observation is not None and not isinstance(observation, wiring.Signature):
            raise TypeError(f"observation must be a wiring.Signature or None, not "
                            f"{observation!r}")
        members = {
            "req": In(stream.Signature(request_layout(p))),
            "rsp": Out(stream.Signature(response_layout(p))),
            "cfg": In(config_layout(p)),
            "enable": In(1),
            "nonblocking": In(1),
            "hold": In(1),
            "flush": In(1),
            "idle": Out(1),
            "flushing": Out(1),
            "occupancy": Out(p.SLOT_WIDTH + 1),
            "stat_inc": Out(len(STAT_NAMES)),
            "cycle": In(64),
        }
        if options.predictor:
            members["policy"] = In(1)
        if options.protected:
            members.update({"err_uncorrectable": Out(1), "err_started": Out(1),
                            "err_corrected": Out(1),
                            "err_mem": Out(MEM_ID_WIDTH), "err_addr": Out(p.SLOT_WIDTH),
                            "recovery_start": Out(1), "recovering": Out(1)})
        if observation is not None:
            members["observe"] = Out(observation)
        super().__init__(members)
