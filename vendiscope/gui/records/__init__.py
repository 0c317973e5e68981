"""The records view: the virtual table, the detail pane, the shared selected record.

``queries`` is Qt-free.
"""
