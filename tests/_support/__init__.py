"""Helpers shared by the tests (no test module imports another test module).

``paths``: the repository's directories; ``rst``: the code blocks of a docs
page; ``wrong_mechanisms``: a catalogue of deliberately wrong mechanisms.
"""
