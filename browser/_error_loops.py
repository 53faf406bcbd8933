"""Error-handler loops cut short, in every document of a session before its own scripts run.

A picture whose error handler swaps in a fallback that fails too (`<img onerror="this.src=
'fallback.jpg'">` with the fallback missing, on a host the machine cannot reach, or blocked:
reads block pictures by default) fails, runs its handler, fails again, hundreds of times a
second, for as long as the page is open. The page never fires `load`; every failed request
crosses to the driver as an event (an article page of the shared corpus sent 360 a second), and
under that flood Playwright's client lost track of the page's objects ("Cannot find object to
__dispose__") and a batch of such pages overran its run's time (bench/content.py).

An element whose resource has failed `LOOP_FAILURES` times is not told of its failures any more:
a listener on the window, which hears an element's `error` event before the element's own
handlers, stops it there. A fallback chain (webp, then jpeg, then a placeholder) fails two or
three times; an element failing more is in a loop the page never leaves. The page shows what it
showed; only its handler stops running.
"""

LOOP_FAILURES = 10

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
