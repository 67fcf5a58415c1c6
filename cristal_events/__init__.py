"""cristal-events: an event-sourced campaign log for Les Lois du Cristal and the Illergan Dé100 rules.

The facade: open or create a campaign, run commands, read the log. See README.md and docs/api.md.
"""

__version__ = "0.1.0"

from .errors import CristalError  # noqa: E402
from .service import Campaign, init_campaign, open_campaign  # noqa: E402
from .records import RecordedEvent  # noqa: E402
from .store import Store  # noqa: E402

__all__ = ["Campaign", "CristalError", "RecordedEvent", "Store", "__version__", "init_campaign", "open_campaign"]
