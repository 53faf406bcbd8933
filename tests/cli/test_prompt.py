"""The terminal asker (`dsl run`): questions asked at once are put to the person one by one."""

from __future__ import annotations

import queue
import threading

import anyio
import pytest

from taskplate.cli import _prompt
from taskplate.interpreter import Answer

pytestmark = pytest.mark.anyio


class _Terminal:
    """stderr and stdin of a terminal: questions shown, lines typed by the test's person."""

    def __init__(self) -> None:
        self.questions: list[str] = []
        self.lines: queue.Queue[str] = queue.Queue()
        self.lock = threading.Lock()

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> None:
        with self.lock:
            if text.strip():
                self.questions.append(text)

    def flush(self) -> None:
        pass

    def readline(self) -> str:
        return self.lines.get(timeout=10)


async def test_questions_asked_at_once_are_answered_one_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(_prompt.sys, "stdin", terminal)
    monkeypatch.setattr(_prompt.sys, "stderr", terminal)
    asker = _prompt.TerminalAsker()
    answers: dict[str, Answer] = {}

    async def ask(question: str) -> None:
        answers[question] = await asker.ask(question)

    async def person() -> None:
        """Answers the question last shown, once per question: yes to the soap, else no."""
        for answered in range(2):
            while len(terminal.questions) <= answered:
                await anyio.sleep(0.01)
            await anyio.sleep(0.05)  # a person reads before typing
            terminal.lines.put("y\n" if "soap" in terminal.questions[-1] else "n\n")

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(ask, "Order the soap?")
            tg.start_soon(ask, "Delete the account?")
            tg.start_soon(person)
    assert answers == {"Order the soap?": Answer.ACCEPT, "Delete the account?": Answer.DECLINE}
