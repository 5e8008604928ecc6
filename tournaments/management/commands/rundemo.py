"""Start the whole service on this machine: migrate, the arbitrator's account (the demo data in a checkout), the
web server in this process and a Celery worker beside it: two processes in all (`arbiter run` and `make run`
both come here, through arbiter/app.py).

``--host 127.0.0.1`` (the default) serves this computer only. ``--host 0.0.0.0`` serves the club's network:
the phones on the same Wi-Fi open the machine's address, which is printed with a QR code of the join page.
That address (PUBLIC_URL) is what the console and the projector put in their join links, and the allowed
hosts follow it; both can be given in the environment instead (PUBLIC_URL, ALLOWED_HOSTS).

Ctrl-C (or SIGTERM) stops both processes cleanly. A worker that exits on its own is started again, after a
pause that grows to 30 s, and each exit is printed (arbiter/supervise.py). Nothing here is POSIX-only (no
setsid, process groups or fork): the same code runs on Windows.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import ipaddress
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from arbiter.places import lan_command
from arbiter.settings import loopback as is_loopback
from arbiter.supervise import Supervised

ALL_INTERFACES = ("0.0.0.0", "::", "")
LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"]
# Addresses no packet ever goes to: connecting a UDP socket only asks the kernel which route (and so which
# source address) it would use. Tried in turn: a network without a default route may still route one.
UNROUTABLE_TARGETS = ("10.255.255.255", "172.31.255.255", "192.168.255.255", "169.254.255.255")


def lan_address() -> str | None:
    """This machine's IPv4 address on its network (what the phones open), or None when it has none.

    No packet is sent: ``connect()`` on a UDP socket sends nothing, it only picks the route; the source
    address of that route is the machine's address on the network. Fallback: the addresses the host name
    resolves to (the hosts file), other than loopback ones."""
    for target in UNROUTABLE_TARGETS:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect((target, 9))
                address = probe.getsockname()[0]
        except OSError:
            continue
        if _usable(address):
            return address
    try:
        names = socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        names = []
    return next((address for address in names if _usable(address)), None)


def _usable(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_multicast)


def url_host(host: str) -> str:
    """``host`` as written in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def network_plan(host: str, port: int, environ, public_url: str, lan: str | None) -> dict:
    """What the children are told and what is printed, from the host and port asked for.

    ``public_url``: PUBLIC_URL as the settings read it ('' when not set). Returns ``local_url`` (the
    address that works on this machine), ``public_url`` (what phones open, '' when phones cannot reach
    the server) and ``env`` (the variables set for the children: PUBLIC_URL and ALLOWED_HOSTS unless the
    user set them)."""
    everywhere = host in ALL_INTERFACES
    local_url = f"http://{'127.0.0.1' if everywhere else url_host(host)}:{port}"
    env = {}
    if not public_url:
        if everywhere and lan:
            public_url = f"http://{lan}:{port}"
        elif not everywhere and not is_loopback(host):
            public_url = local_url
        if public_url:
            env["PUBLIC_URL"] = public_url
    if "ALLOWED_HOSTS" not in environ:
        hosts = list(LOCAL_HOSTS)
        if not everywhere:
            hosts.append(url_host(host))
        elif lan:
            hosts.append(lan)
        if public_url:
            hosts.append(url_host(urlsplit(public_url).hostname))
        env["ALLOWED_HOSTS"] = ",".join(dict.fromkeys(hosts))
    return {"local_url": local_url, "public_url": public_url, "env": env}


def terminal_qr(url: str, encoding: str | None = "utf-8") -> str:
    """The QR code of ``url`` for a terminal: in half blocks (two rows a line) where the output's encoding
    has them, else in plain ASCII ('##' a dark module), as a Windows console's cp1252 or a file needs."""
    import segno

    code = segno.make(url)
    out = io.StringIO()
    code.terminal(out=out, compact=True)
    drawn = out.getvalue()
    try:
        drawn.encode(encoding or "ascii")
        return drawn
    except (UnicodeEncodeError, LookupError):
        return "".join("".join("##" if dark else "  " for dark in row) + "\n"
                       for row in code.matrix_iter(border=2))


def replace_unencodable(*streams) -> None:
    """Text the output's encoding lacks (a Windows console's cp1252, an output redirected to a file) is
    printed as '?' instead of raising UnicodeEncodeError in the middle of the launcher's work."""
    for stream in streams:
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):  # a closed stream, or one whose errors cannot change
                pass


def probe_options() -> list[tuple[int, int, int]]:
    """The socket options of the "port in use" probe (``setsockopt`` arguments). POSIX: SO_REUSEADDR, as
    uvicorn binds, so that a port a stopped server left in TIME_WAIT counts as free while one that a program
    listens on does not. Windows: SO_EXCLUSIVEADDRUSE, since SO_REUSEADDR there lets a socket bind a port
    that another program listens on (the probe would find it free, and two servers share it)."""
    if os.name == "nt":
        return [(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)]
    return [(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)]


def worker_command(python: str, schedule: str) -> list[str]:
    """The Celery worker as the launcher starts it: one process, a pool of threads and the beat scheduler in
    a thread of its own (``--beat-thread``, arbiter/celery.py). No fork anywhere: the same command runs on
    Windows, where the prefork pool and celery's beat process do not; and one process with the compiled
    search loaded once weighs a third of a prefork worker's four (README, "A light laptop")."""
    return [python, "-m", "celery", "-A", "arbiter", "--quiet", "worker", "--pool", "threads",
            "--concurrency", str(settings.ARBITER_WORKER_THREADS), "--beat-thread", "--loglevel", "warning",
            "--schedule", schedule, "--launched"]


@contextlib.contextmanager
def ticking(out, what: str, estimate: float, tick: float = 5.0):
    """While the block runs, a line every ``tick`` seconds: what is being done, for how long, and about how
    long is left (``estimate``: the seconds it takes the first time on a 2-core laptop). A first start is
    never silent for longer (docs/operations.md, "First start and memory")."""
    done = threading.Event()
    began = time.monotonic()

    def tell() -> None:
        while not done.wait(tick):
            spent = time.monotonic() - began
            left = estimate - spent
            out.write(f"  {what}: {spent:.0f} s so far, " + (
                f"about {left:.0f} s left" if left >= 1 else f"longer than the usual {estimate:.0f} s (a busy computer)"))
            out.flush()

    teller = threading.Thread(target=tell, name="launcher-ticking", daemon=True)
    teller.start()
    try:
        yield
    finally:
        done.set()
        teller.join(timeout=tick)


def games_in_play(console_url: str) -> list[str]:
    """The games a restart finds unfinished (started, not over, not archived), for the arbitrator to go back
    to, each with the console's page: "in play" only for a game whose rack is drawn or whose round is open;
    a game whose last round is closed is "between rounds", never said to be in play."""
    from tournaments.models import Game, Round

    lines = []
    games = Game.objects.filter(status=Game.Status.PLAYING, archived_at__isnull=True).select_related("tournament")
    for game in games.order_by("-id")[:5]:
        current = Round.objects.filter(game=game).current().first()
        if current is None:
            state, where = "Game in play", "no round yet"
        elif current.status in (Round.Status.DRAWN, Round.Status.OPEN):
            state, where = "Game in play", f"round {current.number} {current.get_status_display().lower()}"
        else:
            state, where = "Game between rounds", f"round {current.number} closed, next rack not drawn"
        lines.append(f"{state}: {game.tournament.name!r} game {game.number}, {where}: {console_url}games/{game.pk}/")
    return lines


def _not_a_stopped_stream(record) -> bool:
    """Once stopping, the requests the web server ends (the phones' streams, after the grace) are not
    errors: neither uvicorn's count of them nor each one's cancellation is printed."""
    if record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
        return False
    return not str(record.msg).startswith("Cancel %s running task(s)")


def launcher_server(config, on_exit):
    """uvicorn's server, which also tells the launcher at once when Ctrl-C (or SIGTERM) asks it to stop: the
    worker is stopped at the same time as the web server, not after it."""
    import uvicorn

    class LauncherServer(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            if not self.should_exit:
                logging.getLogger("uvicorn.error").addFilter(_not_a_stopped_stream)
                on_exit()
            super().handle_exit(sig, frame)

    return LauncherServer(config)


class Command(BaseCommand):
    help = ("Migrate, create the arbitrator's account (and the demo tournament in a checkout), then serve the "
            "pages in this process and run a Celery worker beside it. --host 0.0.0.0 serves the phones of the "
            "local network.")

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1",
                            help="address to listen on: 127.0.0.1 (this computer only, the default) or 0.0.0.0 "
                                 "(the local network: the club's phones)")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-demo", action="store_true", help="do not create the demo data")
        parser.add_argument("--language", choices=["en", "fr"], default="en",
                            help="the demo tournament's language (its sheets, projector and phones), when it is "
                                 "created: en (the default) or fr")
        # The launcher's own child: migrate and set up the account, print them, exit (see handle).
        parser.add_argument("--prepare-only", action="store_true", help=argparse.SUPPRESS)
        parser.add_argument("--console-url", default="", help=argparse.SUPPRESS)

    def prepare(self, *, host: str, console_url: str, no_demo: bool, language: str) -> None:
        """Migrate, then the arbitrator's account (and the demo in a checkout), printed. The demo login (a
        fixed password) only for a checkout that this computer alone can open; an installed arbiter, or a
        server the network can reach, gets an account with a password of its own."""
        from arbiter.places import in_checkout
        from tournaments.demo import create_demo, ensure_arbitrator

        call_command("migrate", interactive=False, verbosity=0)
        fixed_password = in_checkout() and host not in ALL_INTERFACES and is_loopback(host)
        account = create_demo(language=language) if not no_demo and in_checkout() else []
        if not (fixed_password and account):
            account = ensure_arbitrator(console_url=console_url, fixed_password_allowed=fixed_password) + [
                line for line in account if not line.startswith("Demo arbitrator:")]
        for line in account + games_in_play(console_url):
            self.stdout.write(line)

    def handle(self, *args, host, port, no_demo, language="en", prepare_only=False, console_url="", **options):
        replace_unencodable(sys.stdout, sys.stderr)  # this process and its --prepare-only child alike
        if prepare_only:
            return self.prepare(host=host.strip(), console_url=console_url, no_demo=no_demo, language=language)
        import uvicorn

        from arbiter.celery import prepare_broker_folders
        from arbiter.server import GuardedHTTPProtocol

        host = host.strip()
        if not 1 <= port <= 65535:
            raise CommandError(f"--port {port}: a port is a number from 1 to 65535")
        if settings.DEBUG and not is_loopback(host):
            # `arbiter run` and `make run` turn DEBUG off for such a server (arbiter/settings/__init__.py);
            # settings that keep it on (manage.py's, DEBUG written in a settings module) are refused.
            raise CommandError(f"--host {host or '0.0.0.0'}: a server the network can reach never runs with DEBUG on "
                               f"(its error pages list every address); serve it with {lan_command()}")
        self._check_free(host, port)
        everywhere = host in ALL_INTERFACES
        plan = network_plan(host, port, os.environ, settings.ARBITER_PUBLIC_URL,
                            lan_address() if everywhere else None)
        # The web server runs in this process: it reads the plan from the settings, the worker from its
        # environment.
        os.environ.update(plan["env"])
        if "ALLOWED_HOSTS" in plan["env"]:
            settings.ALLOWED_HOSTS = plan["env"]["ALLOWED_HOSTS"].split(",")
            settings.CSRF_TRUSTED_ORIGINS = [f"{scheme}://{name}" for name in settings.ALLOWED_HOSTS
                                             for scheme in ("http", "https")]
        if "PUBLIC_URL" in plan["env"]:
            settings.ARBITER_PUBLIC_URL = plan["env"]["PUBLIC_URL"]

        settings.DATA_DIR.mkdir(parents=True, exist_ok=True)
        prepare_broker_folders()
        # The web server in this process leaves the searches to the worker (arbiter/asgi.py).
        settings.ARBITER_WEB_WARMS_SEARCH = False
        local = plan["local_url"]
        # Migrations, the account and the demo in a process of their own: the web server (this process) does not
        # keep what they load (the demo's word list, 75 MiB in all).
        self.stdout.write("Preparing the database (migrations, the arbitrator's account)...")
        self.stdout.flush()
        with ticking(self.stdout, "preparing the database", settings.ARBITER_PREPARE_SECONDS):
            prepared = subprocess.run(
                [sys.executable, "-m", "django", "rundemo", "--prepare-only", "--host", host or "0.0.0.0",
                 "--port", str(port), "--console-url", f"{local}/console/", "--language", language]
                + (["--no-demo"] if no_demo else []),
                env={**os.environ, "DJANGO_SETTINGS_MODULE": settings.SETTINGS_MODULE})
        if prepared.returncode:
            raise CommandError(f"the database could not be set up (exit code {prepared.returncode}): see above")

        # The worker skips Django's system checks (the migrations above ran them): they import every page, view
        # and sheet (the URLconf), 45 MiB a worker that runs tasks never needs.
        # Its standard output (celery's banner and shutdown messages) is not the arbitrator's: only its log
        # (warnings and errors, on its standard error) is shown.
        worker = Supervised(worker_command(sys.executable, str(settings.DATA_DIR / "celerybeat-schedule")),
                            env={**os.environ, "CELERY_SKIP_CHECKS": "1"},
                            log=self._tell_about_the_worker,
                            popen={"stdout": subprocess.DEVNULL})
        # The phones' live streams never end by themselves: once stopping, the requests in flight get
        # ARBITER_STOP_GRACE_SECONDS, then the rest are ended.
        server = launcher_server(uvicorn.Config(
            "arbiter.asgi:application", host=host or "0.0.0.0", port=port, log_level="warning",
            http=GuardedHTTPProtocol, timeout_keep_alive=5,
            timeout_graceful_shutdown=settings.ARBITER_STOP_GRACE_SECONDS,
        ), on_exit=worker.stop_soon)
        done = threading.Event()

        # uvicorn catches these while it serves, then raises them again once stopped: here they stop nothing
        # more (Ctrl-C's SIGINT raises KeyboardInterrupt, caught below), so the worker is stopped in turn.
        for name in ("SIGTERM", "SIGBREAK"):  # SIGBREAK: Ctrl-Break on Windows
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), lambda signum, frame: None)
        worker.start()
        watcher = threading.Thread(target=self._watch, args=(server, worker, done), name="launcher-watch",
                                   kwargs={"local": local, "host": host, "public_url": plan["public_url"]},
                                   daemon=True)
        watcher.start()
        try:
            # Ctrl-C (and SIGTERM where there is one) stop the web server; uvicorn handles both.
            server.run()
        except KeyboardInterrupt:
            pass
        finally:
            done.set()
            watcher.join(timeout=5)
            # No restart while stopping; terminate() (already sent when Ctrl-C reached the web server), then
            # kill() after ARBITER_STOP_WORKER_SECONDS.
            worker.stop(timeout=settings.ARBITER_STOP_WORKER_SECONDS)
        if not server.started:
            raise CommandError("the web server did not start: see above")
        self.stdout.write("Stopped.")

    def _watch(self, server, worker: Supervised, done: threading.Event, *, local: str, host: str,
               public_url: str) -> None:
        """The launcher's second thread: print the addresses once the web server answers, then keep the
        worker running until ``done``. A failure to print (an output closed or broken) is logged, and the
        supervision goes on."""
        deadline = time.monotonic() + 60
        while not server.started and not done.is_set() and time.monotonic() < deadline:
            time.sleep(0.1)
        if server.started:
            try:
                self.stdout.write(self.style.SUCCESS(f"Arbiter running at {local}/  (Ctrl-C stops)"))
                self.stdout.write(f"  console: {local}/console/   health: {local}/healthz")
                self._tell_about_phones(host, public_url)
                self.stdout.flush()
            except Exception as error:  # noqa: BLE001 - printing must not stop the worker's supervision
                logging.getLogger("arbiter.launcher").warning("the addresses could not be printed: %r", error)
        while not done.wait(0.3):
            worker.check()

    def _tell_about_the_worker(self, line: str) -> None:
        """A worker's exit or restart, printed; an output that cannot take it does not stop the supervision."""
        try:
            self.stderr.write(self.style.WARNING(line))
        except (OSError, ValueError):  # a closed or broken output
            pass

    def _check_free(self, host: str, port: int) -> None:
        """Refuse at once, with the reason, a port that another program already listens on."""
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            for option in probe_options():
                probe.setsockopt(*option)
            try:
                probe.bind((host.strip("[]") or "0.0.0.0", port))
            except OSError as exc:
                raise CommandError(
                    f"cannot listen on {url_host(host)}:{port} ({exc.strerror}): another program uses the port "
                    f"(try PORT={port + 1}), or the address is not one of this machine's"
                ) from None

    @staticmethod
    def _wait_listening(host: str, port: int, web: subprocess.Popen, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while web.poll() is None and time.monotonic() < deadline:
            try:
                with socket.create_connection((host, port), timeout=1):
                    return
            except OSError:
                time.sleep(0.2)

    def _tell_about_phones(self, host: str, public_url: str) -> None:
        if public_url:
            join = f"{public_url}/join"
            self.stdout.write(self.style.SUCCESS(f"Phones join at {join}") +
                              "  (phones on the same network as this computer; scan the code below)")
            self.stdout.write(terminal_qr(join, getattr(self.stdout, "encoding", None)), ending="")
            if host in ALL_INTERFACES:
                self.stdout.write("  If phones cannot open it: same Wi-Fi as this computer? firewall open for "
                                  "this port? Otherwise set PUBLIC_URL (see README: the club's network).")
        elif host in ALL_INTERFACES:
            self.stdout.write(self.style.WARNING(
                "No network address found on this computer: phones cannot reach it. Join the club's Wi-Fi, "
                f"or give the address by hand: {lan_command(public_url='http://ADDRESS:PORT')}"))
        else:
            self.stdout.write(f"  Only this computer can open {url_host(host)}. For the club's phones: "
                              f"{lan_command()}")
