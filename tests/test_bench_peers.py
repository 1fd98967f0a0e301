"""The peer table's machinery: inputs built outside the timers, the page rewritten in place."""

from __future__ import annotations

import time

import pytest

from benchmarks import bench_peers, performance_table


def test_an_input_built_inside_a_timer_fails_the_run():
    data = bench_peers.Data(1_000)
    data.get("wide")
    data.frozen = True
    assert data.get("wide").shape[1] == bench_peers.RATERS  # built before: served
    with pytest.raises(RuntimeError, match="inside a timer"):
        data.get("long")


PEERS = ("krippendorff", "evalica", "irrCAC", "pingouin", "raters", "raterkit", "crowdkit",
         "nltk", "sklearn", "statsmodels")


def test_every_input_a_row_names_is_built_by_prepare():
    for name in PEERS:
        pytest.importorskip(name)
    rows = bench_peers.build_rows()
    data = bench_peers.Data(1_000)
    for row in rows:
        data.frozen = False
        data.prepare(row.kl_call, row.peer_call)
        data.frozen = True
        row.kl_call(data)()  # would raise if an input were missing
        row.peer_call(data)()


def test_the_floor_cases_build_their_inputs_before_the_timers():
    for _, kind, kl_call, floor_call in bench_peers.floor_cases(1_000):
        assert kind in bench_peers.FLOOR_BOUND
        kl_call()
        floor_call()


def test_paired_interleaves_and_batches_small_calls():
    calls = []
    kl_times, peer_times, kl_value, peer_value = bench_peers.paired(
        lambda: calls.append("k") or 1.0, lambda: calls.append("p") or 2.0, repeat=3,
        budget=1.0, batch=1e-4)
    assert (kl_value, peer_value) == (1.0, 2.0)
    assert len(kl_times) == len(peer_times) == 3
    assert calls[:2] == ["k", "p"]  # the warm-up pair
    runs = [calls[2]]  # then alternating batches
    for call in calls[3:]:
        if call != runs[-1][-1]:
            runs.append(call)
        else:
            runs[-1] += call
    assert [r[0] for r in runs] == ["k", "p"] * 3


def payload():
    cell = {"size": 1_000, "status": "ok", "note": "", "kl_s": 2e-4, "peer_s": 1e-4,
            "ratio": 2.0, "ratio_min": 1.5, "ratio_max": 2.5, "repeats": 3, "diff": 0.0,
            "agree": True}
    skipped = {"size": 10_000, "status": "not run", "note": "> 60 s, extrapolated 90 s",
               "kl_s": 1e-3, "peer_s": 90.0, "ratio": None, "ratio_min": None,
               "ratio_max": 1e-3 / 90, "repeats": 0, "diff": None, "agree": True}
    return {"benchmark": "peers", "sizes": [1_000, 10_000], "repeat": 3,
            "peers": {"krippendorff": "0.9.0"}, "omp_num_threads": "1",
            "date": "2026-12-04 21:00 UTC", "machine": "2 CPUs", "wall_s": 60.0,
            "others_cpu_share": 0.5, "agree": True,
            "table": [{"work": "α nominal", "kl_input": "array", "peer": "krippendorff.alpha",
                       "cells": [cell, skipped]}],
            "floors": [], "overheads": {}, "memory": []}


def test_the_table_lists_the_cells_above_one_and_the_skipped_peers():
    text = performance_table.render(payload())
    assert "| α nominal | array | krippendorff.alpha | **2.00 (1.50–2.50)** | < 1.1e-05" in text
    assert "- α nominal from the array against krippendorff.alpha at 1 000: 2.00" in text
    assert "2026-12-04 21:00 UTC" in text and "50%" in text


def test_the_page_is_rewritten_between_its_markers_only():
    page = (performance_table.PAGE).read_text(encoding="utf-8")
    assert page.count(performance_table.START) == page.count(performance_table.END) == 1
    new = performance_table.rewrite(page, "NEW TABLE")
    head, tail = page.split(performance_table.START)[0], page.split(performance_table.END)[1]
    assert new == f"{head}{performance_table.START}\nNEW TABLE\n{performance_table.END}{tail}"
    assert performance_table.rewrite(new, "NEW TABLE") == new
    run_all = {"results": {"bench_peers": payload(), "bench_cli": {"benchmark": "cli"}}}
    assert performance_table.peers_result(run_all)["benchmark"] == "peers"


def test_a_failing_peer_is_recorded_and_a_failing_kappalab_fails_the_run():
    def fail():
        raise ValueError("no")

    rows = [bench_peers.Row("w", "in", "peer", lambda d: fail, lambda d: lambda: 1.0),
            bench_peers.Row("w", "in", "peer", lambda d: lambda: 1.0, lambda d: fail)]
    kl_fails, peer_fails = (r.cells[0] for r in bench_peers.measure(
        rows, [1_000], repeat=1, time_limit=60, memory_limit=2**30, budget=1))
    assert kl_fails.status == peer_fails.status == "error"
    assert kl_fails.note.startswith("kappalab: ValueError") and not kl_fails.agree
    assert peer_fails.note.startswith("peer: ValueError") and peer_fails.agree


def test_a_peer_too_slow_or_too_big_is_not_run_and_kappalab_is_timed_alone():
    calls = []
    rows = [bench_peers.Row("w", "in", "big", lambda d: lambda: 1.0,
                            lambda d: lambda: calls.append("big") or 1.0, memory=lambda n: 2.0**40),
            bench_peers.Row("w", "in", "slow", lambda d: lambda: 1.0,
                            lambda d: lambda: (calls.append("slow"), time.sleep(0.002), 1.0)[-1])]
    big, slow = bench_peers.measure(rows, [1_000, 10_000_000], repeat=1, time_limit=1.0,
                                    memory_limit=2**30, budget=0.1)
    assert big.cells[0].status == "not run" and big.cells[0].note == "needs 1024.0 GiB"
    assert big.cells[0].kl_s is not None and "big" not in calls
    assert slow.cells[0].status == "ok"
    assert slow.cells[1].status == "not run" and "extrapolated" in slow.cells[1].note
    assert slow.cells[1].ratio_max < 1e-3


def test_a_partial_run_is_not_put_on_the_page():
    with pytest.raises(SystemExit, match="partial bench_peers run"):
        performance_table.peers_result({**payload(), "only": "Fleiss"})
    with pytest.raises(SystemExit, match="partial"):
        performance_table.peers_result({"results": {"bench_peers": {**payload(),
                                                                    "only": "Fleiss"}}})
    assert performance_table.peers_result({**payload(), "only": None})["benchmark"] == "peers"


def test_a_cell_above_one_says_its_fixed_cost():
    result = payload()
    result["fixed_cost_size"] = 20
    result["table"][0]["cells"][0].update(fixed_s=1.5e-4, fixed_ratio=1.5)
    text = performance_table.render(result)
    assert ("- α nominal from the array against krippendorff.alpha at 1 000: 2.00 (200 µs "
            "against 100 µs; kappalab's fixed cost, its call on 20 annotations, 150 µs: 1.50× "
            "the peer's call)") in text


def test_the_fixed_cost_pairs_the_smallest_input_with_the_peer_at_the_cells_size():
    sizes = []

    def kl_call(data):
        sizes.append(("kl", data.size))
        return lambda: 1.0

    def peer_call(data):
        sizes.append(("peer", data.size))
        return lambda: 1.0

    row = bench_peers.Row("w", "in", "peer", kl_call, peer_call)
    slow = bench_peers.Cell(10_000, kl_s=2.0, peer_s=1.0, ratio=2.0)
    fast = bench_peers.Cell(1_000, kl_s=1.0, peer_s=2.0, ratio=0.5)
    result = bench_peers.RowResult("w", "in", "peer", [fast, slow])
    bench_peers.fixed_costs([row], [result], repeat=2, budget=0.1)
    assert sizes == [("kl", bench_peers.FIXED_COST_SIZE), ("peer", 10_000)]
    assert fast.fixed_ratio is None and slow.fixed_ratio is not None and slow.fixed_s > 0
