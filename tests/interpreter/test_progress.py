"""A run's progress in words, one text for the runs page, `dsl run` and MCP notifications:
the items known so far of a loop that grows, and the time left at the rate so far."""

from __future__ import annotations

from taskplate.interpreter import Progress, progress_text, time_left


def test_the_time_left_comes_from_the_rate_items_finished_at() -> None:
    progress = Progress(has_loop=True, items_total=10, items_done=2, started_at=100.0)
    assert progress.eta_ms(now=104.0) == 16_000  # 2 s an item, 8 to go
    assert Progress(has_loop=True, items_total=10, started_at=100.0).eta_ms(now=104.0) is None
    done = Progress(has_loop=True, items_total=2, items_done=2, started_at=100.0)
    assert done.eta_ms(now=104.0) is None


def test_a_growing_loop_says_its_total_is_what_is_known_so_far() -> None:
    items = {"total": 29, "done": 28, "succeeded": 27, "failed": 1, "growing": True, "etaMs": 800}
    assert progress_text({"totalSteps": 90, "doneSteps": 80, "items": items}) == (
        "28 of 29+ items done, 1 failed (the loop grows: the total is what is known so far), "
        "about 1 s left"
    )
    assert time_left({"items": {**items, "etaMs": 150_000}}) == "2 min"
    assert progress_text({"totalSteps": 3, "doneSteps": 1}) == "1 of 3 steps done"


def test_a_runs_last_progress_tells_no_time_left() -> None:
    progress = Progress(has_loop=True, items_total=10, items_done=2, started_at=1.0)
    assert "etaMs" in progress.to_json()["items"]
    assert "etaMs" not in progress.to_json(ended=True)["items"]  # failed or canceled half way
