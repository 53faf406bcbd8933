"""The starter templates of `dsl template new`: commented YAML an author edits into their own,
each checked clean by `dsl validate` and run against the test site (tests/cli/test_template_new.py).
Text only; nothing here runs.
"""

from __future__ import annotations

_HEADER = """\
# A taskplate template: one YAML file that describes a browser task (what it takes, what it does,
# what it answers). Check it as you edit, and run it here:
#   dsl validate __NAME__.yaml
#   dsl run __NAME__.yaml __RUN__
# docs/authoring.md explains every part, docs/actions.md every action, docs/expressions.md the
# ${{ }} expressions. Put the file in a template folder (--templates DIR, TASKPLATE_TEMPLATES) for
# `dsl serve` to offer it to agents.
"""

BLANK = """\
template: __NAME__              # the id agents call it by: a-z, 0-9 and _, starting with a letter
version: 0.1.0                  # a semantic version; callers may ask for an exact one or ^0.1
name: __TITLE__
description: Open one page and answer its title and address.  # agents read this: say what it does
trust: [local, remote]          # who may run it: local (stdio, dsl run) and remote (HTTP) callers
inputs:                         # a JSON Schema of what callers give; defaults are applied
  type: object
  additionalProperties: false
  required: [url]
  properties:
    url: {type: string, pattern: "^https?://", description: The page to open.}
outputs:                        # a JSON Schema of the answer; a run whose answer does not match fails
  type: object
  required: [title, url]
  properties:
    title: {type: string}
    url: {type: string}
steps:                          # run in order; a step needs an id only when something reads it
  - id: open
    action: navigate
    with: {url: "${{ inputs.url }}"}
  - id: info
    action: get_page_info       # {url, title, description, lang, canonical, status}
output:
  title: ${{ steps.info.title }}
  url: ${{ steps.info.url }}
"""

BATCH = """\
template: __NAME__              # the id agents call it by: a-z, 0-9 and _, starting with a letter
version: 0.1.0
name: __TITLE__
description: >-
  Open each page in its own tab, a few at a time, and answer its title and content as Markdown.
  Pages that fail are reported one by one; the run succeeds partially when half of them are read.
trust: [local, remote]
partialSuccess: {allowed: true, threshold: 0.5}   # failed items do not fail the run, up to half
limits: {maxItems: 100, maxConcurrency: 5, maxTimeoutMs: 600000}
inputs:
  type: object
  additionalProperties: false
  required: [urls]
  properties:
    urls:
      type: array
      minItems: 1
      maxItems: 100
      items: {type: string, pattern: "^https?://"}
      description: The pages to read.
    concurrency: {type: integer, minimum: 1, maximum: 5, default: 3, description: Pages read at once.}
outputs:
  type: object
  required: [summary, items]
  properties:
    summary: {type: object}
    items:
      type: array
      items:
        type: object
        required: [url, success]
        properties:
          url: {type: string}
          success: {type: boolean}
          title: {type: [string, "null"]}
          content: {type: [string, "null"]}
steps:
  - id: pages
    forEach: ${{ inputs.urls }}   # one item per URL, a sliding window of `concurrency` tabs
    as: url
    concurrency: ${{ inputs.concurrency }}
    tab: new                      # each item in a clean tab, closed (or reused) when it ends
    steps:
      - id: open
        action: navigate
        with: {url: "${{ url }}", timeoutMs: 20000}
        retry: {attempts: 2, backoffMs: 500}   # network hiccups are tried again
      - action: assert            # an error page (HTTP 4xx or 5xx) fails the item, not the run
        with:
          that: ${{ steps.open.status == null || steps.open.status < 400 }}
          message: "the page answered HTTP ${{ steps.open.status }}"
      - action: wait_for_stable   # until the network and the page are quiet (bounded)
      - id: body
        action: get_page_content
        with: {format: markdown, onlyMainContent: true}
    collect:                      # what each item answers (failed items carry their error)
      url: ${{ url }}
      title: ${{ steps.open.title }}
      content: ${{ steps.body.content }}
output:
  summary: ${{ steps.pages.summary }}   # {total, succeeded, failed, skipped}
  items: ${{ steps.pages.items }}
"""

LOGIN = """\
template: __NAME__              # the id agents call it by: a-z, 0-9 and _, starting with a letter
version: 0.1.0
name: __TITLE__
description: >-
  Sign in through a site's form unless the profile is signed in already, and keep the login in
  that profile: later runs with the same profileId start signed in.
trust: [local]                  # it types a password: keep it to local callers unless you must
session: {profile: "${{ inputs.profileId }}"}   # start from this profile; what changed goes back
inputs:
  type: object
  additionalProperties: false
  required: [loginUrl, username, password]
  properties:
    loginUrl: {type: string, pattern: "^https?://", description: The page with the sign-in form.}
    checkUrl:
      type: string
      pattern: "^https?://"
      description: A members-only page that shows whether you are signed in (default loginUrl).
    username: {type: string, minLength: 1}
    password:                   # a secret: never stored, logged or shown (*** everywhere)
      type: string
      format: password
      writeOnly: true
      minLength: 1
    usernameSelector: {type: string, default: "input[name=username]"}
    passwordSelector: {type: string, default: "input[type=password]"}
    submitSelector: {type: string, default: "[type=submit]"}
    successSelector:            # what only a signed-in page shows: a way to sign out, say
      type: string
      default: "a[href*=logout i], a[href*=signout i], a[href*=sign-out i], a[href*=log-out i]"
    profileId: {type: string, pattern: "^[a-zA-Z0-9._-]{1,64}$", default: master}
outputs:
  type: object
  required: [url, title, signedInNow]
  properties:
    url: {type: string}
    title: {type: string}
    signedInNow: {type: boolean}
steps:
  - action: navigate            # already signed in? the profile's cookies came with the session
    with: {url: "${{ default(inputs.checkUrl, inputs.loginUrl) }}"}
  - id: before
    action: extract
    with: {fields: {signedIn: {selector: "${{ inputs.successSelector }}", type: boolean}}}
  - id: sign_in                 # a group: skipped as a whole when signed in already
    when: ${{ !steps.before.values.signedIn }}
    steps:
      - action: navigate
        with: {url: "${{ inputs.loginUrl }}"}
      - action: fill
        with: {selector: "${{ inputs.usernameSelector }}", value: "${{ inputs.username }}"}
      - action: fill
        with: {selector: "${{ inputs.passwordSelector }}", value: "${{ inputs.password }}"}
      - action: click
        with: {selector: "${{ inputs.submitSelector }}"}
      - id: wait                # fails with ELEMENT_NOT_FOUND when the sign-in did not work
        action: wait_for
        with: {selector: "${{ inputs.successSelector }}", timeoutMs: 15000}
      - id: publish             # the session's cookies and storage, for later runs
        action: save_profile
        with: {profileId: "${{ run.profileId }}"}   # the profile the run started from
  - id: page
    action: get_page_info
output:
  url: ${{ steps.page.url }}
  title: ${{ steps.page.title }}
  signedInNow: ${{ steps.publish != null }}
"""

CRAWL = """\
template: __NAME__              # the id agents call it by: a-z, 0-9 and _, starting with a letter
version: 0.1.0
name: __TITLE__
description: >-
  Read a site from one page, following its links on the same host breadth first, over plain
  HTTP (no browser; robots.txt obeyed), and answer each page's title and content.
trust: [local, remote]
partialSuccess: {allowed: true, threshold: 0.5}
limits: {maxItems: 500, maxConcurrency: 8, maxTimeoutMs: 900000}
inputs:
  type: object
  additionalProperties: false
  required: [startUrl]
  properties:
    startUrl: {type: string, pattern: "^https?://", description: Where the crawl starts.}
    maxPages: {type: integer, minimum: 1, maximum: 500, default: 50}
    maxDepth: {type: integer, minimum: 0, maximum: 10, default: 2, description: Links followed from the start.}
outputs:
  type: object
  required: [summary, items]
  properties:
    summary: {type: object}
    items: {type: array, items: {type: object}}
steps:
  - id: pages
    forEach: ${{ [inputs.startUrl] }}      # a growing loop: it starts with one page ...
    as: url
    enqueue: >-
      ${{ depth >= inputs.maxDepth ? [] : filter(default(steps.page.links, []), u,
      urlHost(u) == urlHost(inputs.startUrl)) }}
    uniqueBy: ${{ urlNormalize(url) }}      # ... each page read once ...
    maxItems: ${{ inputs.maxPages }}        # ... and at most this many
    concurrency: 4
    steps:
      - id: page
        action: fetch                       # HTTP only; use navigate for pages that need script
        with: {url: "${{ url }}", links: true, timeoutMs: 20000}
        retry: {attempts: 2, backoffMs: 500}
      - action: assert
        with:
          that: ${{ steps.page.status < 400 }}
          message: "the page answered HTTP ${{ steps.page.status }}"
    collect:
      url: ${{ url }}
      depth: ${{ depth }}
      title: ${{ steps.page.title }}
      content: ${{ steps.page.content }}
output:
  summary: ${{ steps.pages.summary }}
  items: ${{ steps.pages.items }}
"""

STARTERS = {
    "blank": (BLANK, "--input url=https://example.com/"),
    "batch": (BATCH, "--input urls=https://example.com/ --input urls=https://example.org/"),
    "login": (
        LOGIN,
        "--input loginUrl=https://example.com/login --input username=ME "
        "--input password=… --profile example",
    ),
    "crawl": (CRAWL, "--input startUrl=https://example.com/"),
}


def starter(kind: str, name: str) -> str:
    """The starter `kind` as the text of template `name`."""
    body, run = STARTERS[kind]
    title = name.replace("_", " ").strip().capitalize()
    text = _HEADER + body
    return text.replace("__NAME__", name).replace("__TITLE__", title).replace("__RUN__", run)
