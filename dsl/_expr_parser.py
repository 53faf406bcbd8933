"""The `${{ }}` parser: recursive descent over the grammar of expr.lark, rule for rule.

expr.lark stays the readable definition (tests parse with lark too and compare every tree);
this module exists because importing lark costs more than checking a whole template.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_TOKEN = re.compile(
    rf"""(?P<ws>[ \t\r\n]+)
    |(?P<NUMBER>[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)
    |(?P<STRING>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    |(?P<NAME>{NAME})
    |(?P<OP>==|!=|<=|>=|&&|\|\||[<>!?:,.()\[\]{{}}+\-*/%])""",
    re.VERBOSE | re.DOTALL,
)
_KEYWORDS = frozenset({"true", "false", "null", "in"})
# Binary operators from loosest to tightest; each level is left-associative (expr.lark).
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("==", "!="),
    ("<", "<=", ">", ">=", "in"),
    ("+", "-"),
    ("*", "/", "%"),
)
_DESCRIBE = {"NAME": "a name", "NUMBER": "a number", "STRING": "a string"}


@dataclass(frozen=True)
class Token:
    kind: str  # NAME, NUMBER, STRING, a keyword, an operator, or END
    text: str
    start: int
    end: int


class ParseError(Exception):
    def __init__(self, message: str, start: int, end: int) -> None:
        super().__init__(message)
        self.message, self.start, self.end = message, start, end


def tokenize(text: str) -> list[Token]:
    tokens, at = [], 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            raise ParseError(f"unexpected character {text[at]!r}", at, at + 1)
        kind = match.lastgroup or ""
        word = match.group()
        if kind == "OP" or (kind == "NAME" and word in _KEYWORDS):
            kind = word
        if kind != "ws":
            tokens.append(Token(kind, word, at, match.end()))
        at = match.end()
    tokens.append(Token("END", "", len(text), len(text) + 1))
    return tokens


# A built node and the span it was read from (parentheses included, as lark reports it).
Built = tuple[Any, int, int]


class Parser:
    """Builds nodes through `make(kind, start, end, *parts)`, so that the AST stays elsewhere."""

    def __init__(self, text: str, make: Callable[..., Any], max_nesting: int) -> None:
        self.tokens = tokenize(text)
        self.at = 0
        self.make = make
        self.nesting = 0
        self.max_nesting = max_nesting
        self.text_length = len(text)

    @property
    def peek(self) -> Token:
        return self.tokens[self.at]

    def take(self) -> Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def expect(self, kind: str, *also: str) -> Token:
        token = self.peek
        if token.kind != kind:
            raise self.unexpected(token, (kind, *also))
        return self.take()

    def unexpected(self, token: Token, wanted: tuple[str, ...]) -> ParseError:
        if token.kind == "END":
            return ParseError("unexpected end of expression", token.start, token.end)
        shown = sorted({_DESCRIBE.get(w, f"'{w}'") for w in wanted})
        hint = f"; expected {', '.join(shown[:6])}" if shown else ""
        return ParseError(f"unexpected {token.text!r}{hint}", token.start, token.end)

    def parse(self) -> Any:
        node, _, _ = self.expr()
        if self.peek.kind != "END":
            raise self.unexpected(self.peek, ())
        return node

    # expr: or_expr | or_expr "?" expr ":" expr
    def expr(self) -> Built:
        self.nesting += 1
        if self.nesting > self.max_nesting:
            raise ParseError(
                f"expression nests deeper than {self.max_nesting} levels", 0, self.text_length
            )
        try:
            test = self.binary(0)
            if self.peek.kind != "?":
                return test
            self.take()
            then = self.expr()
            self.expect(":")
            other = self.expr()
            node = self.make("cond", test[1], other[2], test[0], then[0], other[0])
            return node, test[1], other[2]
        finally:
            self.nesting -= 1

    def binary(self, level: int) -> Built:
        if level == len(_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek.kind in _LEVELS[level]:
            op = self.take().kind
            right = self.binary(level + 1)
            node = self.make("binary", left[1], right[2], op, left[0], right[0])
            left = (node, left[1], right[2])
        return left

    # unary: postfix | "!" unary | "-" unary
    def unary(self) -> Built:
        if self.peek.kind in ("!", "-"):
            self.nesting += 1
            if self.nesting > self.max_nesting:
                raise ParseError(
                    f"expression nests deeper than {self.max_nesting} levels", 0, self.text_length
                )
            try:
                op = self.take()
                operand = self.unary()
            finally:
                self.nesting -= 1
            return (
                self.make("unary", op.start, operand[2], op.kind, operand[0]),
                op.start,
                operand[2],
            )
        return self.postfix()

    # postfix: atom | postfix "." NAME | postfix "[" expr "]"
    def postfix(self) -> Built:
        node, start, end = self.atom()
        while self.peek.kind in (".", "["):
            if self.take().kind == ".":
                # a keyword is a name here (x.in), as lark's contextual lexer reads it
                name = self.take() if self.peek.kind in _KEYWORDS else self.expect("NAME")
                end = name.end
                node = self.make("attr", start, end, node, name.text)
            else:
                key = self.expr()
                end = self.expect("]", ",").end
                node = self.make("index", start, end, node, key[0])
        return node, start, end

    def atom(self) -> Built:
        token = self.take()
        kind = token.kind
        if kind in ("NUMBER", "STRING", "true", "false", "null"):
            return self.make(kind, token.start, token.end, token.text), token.start, token.end
        if kind == "NAME":
            if self.peek.kind != "(":
                return self.make("name", token.start, token.end, token.text), token.start, token.end
            self.take()
            args, end = self.items(")")
            return self.make("call", token.start, end, token, args), token.start, end
        if kind == "(":
            inner = self.expr()
            close = self.expect(")")
            return inner[0], token.start, close.end
        if kind == "[":
            items, end = self.items("]")
            return self.make("list", token.start, end, items), token.start, end
        if kind == "{":
            pairs, end = self.pairs()
            return self.make("map", token.start, end, pairs), token.start, end
        self.at -= 1
        raise self.unexpected(token, ("NAME", "NUMBER", "STRING", "(", "[", "{", "!", "-"))

    def items(self, close: str) -> tuple[list[Any], int]:
        """Comma-separated expressions up to `close`; the list and the end of `close`."""
        items: list[Any] = []
        if self.peek.kind == close:
            return items, self.take().end
        while True:
            items.append(self.expr()[0])
            if self.peek.kind == close:
                return items, self.take().end
            self.expect(",", close)

    def pairs(self) -> tuple[list[tuple[Token, Any]], int]:
        pairs: list[tuple[Token, Any]] = []
        if self.peek.kind == "}":
            return pairs, self.take().end
        while True:
            key = self.peek  # a keyword is a name here: {null: 1}, x.in
            if key.kind not in ("NAME", "STRING", *_KEYWORDS):
                raise self.unexpected(key, ("NAME", "STRING", "}"))
            self.take()
            self.expect(":")
            pairs.append((key, self.expr()[0]))
            if self.peek.kind == "}":
                return pairs, self.take().end
            self.expect(",", "}")
