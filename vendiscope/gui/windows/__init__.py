"""The window and its frame: menus and actions, the start page, tabs, the open project,
settings, About, the user guide, the plugins window."""
