"""The inbox's pages of waiting questions: page n's server token, learnt when page n - 1 was
listed, so ``?page=3`` and a "previous" link need no token in the address. A page whose token is
not known (the inbox restarted, a hand-typed number) shows the first page instead."""

from __future__ import annotations

from collections import OrderedDict
from urllib.parse import urlencode

MAX_KNOWN_PAGES = 2000
"""Tokens kept at most (the oldest learnt go first): 2,000 pages of 100 questions each."""


class PageTokens:
    """Page n's server token per server-side filter, newest learnt kept."""

    def __init__(self, most: int = MAX_KNOWN_PAGES) -> None:
        self.most = most
        self._tokens: OrderedDict[tuple[str, int], bytes] = OrderedDict()

    def start_of(self, narrowed: str, page: int) -> tuple[int, bytes | None]:
        """The page to list for ``page`` of the filter ``narrowed`` (its query), and its token:
        ``(page, token)``, or ``(1, None)`` when page 1 was asked or its token is not known."""
        token = self._tokens.get((narrowed, page)) if page > 1 else None
        return (page, token) if token is not None else (1, None)

    def learn(self, narrowed: str, page: int, token: bytes | None) -> None:
        """Page ``page``'s token (None: there is no such page)."""
        key = (narrowed, page)
        if token is None:
            self._tokens.pop(key, None)
            return
        self._tokens[key] = token
        self._tokens.move_to_end(key)
        while len(self._tokens) > self.most:
            self._tokens.popitem(last=False)


def page_address(params: dict[str, str], page: int) -> str:
    """The inbox's address of ``page`` with the same filters (``params``: the page's query)."""
    kept = {k: v for k, v in params.items() if k != "page" and v}
    return "/?" + urlencode({**kept, **({"page": str(page)} if page > 1 else {})})
