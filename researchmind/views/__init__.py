"""Pages of the research interface. Each view: check ownership (404
otherwise) → validate a form → call a service → render (the whole page, or
a partial for htmx).

One module per idea: ``sessions``, ``content``, ``questions``, ``fanout``, ``tokens``, ``files``
(the text viewer), ``documents`` (a PDF's Page view), ``errors`` (the 404 page)."""
