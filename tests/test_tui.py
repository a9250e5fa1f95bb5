"""``kardinal play`` driven through a pseudo-terminal, as a person would use it.

The moves are really entered: at each menu the test picks option 1 (legal by
construction, since the menus offer only legal choices), and sometimes types a move in
notation instead. Hidden information is checked on the screen: in hot-seat play no hand
is shown before the next person has pressed Enter (R13.3).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pexpect
import pytest
from conftest import BB, ES, FA, FR, LI, game

from kardinal.clients.terminal.game import reveal_index
from kardinal.clients.terminal.seats import SeatError, SeatSpec, build_seats, parse_seats_option, seats_from_argv
from kardinal.clients.text import describe_move
from kardinal.rules.moves import Draw, Exchange, Place, parse_move
from kardinal.rules.record import move_of, replay, rewind
from kardinal.rules.state import new_game

ROOT = Path(__file__).resolve().parent.parent
KARDINAL = Path(sys.executable).parent / "kardinal"
PROMPT = r"\] > "  # every menu prompt ends like this: "Play cards [1-3, e=exchange, ?=help] > "
ENTER = r"press Enter|Press Enter to continue"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

pytestmark = pytest.mark.skipif(not KARDINAL.exists(), reason="the kardinal script is not installed")


def spawn(*args: str, term: str = "dumb", cwd: Path | None = None) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR")}
    env["TERM"] = term
    return pexpect.spawn(str(KARDINAL), ["play", *args], dimensions=(40, 100), env=env, encoding="utf-8", timeout=30, cwd=str(cwd or ROOT))


def text(s: str) -> str:
    return ANSI.sub("", s)


def hand_on_screen(screen: str) -> list[str]:
    """The card codes of the last 'Your hand:' line, e.g. ['FA', 'FR', 'FR']."""
    lines = [x for x in text(screen).splitlines() if x.startswith("Your hand:")]
    assert lines, "no hand on the screen"
    return re.findall(r"\b([A-Z]{2}) \(", lines[-1])


def codes(state, seat: int) -> list[str]:
    return sorted(state.board.cards[k].short for k, c in enumerate(state.hands[seat]) for _ in range(c))


def play_to_end(child: pexpect.spawn, notation_every: int = 5, limit: int = 3000) -> str:
    """Answer every prompt until the final standings: option 1 or the last option (both legal,
    as the menus offer only legal choices), sometimes a move in notation instead."""
    prompts = 0
    for _ in range(limit):
        i = child.expect([PROMPT, ENTER, r"Final scoring \(R8\.4\)", pexpect.EOF])
        if i == 0:
            prompts += 1
            screen = text(child.before)
            if prompts % notation_every == 0 and "Draw a card" in screen.splitlines()[-1] and "blind from the draw pile" in screen:
                child.sendline("draw deck")
            elif prompts % notation_every == 0 and screen.splitlines()[-1].startswith("Play cards") and "e=exchange" in screen:
                m = re.search(r"Draw pile (\d+)", screen)
                if m and int(m.group(1)) > 0:
                    child.sendline(f"exchange {hand_on_screen(screen)[0]} for deck")
                else:
                    child.sendline("1")
            else:
                # option 1 mostly, the last option every third time (two pieces, jokers, ...)
                many = re.search(r"\[1-(\d+)", screen.splitlines()[-1])
                child.sendline(many.group(1) if many and prompts % 3 == 0 else "1")
        elif i == 1:
            child.sendline("")
        elif i == 2:
            screen = child.before + child.after
            child.expect(pexpect.EOF)
            return text(screen + child.before)
        else:
            raise AssertionError("the game ended without standings:\n" + text(child.before))
    raise AssertionError("the game did not end")


def test_whole_game_against_random_bots(tmp_path: Path):
    """One person against three random bots, through the menus, to the final standings."""
    save = tmp_path / "whole.json"
    child = spawn(
        "--seat", "Anna", "--bot", "random", "--bot", "random", "--bot", "random", "--seed", "11", "--record", str(save), term="xterm-256color"
    )  # fmt: skip
    out = play_to_end(child)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in out
    assert "Final scoring (R8.4)" in out and "Alliances (R10)" in out and "Chains (R11)" in out
    assert "Standings:" in out and "WINNER" in out
    assert re.search(r"\d\. Anna\s+\d+ points", out)
    # the record holds every decision; Anna's went through every kind of menu path
    final = replay(json.loads(save.read_text()))
    assert final.is_over
    mine = [d.move for d in final.history or [] if d.seat == 0]
    assert any(isinstance(m, Place) and m.num_pieces == 2 for m in mine), "no two-piece placement"
    assert any(isinstance(m, Place) and len(m.cloisters) == 2 for m in mine), "no two-cloister placement"
    assert any(isinstance(m, Exchange) for m in mine) and any(isinstance(m, Draw) and m.source == "deck" for m in mine)


def test_first_move_by_notation_and_menu_back():
    """The notation shortcut at the first prompt plays exactly that move; 0 goes back a step."""
    state = new_game(4, seed=21)
    place = next(m for m in state.legal_moves() if isinstance(m, Place))
    child = spawn("--seat", "Anna", "--bot", "random", "--bot", "random", "--bot", "random", "--seed", "21")
    child.expect(PROMPT)
    assert sorted(hand_on_screen(child.before)) == codes(state, 0)
    child.sendline("1")
    child.expect(PROMPT)
    child.sendline("0")  # back to the cards (or, if the step was the only choice, further)
    child.expect("Play cards")
    child.expect(PROMPT)
    child.sendline(str(place))
    child.expect(PROMPT)
    screen = text(child.before)
    assert screen.splitlines()[-1].startswith("Draw a card (")
    assert "» " + describe_move(state.board, "Anna", place) in re.sub(r"\s+", " ", screen)
    child.sendline("q")
    child.expect("Game abandoned")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_illegal_input_gets_a_message_and_a_new_prompt():
    state = new_game(4, seed=5)
    hand = codes(state, 0)
    missing = next(k.short for k in state.board.cards if k.short not in hand)
    child = spawn("--seat", "Anna", "--bot", "random", "--bot", "random", "--bot", "random", "--seed", "5")
    child.expect(PROMPT)
    child.sendline(f"play {missing} frankreich paris")  # a card Anna does not hold
    child.expect(r"Not allowed: R4\.\d+: you hold 0 \w[\w-]* cards?, not 1")
    child.expect(PROMPT)
    child.sendline(f"play {hand[0]},{hand[0]},{hand[0]},{hand[0]} england york")  # four cards
    child.expect("Not allowed: R4")
    child.expect(PROMPT)
    child.sendline("play XX frankreich paris")
    child.expect(r"Not a move: unknown card 'XX'")
    child.expect(PROMPT)
    child.sendline("99")
    child.expect("There is no choice 99")
    child.expect(PROMPT)
    child.sendline("fly to the moon")
    child.expect("Not understood")
    child.expect(PROMPT)
    child.sendline("u")  # nothing to undo yet
    child.expect("Nothing to undo")
    child.expect(PROMPT)
    child.sendline("?")
    child.expect("How to enter a move")
    child.expect(PROMPT)
    assert "Traceback" not in child.before
    child.sendeof()  # Ctrl-D
    child.expect("Game abandoned")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in text(child.before)


def test_hot_seat_hides_each_hand_until_enter():
    """Three people at one keyboard: 'Pass the keyboard' comes first, the hand only after Enter."""
    state = new_game(3, seed=8)
    child = spawn("--seat", "Anna", "--seat", "Ben", "--seat", "Cleo", "--seed", "8")
    child.expect(r"Pass the keyboard to (\w+) — press Enter")
    for seat, name in enumerate(("Anna", "Ben", "Cleo")):
        assert child.match.group(1) == name
        assert child.expect(["Your hand", pexpect.TIMEOUT], timeout=0.5) == 1, "a hand was shown before Enter"
        child.sendline("")
        child.expect(PROMPT)
        # a person's first turn shows the hand dealt to them, and nobody else's
        assert sorted(hand_on_screen(child.before)) == codes(state, seat)
        assert child.before.count("Your hand") == 1
        if seat == 0:
            child.sendline("u")
            child.expect("Undo is only possible when everybody else is a bot")
            child.expect(PROMPT)
        child.sendline("1")  # option 1 at every menu until the turn (and its draws) is done
        while child.expect([PROMPT, r"Pass the keyboard to (\w+) — press Enter"]) == 0:
            child.sendline("1")
    assert child.match.group(1) == "Anna"
    child.sendline("")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect("Game abandoned")
    child.expect(pexpect.EOF)


def test_save_and_resume(tmp_path: Path):
    """--record saves after every decision (with the seats and the seed); --resume continues
    the same game: the reshuffle comes from the saved seed, exactly as without the break."""
    save = tmp_path / "game.json"
    child = spawn("--seat", "Anna", "--bot", "random", "--bot", "random", "--seed", "33", "--record", str(save))
    for _ in range(12):
        i = child.expect([PROMPT, ENTER])
        child.sendline("1" if i == 0 else "")
    child.expect([PROMPT, ENTER])
    child.sendeof()
    child.expect(f"Game saved to {save}. Resume with:  kardinal play --resume {save}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    data = json.loads(save.read_text())
    assert data["seats"] == [{"name": "Anna", "bot": None}, {"name": "Otto", "bot": "random"}, {"name": "Konrad", "bot": "random"}]
    assert data["seed"] == 33
    assert len(data["actions"]) >= 12
    mid = replay(data)  # the core reads the save file as a record (extra keys are ignored)
    assert not mid.is_over
    assert not any(p.name.startswith(".game.json") for p in tmp_path.iterdir()), "a temporary file was left behind"

    child = spawn("--resume", str(save))
    child.expect(PROMPT)
    assert f"Resumed the game saved in {save}" in text(child.before)
    assert sorted(hand_on_screen(child.before)) == codes(mid, 0)
    child.sendline("1")
    play_to_end(child)
    child.close()
    assert child.exitstatus == 0
    final = json.loads(save.read_text())
    assert final["result"]["winners"]
    assert "seed" not in final, "a finished game's record holds no seed"
    # the same deal and decisions with seed 33 and no break give the same game
    s = new_game(3, seed=33)
    for a in final["actions"]:
        s.play(move_of(a)[1])
    assert s.is_over and s.scores == final["result"]["scores"]
    assert [s.board.cards[k].id for k in s.reshuffle or ()] == final.get("reshuffle", [])


def test_undo_goes_back_to_the_last_revealed_card(tmp_path: Path):
    save = tmp_path / "undo.json"
    state = new_game(4, seed=4)
    child = spawn("--seat", "Anna", "--bot", "random", "--bot", "random", "--bot", "random", "--seed", "4", "--record", str(save))
    child.expect(PROMPT)
    before = sorted(hand_on_screen(child.before))
    assert before == codes(state, 0)
    child.sendline("1")
    while True:  # finish the placement through the menus
        child.expect(PROMPT)
        if "Draw a card" in text(child.before).splitlines()[-1]:
            break
        child.sendline("1")
    assert len(json.loads(save.read_text())["actions"]) == 1
    child.sendline("u")
    child.expect(PROMPT)
    assert "Undone: back to before your decision 'play " in text(child.before)
    assert text(child.before).splitlines()[-1].startswith("Play cards")
    assert sorted(hand_on_screen(child.before)) == before
    assert json.loads(save.read_text())["actions"] == []
    # now exchange for a blind card: that reveals a card of the pile, so no undo past it
    child.sendline(f"exchange {before[0]} for deck")
    for _ in range(20):
        child.expect([PROMPT, ENTER])
        if "Play cards" in text(child.before).splitlines()[-1] or "Draw a card" in text(child.before).splitlines()[-1]:
            break
        child.sendline("")
    child.sendline("u")
    child.expect("Nothing to undo: a card has been revealed")
    child.sendline("q")
    child.expect("Game saved to")
    child.expect(pexpect.EOF)


def test_seats_in_command_line_order():
    argv = ["play", "--bot", "hard", "--seat", "Anna", "--seed", "3", "--seat=Ben", "--bot=random"]
    specs = seats_from_argv(argv, ["Anna", "Ben"], ["hard", "random"])
    assert [str(s) for s in specs] == ["bot:hard", "Anna", "Ben", "bot:random"]
    # called without that command line: people first, then bots
    assert [str(s) for s in seats_from_argv([], ["Anna"], ["hard"])] == ["Anna", "bot:hard"]
    seats = build_seats(parse_seats_option("Anna,bot:random,Ben"), None, ["random"], (3, 4, 5))
    assert [(s.name, s.bot) for s in seats] == [("Anna", None), ("Otto", "random"), ("Ben", None)]
    default = build_seats([], None, ["random"], (3, 4, 5))
    assert [(s.name, s.bot) for s in default] == [("You", None), ("Otto", "random"), ("Konrad", "random"), ("Heinrich", "random")]
    with pytest.raises(SeatError, match="unknown bot 'wizard'"):
        build_seats([SeatSpec(None, "wizard")], 3, ["random"], (3, 4, 5))
    with pytest.raises(SeatError, match="two players are called"):
        build_seats([SeatSpec("Anna", None), SeatSpec("anna", None), SeatSpec(None, "")], None, ["random"], (3, 4, 5))
    two = build_seats([SeatSpec("Anna", None), SeatSpec("Ben", None)], None, ["random"], (3, 4, 5))
    assert [(s.name, s.bot) for s in two] == [("Anna", None), ("Ben", None), ("Otto", "random"), ("Konrad", "random")]
    with pytest.raises(SeatError, match="for 3, 4, 5 players, not 2"):
        build_seats([SeatSpec("Anna", None), SeatSpec("Ben", None)], 2, ["random"], (3, 4, 5))
    with pytest.raises(SeatError, match="3 seats were given, but --players is 2"):
        build_seats(parse_seats_option("Anna,Ben,bot"), 2, ["random"], (3, 4, 5))


def test_bad_options_are_refused_cleanly(tmp_path: Path):
    child = spawn("--seat", "Anna", "--bot", "wizard", "--bot", "random")
    child.expect("error: unknown bot 'wizard'; choose from")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    child = spawn("--resume", str(bad))
    child.expect("cannot resume from")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "Traceback" not in text(child.before or "")
    child = spawn("--record", str(tmp_path / "no" / "such" / "dir.json"))
    child.expect(r"error: cannot write .*dir\.json: No such file or directory")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2


def test_undo_barrier_is_the_last_card_revealed_from_the_pile():
    """R13: undo stops at a blind draw, an exchange for the pile, a display refill or the reshuffle."""
    s = game(4, [[FR, FR, LI], [FA, FA, BB], [BB, ES, ES], [LI, LI, FA]], display=[BB, ES])
    s.play(parse_move("play FR,FR italien verona"))  # a joker pair: one cloister (elsewhere than Frankreich, R4.3)
    assert reveal_index(s) == -1  # nothing has left the draw pile since the deal
    s.play(parse_move("draw BB"))  # from the display, the hand is not full: no refill yet
    assert reveal_index(s) == -1
    before = s.copy()
    s.play(parse_move("draw ES"))  # the hand is full: the display is refilled from the pile
    assert reveal_index(s) == 2
    assert rewind(s, 2).key() == before.key()
    s.play(parse_move("exchange FA for deck"))  # seat 1 takes a blind card
    assert reveal_index(s) == 3


def test_hint_key_shows_the_bots_best_moves_and_changes_nothing():
    """t at the first prompt: the bot's three best moves from this seat's view, in words and
    notation; the game goes on from the same position, and a hinted move can be played."""
    state = new_game(4, seed=21)
    child = spawn("--seat", "Anna", "--bot", "random", "--bot", "random", "--bot", "random", "--seed", "21")
    child.expect(PROMPT)
    assert "t=hint" in text(child.before).splitlines()[-1]
    child.sendline("t")
    child.expect(r"Hint \(")
    child.expect(PROMPT)
    shown = text(child.before).replace("\r", "")
    lines = re.findall(r"^\s+([123])\. (.+?)  \[(.+?)\]$", shown, re.M)
    assert [n for n, _, _ in lines] == ["1", "2", "3"][: len(lines)] and lines
    legal = state.legal_moves()
    for _, words, notation in lines:
        move = parse_move(notation, state.board)
        assert move in legal
        assert words == describe_move(state.board, "", move).strip()
    assert "expected margin" in shown
    # nothing was played: the same hand, and the best hint is accepted as a move
    child.sendline(lines[0][2])
    child.expect(PROMPT)
    assert "» " + describe_move(state.board, "Anna", parse_move(lines[0][2], state.board)) in re.sub(r"\s+", " ", text(child.before))
    child.sendline("q")
    child.expect("Game abandoned")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
