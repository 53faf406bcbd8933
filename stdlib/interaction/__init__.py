"""The actions that act on a page as its user or its host: clicks, typing, keys, choices,
hovering, scrolling, scripts and files. One module per action.
"""
