"""``python -m vendiscope.gui [PROJECT]`` opens the desktop application."""

import sys

from vendiscope.gui.app import main

sys.exit(main())
