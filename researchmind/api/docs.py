"""The interactive API docs (Swagger UI) under the site's Content Security
Policy: the page's one inline script carries the request's nonce."""

from __future__ import annotations

import json

from django.http import HttpResponse
from django.template import RequestContext, Template
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override
from ninja.openapi.docs import Swagger

PAGE = Template("""{% load static %}<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{{ title }}</title>
  <link rel="stylesheet" href="{% static 'ninja/swagger-ui.css' %}">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{% static 'ninja/swagger-ui-bundle.js' %}"></script>
  <script type="application/json" id="swagger-settings">{{ settings_json|safe }}</script>
  <script nonce="{{ csp_nonce }}">
    const config = JSON.parse(document.getElementById("swagger-settings").textContent);
    config.dom_id = "#swagger-ui";
    config.presets = [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset];
    SwaggerUIBundle(config);
  </script>
</body>
</html>""")

# Swagger UI is served from django-ninja's own static files (never a CDN);
# it sets inline styles, so this one page allows them.
docs_csp = csp_override(
    {
        "default-src": [CSP.SELF],
        "script-src": [CSP.SELF, CSP.NONCE],
        "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
        "img-src": [CSP.SELF, "data:"],
        "connect-src": [CSP.SELF],
        "object-src": [CSP.NONE],
        "base-uri": [CSP.NONE],
        "frame-ancestors": [CSP.NONE],
    }
)


class ApiDocs(Swagger):
    def render_page(self, request, api, **kwargs) -> HttpResponse:
        settings = dict(self.settings, url=self.get_openapi_url(api, kwargs))
        # "</" cannot close the JSON script element early.
        settings_json = json.dumps(settings).replace("</", "<\\/")
        context = {"title": api.title, "settings_json": settings_json}
        return HttpResponse(PAGE.render(RequestContext(request, context)))
