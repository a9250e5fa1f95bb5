"""The ``kardinal`` command line."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from kardinal.rules.board import Board, BoardError, get_board
from kardinal.rules.record import IllegalAction, RecordError, load_record, read_json, replay, score_position
from kardinal.rules.state import State
from kardinal.rules.variants import VARIANTS, VariantError, parse_variants

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Kardinal & König (Web of Power): rules engine, bots and clients.",
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        from kardinal import native

        try:
            typer.echo(f"kardinal {version('kardinal')}")
        except PackageNotFoundError:
            typer.echo("kardinal (not installed as a package)")
        typer.echo(f"rules core and bots' search: {native.status()}")
        raise typer.Exit()


@app.callback()
def _main(
    show_version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """Kardinal & König (Web of Power): rules engine, bots and clients."""


BoardOpt = Annotated[
    str | None, typer.Option("--board", help="An installed board's id (standard, reconstruction-1) or a board file (TOML).")
]
VariantOpt = Annotated[
    list[str] | None,
    typer.Option("--variant", help=f"A rule variant (R14; repeat for several): {', '.join(VARIANTS)}. Default: the rules as written."),
]


def _missing_web(e: ImportError, what: str) -> typer.Exit:
    """Say which extra a command needs (instead of a traceback); raise what it returns."""
    typer.echo(f"error: {what} needs the 'web' extra ({e.name} is missing): pip install 'kardinal[web]'", err=True)
    return typer.Exit(2)


def _variants(names: list[str] | None) -> tuple[str, ...]:
    try:
        return parse_variants(names or [])
    except VariantError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None


def _board(name: str | None) -> Board:
    try:
        return get_board(name)
    except BoardError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None


@app.command()
def board(board: BoardOpt = None) -> None:
    """Print the board: countries, sites, roads, alliances."""
    typer.echo(_board(board).describe())


OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        help="Write every game's result to this file as it ends (JSON lines: docs/research/cluster.md); it must not exist yet,"
        " unless --resume.",
    ),
]
ResumeOpt = Annotated[
    bool,
    typer.Option(
        "--resume",
        help="Continue the --out file of an interrupted run: play only the games it lacks (the other options must be those it"
        " was begun with).",
    ),
]
WithRecordsOpt = Annotated[bool, typer.Option("--with-records", help="Put every game's record in its line of the --out file.")]
WorkersOpt = Annotated[int | None, typer.Option(help="Processes (default: all cores); with --ray, the games running at once.")]
RayOpt = Annotated[
    bool,
    typer.Option(
        "--ray",
        help="Play the games as Ray tasks: on the cluster RAY_ADDRESS names or this machine runs (ray start), else on a new"
        " local Ray instance. Needs the 'ray' extra.",
    ),
]
RayAddressOpt = Annotated[
    str | None,
    typer.Option("--ray-address", metavar="ADDRESS", help="The Ray cluster's head (HOST:6379, or ray://HOST:10001); implies --ray."),
]


def _engine(ray: bool, address: str | None, workers: int | None) -> Any:
    """What plays the games: processes here, or Ray tasks (imported only then)."""
    if not ray and address is None:
        from kardinal.bots.runs import LocalEngine

        return LocalEngine(workers)
    try:
        from kardinal.research.cluster import RayEngine
    except ImportError as e:
        typer.echo(f"error: --ray needs the 'ray' extra ({e.name} is missing): pip install 'kardinal[ray]'", err=True)
        raise typer.Exit(2) from None
    return RayEngine(address, tasks=workers)


def _play_run(run: Any, engine: Any, on_game: Any = None, job: Any = None) -> None:
    """Play a run's games with a progress bar on standard error; ``on_game(result, extra,
    progress)`` for each; ``job``: the job's function (default: the plain game)."""
    from kardinal.bots.runs import EngineError, play_job
    from kardinal.bots.tournament import BotError
    from kardinal.clients.progress import RunProgress

    for note in run.notes:
        typer.echo(note, err=True)
    try:
        with RunProgress(run.settings.bots, run.total, run.results) as progress:
            for result, extra in run.play(engine, job or play_job):
                if result.game not in run.again:
                    progress.add(result)
                if on_game is not None:
                    on_game(result, extra, progress)
    except BotError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    except EngineError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        if run.out is not None:
            typer.echo(f"interrupted: {len(run.results)} of {run.total} games are in {run.out}; --resume plays the rest", err=True)
        raise
    finally:
        close = getattr(engine, "close", None)
        if close is not None:
            close()
    if hasattr(engine, "nodes") and engine.nodes:
        where = ", ".join(f"{node[:8]} {n}" for node, n in sorted(engine.nodes.items()))
        typer.echo(f"games per Ray node: {where}", err=True)


def _new_run(settings: Any, command: str, out: Path | None, resume: bool, records: Path | None, record_games: set[int]) -> Any:
    from kardinal.bots.runs import GameRun

    try:
        return GameRun(settings, command=command, out=out, resume=resume, records=records, record_games=record_games)
    except ValueError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None


@app.command()
def selfplay(
    players: Annotated[int, typer.Option(help="3, 4 or 5")] = 4,
    seed: Annotated[int | None, typer.Option(help="Seed for the deals and the bots (default: a random one; --resume: the file's).")] = None,
    games: Annotated[int, typer.Option(help="Number of games.")] = 1,
    record: Annotated[Path | None, typer.Option(help="Write the record of the (first) game here.")] = None,
    show: Annotated[bool, typer.Option("--show", help="Print the (first) game move by move.")] = False,
    board: BoardOpt = None,
    variant: VariantOpt = None,
    bots: Annotated[
        str | None,
        typer.Option(
            help="Bots, one per seat (e.g. hard,greedy,greedy,random), or one for every seat: they play the tournament's games."
            " Without it: uniformly random moves straight from the rules (fast; game N dealt with seed+N-1).",
        ),
    ] = None,
    workers: WorkersOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON (no line per game).")] = False,
    out: OutOpt = None,
    resume: ResumeOpt = False,
    with_records: WithRecordsOpt = False,
    records: Annotated[Path | None, typer.Option(help="Write every game's record into this folder.")] = None,
    ray: RayOpt = False,
    ray_address: RayAddressOpt = None,
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            help="Write every decision of every game into Parquet shards in this folder (docs/research/data.md; the 'research'"
            " extra): the bots' games (the random bot's without --bots); the results file is then DIR/results.jsonl unless --out"
            " names another.",
        ),
    ] = None,
) -> None:
    """Complete games of random moves, or of bots (--bots): a line per game; with bots
    (they play the games of a tournament of the same bots and seed) the statistics too."""
    from kardinal.bots.runs import BOTS_PLAY, RANDOM_MOVES, ResultsError, Settings, read_header
    from kardinal.bots.tournament import as_data, format_table, summarize
    from kardinal.clients.text import describe_game

    b = _board(board)
    rules = _variants(variant)
    if players not in b.removed_per_kind:
        typer.echo(f"error: the game is for {', '.join(map(str, b.player_counts))} players", err=True)
        raise typer.Exit(2)
    names = [x for x in (bots or "random").split(",") if x.strip()]
    if len(names) == 1:
        names = names * players
    selfplay_data: Any = None
    if data is not None:
        try:
            from kardinal.research import selfplay_data
        except ImportError as e:
            typer.echo(f"error: --data needs the 'research' extra ({e.name} is missing): pip install 'kardinal[research]'", err=True)
            raise typer.Exit(2) from None
        out = out or data / "results.jsonl"
    if seed is None and resume and out is not None and out.exists():
        try:
            seed = read_header(out)["settings"].get("seed")
        except ResultsError as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2) from None
    base = seed if seed is not None else random.SystemRandom().randrange(2**31)
    first = {0} if record is not None or show else set()
    kind = BOTS_PLAY if bots is not None or data is not None else RANDOM_MOVES  # the data is of bots' decisions
    settings = Settings(tuple(names), players, base, games, board, rules, None, with_records, kind)
    run = _new_run(settings, "selfplay", out, resume, records, first)
    engine = _engine(ray, ray_address, workers)
    writer: Any = None
    in_data: set[int] = set()
    if data is not None:
        try:
            in_data = selfplay_data.DataWriter.games_in(data) if data.exists() else set()
            if in_data and not resume:
                raise ValueError(f"{data} holds self-play data already: add --resume to play the games it lacks, or name another folder")
            sp = run.settings
            writer = selfplay_data.DataWriter(data, selfplay_data.data_metadata(sp.bots, players, base, board, sp.variants))
        except ValueError as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2) from None
        # a game whose result is written but whose rows were not (a shard is written every
        # so many games): played again for its rows
        run.play_again({r.game for r in run.results} - in_data)

    order = sorted(run.todo)  # a line per game in the games' order, however they finish
    waiting: dict[int, str] = {}

    def game_done(r: Any, extra: Any, progress: Any) -> None:
        if writer is not None and r.game not in in_data:
            writer.add(r.game, extra)
        if r.game == 0 and r.record is not None:
            if record is not None:
                record.write_text(json.dumps(r.record, indent=1) + "\n", encoding="utf-8")
            if show:
                progress.echo(describe_game(r.record, b))
        if as_json:
            return
        if kind == RANDOM_MOVES:
            waiting[r.game] = f"game {r.game + 1} (seed {base + r.game}): scores {r.scores}, winners {r.winners}"
        else:
            seats = ", ".join(run.settings.bots[e] for e in r.entry_of_seat)
            waiting[r.game] = f"game {r.game + 1} (seed {base}; seats {seats}): scores {r.scores}, winners {r.winners}"
        while order and order[0] in waiting:
            progress.echo(waiting.pop(order.pop(0)))

    try:
        _play_run(run, engine, game_done, selfplay_data.job_rows if writer is not None else None)
    finally:
        if writer is not None:
            writer.close()  # the games that came in go into a last shard, also when interrupted
    if first and 0 not in run.todo:
        typer.echo("game 1 was played by the earlier run: --record and --show need its record (--with-records keeps it)", err=True)
    results = run.sorted_results()
    stats = summarize(run.settings.bots, results, base)
    if as_json:
        typer.echo(json.dumps(as_data(stats, len(results), players, base) | {"seats_rotated": kind == BOTS_PLAY}))
    elif kind == BOTS_PLAY and games > 1:
        typer.echo("")
        typer.echo(format_table(stats, len(results), players, base))


def _load_and_replay(file: Path, board: Board | None) -> tuple[dict[str, Any], State]:
    try:
        data = load_record(file)
        return data, replay(data, board)
    except RecordError as e:
        typer.echo(f"malformed record: {e}", err=True)
        raise typer.Exit(2) from None
    except IllegalAction as e:
        typer.echo(f"illegal action: {e}", err=True)
        raise typer.Exit(1) from None


@app.command("replay")
def replay_cmd(
    file: Path,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    board: BoardOpt = None,
) -> None:
    """Check every action of a record and print the game with its scorings."""
    from kardinal.clients.text import describe_game

    b = _board(board) if board else None
    data, s = _load_and_replay(file, b)
    bd = s.breakdown()
    if as_json:
        out = {
            "scores": s.scores,
            "winners": s.winners or [],
            "breakdown": {k: bd[k] for k in ("intermediate_cloisters", "final_cloisters", "alliances", "chains")},
        }
        typer.echo(json.dumps(out))
        return
    typer.echo(describe_game(data, s.board))


def _people_of(data: dict[str, Any]) -> list[int] | None:
    """The people's seats of a record saved by ``kardinal play`` (its "seats" name the bots), else None."""
    seats = data.get("seats")
    if not isinstance(seats, list) or not all(isinstance(x, dict) and "bot" in x for x in seats):
        return None
    people = [i for i, x in enumerate(seats) if x["bot"] is None]
    return people or None


@app.command()
def review(
    file: Path,
    as_json: Annotated[bool, typer.Option("--json", help="Print the review as JSON.")] = False,
    seat: Annotated[
        list[int] | None, typer.Option("--seat", help="Review only this seat's decisions (0-based; repeat). Default: every seat.")
    ] = None,
    iterations: Annotated[int, typer.Option(help="Search iterations per decision (ismcts).")] = 400,
    seed: Annotated[int, typer.Option(help="Seed of the searches.")] = 0,
    board: BoardOpt = None,
) -> None:
    """Rate every main decision of a finished game by the bot (each from the view its
    player had then: the expected points it gave away against the best move found), and
    every player's chance to win after each turn."""
    from kardinal.bots.analysis import review_record
    from kardinal.clients.text import describe_review

    b = _board(board) if board else None
    data, s = _load_and_replay(file, b)
    if not s.is_over:
        typer.echo("error: the game is not over: only a finished game is reviewed", err=True)
        raise typer.Exit(2)
    if iterations < 1:
        typer.echo("error: --iterations must be at least 1", err=True)
        raise typer.Exit(2)
    seats = sorted(set(seat)) if seat else _people_of(data)
    if seats is not None and not all(0 <= p < s.n for p in seats):
        typer.echo(f"error: --seat must be 0..{s.n - 1}", err=True)
        raise typer.Exit(2)
    tty = sys.stderr.isatty()

    def progress(k: int, n: int) -> None:
        if tty:
            typer.echo(f"\rrating decisions: {k} of {n}", err=True, nl=k == n)

    rv = review_record(data, seats, iterations=iterations, seed=seed, board=s.board, progress=progress)
    if as_json:
        typer.echo(json.dumps(rv.to_json()))
        return
    typer.echo(describe_review(s.board, rv.to_json()))


@app.command()
def score(
    file: Path,
    as_json: Annotated[bool, typer.Option("--json", help="Print the scoring as JSON.")] = False,
    board: BoardOpt = None,
) -> None:
    """The final scoring (R9-R11) of a position file."""
    from kardinal.clients.text import describe_final

    b = _board(board) if board else None
    try:
        fin = score_position(read_json(file), b)
    except RecordError as e:
        typer.echo(f"malformed position: {e}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps({"cloisters": fin.cloisters, "alliances": fin.alliances, "chains": fin.chains, "total": fin.total}))
        return
    data = read_json(file)
    bb = b or get_board(data.get("board", "standard"))
    names = [f"Seat {i}" for i in range(len(fin.chains))]
    typer.echo(describe_final(bb, fin, names))


@app.command()
def bench(
    games: Annotated[int, typer.Option(help="Games per player count.")] = 300,
    seed: Annotated[int, typer.Option()] = 1,
    profile: Annotated[bool, typer.Option("--profile", help="Print a cProfile of 4-player games.")] = False,
    board: BoardOpt = None,
    variant: VariantOpt = None,
) -> None:
    """Random games per second and decisions per second, single process."""
    from kardinal.tools.bench import run_bench

    run_bench(games, seed, profile, board=_board(board) if board else None, variants=_variants(variant))


@app.command()
def tournament(
    bots: Annotated[str, typer.Option(help="Bots, one per seat, e.g. hard,greedy,greedy,random.")] = "greedy,random,random,random",
    games: Annotated[int, typer.Option(help="Number of games (rounded up to whole blocks of seat rotations).")] = 200,
    players: Annotated[int, typer.Option(help="3, 4 or 5")] = 4,
    seed: Annotated[int, typer.Option(help="Seed for the deals and the bots.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
    records: Annotated[Path | None, typer.Option(help="Write every game's record into this folder.")] = None,
    workers: WorkersOpt = None,
    board: BoardOpt = None,
    variant: VariantOpt = None,
    told: Annotated[
        int | None,
        typer.Option(help="An experiment: entry N (from 1) is told every other hand, to measure what the hidden cards are worth."),
    ] = None,
    out: OutOpt = None,
    resume: ResumeOpt = False,
    with_records: WithRecordsOpt = False,
    ray: RayOpt = False,
    ray_address: RayAddressOpt = None,
) -> None:
    """Bots play each other with rotating seats; win rates, scores, ratings, timings."""
    from kardinal.bots.runs import Settings
    from kardinal.bots.tournament import as_data, block_games, format_table, summarize

    names = [x for x in bots.split(",") if x.strip()]
    _board(board)
    rules = _variants(variant)
    try:
        total = block_games(games, players)
    except ValueError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    settings = Settings(tuple(names), players, seed, total, board, rules, None if told is None else told - 1, with_records)
    run = _new_run(settings, "tournament", out, resume, records, set())
    _play_run(run, _engine(ray, ray_address, workers))
    results = run.sorted_results()
    stats = summarize(run.settings.bots, results, seed)
    if as_json:
        data = as_data(stats, len(results), players, seed)
        if told is not None:
            data["told"] = told
        typer.echo(json.dumps(data))
    else:
        typer.echo(format_table(stats, len(results), players, seed))
        if told is not None:
            typer.echo(f"entry {told} ({names[told - 1].strip()}) was told every other player's hand")


@app.command()
def play(
    players: Annotated[int | None, typer.Option(help="3, 4 or 5; seats not given are filled with bots.")] = None,
    seat: Annotated[list[str] | None, typer.Option("--seat", help="A person at this terminal, in seat order (repeat).")] = None,
    bot: Annotated[list[str] | None, typer.Option("--bot", help="A bot (easy, medium, hard, greedy, random...), in seat order.")] = None,
    seats: Annotated[str | None, typer.Option(help='All seats at once, e.g. "Anna,bot:hard,Ben,bot:greedy".')] = None,
    seed: Annotated[int | None, typer.Option(help="Seed for the deal and the reshuffle.")] = None,
    record: Annotated[Path | None, typer.Option(help="Save the game here after every decision (private: it holds the deck).")] = None,
    resume: Annotated[Path | None, typer.Option(help="Continue a game saved with --record.")] = None,
    board: BoardOpt = None,
    variant: VariantOpt = None,
) -> None:
    """Play at this terminal: you (or several people, hot-seat) against bots. The rules: docs/rules.md."""
    from kardinal.clients.terminal import play as play_game

    rules = _variants(variant)
    raise typer.Exit(
        play_game(
            _board(board),
            variants=rules,
            players=players,
            persons=seat or [],
            bots=bot or [],
            seats=seats,
            seed=seed,
            record=record,
            resume=resume,
            board_given=board is not None,
        )
    )


def _setting(field: str, *decls: str) -> Any:
    """The option of a setting (kardinal.server.common.settings): its help and the default it
    shows from the setting's field; None when not given (the environment's value, else the
    default, then)."""
    try:
        from kardinal.server.common.settings import Settings, env_name, plain, shown_default
    except ImportError:  # without the web extra: the command says so when it runs
        return typer.Option(*decls)
    words = Settings.model_fields[field].description or ""
    help_text = f"{plain(words if words.startswith('`') else words[:1].upper() + words[1:])} ({env_name(field)})."
    return typer.Option(*decls, help=help_text, show_default=plain(shown_default(field)) or False)


def _settings(**given: Any) -> Any:
    """The settings (kardinal.server.common.settings): the options given over the environment;
    a malformed one ends the command with its message (exit status 2)."""
    try:
        from kardinal.server.common.settings import SettingsError, load_settings
    except ImportError as e:
        raise _missing_web(e, "the web server") from None
    try:
        return load_settings(**given)
    except SettingsError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None


SettingData = Annotated[Path | None, _setting("data", "--data")]
SettingDb = Annotated[str | None, _setting("db", "--db")]


@app.command()
def serve(
    host: Annotated[str | None, _setting("host", "--host")] = None,
    port: Annotated[int | None, _setting("port", "--port")] = None,
    data: SettingData = None,
    db: SettingDb = None,
    bot_pause: Annotated[float | None, _setting("bot_pause", "--bot-pause")] = None,
    bot_workers: Annotated[int | None, _setting("bot_workers", "--bot-workers")] = None,
    log_json: Annotated[bool | None, _setting("log_json", "--log-json")] = None,
    log_level: Annotated[str | None, _setting("log_level", "--log-level")] = None,
    root_path: Annotated[str | None, _setting("root_path", "--root-path")] = None,
    forwarded_allow_ips: Annotated[str | None, _setting("forwarded_allow_ips", "--forwarded-allow-ips")] = None,
    idle_days: Annotated[float | None, _setting("idle_days", "--idle-days")] = None,
) -> None:
    """Play in the browser: the lobby and live games on http://HOST:PORT/. Every option can
    also be set by its environment variable (KARDINAL_HOST, KARDINAL_PORT, ...: each
    option's help names it); an option given wins. The other settings: docs/host/install.md."""
    settings = _settings(
        host=host,
        port=port,
        data=data,
        db=db,
        bot_pause=bot_pause,
        bot_workers=bot_workers,
        log_json=log_json,
        log_level=log_level,
        root_path=root_path,
        forwarded_allow_ips=forwarded_allow_ips,
        idle_days=idle_days,
    )
    try:
        import uvicorn

        from kardinal.server.web import gcpolicy
        from kardinal.server.web.app import create_app
        from kardinal.server.web.http import MAX_BODY
    except ImportError as e:
        raise _missing_web(e, "the web server") from None

    from kardinal.server.web.logs import setup_logging

    setup_logging(json_lines=settings.log_json, level=settings.log_level)
    db_url = settings.database_url()
    executor = None
    if settings.bot_workers > 0:
        from kardinal.server.play.workers import bot_executor

        executor = bot_executor(settings.bot_workers)  # each worker ends itself when the server is gone
    from kardinal.server.storage import StorageError

    try:
        idle = settings.idle_days * 86400 if settings.idle_days > 0 else None
        application = create_app(settings=settings, db_url=db_url, executor=executor, idle_expiry=idle)
    except (StorageError, ValueError) as e:  # the database, or a setting checked as the app is made (mail: no secret)
        if executor is not None:
            executor.shutdown(wait=False)
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    gcpolicy.tune()  # everything is built: no garbage collection walks it again (gcpolicy)
    from kardinal.tools.openfiles import raise_nofile

    raised = raise_nofile()  # each WebSocket is an open file
    if raised is not None:
        typer.echo(f"(the limit on open files raised to {raised})")
    where = db_url.split("@")[-1] if db_url else settings.data / "kardinal.sqlite3"  # never a password
    root = "/" + settings.root_path.strip("/") if settings.root_path.strip("/") else ""
    typer.echo(f"Kardinal: http://{settings.host}:{settings.port}{root}/  (games in {where})")
    # a WebSocket message larger than the server's request limit closes the socket (1009);
    # no per-message compression: state messages are deltas of a few KB, and compressing each
    # for each connection cost the server more time than anything else (issue 13)
    uvicorn.run(
        application,
        host=settings.host,
        port=settings.port,
        log_level="warning",
        log_config=None,  # its lines go through the server's own logging (setup_logging)
        ws_max_size=MAX_BODY,
        ws_per_message_deflate=False,
        root_path=root,
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
    )


@app.command()
def loadtest(
    url: Annotated[str, typer.Option(help="The running server to load.")] = "http://127.0.0.1:8000",
    games: Annotated[int, typer.Option(help="Live games of three simulated people each, kept up all the time.")] = 10,
    spectators: Annotated[int, typer.Option(help="Spectators watching one more game.")] = 0,
    seconds: Annotated[float, typer.Option(help="How long to load it.")] = 20.0,
    rate: Annotated[
        float | None,
        typer.Option(
            help="Paced: the actions per second all games offer together, on a fixed schedule (latency counted from when"
            " each action was due). Without it: flat out (capacity; the latency then follows from it)."
        ),
    ] = None,
    together: Annotated[
        bool,
        typer.Option(
            help="Paced: start all games at once (they end together, and begin again together) instead of one after another"
            " over the time a game takes."
        ),
    ] = False,
    signed_in: Annotated[
        bool,
        typer.Option(
            "--signed-in",
            help="The people are signed in (an account made at the start): every request carries its session cookie"
            " (the server's signup limit must allow one).",
        ),
    ] = False,
    processes: Annotated[
        int,
        typer.Option(
            min=1,
            help="Processes of its own the spectators are dealt to (one opens a few thousand WebSockets in the time allowed).",
        ),
    ] = 1,
) -> None:
    """Load a running server with simulated people and spectators over WebSockets; report
    actions per second and the latency percentiles of the players' actions."""
    try:
        from kardinal.tools.loadtest import main as load_main
    except ImportError as e:
        raise _missing_web(e, "loadtest") from None
    if rate is not None and rate <= 0:
        raise typer.BadParameter("must be positive", param_hint="--rate")
    res = load_main(url, games, spectators, seconds, rate, together, signed_in, processes)
    if res.errors:
        raise typer.Exit(1)


@app.command()
def backup(
    target: Annotated[Path, typer.Argument(help="The new file to write the copy to.")],
    data: SettingData = None,
    db: SettingDb = None,
) -> None:
    """Copy the server's SQLite database, safely while the server runs (SQLite's online
    backup API). For PostgreSQL use pg_dump."""
    try:
        from kardinal.server.storage import StorageError, sqlite_backup
    except ImportError as e:
        raise _missing_web(e, "backup") from None
    settings = _settings(data=data, db=db)
    db, data = settings.db, settings.data
    if db is not None and "://" in db and not db.startswith("sqlite"):
        typer.echo("error: backup copies a SQLite database; for PostgreSQL use pg_dump", err=True)
        raise typer.Exit(2)
    path = Path(db.split("///", 1)[-1]) if db is not None else data / "kardinal.sqlite3"
    if not path.exists():
        typer.echo(f"error: there is no database at {path}", err=True)
        raise typer.Exit(2)
    try:
        out = sqlite_backup(path, target)
    except StorageError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"copied {path} to {out}")


admin_app = typer.Typer(
    no_args_is_help=True,
    help="The operator's work on a server's database: reports of chat lines, suspending or deleting an account, a new password, the audit log.",
)
app.add_typer(admin_app, name="admin")

AdminData = SettingData
AdminDb = SettingDb
AdminActor = Annotated[str | None, typer.Option("--actor", help="Your name in the audit log (default: the system user).")]
AdminReport = Annotated[int | None, typer.Option("--report", help="The report this acts on (closed as acted on).")]


def _admin(data: Path | None, db: str | None, actor: str | None) -> Any:
    """The operator's tools on the server's database (as ``kardinal serve`` finds it)."""
    try:
        import getpass

        from kardinal.server.community.admin import Admin
        from kardinal.server.storage import Storage, StorageError
    except ImportError as e:
        raise _missing_web(e, "admin") from None
    settings = _settings(data=data, db=db)
    db = settings.db
    try:
        if db is None:
            path = settings.data / "kardinal.sqlite3"
            if not path.exists():
                typer.echo(f"error: there is no database at {path}", err=True)
                raise typer.Exit(2)
            storage = Storage.sqlite(path)
        else:
            storage = Storage(db if "://" in db else f"sqlite:///{db}")
    except StorageError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    return Admin(storage, actor or getpass.getuser())


def _admin_run(fn: Any) -> Any:
    from kardinal.server.community.admin import AdminError

    try:
        return fn()
    except AdminError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None


def _count(n: int, thing: str) -> str:
    """A number of things in English: "1 open report", "2 open reports"."""
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def _show_report(r: Any, context: bool) -> None:
    from kardinal.server.community.admin import when

    writer = (
        f"{r.name} (seat {r.seat}{', an account' if r.account_id is not None else ', a guest'})"
        if r.seat is not None
        else f"{r.name} (spectator)"
    )
    typer.echo(f"#{r.id}  {when(r.at)}  [{r.status}]  game {r.game_id} line {r.line}")
    typer.echo(f"  by {r.reporter_name}: {r.reason}")
    typer.echo(f"  {writer}: {r.text}")
    if context:
        for x in r.context:
            mark = ">" if x["idx"] == r.line else " "
            who = x["name"] if x["kind"] == "say" else f"({x['kind']}) {x['name']}"
            typer.echo(f"   {mark} {x['idx']:>4} {who}: {x['text']}")


@admin_app.command("reports")
def admin_reports(
    everything: Annotated[bool, typer.Option("--all", help="Also the closed ones.")] = False,
    data: AdminData = None,
    db: AdminDb = None,
) -> None:
    """The reported chat lines waiting for you (oldest first)."""
    adm = _admin(data, db, None)
    found = adm.reports(everything)
    for r in found:
        _show_report(r, False)
    typer.echo(_count(len(found), "report" if everything else "open report"))


@admin_app.command("report")
def admin_report(
    report_id: Annotated[int, typer.Argument(help="The report's number.")], data: AdminData = None, db: AdminDb = None
) -> None:
    """One report, with the chat lines around it as they were when it was reported."""
    adm = _admin(data, db, None)
    _show_report(_admin_run(lambda: adm.report(report_id)), True)


@admin_app.command("close")
def admin_close(
    report_id: Annotated[int, typer.Argument(help="The report's number.")],
    dismiss: Annotated[bool, typer.Option("--dismiss", help="Nothing to act on (else: acted on).")] = False,
    data: AdminData = None,
    db: AdminDb = None,
    actor: AdminActor = None,
) -> None:
    """Close a report (acted on, or --dismiss)."""
    adm = _admin(data, db, actor)
    _admin_run(lambda: adm.close(report_id, dismiss))
    typer.echo(f"report {report_id} {'dismissed' if dismiss else 'closed'}")


@admin_app.command("suspend")
def admin_suspend(
    name: Annotated[str, typer.Argument(help="The account's name.")],
    days: Annotated[float, typer.Option("--days", help="For how many days.")] = 7.0,
    reason: Annotated[
        str,
        typer.Option(
            "--reason", help="Why, in words for the player: they are told it (at most 300 characters; also kept in the audit log)."
        ),
    ] = "",
    report: AdminReport = None,
    data: AdminData = None,
    db: AdminDb = None,
    actor: AdminActor = None,
) -> None:
    """Suspend an account: its sessions open nothing (their browsers are told why) and it cannot sign in or chat until then (its games go on)."""
    from kardinal.server.community.admin import when

    adm = _admin(data, db, actor)
    until = _admin_run(lambda: adm.suspend(name, days, reason, report))
    typer.echo(f"{name} is suspended until {when(until)}")


@admin_app.command("unsuspend")
def admin_unsuspend(
    name: Annotated[str, typer.Argument(help="The account's name.")],
    data: AdminData = None,
    db: AdminDb = None,
    actor: AdminActor = None,
) -> None:
    """Lift an account's suspension."""
    adm = _admin(data, db, actor)
    _admin_run(lambda: adm.unsuspend(name))
    typer.echo(f"{name} is no longer suspended")


@admin_app.command("delete")
def admin_delete(
    name: Annotated[str, typer.Argument(help="The account's name.")],
    yes: Annotated[bool, typer.Option("--yes", help="Really: this cannot be undone.")] = False,
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the audit log).")] = "",
    report: AdminReport = None,
    data: AdminData = None,
    db: AdminDb = None,
    actor: AdminActor = None,
) -> None:
    """Delete an account (its games stay, its seats named "deleted player")."""
    if not yes:
        typer.echo("error: deleting an account cannot be undone: add --yes", err=True)
        raise typer.Exit(2)
    adm = _admin(data, db, actor)
    seats = _admin_run(lambda: adm.delete(name, reason, report))
    renamed = "seat is" if seats == 1 else "seats are"
    typer.echo(f"{name} is deleted; {seats} {renamed} renamed by the running server")


@admin_app.command("new-password")
def admin_new_password(
    name: Annotated[str, typer.Argument(help="The account's name.")],
    data: AdminData = None,
    db: AdminDb = None,
    actor: AdminActor = None,
) -> None:
    """A new random password for an account, printed once (hand it to its owner by a way you trust); every session ends."""
    adm = _admin(data, db, actor)
    password = _admin_run(lambda: adm.new_password(name))
    typer.echo(f"the new password of {name}: {password}")


@admin_app.command("audit")
def admin_audit(
    limit: Annotated[int, typer.Option("--limit", help="How many entries, newest first.")] = 50,
    data: AdminData = None,
    db: AdminDb = None,
) -> None:
    """What operators did, newest first."""
    from kardinal.server.community.admin import when

    adm = _admin(data, db, None)
    for e in adm.audit(limit):
        detail = {k: v for k, v in e.detail.items() if k != "seats"}
        if "seats" in e.detail:
            detail["seats"] = len(e.detail["seats"])
        if "until" in detail:
            detail["until"] = when(detail["until"])
        typer.echo(
            f"{e.id:>5}  {when(e.at)}  {e.actor:<12} {e.action:<12} {json.dumps(detail, ensure_ascii=False)}{'  (pending)' if e.pending else ''}"
        )


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
