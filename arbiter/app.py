"""``arbiter``: the club's one command, installed with the package (pyproject.toml, [project.scripts]); ``make
run`` calls it too (``python -m arbiter run``).

    arbiter run [--lan] [--port N] [--public-url URL]   migrate, warm the engine, serve (Ctrl-C stops)
    arbiter backup                                      copy the embedded database to DATA_DIR/backups/
    arbiter restore FILE                                bring a backup back (after checking it)
    arbiter importlexicon ... / arbiter verifylog ...   the club's management commands
    arbiter manage COMMAND ...                          any Django management command

It runs from any folder with the safe settings, arbiter.settings.app (DEBUG off, a secret key made once in
the data folder: var/ in a checkout, the user's data folder installed), unless DJANGO_SETTINGS_MODULE names
others (`make run` names the checkout's development settings); DATA_DIR overrides the data folder. A server
that listens beyond loopback (--lan) runs with DEBUG off whatever the settings (arbiter/settings/__init__.py).
"""

from __future__ import annotations

import argparse
import os
import sys

# Management commands a club runs, offered as `arbiter NAME ...` (any other: `arbiter manage NAME ...`).
CLUB_COMMANDS = {
    "importlexicon": "import a word list (arbiter importlexicon NAME FILE)",
    "verifylog": "check a game's log chain",
    "pingworker": "ask the worker whether it answers",
    "changepassword": "set an arbitrator's password (arbiter changepassword USERNAME)",
    "createsuperuser": "create another arbitrator's account",
    "migrate": "bring the database up to date (arbiter run does it too)",
}


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arbiter", description="Duplicate Scrabble arbiter: the console, the phones and the projector "
                                    "served from this computer.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="serve the arbiter on this computer (Ctrl-C stops)")
    run.add_argument("--lan", action="store_true",
                     help="serve the club's network too (the phones on the same Wi-Fi): listen on 0.0.0.0")
    run.add_argument("--host", default=None,
                     help="the address to listen on (default 127.0.0.1, this computer only; --lan: 0.0.0.0)")
    run.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    run.add_argument("--public-url", default=None,
                     help="the address phones open, e.g. http://192.168.1.20:8000 (found by itself with --lan)")
    run.add_argument("--no-demo", action="store_true", help="in a checkout: no demo tournament")
    run.add_argument("--language", choices=["en", "fr"], default="en",
                     help="in a checkout: the demo tournament's language when it is created")
    run.add_argument("--no-warm", action="store_true", help="do not ready the compiled search before serving")
    commands.add_parser("backup", help="copy the embedded database to DATA_DIR/backups/ (SQLite's online backup)")
    restore = commands.add_parser("restore", help="bring a backup of the embedded database back (checked first)")
    restore.add_argument("file")
    for name, text in CLUB_COMMANDS.items():
        command = commands.add_parser(name, help=text, add_help=False)
        command.add_argument("args", nargs=argparse.REMAINDER)
    manage = commands.add_parser("manage", help="any Django management command (arbiter manage help)",
                                 add_help=False)
    manage.add_argument("args", nargs=argparse.REMAINDER)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and (argv[0] in CLUB_COMMANDS or argv[0] == "manage"):
        # Handed to Django whole, options included (argparse would take them for its own).
        if not setup():
            return 2
        from django.core.management import execute_from_command_line

        execute_from_command_line(["arbiter", *(argv[1:] if argv[0] == "manage" else argv)])
        return 0
    args = parser().parse_args(argv)
    host = None
    if args.command == "run":
        host = args.host or ("0.0.0.0" if args.lan else "127.0.0.1")
        club_search()
        if args.public_url is not None:
            os.environ["PUBLIC_URL"] = args.public_url
    if not setup(host=host):
        return 2
    from django.core.management import call_command
    if args.command == "run":
        if not args.no_warm:
            warm()
        return _call(call_command, "rundemo", host=host, port=args.port, no_demo=args.no_demo,
                     language=args.language)
    if args.command == "backup":
        return _call(call_command, "backupdb")
    if args.command == "restore":
        return _call(call_command, "restoredb", args.file)
    raise AssertionError(args.command)  # the others were handed to Django above


def setup(host: str | None = None) -> bool:
    """Django set up with the chosen settings (arbiter/settings/__init__.py), and the data folder made;
    False (the reason printed) when a setting in the environment is refused. ``host``: the address the
    server will listen on (beyond loopback, DEBUG off)."""
    from arbiter.env import SettingError, get_bool
    from arbiter.settings import choose, loopback

    try:
        debug_asked = get_bool("DEBUG")
    except SettingError:
        debug_asked = False
    if host is not None and not loopback(host) and debug_asked:
        print("arbiter: DEBUG ignored: a server the network can reach runs with DEBUG off", file=sys.stderr)
    choose(host=host)
    import django
    from django.conf import settings

    try:
        django.setup()
    except SettingError as error:
        print(f"arbiter: {error}", file=sys.stderr)
        return False
    settings.DATA_DIR.mkdir(parents=True, exist_ok=True)
    return True


def club_search() -> None:
    """The club's stack (the web server and its worker, which inherit the environment) runs the pure-Python
    move search unless ARBITER_ENGINE says otherwise: the compiled one (Numba) weighs about 130 MiB in each
    process that loads it and is compiled once per machine (a minute on a 2-core laptop), where a round's
    tops take the pure-Python search a few tenths of a second (docs/operations.md, "First start and
    memory"). ``ARBITER_ENGINE=compiled arbiter run`` runs the compiled one."""
    os.environ.setdefault("ARBITER_ENGINE", "python")


def warm() -> None:
    """Ready the move search before serving, as `make run` does, and say which search runs: the word list's
    graph built once (a few seconds) into the lexicon cache, and the compiled search, when ARBITER_ENGINE
    asks for it, compiled once per machine. In a process of its own, which exits: the web server does not
    keep what it loaded. It prints a line at least every few seconds while it works (engine/cli.py)."""
    import subprocess

    print("Readying the move search...", flush=True)
    from django.conf import settings

    subprocess.run([sys.executable, "-m", "engine", "warm", "--lexicon-cache", str(settings.LEXICON_CACHE_DIR)],
                   check=False)


def _call(call_command, *args, **options) -> int:
    from django.core.management.base import CommandError

    try:
        call_command(*args, **options)
    except CommandError as error:
        print(f"arbiter: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
