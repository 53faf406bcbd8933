"""The actions that read: a page's info, content, screenshot, fields, snapshot or a model's
reading of it, in the browser or over plain HTTP (fetch, read_page, sitemap, robots).
One module per action.
"""
