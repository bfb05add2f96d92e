"""The score sheet rebuilt from its journal: rounds, undo, fix, and the files rounds came from."""

from __future__ import annotations

import pytest

from referee.scoresheet import Scoresheet, ScoresheetError

GAME = {"type": "game", "players": {"0": "Anna", "1": "Ben"}, "target": 30}


def test_rounds_undo_and_fix_rebuild_the_totals() -> None:
    sheet = Scoresheet.from_journal(
        [
            GAME,
            {"type": "round", "scores": {"Anna": 12, "ben": -4}},
            {"type": "round", "scores": {"0": 5, "1": 9}},
            {"type": "undo"},
            {"type": "round", "scores": {"Anna": 20, "Ben": 1}},
            {"type": "fix", "round": 1, "scores": {"Ben": 2}},
        ]
    )
    assert sheet.rounds == [{0: 12, 1: 2}, {0: 20, 1: 1}]
    assert sheet.totals == {0: 32, 1: 3} and sheet.winner == 0


def test_a_file_scored_once_is_known_until_its_round_is_taken_back() -> None:
    sheet = Scoresheet.from_journal(
        [
            GAME,
            {"type": "round", "scores": {"Anna": 1, "Ben": 2}},
            {"type": "round", "scores": {"Anna": 3, "Ben": 4}, "fingerprint": "f1"},
            {"type": "round", "scores": {"Anna": 5, "Ben": 6}, "fingerprint": "f2"},
            {"type": "round", "scores": {"Anna": 7, "Ben": 8}, "fingerprint": "f2"},
        ]
    )
    assert sheet.fingerprints == [None, "f1", "f2", "f2"]
    assert [sheet.round_scored_from(f) for f in ("f1", "f2", "f3")] == [2, 3, None]
    sheet.undo()
    sheet.undo()
    assert sheet.round_scored_from("f2") is None and sheet.round_scored_from("f1") == 2


def test_a_malformed_fingerprint_names_its_entry() -> None:
    entry = {"type": "round", "scores": {"Anna": 1, "Ben": 2}, "fingerprint": 7}
    with pytest.raises(ScoresheetError, match="line 2: 'fingerprint' must be a string, got 7"):
        Scoresheet.from_journal([GAME, entry], ["line 1", "line 2"])
