"""Browser fixtures: Debian's Chromium driven by Playwright against the live server, and a real Celery
worker on the live server's database.

The Chromium is the machine's: CHROMIUM_PATH, else ``chromium`` on the PATH (Debian: apt install chromium);
Playwright only drives it and never downloads a browser. Without one, every browser test is skipped from one
place with one reason, so that pytest's summary says it in a single line ("browser tests skipped: no
Chromium (apt install chromium, or set CHROMIUM_PATH)"); when CI is set they fail instead.
Screenshots go to test-artifacts/screenshots/ (git-ignored).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
INSTALL = "apt install chromium, or set CHROMIUM_PATH"
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or ""
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1366, "height": 768},
         "projector": {"width": 1920, "height": 1080}}


def _missing() -> str:
    """Why the browser tests cannot run on this machine, or "" when they can."""
    if not CHROMIUM:
        return f"no Chromium ({INSTALL})"
    if not Path(CHROMIUM).is_file():
        return f"no Chromium at CHROMIUM_PATH={CHROMIUM} ({INSTALL})"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:  # pragma: no cover - a dev dependency, installed by make test
        return f"playwright is not installed ({exc}; make test installs it)"
    return ""


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"Chromium is required in CI: {reason}")
    pytest.skip(f"browser tests skipped: {reason}")


MISSING = _missing()  # found once, when the folder is collected


def pytest_runtest_setup(item):
    """Every test of this folder, before any of its fixtures (servers, workers) starts: skipped when the
    machine has no Chromium. Skipped here, in a hook, not in a fixture: pytest reports a fixture's skip at
    each test's line, and this one at a line of its own, so that its summary folds them into one."""
    if MISSING:
        _unavailable(MISSING)


# Per module, not per session: Playwright's sync API keeps an event loop running in the test thread while
# it is started, and tests of other folders that run asyncio themselves (or call async views through the
# test client) must not find one.
@pytest.fixture
def cleared_cache(isolated_cache):
    """An empty cache for the test (the console's pages read live versions from it): keys of its own
    (tests/conftest.py's isolated_cache), so that the other test process sharing Redis (make test runs two)
    keeps its keys, where clearing the whole cache would drop them."""
    return isolated_cache


@pytest.fixture
def console_arbitrator(django_user_model, request):
    """A staff user "arbitre" whose password is the test module's PASSWORD (the test logs in with it)."""
    return django_user_model.objects.create_user(username="arbitre", password=request.module.PASSWORD,
                                                 is_staff=True)


@pytest.fixture(scope="module")
def chromium():
    from playwright.sync_api import sync_playwright
    # Playwright's sync API keeps an event loop in the test's thread; the test's own ORM calls between
    # browser steps are synchronous and safe, so Django's guard is lifted for the browser tests only.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    manager = sync_playwright().start()
    try:
        browser = manager.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    except Exception as exc:
        manager.stop()
        _unavailable(f"{CHROMIUM} did not start: {exc}")
    yield browser
    browser.close()
    manager.stop()
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


# Each page's journal, printed with a failed test's report: what the page asked and was answered, what its
# live stream told it (the version of each state), its console. A failure seen once in CI then says what
# each page heard, not only what it shows.
JOURNAL_LINES = 80
STREAM_JOURNAL = """
(() => {
  const Real = window.EventSource;
  if (!Real) return;
  window.EventSource = class extends Real {
    constructor(url, options) {
      super(url, options);
      const at = () => Math.round(performance.now());
      this.addEventListener("open", () => console.debug(`[stream] ${at()} open ${url}`));
      this.addEventListener("error", () => console.debug(`[stream] ${at()} error, state ${this.readyState}`));
      this.addEventListener("state", (ev) => {
        let said = "?";
        try {
          const info = JSON.parse(ev.data);
          said = `v${info.version} ${info.round_status || "-"} round ${info.round ?? "-"}`;
        } catch {}
        console.debug(`[stream] ${at()} state ${said}`);
      });
    }
  };
})();
"""


def _journal(page, started: float) -> list[str]:
    from collections import deque

    lines = deque(maxlen=JOURNAL_LINES)

    def note(text: str) -> None:
        lines.append(f"{time.monotonic() - started:7.2f} {text}")

    page.on("console", lambda message: note(f"console.{message.type}: {message.text}"))
    page.on("pageerror", lambda exc: note(f"error: {exc}"))
    page.on("request", lambda request: "/static/" in request.url or note(f"> {request.method} {request.url}"))
    page.on("response", lambda response: "/static/" in response.url or note(f"< {response.status} {response.url}"))
    page.on("requestfailed", lambda request: note(f"x {request.url}: {request.failure}"))
    page.on("framenavigated", lambda frame: note(f"@ {frame.url}") if frame.parent_frame is None else None)
    return lines


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed and report.when == "call":
        for name, lines in getattr(item, "page_journals", []):
            report.sections.append((f"page {name}", "\n".join(lines)))
    return report


def journaled_page(context, node, size: str):
    """A new page of ``context`` that records what it hears (its journal is printed if the test fails), with
    ``page.errors``, the page's uncaught errors."""
    if not hasattr(node, "page_journals"):
        node.page_journals = []
        node.page_journals_started = time.monotonic()
    context.add_init_script(script=STREAM_JOURNAL)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    node.page_journals.append((f"{len(node.page_journals) + 1} ({size})", _journal(page, node.page_journals_started)))
    return page


@pytest.fixture
def new_page(chromium, live_server, request):
    """``new_page(size="phone", locale="en-GB", clock_shift_seconds=0)``: a page in its own context.

    ``size``: "phone" (390x844), "laptop" (1366x768), "projector" (1920x1080).

    ``clock_shift_seconds`` moves the page's Date by that many seconds, as on a device whose clock is wrong.

    Each page keeps a journal (its requests, answers, stream states and console), printed if the test fails.
    """
    contexts = []

    def make(size: str = "phone", locale: str = "en-GB", clock_shift_seconds: float = 0):
        context = chromium.new_context(viewport=SIZES[size], locale=locale, base_url=live_server.url)
        if clock_shift_seconds:
            context.add_init_script(script=_shifted_date(clock_shift_seconds * 1000))
        contexts.append(context)
        return journaled_page(context, request.node, size)

    yield make
    for context in contexts:
        context.close()
    _database_quiet()


def _database_quiet(timeout: float = 3.0) -> None:
    """After the pages closed: wait (bounded) until no other connection to the test database is running a
    query. A live stream's thread of the test server can still be building a snapshot for a page just
    closed; the flush that ends a transactional test then took its table locks in another order and
    PostgreSQL ended one of the two (deadlock detected)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                           "AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')")
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.05)


def _shifted_date(shift_ms: float) -> str:
    """Replace Date so that Date.now() and new Date() run `shift_ms` ahead of the real clock."""
    return f"""
(() => {{
  const shift = {shift_ms};
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  class ShiftedDate extends RealDate {{
    constructor(...args) {{
      if (args.length === 0) super(realNow() + shift); else super(...args);
    }}
    static now() {{ return realNow() + shift; }}
  }}
  ShiftedDate.parse = RealDate.parse;
  ShiftedDate.UTC = RealDate.UTC;
  globalThis.Date = ShiftedDate;
}})();
"""


@pytest.fixture
def screenshot():
    """``screenshot(page, name)``: a full-page PNG in test-artifacts/screenshots/<name>.png, copied into the
    folder SHOTS_DIR names when it is set (to look at a run's screenshots outside the checkout)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shots_dir = os.environ.get("SHOTS_DIR")

    def take(page, name: str, full_page: bool = False, size: str | None = None) -> Path:
        if size is not None:
            page.set_viewport_size(SIZES[size])
        path = SCREENSHOTS / f"{name}.png"
        scrolled = page.evaluate("[window.scrollX, window.scrollY]") if full_page else None
        page.screenshot(path=str(path), full_page=full_page)
        if scrolled is not None:
            _scroll_settled(page, scrolled)
        if shots_dir:
            os.makedirs(shots_dir, exist_ok=True)
            shutil.copy(path, shots_dir)
        return path

    return take


def _scroll_settled(page, scrolled) -> None:
    """After a full-page screenshot: Chromium moves the page's scroll to capture it and puts it back on a
    later frame; a click made before then (Playwright scrolls its target into view first) had the page
    scrolled back under the pointer between its press and its release, and the press and release on two
    elements made no click (a 7 et 8 phone's slip was never sent). Wait until the scroll is back, then two
    frames more; put it back if Chromium did not."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("([x, y]) => window.scrollX === x && window.scrollY === y", arg=scrolled,
                               timeout=2000)
    except PlaywrightTimeout:
        page.evaluate("([x, y]) => window.scrollTo(x, y)", scrolled)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


@pytest.fixture
def celery_worker(live_server, settings):
    """A real ``celery -A arbiter worker`` on the live server's (committed) test database and the test Redis.

    Needs REDIS_URL (a Redis broker) and a PostgreSQL DATABASE_URL: the worker is another process.
    """
    from django.core.cache import cache
    from django.db import connection

    redis_url = os.environ.get("REDIS_URL", "")
    if not redis_url.startswith("redis://") or connection.vendor != "postgresql":
        if os.environ.get("CI"):
            pytest.fail("the worker test needs REDIS_URL=redis://... and a PostgreSQL DATABASE_URL")
        pytest.skip("the worker test needs REDIS_URL=redis://... and a PostgreSQL DATABASE_URL")
    db = connection.settings_dict
    database_url = f"postgres://{db['USER']}"
    if db.get("PASSWORD"):
        database_url += f":{db['PASSWORD']}"
    database_url += f"@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "DJANGO_SETTINGS_MODULE": "arbiter.settings.test",
    }
    celery = [sys.executable, "-m", "celery", "-A", "arbiter"]
    # Tasks left in the queue by an earlier run name rows of another database: drop them.
    subprocess.run([*celery, "purge", "-f"], env=env, cwd=ROOT, capture_output=True, timeout=60)
    log_path = ROOT / "test-artifacts" / "celery-worker.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = open(log_path, "w")
    worker = subprocess.Popen(
        [*celery, "worker", "--pool=solo", "--concurrency=1", "--loglevel=INFO", "--without-gossip",
         "--without-mingle", "--without-heartbeat", "-n", f"browser-{uuid.uuid4().hex[:8]}@%h"],
        env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        from tournaments.tasks import ping

        token = uuid.uuid4().hex
        ping.delay(token)
        deadline = time.monotonic() + 60
        while cache.get(f"ping:{token}") != "pong":
            if worker.poll() is not None:
                pytest.fail(f"the Celery worker exited ({worker.returncode}); see {log_path}")
            if time.monotonic() > deadline:
                pytest.fail(f"the Celery worker did not answer a ping within 60 s; see {log_path}")
            time.sleep(0.2)
        yield worker
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        log.close()
