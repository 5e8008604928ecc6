"""pip, resolving for Windows: ``python windows_pip.py install --dry-run --platform win_amd64 ...``.

pip's ``--platform`` and ``--python-version`` choose which wheels fit, but pip evaluates the requirements'
environment markers (``sys_platform == "win32"``, ``platform_system == "Windows"``) against the interpreter
that runs it: on Linux it would ask for uvloop (which uvicorn[standard] leaves out on Windows, and which has
no Windows wheel) and leave out pywin32 and tzdata. Here pip runs as it is, with the marker environment of
a 64-bit Windows (the report's ``environment`` shows it). Used by tests/arbiter/test_windows.py.
"""

import sys

from pip._vendor.packaging import markers

WINDOWS = {"sys_platform": "win32", "os_name": "nt", "platform_system": "Windows", "platform_machine": "AMD64",
           "platform_release": "10", "platform_version": "10.0.19045"}
_default_environment = markers.default_environment


def windows_environment():
    return {**_default_environment(), **WINDOWS}


markers.default_environment = windows_environment

if __name__ == "__main__":
    from pip._internal.cli.main import main

    sys.exit(main())
