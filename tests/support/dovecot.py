"""A real IMAP server for tests: Debian's ``dovecot-imapd``, started unprivileged in a temporary
directory on a free loopback port (never a mock).

Dovecot runs as ``nobody`` when the tests run as root (CI), else as oneself: every process of it
(master, login, auth, imap) runs as that one user, with its sockets, state and logs in the
directory and one mailbox user (``USER``/``PASSWORD``, a passwd-file) whose Maildir is there too.
Plain-text login on loopback, no TLS: the poller's ``AGENTS_IMAP_SECURITY=none``.
"""

from __future__ import annotations

import grp
import imaplib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

DOVECOT = Path("/usr/sbin/dovecot")
INSTALL = "apt-get install dovecot-imapd"
USER = "door"
PASSWORD = "imap-DISTINCTIVE-pass-7c3e91"

CONFIG = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/log
info_log_path = {root}/log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = {user}
default_internal_group = {group}
default_login_user = {user}
first_valid_uid = 0
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
  chroot =
}}
service anvil {{
  chroot =
}}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/home/%u
}}
mail_location = maildir:~/Maildir
"""


@dataclass(frozen=True)
class ImapServer:
    port: int
    host: str = "127.0.0.1"

    def session(self) -> imaplib.IMAP4:
        imap = imaplib.IMAP4(self.host, self.port, timeout=30)
        imap.login(USER, PASSWORD)
        return imap

    def append(self, raw: bytes, mailbox: str = "INBOX") -> None:
        """Deliver ``raw`` into ``mailbox``, unseen (IMAP APPEND)."""
        imap = self.session()
        try:
            kind, data = imap.append(mailbox, "", None, raw)
            assert kind == "OK", data
        finally:
            imap.logout()

    def unseen(self, mailbox: str = "INBOX") -> int:
        imap = self.session()
        try:
            imap.select(mailbox)
            kind, data = imap.uid("SEARCH", "UNSEEN")
            assert kind == "OK", data
            return len((data[0] or b"").split())
        finally:
            imap.logout()


@contextmanager
def dovecot_server(port: int) -> Iterator[ImapServer]:
    """Dovecot listening on 127.0.0.1:``port`` until the block ends, then stopped and removed."""
    root = Path(tempfile.mkdtemp(prefix="dovecot-test-"))  # not under pytest's root-only tmp dir
    user = pwd.getpwnam("nobody") if os.geteuid() == 0 else pwd.getpwuid(os.geteuid())
    group = _group_name(user.pw_gid)
    (root / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    config = CONFIG.format(
        root=root, user=user.pw_name, group=group, uid=user.pw_uid, gid=user.pw_gid, port=port
    )
    (root / "dovecot.conf").write_text(config)
    for path in (root, root / "passwd", root / "dovecot.conf"):
        if os.geteuid() == 0:
            os.chown(path, user.pw_uid, user.pw_gid)
    process = subprocess.Popen(
        [str(DOVECOT), "-F", "-c", str(root / "dovecot.conf")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        cwd="/",
        user=user.pw_uid if os.geteuid() == 0 else None,
        group=user.pw_gid if os.geteuid() == 0 else None,
        extra_groups=[] if os.geteuid() == 0 else None,
    )
    try:
        server = ImapServer(port)
        _until_listening(server, process, root)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        shutil.rmtree(root, ignore_errors=True)


def _until_listening(server: ImapServer, process: subprocess.Popen[bytes], root: Path) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            server.session().logout()
            return
        except (OSError, imaplib.IMAP4.error) as err:
            log = root / "log"
            if process.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text()[-2000:] if log.is_file() else ""
                raise RuntimeError(f"dovecot did not start ({err}): {tail}") from None
            time.sleep(0.1)


def _group_name(gid: int) -> str:
    return grp.getgrgid(gid).gr_name


def require_dovecot() -> None:
    """Without dovecot a test skips locally and fails in CI (``CI`` set)."""
    if not DOVECOT.is_file() or shutil.which("doveconf") is None:
        message = f"Dovecot's IMAP server is not installed ({DOVECOT}); {INSTALL}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
