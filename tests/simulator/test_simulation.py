"""The bots and the round timeline: legal play, conservation, determinism, races, truth."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import cv2
import numpy as np
import pytest

from nerts.cli import main
from referee.cards import Card, Rank, Suit, full_deck
from referee.events import Event, NertsCall, Play, RoundEnd, TakeBack, Verdict
from referee.foundations import FoundationPile, Placed, why_illegal
from referee.game import GameReferee
from referee.layout import NERTS, PlayerLayout
from simulator.bots import LayoutMove, SeatBot
from simulator.pace import SimulationSettings, frames_in
from simulator.picture import PILE_TURN_OVER_S
from simulator.timeline import RoundSimulation


def play_round(**settings: object) -> tuple[RoundSimulation, list[Event]]:
    simulation = RoundSimulation(SimulationSettings(**settings))  # type: ignore[arg-type]
    raw = [event for state in simulation.frames(with_scenes=False) for event in state.events]
    return simulation, GameReferee(simulation.settings.options).referee_all(raw)


def seat_cards(simulation: RoundSimulation, seat: int) -> list[str]:
    """Every card of a seat's deck, wherever it is: layout, centre, or in a hand."""
    layout = simulation.bots[seat].layout
    cards = layout.nerts + layout.stock + layout.waste + [c for p in layout.work for c in p]
    cards += [c for slot in simulation.slots.values() for owner, c in slot.cards if owner == seat]
    frame = simulation.frame
    for motion in simulation.motions:
        if motion.seat != seat or motion.release <= frame:
            continue
        if motion.pile is not None or (motion.returning and motion.pickup <= frame):
            cards += motion.cards
    return sorted(map(str, cards))


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (4, 1), (6, 2)])
def test_every_card_is_somewhere_every_frame(players: int, seed: int) -> None:
    simulation = RoundSimulation(
        SimulationSettings(players=players, seed=seed, race_rate=0.5, mistake_rate=0.05)
    )
    deck = sorted(map(str, full_deck()))
    for _ in simulation.frames(with_scenes=False):
        for seat in range(players):
            assert seat_cards(simulation, seat) == deck


def test_rounds_end_by_a_call_or_by_everyone_stuck() -> None:
    _, called = play_round(players=4, seed=1)
    assert [e.to_dict()["type"] for e in called][-1] == "round_end"
    assert any(e.TYPE == "nerts_call" and e.to_dict()["valid"] for e in called)
    _, stuck = play_round(players=2, seed=2)  # a seed where both players run dry
    types = [e.TYPE for e in stuck]
    assert types[-1] == "round_end" and types[-2] == "stuck" and "nerts_call" not in types


def test_truth_is_deterministic_for_a_seed() -> None:
    first = play_round(players=3, seed=5, race_rate=0.3)[1]
    again = play_round(players=3, seed=5, race_rate=0.3)[1]
    other = play_round(players=3, seed=6, race_rate=0.3)[1]
    assert first == again and first != other


def test_racing_gives_late_plays_and_same_frame_ties() -> None:
    _, truth = play_round(players=4, seed=7, race_rate=0.5)
    verdicts = Counter(e.verdict for e in truth if isinstance(e, Play))
    assert verdicts[Verdict.LATE] >= 3 and verdicts[Verdict.TIE] >= 2
    ties = [e for e in truth if isinstance(e, Play) and e.verdict is Verdict.TIE]
    assert ties[0].frame == ties[1].frame and ties[0].card == ties[1].card


def test_rejected_cards_are_taken_back_by_their_owner() -> None:
    _, truth = play_round(players=4, seed=2, race_rate=0.5, mistake_rate=0.1)
    call_frame = next(e.frame for e in truth if e.TYPE == "nerts_call" and e.to_dict()["valid"])
    rejected = [
        (e.seat, e.card, e.pile)
        for e in truth
        if isinstance(e, Play)
        and e.verdict in (Verdict.LATE, Verdict.ILLEGAL)
        and e.frame < call_frame
    ]
    taken = [(e.seat, e.card, e.pile) for e in truth if isinstance(e, TakeBack)]
    assert len(rejected) >= 5  # the case this test is about occurs
    # Every rejected card taken back, as often as it was rejected, by its owner from its pile.
    assert not Counter(rejected) - Counter(taken)


def test_nerts_referee_reproduces_the_truth_and_video_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sim"
    argv = [
        "simulate",
        "--out",
        str(out),
        "--players",
        "3",
        "--seed",
        "2",
        "--seconds",
        "3",
        "--size",
        "320x180",
        "--race-rate",
        "0.5",
    ]
    assert main(argv) == 0
    video = cv2.VideoCapture(str(out / "video.mp4"))
    assert int(video.get(cv2.CAP_PROP_FRAME_COUNT)) == 90
    ok, frame = video.read()
    assert ok and frame.shape == (180, 320, 3)
    refereed = tmp_path / "refereed.jsonl"
    assert main(["referee", str(out / "truth.jsonl"), "--out", str(refereed)]) == 0
    assert refereed.read_text() == (out / "truth.jsonl").read_text()
    capsys.readouterr()


def test_whole_round_truth_is_reproduced_by_the_referee(tmp_path: Path) -> None:
    assert (
        main(
            [
                "simulate",
                "--out",
                str(tmp_path),
                "--seed",
                "4",
                "--race-rate",
                "0.5",
                "--mistake-rate",
                "0.05",
                "--no-video",
            ]
        )
        == 0
    )
    truth = (tmp_path / "truth.jsonl").read_text()
    assert '"verdict": "tie"' in truth and '"verdict": "late"' in truth
    assert main(["referee", str(tmp_path / "truth.jsonl"), "--out", str(tmp_path / "r.jsonl")]) == 0
    assert (tmp_path / "r.jsonl").read_text() == truth


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "9"], "--players must be 2 to 8"),
        (["--race-rate", "2"], "--race-rate must be between 0 and 1"),
        (["--size", "big"], "--size must be WIDTHxHEIGHT"),
        (["--size", "641x360"], "even numbers"),
        (["--size", "100x2160"], "--size 100x2160: the long side may be at most 4 times the short"),
        (["--backs", "red", "red", "blue", "green"], "every seat needs a different back"),
        (["--backs", "red"], "give one back per seat"),
        (["--deck", "no/such/folder"], "deck folder not found: no/such/folder"),
    ],
)
def test_bad_options_are_clear_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["simulate", "--out", str(tmp_path), "--seconds", "1", *argv]) == 2
    assert message in capsys.readouterr().err


def test_two_back_files_of_one_name_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A back is named by its file's stem: anna/back.png and ben/back.png would be one back."""
    files = [tmp_path / seat / "back.png" for seat in ("anna", "ben")]
    for number, path in enumerate(files):
        path.parent.mkdir()
        cv2.imwrite(str(path), np.full((350, 250, 3), 60 + 120 * number, np.uint8))
    argv = ["--backs", *map(str, files), "green", "black"]
    assert main(["simulate", "--out", str(tmp_path / "out"), "--seconds", "1", *argv]) == 2
    assert capsys.readouterr().err.endswith(
        f"error: {files[0]} and {files[1]} would be backs of one name, 'back' (a back is named "
        "by its file, less its extension): rename one of them\n"
    )


@pytest.mark.parametrize(("players", "seed"), [(4, 1)])
def test_cards_in_the_air_at_a_call_land_inside_the_grace(players: int, seed: int) -> None:
    simulation, truth = play_round(players=players, seed=seed, race_rate=0.5, mistake_rate=0.1)
    call = next(e for e in truth if e.TYPE == "nerts_call" and e.to_dict()["valid"])
    after = [e for e in truth if isinstance(e, Play) and e.frame > call.frame]
    assert after  # these seeds have cards in the air at the call
    grace = simulation.settings.options.in_air_grace_s
    assert all(play.t - call.t < grace for play in after)


def test_no_bot_plays_onto_a_complete_pile_by_mistake() -> None:
    """A complete pile is set aside, and its place may start a new pile: an Ace there is no
    mistake, and a bot's hurried one would be accepted. (A King that raced the pile's own and
    lost lands after it, late: a race, not a mistake.)"""
    _, truth = play_round(players=8, seed=23, race_rate=0.5, mistake_rate=0.3)
    completed = {e.to_dict()["pile"]: e.frame for e in truth if e.TYPE == "pile_complete"}
    assert completed
    onto = [e for e in truth if isinstance(e, Play) and completed.get(e.pile, e.frame) < e.frame]
    lost_races = [e for e in onto if e.verdict == Verdict.LATE and e.card.rank == Rank.KING]
    assert onto == lost_races


def _found_by_turning(bot: SeatBot, piles: Mapping[str, FoundationPile], free: bool) -> bool:
    """Whether turning through a copy of the bot's stock, two passes, shows a card that a
    foundation takes."""
    layout = bot.layout.copy()
    for _ in range(2 * ((len(layout.stock) + len(layout.waste)) // 3 + 2)):
        layout.turn_stock()
        top = layout.waste[-1] if layout.waste else None
        if top is not None and (
            (top.rank == Rank.ACE and free)
            or any(why_illegal(pile, top) is None for pile in piles.values())
        ):
            return True
    return False


def test_no_stuck_while_a_seat_could_turn_up_a_foundation_card() -> None:
    """A pass begun mid-stock once gave up with a card a foundation took a few turns away (three
    players, seed 17, an 8H two turns away; since bots also move parts of work piles, two
    players, seed 10)."""
    simulation = RoundSimulation(SimulationSettings(players=2, seed=10))
    stucks = 0
    for state in simulation.frames(with_scenes=False):
        if any(event.TYPE == "stuck" for event in state.events):
            stucks += 1
            piles, free = simulation.referee.piles, bool(simulation._free_pile_ids())
            assert not any(_found_by_turning(bot, piles, free) for bot in simulation.bots)
    assert stucks


def test_nerts_is_called_with_the_last_card_down() -> None:
    """Two players, seed 19: the caller's last Nerts card was still in the hand at the call,
    then landed illegal, and was never taken back."""
    simulation = RoundSimulation(
        SimulationSettings(players=2, seed=19, race_rate=0.5, mistake_rate=0.1)
    )
    calls = 0
    for state in simulation.frames(with_scenes=False):
        for event in state.events:
            if isinstance(event, NertsCall) and not simulation.bots[event.seat].layout.nerts:
                calls += 1
                in_hand = [
                    motion
                    for motion in simulation.motions
                    if motion.seat == event.seat
                    and motion.release > state.frame
                    and simulation.return_spots.get((event.seat, motion.cards[0])) == NERTS
                ]
                assert in_hand == []
    assert calls


class _CallsWatched(RoundSimulation):
    """Counts the calls a bot would make once the round is over (which the simulation drops)."""

    late_calls = 0

    def _check_calls(self) -> None:
        grace = self.settings.options.in_air_grace_s
        over = self.call_frame is not None and (self.frame - self.call_frame) / self.fps > grace
        if over:
            self.late_calls += sum(frame == self.frame for frame in self.pending_calls.values())
        super()._check_calls()


@pytest.mark.parametrize("seed", [15, 18])
def test_nobody_calls_nerts_after_the_round_has_ended(seed: int) -> None:
    """Four players, 24 fps, many mistakes: these seeds have bots about to call after the end
    (seed 5 of two players once had; the bots changed since)."""
    settings = SimulationSettings(players=4, seed=seed, fps=24.0, mistake_rate=0.2)
    simulation = _CallsWatched(settings)
    raw = [event for state in simulation.frames(with_scenes=False) for event in state.events]
    truth = GameReferee(settings.options).referee_all(raw)
    assert simulation.late_calls  # the case this test is about occurs
    end = next(index for index, event in enumerate(truth) if isinstance(event, RoundEnd))
    assert [event for event in truth[end:] if isinstance(event, NertsCall)] == []


def test_a_bot_moves_part_of_a_work_pile_to_free_a_foundation_card() -> None:
    """9D goes onto 10S, so that the 10C under it can go onto the clubs (the rules move a card
    with every card on top of it); moving whole piles only, the bot would be stuck."""
    work = [[Card.parse("10C"), Card.parse("9D")], [Card.parse("10S")], [Card.parse("KH")], []]
    layout = PlayerLayout([Card.parse("5H")], work, [Card.parse("2H")])
    bot = SeatBot(0, layout, random.Random(0))
    clubs = FoundationPile("F1", Suit.CLUBS, Rank.NINE, 1)
    move = bot.decide({"F1": clubs}, [])
    assert isinstance(move, LayoutMove) and str(move.move) == "run work0>work1 x1"


def test_a_hand_moves_from_where_it_is() -> None:
    """A new move reached from the seat's resting place even while the hand was still over the
    last one's target, and a take-back to come took the hand away at once: hands jumped up to
    700 mm in one frame (4 players, seed 3, 20 s: 49 steps over 200 mm)."""
    simulation = RoundSimulation(
        SimulationSettings(players=4, seed=3, race_rate=0.5, mistake_rate=0.1, seconds=20)
    )
    before: dict[int, tuple[float, float]] = {}
    steps = []
    for state in simulation.frames(with_scenes=True):
        assert state.scene is not None
        now = {hand.seat: (hand.x, hand.y) for hand in state.scene.hands}
        steps += [math.dist(now[seat], before[seat]) for seat in now.keys() & before.keys()]
        before = now
    assert len(steps) > 1000 and max(steps) < 300  # mm in one frame at 30 fps


def test_a_complete_pile_shows_its_king_before_it_is_turned_over() -> None:
    """The King that completes a pile was drawn face down from its landing frame on."""
    simulation = RoundSimulation(
        SimulationSettings(players=8, seed=23, race_rate=0.5, mistake_rate=0.3)
    )
    king: Placed | None = None
    faces: list[bool] = []  # the completing King's, each frame from its landing
    for state in simulation.frames(with_scenes=True):
        assert state.scene is not None
        if king is None:
            complete = [p for p in simulation.referee.piles.values() if p.complete]
            king = complete[0].cards[-1] if complete else None
        if king is not None:
            faces += [
                pose.face_up
                for pose in state.scene.cards
                if (pose.seat, pose.card) == (king.seat, str(king.card))
            ]
        if len(faces) > 2 * simulation.fps:
            break
    turned = round(PILE_TURN_OVER_S * simulation.fps)
    assert king is not None and all(faces[:turned]) and not any(faces[turned + 1 :])


def test_seconds_of_footage_hold_their_whole_frames_despite_binary_rounding() -> None:
    # 4.1 * 30 is 122.99999999999999: a round asked for 4.1 s came out 122 frames.
    assert [frames_in(4.1, 30), frames_in(0.29, 100), frames_in(1 / 30, 30)] == [123, 29, 1]
    simulation, _ = play_round(seconds=4.1, fps=30.0)
    assert simulation.frames_played == 123


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_no_seat_races_a_hurried_players_mistake(seed: int) -> None:
    """--race-rate sends other seats after a play for the same place: a mistaken play is no
    place to race for (both seats' 5H went illegal onto one pile, seed 3 of 2 players)."""
    _, truth = play_round(players=3, seed=seed, seconds=60, race_rate=1.0, mistake_rate=0.2)
    illegal = [e for e in truth if isinstance(e, Play) and e.verdict == Verdict.ILLEGAL]
    assert illegal
    copied = {(e.card, e.pile) for e in illegal if e.seat == 0} & {
        (e.card, e.pile) for e in illegal if e.seat != 0
    }
    assert copied == set()
