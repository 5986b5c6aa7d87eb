"""Install weight of kgmem's core and of each extra in the current environment, as JSON.

    .venv/bin/python scripts/install_weight.py            # reads ./pyproject.toml

Sizes are bytes on disk summed over each installed distribution's file list (RECORD), in MB;
a closure follows the installed distributions' own requirements (markers evaluated here). An
extra's figure is what it adds on top of the core. Only what is installed is counted.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

CUDA = re.compile(r"^(nvidia-.*|triton|cuda-.*)$")


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed() -> dict[str, tuple[metadata.Distribution, int]]:
    out = {}
    for dist in metadata.distributions():
        size = 0
        for file in dist.files or []:
            with contextlib.suppress(OSError):
                size += os.path.getsize(str(dist.locate_file(file)))
        out[norm(dist.metadata["Name"])] = (dist, size)
    return out


def closure(
    reqs: list[Requirement], dists: dict[str, tuple[metadata.Distribution, int]]
) -> set[str]:
    seen: set[str] = set()
    stack = [r for r in reqs if not r.marker or r.marker.evaluate({"extra": ""})]
    while stack:
        req = stack.pop()
        name = norm(req.name)
        if name in seen or name not in dists:
            continue
        seen.add(name)
        for raw in dists[name][0].requires or []:
            sub = Requirement(raw)
            if not sub.marker or sub.marker.evaluate({"extra": ""}):
                stack.append(sub)
    return seen


def main() -> None:
    project = tomllib.loads(
        Path(sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml").read_text()
    )
    project = project["project"]
    dists = installed()

    def mb(names: set[str]) -> float:
        return round(sum(dists[n][1] for n in names) / 1e6, 1)

    def largest(names: set[str], n: int = 4) -> dict[str, float]:
        top = sorted(names, key=lambda x: -dists[x][1])[:n]
        return {x: round(dists[x][1] / 1e6, 1) for x in top}

    core = closure([Requirement(r) for r in project["dependencies"]], dists)
    cuda = {n for n in core if CUDA.match(n)}
    report: dict[str, object] = {
        "core": {"packages": len(core), "MB": mb(core), "largest": largest(core, 8)},
        "core_cuda_stack": {"packages": len(cuda), "MB": mb(cuda)},
    }
    for extra, reqs in project["optional-dependencies"].items():
        own = [Requirement(r) for r in reqs if norm(Requirement(r).name) != "kgmem"]
        adds = closure(own, dists) - core
        report[extra] = {"adds_packages": len(adds), "adds_MB": mb(adds), "largest": largest(adds)}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
