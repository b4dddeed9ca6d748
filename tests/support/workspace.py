"""A small git repository to use as a workspace in tests (``git init`` in a temporary dir)."""

from __future__ import annotations

import subprocess
from pathlib import Path

GATEWAY = """\
\"\"\"The HTTP gateway: every request passes through here.\"\"\"

from shop.config import Settings


class Gateway:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def handle(self, request):
        # no rate limiting yet: every client may send any number of requests
        return self.route(request)

    def route(self, request):
        return request.path
"""
CONFIG = """\
class Settings:
    requests_per_minute = 600
    \"\"\"The limit the gateway should enforce per client.\"\"\"
"""


def make_repo(root: Path, *, huge_bytes: int = 2_000_000) -> Path:
    """A committed repository: a gateway, its config, a binary, a huge file and symlinks."""
    repo = root / "shop-repo"
    (repo / "shop").mkdir(parents=True)
    (repo / "shop" / "gateway.py").write_text(GATEWAY)
    (repo / "shop" / "config.py").write_text(CONFIG)
    (repo / "README.md").write_text("# shop\n\nA small web shop behind a gateway.\n")
    (repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0" + bytes(range(256)))
    (repo / "data.txt").write_text("x" * huge_bytes)
    (repo / "escape").symlink_to("/etc")
    (repo / "gateway-link.py").symlink_to("shop/gateway.py")
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "a shop with a gateway")
    return repo


def git(repo: Path, *args: str) -> str:
    identity = ["-c", "user.name=Test", "-c", "user.email=test@example.invalid"]
    done = subprocess.run(
        ["git", *identity, *args], cwd=repo, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()
