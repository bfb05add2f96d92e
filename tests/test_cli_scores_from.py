"""`nerts scores add --from`: the rounds a refereed log scored, each round known as itself, and
the log's name kept readable on the sheet."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from nerts.cli import main
from nerts.eventlog import read_events
from nerts.sheets import load_sheet
from referee.events import RoundEnd
from tests.command_line import GOLDEN, run


def test_scores_from_refereed_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = str(tmp_path / "g.jsonl")
    run(capsys, "scores", game, "new", "--players", "A", "B", "C", "--target", "20")
    events = tmp_path / "e.jsonl"
    shutil.copy(GOLDEN / "game_to_target.expected.jsonl", events)
    status, stdout, _ = run(capsys, "scores", game, "add", "--from", str(events))
    assert status == 0 and "GAME OVER: A wins with 21." in stdout
    # Which back became which name: names typed in another order show here.
    assert stdout.startswith(
        f"{events}: seat 0 (red) is A, seat 1 (blue) is B, seat 2 (green) is C\n"
    )
    before = Path(game).read_text()
    status, _, err = run(capsys, "scores", game, "add", "--from", str(events))
    assert status == 2 and f"rounds 1, 2, 3 and 4 were scored from {events} already" in err
    assert Path(game).read_text() == before
    other = tmp_path / "two.jsonl"
    run(capsys, "scores", str(other), "new", "--players", "A", "B")
    status, _, err = run(capsys, "scores", str(other), "add", "--from", str(events))
    assert status == 2 and err.splitlines()[-1].endswith(
        f"{events} scores seats 0, 1, 2, but {other} has players 0=A, 1=B: add its rounds to a "
        "sheet of its own seats"
    )
    # Rounds of a game won part way through the file are warned of at the first of them.
    short = str(tmp_path / "short.jsonl")
    run(capsys, "scores", short, "new", "--players", "A", "B", "C", "--target", "10")
    status, _, err = run(capsys, "scores", short, "add", "--from", str(events))
    assert status == 0 and err.startswith(
        "warning: round 3: the game was over before this round (B had won with 10 in round 2)"
    )
    # A log given where a sheet belongs is named as what it is; one without round ends as
    # most likely not refereed.
    status, _, err = run(capsys, "scores", str(events), "show")
    assert status == 2 and err.splitlines()[-1].endswith(
        f"{events} is a log of table events, not a score sheet: the rounds of refereed events "
        f"go on a sheet with: nerts scores SHEET.jsonl add --from {events}"
    )
    # A round_end edited by hand (its scores no longer its cards') is named by its line.
    lines = events.read_text().splitlines()
    end_line = next(n for n, line in enumerate(lines) if '"round_end"' in line)
    lines[end_line] = lines[end_line].replace('"scores": {"0": 8,', '"scores": {"0": 58,')
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n")
    fresh = str(tmp_path / "fresh.jsonl")
    run(capsys, "scores", fresh, "new", "--players", "A", "B", "C")
    status, _, err = run(capsys, "scores", fresh, "add", "--from", str(edited))
    assert status == 2 and f"{edited}:{end_line + 1}: round 1 gives seat 0 58 points" in err
    assert "nothing added" in err and load_sheet(Path(fresh)).rounds == []
    lines[end_line] = lines[end_line].replace('"scores": {"0": 58,', '"scores": {"0": 8,')
    lines[end_line] = lines[end_line][:-1] + ', "bonus": {"0": 10, "1": 500}}'
    edited.write_text("\n".join(lines) + "\n")
    status, _, err = run(capsys, "scores", fresh, "add", "--from", str(edited))
    said = f"{edited}:{end_line + 1}: round 1 gives a bonus to seat 0 (10), seat 1 (500), but"
    assert status == 2 and said in err and load_sheet(Path(fresh)).rounds == []
    # One bonus, but to a seat with Nerts cards left (seat 1 has 2): no caller's.
    edited.write_text("\n".join(lines).replace('"0": 10, "1": 500', '"1": 30') + "\n")
    status, _, err = run(capsys, "scores", fresh, "add", "--from", str(edited))
    said = f"{edited}:{end_line + 1}: round 1 gives a bonus to seat 1 (30), but only its Nerts"
    assert status == 2 and said in err and load_sheet(Path(fresh)).rounds == []
    raw = GOLDEN / "races.input.jsonl"
    status, _, err = run(capsys, "scores", short, "add", "--from", str(raw))
    assert status == 2 and err.splitlines()[-1].endswith(
        f"{raw}: no round_end in this events file; a log not yet refereed has none: nerts "
        f"referee {raw} --out EVENTS.jsonl writes one with them"
    )
    judged = GOLDEN / "races.expected.jsonl"  # refereed, but its round goes on
    status, _, err = run(capsys, "scores", short, "add", "--from", str(judged))
    assert status == 2 and err.splitlines()[-1].endswith(
        f"{judged}: no round ended in this log (it stops before a valid Nerts call or a final "
        "stuck): nothing to add yet"
    )
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    status, _, err = run(capsys, "scores", short, "add", "--from", str(empty))
    assert (status, err.splitlines()[-1]) == (
        2,
        f"nerts scores: error: {empty} holds no events: nothing to add",
    )
    # A sheet given where a log of table events belongs is named as what it is.
    message = f"{game} is a score sheet ('nerts scores'), not a log of table events"
    for arguments in (["referee", game], ["scores", game, "add", "--from", game]):
        status, _, err = run(capsys, *arguments)
        assert status == 2 and err.splitlines()[-1].endswith(message)


def test_a_caller_whose_last_nerts_card_lost_its_race_keeps_the_bonus_on_the_sheet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seat 0 calls with its Nerts pile empty; its last Nerts card, the 2H, lost a race and
    comes back after the call: one Nerts card left (-2), and the bonus of a valid call."""
    deal = {
        "round": 1,
        "nerts_pile": 13,
        "seats": [{"seat": 0, "back": "red"}, {"seat": 1, "back": "blue"}],
    }
    lines = [
        {"frame": 0, "t": 0.0, "type": "round_start", **deal},
        {"frame": 5, "t": 0.2, "type": "play", "seat": 1, "card": "AH", "pile": "p"},
        {"frame": 6, "t": 0.25, "type": "play", "seat": 1, "card": "2H", "pile": "p"},
        {"frame": 10, "t": 0.4, "type": "play", "seat": 0, "card": "2H", "pile": "p"},
        {"frame": 10, "t": 0.4, "type": "nerts_count", "seat": 0, "remaining": 0},
        {"frame": 10, "t": 0.4, "type": "nerts_call", "seat": 0},
        {"frame": 12, "t": 0.5, "type": "take_back", "seat": 0, "card": "2H", "pile": "p"},
        {"frame": 12, "t": 0.5, "type": "nerts_count", "seat": 0, "remaining": 1},
        {"frame": 60, "t": 2.0, "type": "tick"},
    ]
    log, events = tmp_path / "log.jsonl", tmp_path / "events.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert run(capsys, "referee", str(log), "--out", str(events), "--caller-bonus", "10")[0] == 0
    sheet = tmp_path / "sheet.jsonl"
    run(capsys, "scores", str(sheet), "new", "--players", "Anna", "Ben")
    status, _, err = run(capsys, "scores", str(sheet), "add", "--from", str(events))
    assert status == 0, err
    assert load_sheet(sheet).rounds == [{0: 0 - 2 * 1 + 10, 1: 2 - 2 * 13}]


def test_a_log_of_no_play_is_said_to_end_no_round_not_to_want_refereeing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deal = {
        "round": 1,
        "nerts_pile": 13,
        "seats": [{"seat": 0, "back": "red"}, {"seat": 1, "back": "blue"}],
    }
    lines = [{"frame": 0, "t": 0.0, "type": "round_start", **deal}]
    lines += [{"frame": f, "t": f / 30, "type": "tick"} for f in range(1, 4)]
    log, events = tmp_path / "log.jsonl", tmp_path / "events.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert run(capsys, "referee", str(log), "--out", str(events))[0] == 0
    sheet = tmp_path / "sheet.jsonl"
    run(capsys, "scores", str(sheet), "new", "--players", "Anna", "Ben")
    status, _, err = run(capsys, "scores", str(sheet), "add", "--from", str(events))
    assert status == 2 and err.endswith(
        f"{events}: no round ended in this log (it stops before a valid Nerts call or a final "
        "stuck): nothing to add yet\n"
    )


def test_a_log_of_several_games_adds_the_one_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The referee starts a new game after one ends; a sheet keeps one game."""
    events = tmp_path / "evening.jsonl"
    assert run(capsys, "referee", str(GOLDEN / "game_to_target.input.jsonl"), "--target", "5",
               "--out", str(events))[0] == 0  # fmt: skip
    ends = [n for n, line in enumerate(events.read_text().splitlines(), 1) if "game_end" in line]
    rounds_by_game = _rounds_between(events, ends)
    assert len(ends) >= 2, "the golden game must end more than once at --target 5"
    sheet = tmp_path / "sheet.jsonl"
    run(capsys, "scores", str(sheet), "new", "--players", "A", "B", "C", "--target", "5")
    status, _, err = run(capsys, "scores", str(sheet), "add", "--from", str(events))
    games = len(rounds_by_game)
    assert (status, err.splitlines()[-1]) == (
        2,
        f"nerts scores: error: {events} holds {games} games (game_end on lines "
        f"{', '.join(map(str, ends))}), and a sheet keeps one: give --game 1 to --game {games}, "
        "each to a sheet of its own",
    )
    status, _, err = run(capsys, "scores", str(sheet), "add", "--from", str(events), "--game", "2")
    assert status == 0 and len(load_sheet(sheet).rounds) == rounds_by_game[1]
    status, _, err = run(capsys, "scores", str(sheet), "add", "--from", str(events), "--game", "9")
    assert (status, err.splitlines()[-1]) == (
        2,
        f"nerts scores: error: --game 9: {events} holds {games} games",
    )
    status, _, err = run(capsys, "scores", str(sheet), "add", "--from", str(events), "--game", "1")
    assert rounds_by_game[1] == 1  # said in the singular
    assert (status, err.splitlines()[-1]) == (
        2,
        f"nerts scores: error: {sheet} holds another game of {events} (its round 1), "
        "and a sheet keeps one game: give this one a sheet of its own (nerts scores NEXT.jsonl "
        "new --players ...)",
    )
    # The log grown since (other bytes) is still the log whose other game the sheet holds.
    grown = tmp_path / "grown.jsonl"
    grown.write_text(events.read_text() + '{"frame": 999999, "t": 99999.0, "type": "tick"}\n')
    status, _, err = run(capsys, "scores", str(sheet), "add", "--from", str(grown), "--game", "1")
    assert status == 2 and f"{sheet} holds another game of {grown} (its round 1)" in err


def _rounds_between(events: Path, ends: list[int]) -> list[int]:
    """How many rounds each game of a refereed log holds, by the lines of its game ends."""
    lines = events.read_text().splitlines()
    counts, start = [], 0
    for end in [*ends, len(lines)]:
        rounds = sum('"round_end"' in line for line in lines[start:end])
        if rounds:
            counts.append(rounds)
        start = end
    return counts


def test_game_numbers_are_for_add_from_and_count_from_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet, empty = tmp_path / "club.jsonl", tmp_path / "empty.jsonl"
    empty.write_text("")
    run(capsys, "scores", str(sheet), "new", "--players", "Anna", "Ben")
    status, _, err = run(capsys, "scores", str(sheet), "add", "Anna=1", "Ben=2", "--game", "1")
    assert (status, err.splitlines()[-1]) == (
        2,
        "nerts scores: error: --game picks a game of the log given by --from: give it too",
    )
    with pytest.raises(SystemExit):
        main(["scores", str(sheet), "add", "--from", str(empty), "--game", "0"])
    assert capsys.readouterr().err.splitlines()[-1].endswith("give a game's number from 1, got '0'")
    # The log's own trouble is told first, not that it holds no game 1.
    status, _, err = run(capsys, "scores", str(sheet), "add", "--from", str(empty), "--game", "1")
    assert err.splitlines()[-1] == f"nerts scores: error: {empty} holds no events: nothing to add"


def test_undo_takes_back_every_round_a_log_added(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log added to the wrong sheet is taken back whole, and can then go where it belongs."""
    game = str(tmp_path / "club.jsonl")
    events = tmp_path / "e.jsonl"
    shutil.copy(GOLDEN / "game_to_target.expected.jsonl", events)
    run(capsys, "scores", game, "new", "--players", "A", "B", "C", "--target", "100")
    run(capsys, "scores", game, "add", "A=1", "B=2", "C=3")
    assert run(capsys, "scores", game, "add", "--from", str(events))[0] == 0
    assert len(load_sheet(Path(game)).rounds) == 5
    status, stdout, _ = run(capsys, "scores", game, "undo")
    assert status == 0 and stdout.startswith(
        f"took back rounds 2 to 5 (added together from {events})\n"
    )
    assert load_sheet(Path(game)).rounds == [{0: 1, 1: 2, 2: 3}]
    assert run(capsys, "scores", game, "add", "--from", str(events))[0] == 0  # no longer refused
    assert run(capsys, "scores", game, "add", "A=0", "B=0", "C=1")[0] == 0
    assert run(capsys, "scores", game, "undo")[1].startswith("took back round 6 (A 0, B 0, C 1)\n")
    assert len(load_sheet(Path(game)).rounds) == 5


def test_a_round_is_known_as_itself_whatever_file_brings_it_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log's first two rounds, copied as a line was being written, then the whole log grown
    since: its new rounds only. The same log refereed again with a caller's bonus, or saved
    with other line ends: nothing."""
    whole = (GOLDEN / "game_to_target.expected.jsonl").read_text().splitlines(keepends=True)
    ends = [n for n, line in enumerate(whole) if '"round_end"' in line]
    early, grown = tmp_path / "early.jsonl", tmp_path / "grown.jsonl"
    early.write_text("".join(whole[: ends[1] + 1]) + whole[ends[1] + 1][:20])
    grown.write_text("".join(whole))
    game = str(tmp_path / "club.jsonl")
    run(capsys, "scores", game, "new", "--players", "A", "B", "C", "--target", "100")
    status, _, err = run(capsys, "scores", game, "add", "--from", str(early))
    assert status == 0 and len(load_sheet(Path(game)).rounds) == 2
    assert err == (
        f"warning: {early}:{ends[1] + 2}: the last line is cut short (a log still being "
        "written, or its writer stopped): left out\n"
    )
    status, _, err = run(capsys, "scores", game, "add", "--from", str(grown))
    assert status == 0 and len(load_sheet(Path(game)).rounds) == 4
    assert err == (
        f"warning: {game}: round 1 (as round 1), round 2 (as round 2) of {grown} are on the sheet "
        "already (the same rounds): left out\n"
    )
    crlf = tmp_path / "crlf.jsonl"
    crlf.write_bytes(grown.read_bytes().replace(b"\n", b"\r\n"))
    bonus = tmp_path / "bonus.jsonl"
    assert run(capsys, "referee", str(grown), "--caller-bonus", "10", "--out", str(bonus))[0] == 0
    for again in (crlf, bonus):
        status, _, err = run(capsys, "scores", game, "add", "--from", str(again))
        assert status == 2 and err.endswith(
            f"every round of {again} is on it already (round 1 (as round 1), round 2 (as round "
            "2), round 3 (as round 3), round 4 (as round 4)): nothing added\n"
        )
    assert len(load_sheet(Path(game)).rounds) == 4


def test_a_round_refereed_before_its_cards_in_the_air_were_down_is_the_same_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A live log refereed once just after the call, and again once a card in the air landed:
    the round ends at another frame, with another card, yet is the same round."""
    deal = {"frame": 0, "t": 0.0, "type": "round_start", "round": 1, "nerts_pile": 13,
            "seats": [{"seat": 0, "back": "red"}, {"seat": 1, "back": "blue"}]}  # fmt: skip
    called = [
        deal,
        {"frame": 5, "t": 0.5, "type": "play", "seat": 0, "card": "AH", "pile": "F0"},
        {"frame": 6, "t": 0.6, "type": "nerts_count", "seat": 0, "remaining": 0},
        {"frame": 10, "t": 1.0, "type": "nerts_call", "seat": 0, "valid": True},
    ]
    landed = [*called, {"frame": 12, "t": 1.2, "type": "play", "seat": 1, "card": "AS",
                        "pile": "F1"}]  # fmt: skip
    outs = []
    for name, lines in (("called", called), ("landed", landed)):
        log, out = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.out.jsonl"
        log.write_text("".join(json.dumps(line) + "\n" for line in lines))
        assert run(capsys, "referee", str(log), "--out", str(out))[0] == 0
        outs.append(out)
    ends = [next(e for e in read_events(out) if isinstance(e, RoundEnd)) for out in outs]
    assert (ends[0].frame, ends[1].frame) == (10, 12)  # the end moved, and a card came
    game = str(tmp_path / "club.jsonl")
    run(capsys, "scores", game, "new", "--players", "Anna", "Ben")
    assert run(capsys, "scores", game, "add", "--from", str(outs[0]))[0] == 0
    status, _, err = run(capsys, "scores", game, "add", "--from", str(outs[1]))
    assert status == 2 and "every round of" in err and "is on it already" in err
    assert len(load_sheet(Path(game)).rounds) == 1
    # Ben's AS landed in the air: the sheet is told how to take the log's points.
    assert f"to take the log's: nerts scores {game} fix 1 Anna=1 Ben=-25\n" in err


def test_a_sheet_from_before_rounds_were_known_warns_of_a_log_of_the_same_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its rounds say only which file they came from: the log grown since may hold them."""
    events = tmp_path / "e.jsonl"
    shutil.copy(GOLDEN / "game_to_target.expected.jsonl", events)
    game = tmp_path / "old.jsonl"
    old_round = {"type": "round", "scores": {"0": 1, "1": 2, "2": 3}}
    old_round |= {"source": str(events), "fingerprint": "0123456789abcdef"}
    game.write_text(
        json.dumps({"type": "game", "players": {"0": "A", "1": "B", "2": "C"}, "target": 100})
        + "\n"
        + json.dumps(old_round)
        + "\n"
    )
    status, _, err = run(capsys, "scores", str(game), "add", "--from", str(events))
    assert status == 0 and len(load_sheet(game).rounds) == 5
    assert err.startswith(
        f"warning: {game}: round(s) 1 came from a file named {events} before sheets kept which "
        "round each is"
    )


def test_names_from_another_system_leave_the_sheet_readable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log's or a photo's name whose bytes are not UTF-8 is kept escaped: written as Python
    holds it, the sheet could no longer be read; such a player's name is refused."""
    game = tmp_path / "club.jsonl"
    run(capsys, "scores", str(game), "new", "--players", "A", "B", "C")
    events = tmp_path / os.fsdecode(b"caf\xe9.jsonl")
    shutil.copy(GOLDEN / "game_to_target.expected.jsonl", events)
    assert run(capsys, "scores", str(game), "add", "--from", str(events))[0] == 0
    photo = tmp_path / os.fsdecode(b"centre\xe9.png")
    photo.write_bytes(b"a photo")
    assert (
        run(capsys, "scores", str(game), "add", "A=1", "B=2", "C=3", "--photo", str(photo))[0] == 0
    )
    status, stdout, _ = run(capsys, "scores", str(game), "show")
    assert status == 0 and "round" in stdout
    sources = {json.loads(line).get("source") for line in game.read_text().splitlines()}
    assert sources == {None, f"{tmp_path}/caf\\xe9.jsonl", f"{tmp_path}/centre\\xe9.png"}
    status, _, err = run(capsys, "scores", str(game), "add", "--from", str(events))
    assert status == 2 and f"scored from {tmp_path}/caf\\xe9.jsonl already; nothing added" in err
    other = tmp_path / "other.jsonl"
    status, _, err = run(
        capsys, "scores", str(other), "new", "--players", os.fsdecode(b"Ren\xe9"), "B"
    )
    assert status == 2 and "a player's name 'Ren\\xe9' is not UTF-8 text" in err
    assert not other.exists()


def test_a_player_who_joined_later_scores_nothing_for_the_rounds_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cleo sits down for round 2: round 1 was dealt to seats 0 and 1 only. Each round of the
    log goes on the sheet, hers at 0 where she was not dealt in, and said."""

    def deal(number: int, frame: int, seats: int) -> dict[str, object]:
        backs = [{"seat": seat, "back": ("red", "blue", "green")[seat]} for seat in range(seats)]
        t = frame / 30
        start = {"frame": frame, "t": t, "type": "round_start", "round": number}
        return start | {"seats": backs, "nerts_pile": 13}

    lines = [
        deal(1, 0, 2),
        {"frame": 5, "t": 0.2, "type": "play", "seat": 1, "card": "AH", "pile": "p"},
        {"frame": 9, "t": 0.3, "type": "stuck"},
        {"frame": 12, "t": 0.4, "type": "stuck"},
        deal(2, 30, 3),
        {"frame": 35, "t": 1.2, "type": "play", "seat": 2, "card": "AS", "pile": "q"},
        {"frame": 40, "t": 1.4, "type": "stuck"},
        {"frame": 45, "t": 1.5, "type": "stuck"},
    ]
    log, events = tmp_path / "log.jsonl", tmp_path / "events.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert run(capsys, "referee", str(log), "--out", str(events))[0] == 0
    sheet = tmp_path / "sheet.jsonl"
    run(capsys, "scores", str(sheet), "new", "--players", "Anna", "Ben", "Cleo")
    status, out, err = run(capsys, "scores", str(sheet), "add", "--from", str(events))
    assert status == 0, err
    assert err == f"warning: {events}: round 1: Cleo not dealt in: 0 points\n"
    assert out.startswith(
        f"{events}: seat 0 (red) is Anna, seat 1 (blue) is Ben, seat 2 (green) is Cleo\n"
    )
    assert load_sheet(sheet).rounds == [{0: -26, 1: 1 - 26, 2: 0}, {0: -26, 1: -26, 2: 1 - 26}]
    # Dan, on a sheet of four, sat out the whole log; a seat of the log not on a sheet has
    # no one to score for.
    four = tmp_path / "four.jsonl"
    run(capsys, "scores", str(four), "new", "--players", "Anna", "Ben", "Cleo", "Dan")
    status, _, err = run(capsys, "scores", str(four), "add", "--from", str(events))
    assert status == 0 and err == (
        f"warning: {events}: round 1: Cleo, Dan not dealt in: 0 points\n"
        f"warning: {events}: round 2: Dan not dealt in: 0 points\n"
    )
    two = tmp_path / "two.jsonl"
    run(capsys, "scores", str(two), "new", "--players", "Anna", "Ben")
    assert run(capsys, "scores", str(two), "add", "--from", str(events))[0] == 2
