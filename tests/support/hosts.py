"""Several hosts on one machine for tests: each worker host is a network
namespace (``ip netns``, Debian's iproute2) with its own loopback, joined by a veth pair to a
bridge in the machine's own namespace, the server host (Temporal and PostgreSQL listen on the
bridge's address). A worker host reaches the server over that network only: its 127.0.0.1 is its
own. Files are shared, as they would be on a mount every host has.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

INSTALL = "apt-get install iproute2"


@dataclass(frozen=True)
class Network:
    """The server host's address on the bridge, and each worker host's namespace and address."""

    server: str
    subnet: str
    namespaces: list[str]
    addresses: list[str]

    def spawn(
        self, host: int, argv: Sequence[str], env: dict[str, str], log: Path, cwd: Path
    ) -> subprocess.Popen[bytes]:
        """``argv`` on worker host ``host`` (its pid is the program's: ``ip netns exec`` execs
        it), output to ``log``."""
        with log.open("ab") as out:
            return subprocess.Popen(
                ["ip", "netns", "exec", self.namespaces[host], *argv],
                env=env,
                cwd=cwd,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )


def require_namespaces() -> None:
    """Skip unless this process may make network namespaces (root and iproute2); in CI a
    missing ``ip`` fails instead."""
    if shutil.which("ip") is None:
        message = f"the several-host tests need the ip command; {INSTALL}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    if os.geteuid() != 0:
        pytest.skip("the several-host tests make network namespaces, which needs root")


@contextmanager
def worker_hosts(count: int) -> Iterator[Network]:
    """``count`` worker hosts on a fresh bridge; every namespace and link is removed at the end."""
    require_namespaces()
    tag = f"{os.getpid() % 1000}{random.randrange(100)}"
    octet = random.randrange(16, 250)
    bridge = f"agtbr{tag}"
    server = f"10.{octet}.{random.randrange(256)}"
    made: list[list[str]] = []
    network = Network(f"{server}.1", f"{server}.0/24", [], [])
    try:
        probe = subprocess.run(
            ["ip", "link", "add", bridge, "type", "bridge"], capture_output=True, text=True
        )
        if probe.returncode != 0:
            pytest.skip(f"cannot make a bridge here: {probe.stderr.strip()}")
        made.append(["ip", "link", "del", bridge])
        _ip("addr", "add", f"{network.server}/24", "dev", bridge)
        _ip("link", "set", bridge, "up")
        for n in range(count):
            namespace, outside, inside = f"agt{tag}-w{n}", f"agt{tag}h{n}", f"agt{tag}p{n}"
            _ip("netns", "add", namespace)
            made.append(["ip", "netns", "del", namespace])
            _ip("link", "add", outside, "type", "veth", "peer", "name", inside)
            _ip("link", "set", inside, "netns", namespace)
            _ip("link", "set", outside, "master", bridge, "up")
            address = f"{server}.{n + 2}"
            _ip("-n", namespace, "addr", "add", f"{address}/24", "dev", inside)
            _ip("-n", namespace, "link", "set", inside, "up")
            _ip("-n", namespace, "link", "set", "lo", "up")
            network.namespaces.append(namespace)
            network.addresses.append(address)
        yield network
    finally:
        for command in reversed(made):
            subprocess.run(command, capture_output=True, check=False)


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)} failed: {done.stderr.strip()}")
