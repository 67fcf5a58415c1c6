"""The table console (``cristal play``): one campaign kept open, the CLI's own commands without
``cristal`` and ``--db``, a current fight, aliases, completion from the campaign's state, a history
beside the campaign and a bottom bar with the session and the fight (see :mod:`.session`)."""
