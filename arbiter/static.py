"""Static files (WhiteNoise) answered with the file's bytes rather than a file iterator.

Under ASGI, Django can only consume a synchronous iterator by warning ("StreamingHttpResponse must consume
synchronous iterators") and holding a thread while it streams. The project's static files are small
(style sheets and scripts), so reading them whole is cheaper than streaming them; the headers (caching,
compression, ranges) are WhiteNoise's own.
"""

from __future__ import annotations

from django.http import HttpResponse
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    @staticmethod
    def serve(static_file, request):
        response = static_file.get_response(request.method, request.META)
        body = b""
        if response.file is not None:
            with response.file as file:
                body = file.read()
        http_response = HttpResponse(body, status=int(response.status))
        del http_response["content-type"]
        for key, value in response.headers:
            http_response[key] = value
        return http_response
