"""The scripts installed in every document of a session before its own scripts run: the
page-side watcher of smart waiting (WATCHER), which records what happens in the page and changes
nothing it shows or does; and the cut of error-handler loops (ERROR_LOOPS).

Error-handler loops: a picture whose error handler swaps in a fallback that fails too
(`<img onerror="this.src='fallback.jpg'">` with the fallback missing, on a host the machine
cannot reach, or blocked: reads block pictures by default) fails, runs its handler, fails again,
hundreds of times a second, for as long as the page is open. The page never fires `load`; every
failed request crosses to the driver as an event (an article page of the shared corpus sent 360
a second), and under that flood Playwright's client lost track of the page's objects ("Cannot
find object to __dispose__") and a batch of such pages overran its run's time
(bench/content.py).

An element whose resource has failed `LOOP_FAILURES` times is not told of its failures any more:
a listener on the window, which hears an element's `error` event before the element's own
handlers, stops it there. A fallback chain (webp, then jpeg, then a placeholder) fails two or
three times; an element failing more is in a loop the page never leaves. The page shows what it
showed; only its handler stops running.
"""

import json

from ._capture import DOCUMENT, LOADED_BINDING

SHORT_TIMER_MS = 1500  # longer timers are polls or ads, not the page filling itself
CHAIN_DEPTH = 4  # a timer or frame scheduled by a tracked one is tracked, this many links deep
SETTLE_FRAMES = 6  # 100 ms at 60 frames a second: a page's own frames run after loading

# Runs in every frame of every page of a session before the page's scripts (add_init_script).
WATCHER = (
    """(() => {
  if (window.__taskplateWatch) return;
  const SHORT = SHORT_MS, DEPTH = CHAIN_DEPTH;
  // Responses that scripts act on; not images, beacons or the browser's own favicon request.
  const LOADS = new Set(['fetch', 'xmlhttprequest', 'script', 'link', 'css', 'iframe']);
  const now = () => performance.now();
  const w = {loadedAt: null, last: now(), framesRun: 0, beyond: new Map(), timers: new Map(), frames: new Map(), intervals: new Map(), atLoad: null, dirty: true, done: false};
  Object.defineProperty(window, '__taskplateWatch', {value: w, enumerable: false});
  // dirty: the DOM changed since the watcher kept the document as it loaded (w.atLoad), so a
  // reader must read it again; while clean, the kept copy is the page (capture_page).
  const changed = () => { w.last = now(); w.dirty = true; };
  new MutationObserver(changed).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (LOADS.has(e.initiatorType)) w.last = Math.max(w.last, e.responseEnd || e.startTime);
      }
    }).observe({type: 'resource'});
  } catch (e) {}
  const setT = window.setTimeout, clearT = window.clearTimeout;
  const setI = window.setInterval, clearI = window.clearInterval;
  const raf = window.requestAnimationFrame, caf = window.cancelAnimationFrame;
  let depth = 0;  // how deep in a chain of tracked callbacks the running code is
  const run = (fn, level, self, args) => {
    const outer = depth; depth = level;
    try { return fn.apply(self, args); } finally { depth = outer; }
  };
  window.addEventListener('load', () => {
    setT.call(window, () => { w.loadedAt = now(); }, 0);
    // The top document as it loaded, before the page's own load handlers run: what a reader
    // gets back if the page's script then takes its content away (get_page_content). Kept
    // here: its HTML crosses to the reader only when it is needed (below, and capture_page).
    if (window === window.top) {
      try {
        w.atLoad = (DOCUMENT)();
        w.dirty = false;
        // Where it landed, without its HTML: navigate answers with it, no round trip.
        const send = window.BINDING;
        if (typeof send === 'function') send(JSON.stringify({...w.atLoad, html: '', landed: true}));
      } catch (e) {}
    }
  });
  // A top document that its own script leaves sends itself as it goes, once: its copy at load,
  // or itself as it is when it leaves before it loaded (an inline check sending the tab
  // elsewhere). Not when the reader has done with it (w.done: the tab goes to its next page).
  let sentLeaving = false;
  const leaving = () => {
    if (window !== window.top || w.done || sentLeaving || !document.body) return;
    if (location.href === 'about:blank') return;
    sentLeaving = true;
    try {
      const left = w.atLoad !== null ? {...w.atLoad, loaded: true} : (DOCUMENT)();
      left.left = true;
      const send = window.BINDING;
      if (typeof send === 'function') send(JSON.stringify(left));
    } catch (e) {}
  };
  window.addEventListener('beforeunload', leaving);
  window.addEventListener('pagehide', leaving);
  window.setTimeout = function (fn, delay, ...rest) {
    if (typeof fn !== 'function' || !(Number(delay || 0) <= SHORT) || depth >= DEPTH) {
      return setT.call(this, fn, delay, ...rest);
    }
    const level = depth + 1;
    const id = setT.call(this, function (...args) {
      w.timers.delete(id); changed();
      return run(fn, level, this, args);
    }, delay, ...rest);
    w.timers.set(id, level);
    return id;
  };
  // Intervals are never "pending" (they run for ever), but each live one is noted with when it
  // last ran: a page just loaded is watched until its short intervals have run once (READ).
  window.setInterval = function (fn, delay, ...rest) {
    if (typeof fn !== 'function') return setI.call(this, fn, delay, ...rest);
    const beat = {period: Number(delay || 0) || 0, ranAt: null};
    const id = setI.call(this, function (...args) {
      beat.ranAt = now();
      return fn.apply(this, args);
    }, delay, ...rest);
    w.intervals.set(id, beat);
    return id;
  };
  // Either clears either kind: timers and intervals share their ids.
  const forget = (id) => { w.timers.delete(id); w.intervals.delete(id); };
  window.clearTimeout = function (id) { forget(id); return clearT.call(this, id); };
  window.clearInterval = function (id) { forget(id); return clearI.call(this, id); };
  if (raf) {
    // A frame scheduled deeper than the chain followed is not pending work (`beyond`, not
    // `frames`), but it is noted, and the page's frames run since it loaded are counted
    // (framesRun): a page just loaded is watched until it has run a few (_wait).
    window.requestAnimationFrame = function (fn) {
      if (typeof fn !== 'function') return raf.call(this, fn);
      const level = depth + 1, tracked = depth < DEPTH;
      const id = raf.call(this, function (...args) {
        w.frames.delete(id); w.beyond.delete(id);
        if (w.loadedAt !== null) w.framesRun += 1;
        return tracked ? run(fn, level, this, args) : fn.apply(this, args);
      });
      (tracked ? w.frames : w.beyond).set(id, level);
      return id;
    };
    window.cancelAnimationFrame = function (id) {
      w.frames.delete(id); w.beyond.delete(id);
      return caf.call(this, id);
    };
  }
})();""".replace("SHORT_MS", str(SHORT_TIMER_MS))
    .replace("CHAIN_DEPTH", str(CHAIN_DEPTH))
    .replace("(DOCUMENT)", f"({DOCUMENT})")
    .replace("BINDING", LOADED_BINDING)
)

# What may change a document with nothing the watcher sees: a script (its intervals, message
# channels, observers), a frame or plugin with scripts of its own, a handler run by an event
# of the load, a refresh. A document with none of them cannot change by itself once loaded.
_SCRIPTED = (
    "script, iframe, frame, object, embed, [onload], [onerror], meta[http-equiv='refresh' i]"
)
# What the watcher knows now; `null` where no watcher runs (a page opened before it existed).
READ = """() => {
  const w = window.__taskplateWatch;
  if (!w) return null;
  const t = performance.now();
  return {
    loaded: w.loadedAt !== null,
    changedAfterLoad: w.loadedAt !== null && w.last > w.loadedAt,
    sinceLoadMs: w.loadedAt === null ? 0 : t - w.loadedAt,
    framesAfterLoad: w.framesRun,
    beyond: w.beyond.size,
    quietMs: t - w.last,
    timers: w.timers.size,
    frames: w.frames.size,
    // The shortest period of the live intervals that have not run since the page loaded.
    unranMs: w.loadedAt === null ? null : [...w.intervals.values()].reduce(
      (least, b) => (b.ranAt === null || b.ranAt <= w.loadedAt) && (least === null || b.period < least) ? b.period : least, null),
    errorPage: location.href.startsWith('chrome-error://'),
    scriptless: !document.querySelector(SCRIPTED),
  };
}""".replace("SCRIPTED", json.dumps(_SCRIPTED))


LOOP_FAILURES = 10  # an element failing more often is in a loop (the docstring)

ERROR_LOOPS = """(() => {
  if (window.__taskplateLoops) return;
  Object.defineProperty(window, '__taskplateLoops', {value: true, enumerable: false});
  const failures = new WeakMap();
  window.addEventListener('error', (event) => {
    const element = event.target;
    if (!(element instanceof Element)) return;  // a script's error, not a resource's
    const times = (failures.get(element) || 0) + 1;
    failures.set(element, times);
    if (times > MOST) event.stopImmediatePropagation();
  }, true);
})();""".replace("MOST", str(LOOP_FAILURES))
