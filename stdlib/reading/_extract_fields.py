"""The shape of `extract`'s fields (a selector, or a map that may hold records' own fields)
and the one page script that waits for them and reads them all.

Plain schemas and script text; extract.py runs them and types what they read.
"""

from __future__ import annotations

from typing import Any

from .._schemas import css_selector

TYPES = ("string", "number", "integer", "boolean", "url")

# A record's fields are read inside each of its matches; `attr` and `type` say how one value
# is read, so they have no meaning beside `fields`.
_NOT_BOTH = {
    "not": {"anyOf": [{"required": ["fields", "attr"]}, {"required": ["fields", "type"]}]},
    "x-message": "reads a record (fields): attr and type belong to the fields inside it",
}


def _field_map(inner: bool) -> dict[str, Any]:
    selector = css_selector(
        "Looked for inside the record's element; none: the element." if inner else "",
        "query",
    )
    schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "selector": selector,
            "attr": {
                "type": "string",
                "minLength": 1,
                "description": "An attribute instead of the text.",
            },
            "all": {"type": "boolean", "default": False, "description": "Every match as a list."},
            "type": {
                "enum": list(TYPES),
                "default": "string",
                "description": "string as written; number and integer read as toNumber() does "
                "(`$1,299.00` → 1299.0, null when there is no number); boolean: whether an "
                "element matches (with attr: has the attribute, not set to false); url: made "
                "absolute.",
            },
            "fields": {
                "type": "object",
                "minProperties": 1,
                "additionalProperties": {"$ref": "#/$defs/innerField"},
                "description": "A record per match: these fields read inside it (nulls where "
                "a match has none), to any depth.",
            },
        },
        "allOf": [_NOT_BOTH],
    }
    if not inner:
        schema["required"] = ["selector"]
    return schema


# A bare string is shorthand for {selector: the string}.
DEFS = {
    "field": {
        "anyOf": [css_selector("", "query"), _field_map(inner=False)],
        "x-hint": "a selector or {selector, attr, all, type, fields}",
    },
    "innerField": {
        "anyOf": [css_selector("", "query"), _field_map(inner=True)],
        "x-hint": "a selector or {selector, attr, all, type, fields}",
    },
}


def shaped(fields: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every field as a map, the shorthand written out, at every depth."""
    out = {}
    for name, field in fields.items():
        spec: dict[str, Any] = {"selector": field} if isinstance(field, str) else dict(field)
        if isinstance(spec.get("fields"), dict):
            spec["fields"] = shaped(spec["fields"])
        out[name] = spec
    return out


# One evaluate for every field and record: it answers at once when the fields are there, else
# it watches the page (a MutationObserver, and a cheap poll for what no mutation shows, such as
# an open shadow root's content) until they are or the time is up. url fields are resolved
# against document.baseURI (which honours <base href>).
# The values are bounded here, in the page, by maxChars characters of their JSON: a list stops
# at the match that would pass it and a text is cut, each cut noted (`cut`, at most maxCuts of
# them; `cuts` counts all), so no page sends more than that across. The answer crosses as one
# JSON text: Playwright's own parsing of a value walks it in Python, node by node, on the event
# loop (seconds for 20,000 records), where one string costs a copy.
MAX_CUTS = 20
EXTRACT = """([root, fields, awaited, required, waitMs, maxChars, maxCuts]) => {
  const absolute = (v) => { try { return new URL(v, document.baseURI).href; } catch { return null; } };
  let left = maxChars;
  const cut = [];
  let cuts = 0;
  const note = (entry) => { cuts++; if (cut.length < maxCuts) cut.push(entry); };
  const size = (v) => v === undefined ? 4 : JSON.stringify(v).length;
  const read = (el, f, path) => {
    if (f.type === 'boolean') return f.attr ? el.hasAttribute(f.attr) && el.getAttribute(f.attr) !== 'false' : true;
    let v = f.attr ? el.getAttribute(f.attr) : (el.innerText ?? el.textContent ?? '').trim();
    if (v !== null && f.type === 'url') v = absolute(v.trim());
    if (typeof v === 'string' && v.length + 2 > left) {
      const kept = Math.max(0, left - 2);
      note({path, characters: v.length, kept});
      v = v.slice(0, kept);
    }
    return v;
  };
  const one = (el, f, path) => {
    if (f.fields) return record(el, f.fields, path + '.');
    const v = read(el, f, path);
    left -= size(v) + 1;
    return v;
  };
  const value = (base, f, path) => {
    if (!f.all) {
      const el = f.selector ? base.querySelector(f.selector) : base;
      if (el) return one(el, f, path);
      left -= 6;
      return f.type === 'boolean' && !f.fields ? false : null;
    }
    const matches = f.selector ? base.querySelectorAll(f.selector) : [base];
    const out = [];
    left -= 2;
    for (let i = 0; i < matches.length; i++) {
      const before = left, noted = cut.length, counted = cuts;
      const item = left > 0 ? one(matches[i], f, `${path}[${i}]`) : undefined;
      left = before;
      const cost = item === undefined ? Infinity : size(item) + 1;
      if (cost > left) {
        cut.length = noted;
        cuts = counted;
        note({path, matches: matches.length, kept: i});
        left = Math.min(left, 0);
        break;
      }
      left -= cost;
      out.push(item);
    }
    return out;
  };
  const record = (el, fs, prefix) => {
    const out = {};  // keys are prefixed (extract.KEY): never __proto__
    for (const [name, f] of Object.entries(fs)) {
      left -= name.length + 2;
      out[name] = value(el, f, prefix + name.slice(2));
    }
    return out;
  };
  const look = () => {
    const base = root ? document.querySelector(root) : document;
    if (!base) return null;
    return {base, found: Object.keys(fields).filter((n) => base.querySelector(fields[n].selector) !== null)};
  };
  const ready = (seen) => seen !== null && required.every((n) => seen.found.includes(n))
    && (awaited.length === 0 || awaited.some((n) => seen.found.includes(n)));
  // watch: the smart wait's watcher, for the wait until lists stop growing (_extract_lists.py)
  const answer = (seen) => {
    if (seen === null) return null;
    const values = record(seen.base, fields, '');
    return JSON.stringify({values, found: seen.found, cut, cuts, watch: (STATE)()});
  };
  const first = look();
  if (waitMs <= 0 || ready(first)) return answer(first);
  return new Promise((resolve, reject) => {
    let done = false;
    const stop = () => { done = true; observer.disconnect(); clearInterval(poll); clearTimeout(timer); };
    const end = () => {
      if (done) return;
      stop();
      try { resolve(answer(look())); } catch (e) { reject(e); }
    };
    const check = () => {
      if (done) return;
      try { if (ready(look())) end(); } catch (e) { stop(); reject(e); }
    };
    const observer = new MutationObserver(check);
    observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
    const poll = setInterval(check, 100);
    const timer = setTimeout(end, waitMs);
  });
}"""
