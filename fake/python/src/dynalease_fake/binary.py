"""Where the ``dynalease-fake`` executable is: the one this package was installed with."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Iterator

NAME = "dynalease-fake"
ENVIRONMENT_VARIABLE = "DYNALEASE_FAKE_BIN"


def binary_path() -> str:
    """The path of the ``dynalease-fake`` executable.

    ``$DYNALEASE_FAKE_BIN`` when it is set; otherwise the executable the wheel installed beside
    this interpreter's scripts (in a virtual environment, a user install or a ``--target``
    folder); otherwise the first on ``PATH``. Raises ``FileNotFoundError`` saying where it looked.
    """
    explicit = os.environ.get(ENVIRONMENT_VARIABLE)
    if explicit:
        if not os.access(explicit, os.X_OK):
            raise FileNotFoundError(f"${ENVIRONMENT_VARIABLE} names {explicit}, which is not an executable file")
        return explicit
    looked = []
    for folder in _script_folders():
        candidate = folder / NAME
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
        looked.append(str(folder))
    on_path = shutil.which(NAME)
    if on_path:
        return on_path
    raise FileNotFoundError(
        f"no {NAME} executable in {', '.join(looked)} or on PATH: install the dynalease-fake wheel "
        f"into this interpreter's environment, or set ${ENVIRONMENT_VARIABLE} to the executable"
    )


def _script_folders() -> Iterator[Path]:
    """The folders an installed wheel puts its executables in, for this interpreter."""
    seen = set()
    candidates = [sysconfig.get_path("scripts")]
    framework = sys.platform == "darwin" and getattr(sys, "_framework", "")
    user_scheme = "osx_framework_user" if framework else f"{os.name}_user"
    try:
        candidates.append(sysconfig.get_path("scripts", scheme=user_scheme))
    except KeyError:
        pass
    # `pip install --target DIR` puts the package in DIR and the executables in DIR/bin.
    candidates.append(str(Path(__file__).resolve().parent.parent / "bin"))
    for candidate in candidates:
        if candidate and candidate not in seen:
            seen.add(candidate)
            yield Path(candidate)
