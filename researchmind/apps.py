from __future__ import annotations

from django.apps import AppConfig


class ResearchMindConfig(AppConfig):
    name = "researchmind"
    verbose_name = "Research Mind"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Sign-in notes the time as Django does, but a full disk does not turn
        # it into a 500 (researchmind/signin.py). Same dispatch_uid: it replaces
        # django.contrib.auth's receiver.
        from django.contrib.auth import user_logged_in  # noqa: PLC0415 (apps are ready only here)
        from django.contrib.auth.models import update_last_login  # noqa: PLC0415 (as above)

        from researchmind.signin import note_last_login  # noqa: PLC0415 (as above)

        user_logged_in.disconnect(update_last_login, dispatch_uid="update_last_login")
        user_logged_in.connect(note_last_login, dispatch_uid="update_last_login")
