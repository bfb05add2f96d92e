"""Golden scenarios: races, same-frame ties, illegal plays, false calls, a King, a game to 20."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.event_parsing import event_from_dict
from referee.game import GameReferee
from referee.options import RuleOptions

GOLDEN = Path(__file__).parent / "golden"
SCENARIOS = sorted(p.name.removesuffix(".input.jsonl") for p in GOLDEN.glob("*.input.jsonl"))
OPTIONS = RuleOptions(target_score=20)


def load(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def referee_dicts(data: list[dict[str, object]]) -> list[dict[str, object]]:
    events = [event_from_dict(item) for item in data]
    return [event.to_dict() for event in GameReferee(OPTIONS).referee_all(events)]


def test_there_are_golden_scenarios() -> None:
    assert {"races", "illegal_and_false_call", "king_and_stuck", "game_to_target"} <= set(SCENARIOS)


@pytest.mark.parametrize("name", SCENARIOS)
def test_golden_scenario(name: str) -> None:
    expected = load(GOLDEN / f"{name}.expected.jsonl")
    assert referee_dicts(load(GOLDEN / f"{name}.input.jsonl")) == expected


@pytest.mark.parametrize("name", SCENARIOS)
def test_own_output_fed_back_gives_the_same(name: str) -> None:
    expected = load(GOLDEN / f"{name}.expected.jsonl")
    assert referee_dicts(expected) == expected


def test_verdicts_in_the_input_are_ignored() -> None:
    data = load(GOLDEN / "races.input.jsonl")
    lying = [{**item, "verdict": "illegal"} if item["type"] == "play" else item for item in data]
    assert referee_dicts(lying) == load(GOLDEN / "races.expected.jsonl")


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_tick_in_every_frame_changes_nothing(name: str) -> None:
    """A live log's writer sends a line every frame (README); the referee ignores its type, so
    the verdicts, and the frames the rounds end in, are those of the log without them."""
    data = load(GOLDEN / f"{name}.input.jsonl")
    times = {item["frame"]: item["t"] for item in data}
    last = max(int(str(frame)) for frame in times)
    ticked: list[dict[str, object]] = []
    for frame in range(last + 1):
        t = times.get(frame, round(frame / 30, 4))
        ticked += [item for item in data if item["frame"] == frame]
        ticked.append({"frame": frame, "t": t, "type": "tick"})
    refereed = [item for item in referee_dicts(ticked) if item["type"] != "tick"]
    assert refereed == load(GOLDEN / f"{name}.expected.jsonl")
