"""Start the whole service on this machine: migrate, demo data, web server and Celery worker together.

``--host 127.0.0.1`` (the default) serves this computer only. ``--host 0.0.0.0`` serves the club's network:
the phones on the same Wi-Fi open the machine's address, which is printed with a QR code of the join page.
That address (PUBLIC_URL) is what the console and the projector put in their join links, and the allowed
hosts follow it; both can be given in the environment instead (PUBLIC_URL, ALLOWED_HOSTS).

Ctrl-C (or SIGTERM) stops both processes cleanly. A worker that exits on its own is started again, after a
pause that grows to 30 s, and each exit is printed (arbiter/supervise.py).
"""

from __future__ import annotations

import io
import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

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


def is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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


def terminal_qr(url: str) -> str:
    import segno

    out = io.StringIO()
    segno.make(url).terminal(out=out, compact=True)
    return out.getvalue()


class Command(BaseCommand):
    help = ("Migrate, create the demo arbitrator and tournament, then run the web server and a Celery worker. "
            "--host 0.0.0.0 serves the phones of the local network.")

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1",
                            help="address to listen on: 127.0.0.1 (this computer only, the default) or 0.0.0.0 "
                                 "(the local network: the club's phones)")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-demo", action="store_true", help="do not create the demo data")
        parser.add_argument("--language", choices=["en", "fr"], default="en",
                            help="the demo tournament's language (its sheets, projector and phones), when it is "
                                 "created: en (the default) or fr")

    def handle(self, *args, host, port, no_demo, language="en", **options):
        from arbiter.celery import prepare_broker_folders
        from tournaments.demo import create_demo

        host = host.strip()
        if not 1 <= port <= 65535:
            raise CommandError(f"--port {port}: a port is a number from 1 to 65535")
        self._check_free(host, port)
        everywhere = host in ALL_INTERFACES
        plan = network_plan(host, port, os.environ, settings.ARBITER_PUBLIC_URL,
                            lan_address() if everywhere else None)

        settings.DATA_DIR.mkdir(parents=True, exist_ok=True)
        prepare_broker_folders()
        call_command("migrate", interactive=False, verbosity=0)
        if not no_demo:
            for line in create_demo(language=language):
                self.stdout.write(line)

        env = {**os.environ, **plan["env"]}
        python = sys.executable
        web = subprocess.Popen(
            [python, "-m", "uvicorn", "arbiter.asgi:application", "--host", host or "0.0.0.0", "--port", str(port),
             "--log-level", "warning", "--http", "arbiter.server:GuardedHTTPProtocol", "--timeout-keep-alive", "5"],
            env=env,
        )
        # The worker is supervised: started again (with a growing pause) whenever it exits (arbiter/supervise.py).
        worker = Supervised(
            [python, "-m", "celery", "-A", "arbiter", "worker", "--beat", "--loglevel", "warning",
             "--concurrency", "2", "--schedule", str(settings.DATA_DIR / "celerybeat-schedule")],
            env=env, log=lambda line: self.stderr.write(self.style.WARNING(line)),
        )
        worker.start()
        children = [web]
        local = plan["local_url"]
        stopping = False

        def stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGTERM, stop)
        try:
            # The addresses are printed once the web server answers, so that they work when they are read.
            self._wait_listening(urlsplit(local).hostname, port, web)
            if web.poll() is not None:
                raise CommandError(f"the web server stopped at once (exit code {web.returncode}): see above")
            self.stdout.write(self.style.SUCCESS(f"Arbiter running at {local}/  (Ctrl-C stops)"))
            self.stdout.write(f"  console: {local}/console/   health: {local}/healthz")
            self._tell_about_phones(host, plan["public_url"])
            while not stopping and all(child.poll() is None for child in children):
                worker.check()
                time.sleep(0.3)
        except KeyboardInterrupt:
            pass
        finally:
            worker.stopped = True  # no restart while stopping; stopped below with the web server
            if worker.process is not None:
                children.append(worker.process)
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 10
            for child in children:
                try:
                    child.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    child.kill()
        self.stdout.write("Stopped.")

    def _check_free(self, host: str, port: int) -> None:
        """Refuse at once, with the reason, a port that another program already listens on."""
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
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
            self.stdout.write(terminal_qr(join), ending="")
            if host in ALL_INTERFACES:
                self.stdout.write("  If phones cannot open it: same Wi-Fi as this computer? firewall open for "
                                  "this port? Otherwise set PUBLIC_URL (see README: the club's network).")
        elif host in ALL_INTERFACES:
            self.stdout.write(self.style.WARNING(
                "No network address found on this computer: phones cannot reach it. Join the club's Wi-Fi, "
                "or give the address by hand: make run HOST=0.0.0.0 PUBLIC_URL=http://ADDRESS:PORT"))
        else:
            self.stdout.write(f"  Only this computer can open {url_host(host)}. For the club's phones: "
                              "make run HOST=0.0.0.0")
