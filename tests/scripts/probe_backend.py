"""A build backend with no requirements, for testing scripts/ensure-venv offline.

pip builds the probe project in ``tests/scripts/test_ensure_venv.py`` with it
(PEP 517 and PEP 660), so installing needs no package index.  Every build
appends a line to ``builds.log`` next to the project: the test counts installs.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

NAME = "ensure_venv_probe"
VERSION = "1"
METADATA = (
    "Metadata-Version: 2.1\nName: ensure-venv-probe\nVersion: 1\nProvides-Extra: dev\n"
)
WHEEL = (
    "Wheel-Version: 1.0\nGenerator: probe\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
)


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    return []


get_requires_for_build_editable = get_requires_for_build_wheel


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{name},sha256={digest.decode()},{len(data)}"


def _wheel(directory: str, path_entry: str) -> str:
    with Path("builds.log").open("a") as log:
        log.write("built\n")
    dist_info = f"{NAME}-{VERSION}.dist-info"
    files = {
        f"{dist_info}/METADATA": METADATA.encode(),
        f"{dist_info}/WHEEL": WHEEL.encode(),
        f"{NAME}.pth": path_entry.encode(),
    }
    record = [_record_line(name, data) for name, data in files.items()]
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel_name = f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(Path(directory) / wheel_name, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
    return wheel_name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    return _wheel(wheel_directory, "")


def build_editable(
    wheel_directory, config_settings=None, metadata_directory=None
) -> str:
    return _wheel(wheel_directory, str(Path.cwd()) + "\n")
