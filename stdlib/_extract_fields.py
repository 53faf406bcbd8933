"""The shape of `extract`'s fields (a selector, or a map that may hold records' own fields)
and the one page script that waits for them and reads them all.

Plain schemas and script text; extract.py runs them and types what they read.
"""

from __future__ import annotations

from typing import Any

from ._schemas import css_selector

TYPES = ("string", "number", "integer", "boolean", "url")

# A record's fields are read inside each of its matches; `attr` and `type` say how one value
# is read, so they have no meaning beside `fields`.
_NOT_BOTH = {
    "not": {"anyOf": [{"required": ["fields", "attr"]}, {"required": ["fields", "type"]}]},
    "x-message": "reads a record (fields): attr and type belong to the fields inside it",
}


def _field_map(inner: bool) -> dict[str, Any]:
    selector = css_selector(
        "looked for inside the record's element; none: the element." if inner else "",
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
EXTRACT = """([root, fields, awaited, required, waitMs]) => {
  const absolute = (v) => { try { return new URL(v, document.baseURI).href; } catch { return null; } };
  const read = (el, f) => {
    if (f.type === 'boolean') return f.attr ? el.hasAttribute(f.attr) && el.getAttribute(f.attr) !== 'false' : true;
    const v = f.attr ? el.getAttribute(f.attr) : (el.innerText ?? el.textContent ?? '').trim();
    return v !== null && f.type === 'url' ? absolute(v.trim()) : v;
  };
  const value = (base, f) => {
    const at = (el) => f.fields ? record(el, f.fields) : read(el, f);
    if (f.all) return (f.selector ? Array.from(base.querySelectorAll(f.selector)) : [base]).map(at);
    const el = f.selector ? base.querySelector(f.selector) : base;
    return el ? at(el) : (f.type === 'boolean' && !f.fields ? false : null);
  };
  const record = (el, fs) => {
    const out = {};
    for (const [name, f] of Object.entries(fs)) out[name] = value(el, f);
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
  const answer = (seen) => seen === null ? null : {values: record(seen.base, fields), found: seen.found, watch: (STATE)()};
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
