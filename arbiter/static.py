"""Static files (WhiteNoise) answered with the file's bytes rather than a file iterator.

Under ASGI, Django can only consume a synchronous iterator by warning ("StreamingHttpResponse must consume
synchronous iterators") and holding a thread while it streams. The project's static files are small
(style sheets and scripts), so reading them whole is cheaper than streaming them; the headers (caching,
compression, ranges) are WhiteNoise's own.
"""

from __future__ import annotations

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings as django_settings
from django.http import HttpResponse
from whitenoise.middleware import WhiteNoiseMiddleware


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    """Async-capable too: under ASGI the live streams (async views) then pass through every middleware
    without a thread of their own, instead of one idle thread held per listening phone."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response=None, settings=django_settings):
        super().__init__(get_response, settings)
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)

    def __call__(self, request):
        if self.async_mode:
            return self.__acall__(request)
        return super().__call__(request)

    async def __acall__(self, request):
        static_file = self.find_file(request.path_info) if self.autorefresh else self.files.get(request.path_info)
        if static_file is not None:
            return await sync_to_async(self.serve, thread_sensitive=False)(static_file, request)
        return await self.get_response(request)

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
