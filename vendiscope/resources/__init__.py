"""Icons, style sheet, the bundled demo dataset, and the user guide.

``guide`` is a link to the source tree's ``docs/`` (the one copy of the guide); building the
package copies the pages, as package data.
"""
