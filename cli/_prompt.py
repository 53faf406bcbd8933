"""The person at `dsl run`'s terminal as the run's `Asker`: confirmations and hand-overs are
asked on stderr and answered on stdin. Only when both are a terminal; never guesses an answer."""

from __future__ import annotations

import sys

import anyio

from taskplate.interpreter import Answer, CannotAsk

_ANSWERS = {"y": Answer.ACCEPT, "yes": Answer.ACCEPT, "n": Answer.DECLINE, "no": Answer.DECLINE}


class TerminalAsker:
    via = "terminal"

    def __init__(self) -> None:
        # One question on the terminal at a time: items asking at once would print their
        # questions together and each take whichever answer came first.
        self._turn = anyio.Lock()

    def can_ask(self) -> bool:
        return sys.stdin.isatty() and sys.stderr.isatty()

    async def ask(self, message: str) -> Answer:
        def read() -> str:
            sys.stderr.write(f"\n{message}\n[y]es / [n]o / [c]ancel the run: ")
            sys.stderr.flush()
            return sys.stdin.readline()

        async with self._turn:
            line = await anyio.to_thread.run_sync(read, abandon_on_cancel=True)
        if not line:  # end of input: nobody is there
            raise CannotAsk("stdin closed")
        word = line.strip().lower()
        if word in ("c", "cancel"):
            return Answer.CANCEL
        return _ANSWERS.get(word, Answer.DECLINE)  # anything but a yes is a no
