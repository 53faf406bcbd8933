"""The actions that take a tab somewhere and wait for it: navigate, the waits, tabs opened and
closed, the session's login saved, the page handed to a person. One module per action.
"""
