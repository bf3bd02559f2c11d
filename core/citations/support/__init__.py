"""The support judge: does a verified quote support the claim it is attached to?
``judge`` decides (supports / partial / unsupported / unclear, with a reason);
``text`` cuts claims and quotes into comparable terms, ``terms`` holds the
vocabulary it compares with, and ``rules`` the checks that can doubt a match
(values, names, polarity, roles)."""
