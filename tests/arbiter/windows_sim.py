"""A Python process that looks like Windows to the project and its dependencies: imported first (before
anything of the project or of its dependencies), it sets ``os.name = "nt"`` and ``sys.platform = "win32"``,
removes the POSIX-only modules (``fcntl``, ``resource``, ``termios``, ``pwd``, ``grp``) and puts in their
place the Windows-only modules a Windows install has:

- the standard library's ``msvcrt`` (``locking``: a lock of a byte range, made here with POSIX record
  locks, so that it really excludes another process) and ``ctypes.windll`` (what Django's file locks call);
- the modules of the dependencies that pyproject.toml lists for Windows (``sys_platform == "win32"``):
  ``pywintypes``, ``win32con`` and ``win32file`` when pywin32 is one (its ``LockFileEx`` made with
  ``flock``). A module that no dependency brings is not made: importing it fails, as it would on Windows.

The standard library's own Windows halves (``pathlib.WindowsPath``, asyncio's proactor, ``subprocess`` with
``_winapi``) are real on Windows and cannot run here: the standard library is imported before the switch,
and ``pathlib.Path()`` keeps making POSIX paths. Used by tests/arbiter/test_windows.py as
``python -c "import windows_sim; ..."`` with this folder on PYTHONPATH.
"""

from __future__ import annotations

import builtins
import os
import sys
import tomllib
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The standard library, imported while the platform is still Linux's (see above).
import asyncio  # noqa: E402,F401
import ctypes  # noqa: E402
import ctypes.wintypes  # noqa: E402,F401
import fcntl  # noqa: E402
import multiprocessing  # noqa: E402,F401
import multiprocessing.connection  # noqa: E402,F401
import multiprocessing.pool  # noqa: E402,F401
import multiprocessing.queues  # noqa: E402,F401
import multiprocessing.synchronize  # noqa: E402,F401
import pathlib  # noqa: E402
import selectors  # noqa: E402,F401
import shutil  # noqa: E402,F401
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402,F401
import sysconfig  # noqa: E402
import tempfile  # noqa: E402,F401
import zoneinfo  # noqa: E402

sysconfig.get_config_vars()  # read once: its Windows half reads sys._vpath
zoneinfo.ZoneInfo("UTC")  # zoneinfo's search path, from sysconfig

WINDOWS_MARKERS = {"sys_platform": "win32", "os_name": "nt", "platform_system": "Windows",
                   "platform_machine": "AMD64"}
# Windows' value of SO_EXCLUSIVEADDRUSE (~SO_REUSEADDR): the socket module has it there only.
SO_EXCLUSIVEADDRUSE = ~4


def windows_dependencies() -> set[str]:
    """The names of the dependencies pyproject.toml lists for Windows only."""
    from packaging.requirements import Requirement

    names = set()
    for line in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]:
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is not None and marker.evaluate(WINDOWS_MARKERS) and not marker.evaluate(
                {"sys_platform": "linux", "os_name": "posix", "platform_system": "Linux",
                 "platform_machine": "x86_64"}):
            names.add(requirement.name.lower())
    return names


def _msvcrt() -> types.ModuleType:
    module = types.ModuleType("msvcrt")
    module.LK_UNLCK, module.LK_LOCK, module.LK_NBLCK, module.LK_RLCK, module.LK_NBRLCK = 0, 1, 2, 3, 4

    def locking(fd, mode, nbytes):
        # From the file's current position, as msvcrt does.
        if mode == module.LK_UNLCK:
            fcntl.lockf(fd, fcntl.LOCK_UN, nbytes, 0, os.SEEK_CUR)
            return
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, nbytes, 0, os.SEEK_CUR)
        except OSError as error:
            raise PermissionError(13, "Permission denied") from error

    module.locking = locking
    module.getwch = lambda: "\n"
    module.kbhit = lambda: False
    module.get_osfhandle = lambda fd: fd
    module.open_osfhandle = lambda handle, flags: handle
    return module


def _pywin32() -> dict[str, types.ModuleType]:
    pywintypes = types.ModuleType("pywintypes")
    pywintypes.OVERLAPPED = lambda: object()
    pywintypes.error = OSError
    win32con = types.ModuleType("win32con")
    win32con.LOCKFILE_FAIL_IMMEDIATELY, win32con.LOCKFILE_EXCLUSIVE_LOCK = 1, 2
    win32file = types.ModuleType("win32file")
    win32file._get_osfhandle = lambda fd: fd

    def lock_file(handle, flags, reserved, length, overlapped):
        how = fcntl.LOCK_EX if flags & win32con.LOCKFILE_EXCLUSIVE_LOCK else fcntl.LOCK_SH
        fcntl.flock(handle, how | (fcntl.LOCK_NB if flags & win32con.LOCKFILE_FAIL_IMMEDIATELY else 0))

    win32file.LockFileEx = lock_file
    win32file.UnlockFileEx = lambda handle, reserved, length, overlapped: fcntl.flock(handle, fcntl.LOCK_UN)
    return {"pywintypes": pywintypes, "win32con": win32con, "win32file": win32file}


class _Library:
    """A DLL of Windows (kernel32, user32, shell32...) as ctypes loads it: each function a callable that
    answers 0 (the failure of most Windows calls: not a console, no handle), but kernel32's file locks,
    which lock (with ``flock``) as Django's file locks expect."""

    def __init__(self, name: str = "") -> None:
        self._name = name.lower().removesuffix(".dll")

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        if self._name == "kernel32" and name == "LockFileEx":
            function = _LockFileEx()
        elif self._name == "kernel32" and name == "UnlockFileEx":
            function = _UnlockFileEx()
        else:
            function = _Function()
        setattr(self, name, function)
        return function


class _Function:
    argtypes = restype = errcheck = None

    def __call__(self, *args):
        return 0


class _LockFileEx(_Function):
    def __call__(self, handle, flags, reserved, low, high, overlapped):
        how = fcntl.LOCK_EX if flags & 2 else fcntl.LOCK_SH
        try:
            fcntl.flock(handle, how | (fcntl.LOCK_NB if flags & 1 else 0))
        except OSError:
            return 0
        return 1


class _UnlockFileEx(_Function):
    def __call__(self, handle, reserved, low, high, overlapped):
        fcntl.flock(handle, fcntl.LOCK_UN)
        return 1


class _Loader:
    def __getattr__(self, name: str) -> _Library:
        if name.startswith("__"):
            raise AttributeError(name)
        library = _Library(name)
        setattr(self, name, library)
        return library


class _Constant(int):
    """A name of a Windows-only standard module: an int that can be called too (a function answering
    0), closed or used as a context (a handle)."""

    def __call__(self, *args, **kwargs):
        return _Constant(0)

    def Close(self):  # noqa: N802 - a registry key's handle (winreg)
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _windows_module(name: str) -> types.ModuleType:
    """A Windows-only module of the standard library (_winapi, winreg...): its names, as _Constant."""
    module = types.ModuleType(name)
    module.__getattr__ = lambda attribute: _Constant(0) if not attribute.startswith("__") else (
        _ for _ in ()).throw(AttributeError(attribute))
    return module


def _windows_ctypes() -> None:
    """What the ctypes of a Windows Python has beyond Linux's."""
    ctypes.windll = ctypes.oledll = _Loader()
    ctypes.WinDLL = ctypes.OleDLL = lambda name, *args, **kwargs: _Library(str(name))
    ctypes.WINFUNCTYPE = lambda restype, *argtypes, **kwargs: lambda *spec: _Function()
    ctypes.HRESULT = ctypes.c_long
    ctypes.GetLastError = lambda: 0
    ctypes.FormatError = lambda code=None: "error"
    ctypes.WinError = lambda code=None, descr=None: OSError(code, descr)


_path_new = pathlib.Path.__new__


def _posix_path_new(cls, *args, **kwargs):
    return _path_new(pathlib.PosixPath if cls is pathlib.Path else cls, *args, **kwargs)


def switch() -> None:
    os.name = "nt"
    builtins.WindowsError = OSError
    sys.platform = "win32"
    for name in ("fcntl", "resource", "termios", "pwd", "grp", "uvloop"):
        sys.modules[name] = None  # `import fcntl` now raises ImportError, as on Windows
    sys.modules["msvcrt"] = _msvcrt()
    for name in ("_winapi", "_overlapped", "winreg", "_wmi"):
        sys.modules[name] = _windows_module(name)
    _windows_ctypes()
    if "pywin32" in windows_dependencies():
        sys.modules.update(_pywin32())
    socket.SO_EXCLUSIVEADDRUSE = SO_EXCLUSIVEADDRUSE
    signal.SIGBREAK = signal.CTRL_BREAK_EVENT = 21  # Ctrl-Break (Linux's SIGTTIN, harmless here)
    signal.CTRL_C_EVENT = 0
    # Path() on "Windows" would make a WindowsPath, which cannot be used on Linux.
    pathlib.Path.__new__ = _posix_path_new


switch()
