"""Write the intersphinx inventories of the projects the documentation links to, offline.

``external_names.txt`` lists, for each project (numpy, pandas, ...), the address of its
documentation, the pattern of the address of an object's page there, and the names the
kappalab documentation refers to. :func:`write` turns each project's list into an
``objects.inv`` file (Sphinx's inventory format, version 2) that intersphinx reads from disk,
so the build needs no network and each link points at the page the project publishes.

Run as ``python docs/inventories.py DIRECTORY`` to write the files without building.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

LISTING = Path(__file__).resolve().with_name("external_names.txt")


def read(listing: Path = LISTING) -> dict[str, dict]:
    """Project → {"url", "pattern", "objects": [(name, domain:role, relative uri)]}."""
    projects: dict[str, dict] = {}
    current = None
    for number, raw in enumerate(listing.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            name, _, url = line.partition("]")
            current = projects.setdefault(name[1:], {"url": url.strip(), "pattern": None,
                                                     "objects": []})
            continue
        if current is None:
            raise ValueError(f"{listing.name}:{number}: a name before any [project] line")
        fields = line.split()
        if fields[0] == "pattern":
            current["pattern"] = fields[1]
            continue
        role, name = fields[0], fields[1]
        uri = fields[2] if len(fields) > 2 else None
        if uri is None:
            if current["pattern"] is None:
                raise ValueError(f"{listing.name}:{number}: {name} has no address and its "
                                 "project no pattern")
            uri = current["pattern"].format(name=name)
        current["objects"].append((name, role, uri))
    return projects


def inventory(project: str, objects: list[tuple[str, str, str]]) -> bytes:
    """The bytes of an ``objects.inv`` file (version 2) listing ``objects``."""
    header = (f"# Sphinx inventory version 2\n# Project: {project}\n# Version: \n"
              "# The remainder of this file is compressed using zlib.\n").encode()
    lines = "".join(f"{name} {role} 1 {uri} -\n" for name, role, uri in sorted(set(objects)))
    return header + zlib.compress(lines.encode())


def write(directory: Path, listing: Path = LISTING) -> dict[str, Path]:
    """Write ``<project>.inv`` into ``directory`` for each project of the listing."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = {}
    for project, entry in read(listing).items():
        path = directory / f"{project}.inv"
        data = inventory(project, entry["objects"])
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
        written[project] = path
    return written


def mapping(directory: Path, listing: Path = LISTING) -> dict[str, tuple[str, str]]:
    """``intersphinx_mapping``: each project's documentation and its inventory on disk."""
    paths = write(directory, listing)
    return {project: (entry["url"], str(paths[project]))
            for project, entry in read(listing).items()}


if __name__ == "__main__":
    for project, path in write(Path(sys.argv[1])).items():
        print(project, path)
